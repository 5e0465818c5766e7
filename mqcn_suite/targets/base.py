"""The one interface every target implements, and the data that crosses it.

Steps (features/ and steps/) only ever talk to a :class:`Target`.  Everything that crosses
the interface is JSON-shaped (GUIDs as text, bytes as hex, enums by name), so that an adapter
for an implementation in another language can speak it over a pipe (docs/adapter-protocol.md).

What the suite asks of a target:

* ``reset(setup)``            — forget everything; become the queue manager / directory described
* ``start_server()``          — run 3.2.3; report the Open Queue the server raised (or none)
* ``deliver(envelope)``       — a message arrives on the notification queue
* ``advance_clock(seconds)``  — move the target's virtual clock (batching profiles)
* ``state()``                 — the queue manager's attributes and queue collection
* ``directory_reads()``       — every Read Directory the target made, in order
* ``start_client(...)``       — run 3.3.3 towards a destination; report the Open Queue
* ``send_change_notification(operation, object_id, changed)`` — 3.3.4.1; the messages emitted
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from mqcn_model.envelope import Envelope

_Layer = TypeVar("_Layer")


class TargetError(RuntimeError):
    """The target could not be reached, answered nonsense, or was named wrongly."""


class TargetBroken(TargetError):
    """The target crashed, hung, or answered what the adapter protocol forbids.

    Raised inside a scenario it makes the scenario's verdict ``error``; the message carries
    what the report needs to understand why (the target's last stderr lines, the exchange).
    """


class TargetTimeout(TargetBroken):
    """The target did not answer a call within its time limit (``--mqcn-timeout``).

    Consecutive timeouts stop the run (``--mqcn-max-timeouts``): a hung target costs seconds.
    """


class NotApplicable(Exception):
    """The scenario needs something the target does not claim (its PICS) or implement.

    The target's own exception, not pytest's: targets run where pytest is not installed
    (the Spark executors of ``mqcn fuzz``).  The plugin turns it into a pytest skip whose
    reason starts with ``not applicable`` (:func:`mqcn_suite.plugin.not_applicable_is_a_skip`):
    the report's verdict for it.
    """

    def __init__(self, why: str) -> None:
        super().__init__(f"not applicable: {why}")


class Unimplemented(Exception):
    """The target answered that it does not implement ``call`` (the adapter protocol's
    ``not-implemented``; a Python target raises it or :class:`NotImplementedError`).

    Not a verdict by itself: the PICS guard (:class:`~mqcn_suite.targets.pics.ClaimsGuard`)
    only forwards calls that a claimed part needs, and turns this into
    :class:`ClaimNotImplemented` naming that claim.
    """

    def __init__(self, call: str, why: str = "") -> None:
        self.call = call
        self.why = why
        super().__init__(f"the target does not implement {call}" + (f": {why}" if why else ""))


class ClaimNotImplemented(Exception):
    """A call that a part the target claims (its PICS or ``hello``) needs answered
    ``not-implemented``: the claim is broken, which is the scenario's ``claim-fail`` -- never
    *not applicable*, which is only for what the PICS says is not implemented.

    ``claim`` names the PICS entry (``server.v1``, ``client.v2``, ``server``…), ``call`` the
    adapter call that answered ``not-implemented``.
    """

    def __init__(self, claim: str, call: str, why: str = "") -> None:
        self.claim = claim
        self.call = call
        self.why = why
        said = f" ({why})" if why and why != call else ""
        super().__init__(
            f"claimed but not implemented: the target claims {claim} (its PICS), "
            f"yet answers not-implemented to {call}{said}"
        )


@dataclass
class Setup:
    """The known state a scenario starts from (JSON form in :meth:`to_json`)."""

    qm_guid: uuid.UUID = field(
        default_factory=lambda: uuid.UUID("6f1c3a9e-2b4d-4c5e-8f70-1a2b3c4d5e6f")
    )
    computer: str = "qm1.example.com"
    profile: str = "spec"
    readings: str = "strict"
    workgroup: bool = False
    qm_attributes: dict[str, Any] = field(default_factory=dict)
    queues: list[dict[str, Any]] = field(default_factory=list)
    directory_queues: list[dict[str, Any]] = field(
        default_factory=list
    )  # {"owner": guid, "queue": {...}}
    directory_queue_managers: list[dict[str, Any]] = field(default_factory=list)
    client_identifier: uuid.UUID = field(
        default_factory=lambda: uuid.UUID("0d5e3c1f-7a6b-4e8d-9c2f-3b4a5d6e7f80")
    )
    client_version: int | None = None
    client_server_name: str = "dc1.example.com"
    # LDAP mode (docs/directory.md): where the target reads the directory, else None; and the
    # DomainController names the scenario's messages carry, to give each a server of its own
    ldap: dict[str, Any] | None = None
    directory_servers: list[str] = field(default_factory=list)
    # LDAP mode only, never sent to the target: ADM attributes left out of an object's entry
    # (Identifier text -> names), and the server's condition once the directory is written
    # ({"down": True} or {"delay": seconds}; None: answering at once)
    directory_absent: dict[str, list[str]] = field(default_factory=dict)
    directory_condition: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "qm_guid": str(self.qm_guid),
            "computer": self.computer,
            "profile": self.profile,
            "readings": self.readings,
            "workgroup": self.workgroup,
            "qm_attributes": self.qm_attributes,
            "queues": self.queues,
            "directory": {
                "queues": self.directory_queues,
                "queue_managers": self.directory_queue_managers,
                **({"ldap": self.ldap} if self.ldap is not None else {}),
            },
            "client": {
                "identifier": str(self.client_identifier),
                "version": self.client_version,
                "server_name": self.client_server_name,
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Setup:
        """Inverse of :meth:`to_json` (the ``reset`` params of the adapter protocol)."""
        directory = data.get("directory", {})
        client = data.get("client", {})
        return cls(
            qm_guid=uuid.UUID(data["qm_guid"]),
            computer=data["computer"],
            profile=data["profile"],
            readings=data["readings"],
            workgroup=bool(data["workgroup"]),
            qm_attributes=dict(data.get("qm_attributes", {})),
            queues=list(data.get("queues", [])),
            directory_queues=list(directory.get("queues", [])),
            directory_queue_managers=list(directory.get("queue_managers", [])),
            client_identifier=uuid.UUID(client["identifier"]),
            client_version=client.get("version"),
            client_server_name=client.get("server_name", ""),
            ldap=directory.get("ldap"),
        )


@runtime_checkable
class Target(Protocol):
    """What a conformance target offers the suite (see module docstring)."""

    name: str

    def reset(self, setup: Setup) -> None: ...

    def start_server(self) -> dict[str, Any] | None: ...

    def deliver(self, envelope: Envelope) -> None: ...

    def advance_clock(self, seconds: float) -> None: ...

    def state(self) -> dict[str, Any]: ...

    def directory_reads(self) -> list[dict[str, Any]]: ...

    def start_client(self, destination: uuid.UUID) -> dict[str, Any] | None: ...

    def send_change_notification(
        self, operation: str, object_id: uuid.UUID, changed: list[str]
    ) -> list[Envelope]: ...

    def close(self) -> None: ...


def layer_of(target: Any, kind: type[_Layer]) -> _Layer | None:
    """The ``kind`` among ``target`` and the targets it wraps (``inner``, ``inner.inner``…):
    the transport mode behind a PICS guard, say; None when there is none."""
    while target is not None:
        if isinstance(target, kind):
            return target
        target = vars(target).get("inner") if hasattr(target, "__dict__") else None
    return None


class TargetWrapper:
    """A target in front of another, ``inner`` (the PICS guard, transport mode): the calls a
    wrapper does not change pass through as they are."""

    def __init__(self, inner: Target) -> None:
        self.inner = inner
        self.name = inner.name

    def advance_clock(self, seconds: float) -> None:
        self.inner.advance_clock(seconds)

    def state(self) -> dict[str, Any]:
        return self.inner.state()

    def directory_reads(self) -> list[dict[str, Any]]:
        return self.inner.directory_reads()
