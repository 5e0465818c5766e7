"""PICS: what a target claims to implement, and the guard that turns the rest into N/A.

A Protocol Implementation Conformance Statement (docs/adapter-protocol.md, "PICS") says
which sides and versions of MS-MQCN a target implements, which product-behaviour profiles
it can be reset to, and whether it has a workgroup mode.  Scenarios that need anything else
are reported ``not applicable`` — they still appear in the report.  The optional
``readings`` key claims which errata readings (docs/errata.md) the target follows; it
excludes nothing — either reading passes — but the report checks the claim against what the
scenarios observe.

>>> pics = Pics.from_json(
...     {"server": {"v1": True, "v2": False}, "client": {"v1": False, "v2": False},
...      "profiles": ["spec"], "readings": ["strict"], "workgroup": False})
>>> pics.server_versions, pics.claims_client, pics.claimed_readings["E-07"]
(frozenset({1}), False, 'strict')
>>> Pics.from_json({"server": {"v1": True}, "client": {"v1": False, "v2": False},
...                 "profiles": ["spec"], "workgroup": False})
Traceback (most recent call last):
...
mqcn_suite.targets.pics.PicsError: PICS: server: 'v2' is a required property
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from mqcn_model.constants import Version
from mqcn_model.envelope import Envelope
from mqcn_model.errata import SWITCH_OF, SWITCHES
from mqcn_model.profiles import PROFILES
from mqcn_suite.targets.base import (
    ClaimNotImplemented,
    NotApplicable,
    Setup,
    Target,
    TargetWrapper,
    Unimplemented,
    layer_of,
)

if TYPE_CHECKING:  # imported where used: Spark executors import this module without it
    import jsonschema

SCHEMA_PATH = Path(__file__).with_name("adapter-protocol.schema.json")
READINGS = ("strict", "lenient", "letter")  # the short forms of a readings claim
PICS_HEADER = (
    "# PICS for mqcn-conformance (adapter protocol 1): which parts of [MS-MQCN] the target\n"
    "# implements. Scenarios outside these claims are reported 'not applicable'.\n"
    "# See docs/adapter-protocol.md, section PICS.\n"
)


class PicsError(ValueError):
    """A PICS document or file that is not what docs/adapter-protocol.md describes."""


@cache
def protocol_schema() -> dict[str, Any]:
    """The adapter protocol's JSON schema (one ``$defs`` entry per params / result / type)."""
    # through importlib.resources: on a Spark executor the package is inside a zip
    text = resources.files(__package__).joinpath(SCHEMA_PATH.name).read_text("utf-8")
    return json.loads(text)


@cache
def validator_for(pointer: str) -> jsonschema.protocols.Validator:
    """A validator for ``#/$defs/<pointer>`` of the protocol schema, e.g. ``result/state``."""
    import jsonschema

    schema = protocol_schema()
    wrapper = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{pointer}"}
    return jsonschema.Draft202012Validator(wrapper)


def schema_problem(pointer: str, value: Any) -> str | None:
    """The first way ``value`` breaks ``#/$defs/<pointer>`` (None: it conforms)."""
    import jsonschema

    error = jsonschema.exceptions.best_match(validator_for(pointer).iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def out_of_range_only(pointer: str, value: Any) -> bool:
    """Whether every way ``value`` breaks ``#/$defs/<pointer>`` is an integer attribute
    value outside its type's range (a ``state`` answer's Quota of -251526396): a value of the
    state to judge against the requirement it belongs to, not a broken adapter.

    >>> from mqcn_suite.targets.reference import ReferenceTarget
    >>> reference = ReferenceTarget()
    >>> reference.reset(Setup())
    >>> state = reference.state()
    >>> out_of_range_only("result/state", state)  # it conforms: nothing to let through
    False
    >>> state["queue_manager"]["QueueManagerQuota"] = -1
    >>> out_of_range_only("result/state", state)
    True
    >>> del state["queue_manager"]["Security"]
    >>> out_of_range_only("result/state", state)
    False
    """
    errors = list(validator_for(pointer).iter_errors(value))
    return bool(errors) and all(
        e.validator in ("minimum", "maximum")
        and isinstance(e.instance, int)
        and not isinstance(e.instance, bool)
        for e in errors
    )


@dataclass(frozen=True, slots=True)
class Pics:
    """A target's claims (see the module docstring)."""

    server_versions: frozenset[int]
    client_versions: frozenset[int]
    profiles: frozenset[str]
    workgroup: bool
    readings: tuple[tuple[str, str], ...] | None = None  # claimed (errata, reading); None: none

    @property
    def claimed_readings(self) -> dict[str, str] | None:
        """The claimed reading per errata switch (None: the PICS claims none)."""
        return dict(self.readings) if self.readings is not None else None

    @property
    def claims_server(self) -> bool:
        return bool(self.server_versions)

    @property
    def claims_client(self) -> bool:
        return bool(self.client_versions)

    @classmethod
    def from_json(cls, data: Any) -> Pics:
        """Validate ``data`` against the schema's ``pics`` and build the claims."""
        if isinstance(data, dict):
            known = protocol_schema()["$defs"]["pics"]["properties"]
            unknown = sorted(set(data) - set(known))
            if unknown:
                raise PicsError(
                    f"PICS: unknown capability {', '.join(map(repr, unknown))} "
                    f"(known: {', '.join(known)})"
                )
        problem = schema_problem("pics", data)
        if problem is not None:
            raise PicsError(f"PICS: {problem}")
        return cls(
            server_versions=frozenset(v for v in (1, 2) if data["server"][f"v{v}"]),
            client_versions=frozenset(v for v in (1, 2) if data["client"][f"v{v}"]),
            profiles=frozenset(data["profiles"]),
            workgroup=bool(data["workgroup"]),
            readings=_claimed_readings(data.get("readings")),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "server": {f"v{v}": v in self.server_versions for v in (1, 2)},
            "client": {f"v{v}": v in self.client_versions for v in (1, 2)},
            "profiles": sorted(self.profiles),
            "workgroup": self.workgroup,
            **({"readings": _readings_json(self.readings)} if self.readings is not None else {}),
        }

    def to_yaml(self) -> str:
        """The PICS file text (YAML, with a header saying what it is)."""
        return PICS_HEADER + yaml.safe_dump(self.to_json(), sort_keys=False)


EVERYTHING = Pics(
    server_versions=frozenset({1, 2}),
    client_versions=frozenset({1, 2}),
    profiles=frozenset(PROFILES),
    workgroup=True,
)


def _readings_json(claims: tuple[tuple[str, str], ...]) -> list[str] | dict[str, str]:
    """The short form (``[strict]``, ``[letter]``) when the claims are exactly that, else a map."""
    for short in ("strict", "letter", "lenient"):
        if claims == _everywhere(short):
            return [short]
    return dict(claims)


def _everywhere(short: str) -> tuple[tuple[str, str], ...]:
    """What ``readings: [short]`` claims: ``strict`` the suite's reading of every switch,
    ``letter`` the letter of every switch, ``lenient`` the other reading of every binary one."""
    if short == "strict":
        return tuple((s.errata, s.suite) for s in SWITCHES)
    if short == "letter":
        return tuple((s.errata, s.letter) for s in SWITCHES)
    return tuple((s.errata, "lenient") for s in SWITCHES if s.binary)


def _claimed_readings(value: Any) -> tuple[tuple[str, str], ...] | None:
    """The PICS ``readings`` value as (errata, reading) pairs, or None.

    ``[strict]`` / ``[letter]`` / ``[lenient]`` claim that reading everywhere (see
    :func:`_everywhere`); several, or no key, claim nothing; a map claims the items it names.
    """
    if value is None:
        return None
    if isinstance(value, list):
        if len(set(value)) != 1:
            return None
        return _everywhere(value[0])
    unknown = sorted(set(value) - set(SWITCH_OF))
    if unknown:
        raise PicsError(
            f"PICS: readings: {', '.join(unknown)} is not a switchable errata item "
            f"(switchable: {', '.join(SWITCH_OF)})"
        )
    for errata, reading in value.items():
        if reading not in SWITCH_OF[errata].names:
            raise PicsError(
                f"PICS: readings: {errata}: {reading!r} is not one of its readings "
                f"({', '.join(SWITCH_OF[errata].names)})"
            )
    return tuple(sorted(value.items()))


def load_pics(path: Path) -> Pics:
    """Read a PICS file (YAML or JSON); :class:`PicsError` naming the file on any problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PicsError(f"cannot read the PICS file {path}: {exc.strerror or exc}") from None
    try:
        data = yaml.safe_load(text)  # JSON is YAML
    except yaml.YAMLError as exc:
        raise PicsError(f"{path}: not YAML or JSON: {exc}") from None
    try:
        return Pics.from_json(data)
    except PicsError as exc:
        raise PicsError(f"{path}: {exc}") from None


def pics_of(target: Target) -> Pics:
    """What ``target`` claims: its ``pics()`` if it has one, else everything."""
    claims = getattr(target, "pics", None)
    if claims is None:
        return EVERYTHING
    value = claims() if callable(claims) else claims
    return value if isinstance(value, Pics) else Pics.from_json(value)


class ClaimsGuard(TargetWrapper):
    """A :class:`Target` wrapper that refuses, as *not applicable*, what ``pics`` excludes,
    and holds the target to what it includes.

    Every call goes to ``inner``; before it, the guard raises :class:`NotApplicable` when the
    scenario needs a claim the PICS does not make (docs/adapter-protocol.md lists the rules).
    A call it forwards is one a claimed part needs: when the target answers it
    ``not-implemented`` (:class:`~mqcn_suite.targets.base.Unimplemented`, or a Python
    target's :class:`NotImplementedError`) the guard raises
    :class:`~mqcn_suite.targets.base.ClaimNotImplemented` naming the PICS entry -- the claim is
    broken, never *not applicable*.

    >>> class Nothing:
    ...     name = "nothing"
    ...     def reset(self, setup): pass
    ...     def start_server(self): raise NotImplementedError
    >>> only_v1 = Pics(frozenset({1}), frozenset(), frozenset({"spec"}), False)
    >>> try:
    ...     ClaimsGuard(Nothing(), only_v1).start_server()
    ... except ClaimNotImplemented as broken:
    ...     print(broken.claim, broken.call)
    server.v1 start_server
    """

    def __init__(self, inner: Target, pics: Pics) -> None:
        super().__init__(inner)
        self.pics = pics
        self._setup = Setup()
        self._server_claim: str | None = None  # the version a delivery needed, once known

    def _forward(self, claim: str, call: str, *args: Any) -> Any:
        """``inner.call(*args)``; a ``not-implemented`` answer breaks ``claim``."""
        try:
            return getattr(self.inner, call)(*args)
        except Unimplemented as exc:
            raise ClaimNotImplemented(claim, exc.call, exc.why) from None
        except NotImplementedError as exc:
            raise ClaimNotImplemented(claim, call, str(exc)) from None

    @property
    def server_claim(self) -> str:
        """The PICS entry a server-side call serves: the Version this scenario delivered
        (``server.v1``), else every server Version claimed (``server.v1, server.v2``)."""
        if self._server_claim is not None:
            return self._server_claim
        return ", ".join(f"server.v{v}" for v in sorted(self.pics.server_versions)) or "server"

    def reset(self, setup: Setup) -> None:
        if setup.profile not in self.pics.profiles:
            raise NotApplicable(f"the target does not claim product profile {setup.profile!r}")
        if setup.workgroup and not self.pics.workgroup:
            raise NotApplicable("the target does not claim a workgroup mode")
        self._setup = setup
        self._server_claim = None
        claimed = [f"server.v{v}" for v in sorted(self.pics.server_versions)]
        claimed += [f"client.v{v}" for v in sorted(self.pics.client_versions)]
        self._forward(", ".join(claimed) or "nothing", "reset", setup)

    def start_server(self) -> dict[str, Any] | None:
        if not self.pics.claims_server:
            raise NotApplicable("the target claims no server side")
        return self._forward(self.server_claim, "start_server")

    def admit(self, envelope: Envelope, setup: Setup | None = None) -> None:
        """Raise :class:`NotApplicable` when delivering ``envelope`` needs a server Version
        the PICS does not claim (called before the scenario starts the server side and reads
        the state it starts from; ``setup``: the scenario's, before ``reset`` is called)."""
        if not self.pics.claims_server:
            raise NotApplicable("the target claims no server side")
        version = envelope.body[0] if envelope.body else None
        profile = PROFILES.get((setup or self._setup).profile)
        processed = version in (Version.DIRECTORY_SERVICE, Version.QUEUE_MANAGER) and (
            profile is None or profile.accepts(version)
        )
        if processed and version not in self.pics.server_versions:
            raise NotApplicable(f"the target does not claim server side version {version}")
        if processed:
            self._server_claim = f"server.v{version}"

    def deliver(self, envelope: Envelope) -> None:
        self.admit(envelope)
        self._forward(self.server_claim, "deliver", envelope)

    def advance_clock(self, seconds: float) -> None:
        self._forward(self.server_claim, "advance_clock", seconds)

    def state(self) -> dict[str, Any]:
        return self._forward(self.server_claim, "state")

    def directory_reads(self) -> list[dict[str, Any]]:
        return self._forward(self.server_claim, "directory_reads")

    def _client_version(self) -> int:
        if self._setup.client_version is not None:
            return self._setup.client_version
        profile = PROFILES.get(self._setup.profile)
        return int(profile.sends_version) if profile else 2

    def start_client(self, destination: uuid.UUID) -> dict[str, Any] | None:
        version = self._client_version()
        if version not in self.pics.client_versions:
            raise NotApplicable(f"the target does not claim client side version {version}")
        return self._forward(f"client.v{version}", "start_client", destination)

    def send_change_notification(
        self, operation: str, object_id: uuid.UUID, changed: list[str]
    ) -> list[Envelope]:
        version = self._client_version()
        if version not in self.pics.client_versions:
            raise NotApplicable(f"the target does not claim client side version {version}")
        return self._forward(
            f"client.v{version}", "send_change_notification", operation, object_id, changed
        )

    def end_scenario(self) -> None:
        """The scenario is over (a transport-mode target closes its sessions)."""
        end = getattr(self.inner, "end_scenario", None)
        if callable(end):
            end()

    def close(self) -> None:
        self.inner.close()


def admit_delivery(target: Target, envelope: Envelope, setup: Setup | None = None) -> None:
    """The PICS guard's :meth:`ClaimsGuard.admit` of ``envelope``, where ``target`` has one."""
    guard = layer_of(target, ClaimsGuard)
    if guard is not None:
        guard.admit(envelope, setup)
