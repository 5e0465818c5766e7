"""The types of the defect catalogue: Defect, ValueDefect, AcceptableForm, and Catalogue.

A member is data: a name as the feature files write it, the requirement its bytes break (a
catalog ID, checked through :func:`mqcn_model.catalog.req` when the member is made, so a typo
fails at import), the errata item whose other reading admits them, a one-line description,
and a builder.  Every :class:`Defect` builds with the same signature, ``build(ids) -> bytes``,
so a scenario, a hypothesis strategy and a Spark generator can each build any member with
the identities they have.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, Literal, Protocol, TypeVar

from mqcn_model.catalog import req
from mqcn_model.codec.message import body_buffer, encode_message, v1_message
from mqcn_model.codec.propvalue import PropertyValue, encode_value
from mqcn_model.constants import PROPERTIES, VT, PropId
from mqcn_model.errata import SWITCH_OF
from mqcn_suite.scenarios.defects import twists
from mqcn_suite.scenarios.fixtures import ScenarioIds
from mqcn_suite.scenarios.messages import carrier_update

Family = Literal["version-0x01", "version-0x02", "body", "content", "value"]
FAMILIES: tuple[Family, ...] = ("version-0x01", "version-0x02", "body", "content", "value")
Build = Callable[[ScenarioIds], bytes]  # identities -> the body buffer
Transform = Callable[[bytes, VT], tuple[bytes, bool]]  # value bytes -> (broken, spare byte?)
Apply = twists.Apply  # a conforming body -> broken (None: does not fit it)


@dataclass(frozen=True, slots=True)
class Twisted:
    """A member's ``build`` written as a transformation of its conforming twin:
    ``apply(twin(ids))``.  The one definition of the defect is ``apply``; the catalogue
    builds the member with it, and a faulty client (``zoo:sends:<member>``) applies it to the
    message it was about to send (:mod:`.twists`)."""

    twin: Build
    apply: Apply

    def __call__(self, ids: ScenarioIds) -> bytes:
        broken = self.apply(self.twin(ids))
        if broken is None:
            raise ValueError("a twisted defect does not fit its own twin")
        return broken


def _check_errata(errata: str | None) -> None:
    if errata is not None and errata not in SWITCH_OF:
        raise ValueError(f"{errata!r} is not a switchable errata item ({sorted(SWITCH_OF)})")


@dataclass(frozen=True, slots=True)
class Defect:
    """One named defective message.

    ``requirement`` is the one the bytes break as :func:`mqcn_model.judge.judge` finds it
    (the first, where they break several: see ``collateral``); ``errata`` the errata item
    whose other reading admits the bytes (None: no single reading does); ``build(ids)`` the
    body buffer.
    """

    name: str
    family: Family
    requirement: str
    description: str
    build: Build = field(repr=False, compare=False)
    errata: str | None = None
    # requirements the same bytes also break: a sender's restatement of ``requirement``
    # (3.3.5.x) or a consequence of the defect (a misread layout)
    collateral: tuple[str, ...] = ()
    # what the bytes still break under the other reading of ``errata`` (which makes them
    # readable): a PathName with a lone surrogate, for one, is then no QueuePathName
    under_errata: tuple[str, ...] = ()
    # the defect shifts the layout, so the bytes after it are read as other fields and what
    # else breaks depends on the identities: ``requirement`` and ``collateral`` hold for the
    # scenarios' IDS (any other identities: the bytes are merely non-conforming)
    misaligned: bool = False
    # what a client that sends these bytes breaks besides ``breaks``, judged by the rules of
    # the sending side (mqcn_model.sending) where the bytes alone say nothing of it: a Version
    # 0x02 count other than 1 is also no count of what Data carries (MQCN-2.2.4-2); a PathName
    # with a lone surrogate is, under the reading that reads it, no longer the queue's path
    # (MQCN-3.3.5.2-7).  For an errata member these hold under every reading, so a member
    # naming its own ``requirement`` here fails it even where the errata item admits the bytes
    sender_collateral: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for requirement in (
            self.requirement,
            *self.collateral,
            *self.under_errata,
            *self.sender_collateral,
        ):
            req(requirement)
        _check_errata(self.errata)
        if self.under_errata and self.errata is None:
            raise ValueError(f"{self.name!r}: under_errata without an errata item")

    @property
    def breaks(self) -> frozenset[str]:
        """Every requirement the strict readings find broken in the built bytes."""
        return frozenset((self.requirement, *self.collateral))

    @property
    def apply(self) -> Apply | None:
        """The defect as a transformation of a conforming body (:class:`Twisted`), or None
        where the member is only its built bytes."""
        return self.build.apply if isinstance(self.build, Twisted) else None

    @property
    def twin(self) -> Build:
        """The conforming message this member breaks (its own build if it has no twin)."""
        return self.build.twin if isinstance(self.build, Twisted) else self.build


@dataclass(frozen=True, slots=True)
class ValueDefect:
    """One named way to break the wire form of one property value (2.2.3).

    ``apply(tail, vt)`` takes the value's conforming bytes (the last value of a carrier) and
    returns the broken bytes and whether the spare byte still follows them; ``breaks`` maps
    each VT the defect applies to onto the requirement the result breaks.
    """

    name: str
    breaks: Mapping[VT, str] = field(compare=False)
    description: str
    apply: Transform = field(repr=False, compare=False)
    errata: str | None = None
    family: Family = "value"
    # the broken value is still followed where the conforming one was (only its content
    # changed): the defect fits a value anywhere in a message, not only the last one
    keeps_layout: bool = False
    # what a client sending it breaks on the sending side (see Defect.sender_collateral)
    sender_collateral: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for requirement in self.breaks.values():
            req(requirement)
        _check_errata(self.errata)

    @property
    def applies_to(self) -> frozenset[VT]:
        return frozenset(self.breaks)

    def requirement_for(self, vt: VT) -> str:
        """The requirement this defect breaks in a ``vt`` value (an error if it does not apply)."""
        if vt not in self.breaks:
            known = ", ".join(sorted(v.label for v in self.breaks))
            raise UnknownDefectError(f"{self.name!r} does not apply to {vt.label} (only {known})")
        return self.breaks[vt]

    def message(self, propid: PropId, value: PropertyValue, ids: ScenarioIds) -> bytes:
        """The carrier of ``value`` as ``propid`` (:func:`~..messages.carrier_update`) with
        this defect applied to the value."""
        vt = PROPERTIES[propid].vt
        self.requirement_for(vt)
        wire = encode_message(v1_message([carrier_update(propid, value, ids)]))
        tail = encode_value(vt, value)
        assert wire.endswith(tail), "a carrier ends with the value it carries"
        new_tail, spare = self.apply(tail, vt)
        return wire[: len(wire) - len(tail)] + new_tail + (b"\x00" if spare else b"")

    def carried(self, propid: PropId, value: PropertyValue) -> Defect:
        """This defect on the carrier of ``value`` as ``propid``, as a :class:`Defect`."""
        vt = PROPERTIES[propid].vt
        build: Build = lambda ids: self.message(propid, value, ids)  # noqa: E731
        if self.keeps_layout:  # the same defect on the value wherever a message carries it
            twin: Build = lambda ids: body_buffer(v1_message([carrier_update(propid, value, ids)]))  # noqa: E731
            build = Twisted(
                twin, twists.value_bytes_replaced(propid, lambda old: self.apply(old, vt)[0])
            )
        return Defect(
            f"{propid.name} with {self.name}",
            "value",
            self.requirement_for(vt),
            f"{self.description} ({propid.name}, {vt.label})",
            build,
            self.errata,
            sender_collateral=self.sender_collateral,
        )


@dataclass(frozen=True, slots=True)
class AcceptableForm:
    """An unusual but conforming Version 0x02 body: a strict reader must act on it.

    ``errata`` names the item of docs/errata.md that says why it conforms.
    """

    name: str
    errata: str
    description: str
    build: Build = field(repr=False, compare=False)
    family: Family = "version-0x02"


class UnknownDefectError(KeyError):
    """A name no table holds; the message lists the known ones."""

    def __str__(self) -> str:
        return str(self.args[0])


class _Named(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def family(self) -> str: ...


Member = TypeVar("Member", bound=_Named)


class Catalogue(Mapping[str, Member], Generic[Member]):
    """Members by name, in the order given; names are unique, unknown names are errors."""

    def __init__(self, kind: str, members: Iterable[Member]) -> None:
        self.kind = kind
        self._members: dict[str, Member] = {}
        for member in members:
            if member.name in self._members:
                raise ValueError(f"two {kind}s named {member.name!r}")
            self._members[member.name] = member

    def __getitem__(self, name: str) -> Member:
        try:
            return self._members[name]
        except KeyError:
            raise UnknownDefectError(self.unknown(name)) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def of(self, *families: str) -> tuple[Member, ...]:
        """The members of ``families``, in catalogue order."""
        return tuple(m for m in self._members.values() if m.family in families)

    def named(self, name: str, *families: str) -> Member:
        """The member ``name``, which must belong to one of ``families`` (any if none given)."""
        member = self._members.get(name)
        if member is None or (families and member.family not in families):
            raise UnknownDefectError(self.unknown(name, *families))
        return member

    def unknown(self, name: str, *families: str) -> str:
        """The message for an unknown ``name``: the known names (of ``families``)."""
        pool = self.of(*families) if families else tuple(self._members.values())
        which = f"{'/'.join(families)} " if families else ""
        known = "; ".join(repr(m.name) for m in pool)
        return f"no {which}{self.kind} {name!r} (known: {known})"
