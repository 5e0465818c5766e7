"""Product-behaviour profiles: which Windows behaviour of section 6 an implementation follows.

``spec`` is the specification's main text with no product choices (the default of the
reference target); the others follow the notes of section 6 for a Windows generation.

>>> PROFILES["windows-2000"].accepts(2)
False
>>> PROFILES["spec"].batching
False
"""

from __future__ import annotations

from dataclasses import dataclass

from mqcn_model.constants import AuthLevel, HashAlgorithm, Version


@dataclass(frozen=True, slots=True)
class ProductProfile:
    """The product choices a queue manager makes (notes <1>-<14>)."""

    name: str
    msmq_version: str
    batching: bool  # <3>/<14>: delay processing (1 min / rest of 15 min, >=100 -> full refresh)
    accepted_versions: frozenset[int]  # <4>: which senders' messages are processed
    sends_version: int  # <1>/<2>/<5>/<9>: who notifies (DS: v1; queue manager: v2)
    authentication_level: AuthLevel  # 3.3.5.3 Sig20; <13>: MSMQ 1.0 uses Sig10
    hash_algorithm: HashAlgorithm  # <12>, errata E-16
    workgroup_opens_notification_queue: bool  # <8>
    passes_directory_extras: bool = False  # <11>: a v1 machine update carries ignored extras

    def accepts(self, version: int) -> bool:
        return version in self.accepted_versions

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "msmq_version": self.msmq_version,
            "batching": self.batching,
            "accepted_versions": sorted(self.accepted_versions),
            "sends_version": self.sends_version,
            "authentication_level": self.authentication_level.name,
            "hash_algorithm": self.hash_algorithm.name,
            "workgroup_opens_notification_queue": self.workgroup_opens_notification_queue,
            "passes_directory_extras": self.passes_directory_extras,
        }


_BOTH = frozenset({Version.DIRECTORY_SERVICE, Version.QUEUE_MANAGER})
_DS_ONLY = frozenset({Version.DIRECTORY_SERVICE})

PROFILES: dict[str, ProductProfile] = {
    p.name: p
    for p in (
        ProductProfile(
            "spec",
            "6.0",
            False,
            _BOTH,
            Version.QUEUE_MANAGER,
            AuthLevel.Sig20,
            HashAlgorithm.SHA512,
            True,
        ),
        ProductProfile(
            "windows-nt4",
            "1.0",
            False,
            _DS_ONLY,
            Version.DIRECTORY_SERVICE,
            AuthLevel.Sig10,
            HashAlgorithm.MD5,
            True,
            True,
        ),
        ProductProfile(
            "windows-2000",
            "2.0",
            False,
            _DS_ONLY,
            Version.DIRECTORY_SERVICE,
            AuthLevel.Sig20,
            HashAlgorithm.MD5,
            True,
            True,
        ),
        ProductProfile(
            "windows-xp-2003",
            "3.0",
            True,
            _BOTH,
            Version.QUEUE_MANAGER,
            AuthLevel.Sig20,
            HashAlgorithm.SHA1,
            True,
        ),
        ProductProfile(
            "windows-vista-2008r2",
            "4.0",
            True,
            _BOTH,
            Version.QUEUE_MANAGER,
            AuthLevel.Sig20,
            HashAlgorithm.SHA1,
            False,
        ),
        ProductProfile(
            "windows-8-later",
            "6.0",
            True,
            _BOTH,
            Version.QUEUE_MANAGER,
            AuthLevel.Sig20,
            HashAlgorithm.SHA512,
            False,
        ),
    )
}
DEFAULT_PROFILE = PROFILES["spec"]
