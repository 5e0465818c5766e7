"""quick_init: the faster __init__ of frozen slotted dataclasses keeps every behaviour of the
one dataclasses writes (mqcn_model/frozen.py; the capture records, Envelope, MessageId,
MessageJudgement and the server's Effect and ProcessingRecord use it)."""

from __future__ import annotations

import copy
import inspect
import pickle
from dataclasses import FrozenInstanceError, InitVar, dataclass, field, replace

import pytest

from mqcn_model.capture.records import Packet, Quarantine, StreamEnd, Where
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.frozen import quick_init
from mqcn_model.server import Effect, ProcessingRecord
from mqcn_model.wire.judgement import MessageJudgement


def _twins() -> tuple[type, type]:
    """The same frozen dataclass twice: with the dataclasses __init__ and with quick_init."""

    def make() -> type:
        @dataclass(frozen=True, slots=True)
        class Record:
            name: str
            size: int = 4
            frames: tuple[int, ...] = ()
            notes: list[str] = field(default_factory=list)
            where: str | None = None

        return Record

    return make(), quick_init(make())


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        (("a",), {}),
        (("a", 5), {}),
        (("a", 5, (1, 2), ["x"], "w"), {}),
        ((), {"name": "b", "where": "w"}),
        (("c",), {"notes": ["n"], "size": 0}),
    ],
)
def test_quick_init_builds_what_the_dataclass_init_builds(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    plain, quick = _twins()
    a, b = plain(*args, **kwargs), quick(*args, **kwargs)
    assert repr(a).replace("Record", "") == repr(b).replace("Record", "")
    assert [getattr(a, n) for n in a.__slots__] == [getattr(b, n) for n in b.__slots__]
    assert b == quick(*args, **kwargs) and b != quick("other")


def test_a_default_factory_makes_a_new_value_each_time() -> None:
    _, quick = _twins()
    first, second = quick("a"), quick("a")
    assert first.notes == [] and first.notes is not second.notes


def test_quick_init_keeps_the_class_frozen_hashable_picklable_and_replaceable() -> None:
    where = Where("c.pcap", "a -> b", 16, 32, (3, 4), 1.5, 2.5)
    with pytest.raises(FrozenInstanceError):
        where.size = 1  # type: ignore[misc]
    assert hash(where) == hash(Where("c.pcap", "a -> b", 16, 32, (3, 4), 1.5, 2.5))
    assert pickle.loads(pickle.dumps(where)) == where
    assert copy.deepcopy(where) == where
    assert replace(where, offset=0) == Where("c.pcap", "a -> b", 0, 32, (3, 4), 1.5, 2.5)
    assert repr(where) == (
        "Where(capture='c.pcap', stream='a -> b', offset=16, size=32, frames=(3, 4), "
        "time_first=1.5, time_last=2.5)"
    )
    quarantine = Quarantine(where, "not-msmq", "detail")
    assert quarantine.requirement is None and Packet(where, "SessionAck").note == ""
    with pytest.raises(TypeError):
        Where("c.pcap")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        StreamEnd(where, 1, 2)  # type: ignore[call-arg]


def test_the_signature_is_the_dataclass_one() -> None:
    parameters = inspect.signature(Where).parameters
    assert list(parameters) == [
        "capture",
        "stream",
        "offset",
        "size",
        "frames",
        "time_first",
        "time_last",
    ]
    assert parameters["frames"].default == () and parameters["size"].default is inspect._empty
    assert Where.__init__.__qualname__ == "Where.__init__"
    assert Where.__init__.__module__ == "mqcn_model.capture.records"


def test_envelope_default_factory_and_its_users() -> None:
    first, second = Envelope(b"\x02\x01"), Envelope(b"\x02\x01")
    assert first.message_id == MessageId(first.message_id.sender, 1)
    assert first.message_id is not second.message_id
    assert first.with_(arrival_time=3.0).arrival_time == 3.0
    assert Envelope.from_json(first.to_json()) == first
    judgement = MessageJudgement(None, "q", False, None, (), (), None)  # type: ignore[arg-type]
    assert judgement.findings == () and judgement == replace(judgement)
    with pytest.raises(FrozenInstanceError):
        judgement.destination = "r"  # type: ignore[misc]


def test_the_server_records_keep_their_defaults_and_stay_frozen() -> None:
    """Effect and ProcessingRecord are built for every message the audit delivers: the quick
    __init__ keeps the detail factory (a new dict each time), the defaults and the order."""
    first, second = Effect("dequeue"), Effect("dequeue")
    assert first.requirement is None and first.detail == {} and first.detail is not second.detail
    assert Effect("disregard", "MQCN-1.7-1", {"reason": "r"}).detail == {"reason": "r"}
    assert "_set_kind" in Effect.__init__.__code__.co_names
    record = ProcessingRecord("{x}\\1", "disregarded", (Effect("disregard", "R"),), "why")
    assert (record.effects, record.reason) == ((Effect("disregard", "R"),), "why")
    assert record.disregarded_by == "R" and ProcessingRecord("m", "processed").effects == ()
    assert "_set_message_id" in ProcessingRecord.__init__.__code__.co_names
    assert pickle.loads(pickle.dumps(record)) == record
    with pytest.raises(FrozenInstanceError):
        record.outcome = "processed"  # type: ignore[misc]


def test_quick_init_refuses_what_it_cannot_keep() -> None:
    @dataclass(slots=True)
    class NotFrozen:
        x: int

    @dataclass(frozen=True)
    class NoSlots:
        x: int

    @dataclass(frozen=True, slots=True)
    class PostInit:
        x: int

        def __post_init__(self) -> None:
            pass

    @dataclass(frozen=True, slots=True, kw_only=True)
    class KeywordOnly:
        x: int

    @dataclass(frozen=True, slots=True)
    class NotInInit:
        x: int
        y: int = field(default=0, init=False)

    @dataclass(frozen=True, slots=True)
    class WithInitVar:
        x: int
        y: InitVar[int] = 0

    for cls in (NotFrozen, NoSlots, PostInit, KeywordOnly, NotInInit, WithInitVar, int):
        with pytest.raises(TypeError):
            quick_init(cls)


def test_a_class_without_fields() -> None:
    @quick_init
    @dataclass(frozen=True, slots=True)
    class Empty:
        pass

    assert Empty() == Empty() and repr(Empty()) == "test_a_class_without_fields.<locals>.Empty()"


def test_the_class_gets_the_quick_init_with_the_dataclass_annotations() -> None:
    """The class's ``__init__`` is the one quick_init wrote (it sets each slot through its
    descriptor, ``_set_<name>``), annotated as the dataclass's own.  (The mutants that keep
    the dataclass ``__init__``, the same records only slower, or drop its annotations.)"""
    plain, quick = _twins()
    assert quick.__init__ is not plain.__init__
    assert "_set_name" in quick.__init__.__code__.co_names
    assert "_set_name" not in plain.__init__.__code__.co_names
    assert quick.__init__.__annotations__ == plain.__init__.__annotations__
    assert quick.__init__.__annotations__  # (the twins' own are not empty)
    assert quick.__init__.__doc__ == plain.__init__.__doc__
