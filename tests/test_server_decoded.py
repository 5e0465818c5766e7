"""``NotificationServer.deliver(envelope, decoded)``: handing the judge's decode on changes nothing.

The audit judges every body first and gives the server what the judge decoded
(:attr:`mqcn_model.judge.Verdict.decoded`) instead of letting it decode again.  These tests
hold that to the promise in ``deliver``'s docstring: for any body -- conforming, defective,
or random bytes -- and any envelope, the record is the same with and without ``decoded``,
under both readings and for a batching product profile too.
"""

from __future__ import annotations

import copy
import gc
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqcn_model import server as server_module
from mqcn_model.adm import Queue
from mqcn_model.builders import machine_update, queue_creation, queue_update, v2_notification
from mqcn_model.codec import body_buffer
from mqcn_model.codec.message import v1_message
from mqcn_model.codec.update import NotificationUpdate
from mqcn_model.constants import (
    QM_ATTRIBUTE_OF,
    QUEUE_ATTRIBUTE_OF,
    SERVER_QM_UPDATE_SETS,
    SERVER_QUEUE_CREATE_SETS,
    SERVER_QUEUE_UPDATE_SETS,
    AuthLevel,
    PropId,
    SenderIdType,
)
from mqcn_model.directory import InMemoryDirectory
from mqcn_model.envelope import Envelope, MessageId
from mqcn_model.errata import LENIENT, STRICT, Readings
from mqcn_model.errors import DecodeError
from mqcn_model.judge import judge
from mqcn_model.profiles import PROFILES
from mqcn_model.server import Effect, NotificationServer, QueueManager
from mqcn_suite.strategies import conforming_messages, defective_messages

READINGS = st.sampled_from([STRICT, LENIENT])
BODIES = st.one_of(
    conforming_messages().map(body_buffer),
    defective_messages().map(lambda pair: pair[1]),
    st.binary(max_size=300),
)
MASTER = uuid.UUID(int=2)
ENVELOPES = st.tuples(st.sampled_from(list(SenderIdType)), st.sampled_from(list(AuthLevel)))


def _server(readings: Readings, profile: str | None = None) -> NotificationServer:
    options = {} if profile is None else {"profile": PROFILES[profile]}
    server = NotificationServer(
        QueueManager(uuid.UUID(int=7)),
        InMemoryDirectory(),
        computer="qm",
        readings=readings,
        **options,
    )
    server.initialize()
    return server


def _envelope(body: bytes, kind: SenderIdType, level: AuthLevel) -> Envelope:
    return Envelope(
        body,
        MessageId(uuid.UUID(int=9), 1),
        sender_identifier_type=kind,
        authentication_level=level,
    )


@settings(max_examples=300, deadline=None)
@given(body=BODIES, readings=READINGS, sender=ENVELOPES)
def test_deliver_with_the_judges_decode_gives_the_same_record(
    body: bytes, readings: Readings, sender: tuple[SenderIdType, AuthLevel]
) -> None:
    envelope = _envelope(body, *sender)
    alone = _server(readings).deliver(envelope)
    handed = _server(readings).deliver(envelope, judge(body, readings).decoded)
    assert handed == alone


def test_an_undecodable_body_hands_on_the_decoders_own_error() -> None:
    verdict = judge(bytes.fromhex("0300"))
    assert isinstance(verdict.decoded, DecodeError)
    assert verdict.decoded.violation == verdict.violations[0]
    record = _server(STRICT).deliver(
        _envelope(b"\x03\x00", SenderIdType.QueueManagerIdentifier, AuthLevel.Sig20),
        verdict.decoded,
    )
    assert record.outcome == "disregarded"
    assert record.disregarded_by == verdict.violations[0].requirement


def test_a_batching_profile_keeps_the_decode_until_its_timer_fires() -> None:
    batching = [name for name, profile in PROFILES.items() if profile.batching]
    assert batching, "the product profiles should include one that batches (note <3>)"
    body = body_buffer(v2_notification(3, uuid.UUID(int=5), "dc.example"))
    envelope = _envelope(body, SenderIdType.QueueManagerIdentifier, AuthLevel.Sig20)
    alone, handed = _server(STRICT, batching[0]), _server(STRICT, batching[0])
    assert alone.deliver(envelope).outcome == "deferred"
    assert handed.deliver(envelope, judge(body).decoded).outcome == "deferred"
    assert handed.advance(3600) == alone.advance(3600)


def test_a_handed_decode_is_not_decoded_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of ``decoded``: the audit decodes each body once (issue 12)."""
    body = body_buffer(v2_notification(3, uuid.UUID(int=5), "dc.example"))
    verdict = judge(body)
    assert verdict.decoded is verdict.message  # the judge's own object, not a copy or None
    envelope = _envelope(body, SenderIdType.QueueManagerIdentifier, AuthLevel.Sig20)
    expected = _server(STRICT).deliver(envelope)

    def second_decode(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the server decoded a body it was handed decoded")

    monkeypatch.setattr(server_module, "decode_message", second_decode)
    assert _server(STRICT).deliver(envelope, verdict.decoded) == expected


def test_an_undecodable_body_leaves_no_reference_cycle() -> None:
    """The handed decode error is not raised again: raising it made a cycle (its traceback held
    the frame whose local held it), freed only by the garbage collector, per bad message."""
    verdict = judge(bytes.fromhex("0300"))
    server = _server(STRICT)
    envelope = _envelope(b"\x03\x00", SenderIdType.QueueManagerIdentifier, AuthLevel.Sig20)
    gc.collect()
    gc.disable()
    try:
        for _ in range(10):
            assert server.deliver(envelope, verdict.decoded).outcome == "disregarded"
        assert gc.collect() == 0  # nothing unreachable: refcounting freed it all
    finally:
        gc.enable()


PROPIDS = st.sampled_from([*map(int, PropId), 0x7777])


@settings(max_examples=200, deadline=None)
@given(propids=st.lists(PROPIDS, max_size=20), values=st.integers(0, 9))
def test_the_settable_attributes_are_set_as_indexof_reads_them(
    propids: list[int], values: int
) -> None:
    """The server's one-pass ``_set_attributes`` equals 3.2.5.1's loop over its list with
    IndexOf: the same attributes, set from the same (first) property, named in list order."""
    update = NotificationUpdate.change(
        uuid.UUID(int=3), [(pid, values + i) for i, pid in enumerate(propids)], master=MASTER
    )
    lists = (
        (server_module._QUEUE_CREATE_SETS, SERVER_QUEUE_CREATE_SETS, QUEUE_ATTRIBUTE_OF),
        (server_module._QUEUE_UPDATE_SETS, SERVER_QUEUE_UPDATE_SETS, QUEUE_ATTRIBUTE_OF),
        (server_module._QM_UPDATE_SETS, SERVER_QM_UPDATE_SETS, QM_ATTRIBUTE_OF),
    )
    for pairs, sets, attribute_of in lists:
        assert pairs == tuple((int(p), attribute_of[p]) for p in sets)
        target: Queue | QueueManager = (
            QueueManager(uuid.UUID(int=7)) if sets is SERVER_QM_UPDATE_SETS else Queue(MASTER)
        )
        expected, names = copy.deepcopy(target), []
        for propid in sets:  # the letter of 3.2.5.1: IndexOf, per PROPID of the list
            index = update.index_of(propid)
            if index >= 0:
                setattr(expected, attribute_of[propid], update.properties[index].value)
                names.append(attribute_of[propid])
        assert server_module._set_attributes(target, update, pairs) == names
        assert target == expected


def test_the_settable_lists_set_and_ignore_as_3_2_5_1_says() -> None:
    """A creation, a queue update and a machine update, each with a property its list does not
    set: the attributes set, one ``ignore-property`` effect per other property (naming it and
    the rule's requirement) and the closing ``dequeue`` of 3.2.5 -- the whole record."""
    queue, qm = uuid.UUID(int=0x51), uuid.UUID(int=7)
    extra = (int(PropId.PROPID_Q_QMID), qm)  # on no settable list of a queue
    creation = queue_creation(queue, "qm\\orders", master=MASTER, extra=[extra])
    update = queue_update(queue, qm, [(PropId.PROPID_Q_QUOTA, 5)], master=MASTER)
    machine = machine_update(
        qm, [(PropId.PROPID_QM_QUOTA, 9), (PropId.PROPID_QM_OS, 3)], master=MASTER
    )
    server = _server(STRICT)
    body = body_buffer(v1_message([creation, update, machine]))
    record = server.deliver(_envelope(body, SenderIdType.QueueManagerIdentifier, AuthLevel.Sig20))
    ignored = [
        (e.detail["name"], e.requirement) for e in record.effects if e.kind == "ignore-property"
    ]
    assert ignored == [
        ("PROPID_Q_QMID", server_module.R_CREATE),
        ("PROPID_Q_QMID", server_module.R_QUEUE_UPDATE_IGNORED),
        ("PROPID_QM_MACHINE_ID", server_module.R_QM_UPDATE_IGNORED),
        ("PROPID_QM_FOREIGN", server_module.R_QM_UPDATE_IGNORED),
        ("PROPID_QM_OS", server_module.R_QM_UPDATE_IGNORED),
    ]
    assert [e.kind for e in record.effects if e.kind != "ignore-property"] == [
        "create-queue",
        "update-queue",
        "update-queue-manager",
        "dequeue",
    ]
    assert record.effects[-1] == Effect("dequeue", server_module.R_LOOP)
    created = server.qm.QueueCollection[queue]
    assert (created.Pathname, created.Quota, server.qm.QueueManagerQuota) == ("qm\\orders", 5, 9)
    made = next(e for e in record.effects if e.kind == "create-queue")
    assert made.detail["attributes"] == [QUEUE_ATTRIBUTE_OF[p] for p in SERVER_QUEUE_CREATE_SETS]


def test_set_queue_defaults_leaves_the_nil_type_on_every_new_queue() -> None:
    """A new Queue's Type is the nil GUID ([MS-MQDMPR] 3.1.7.1.33, the [MS-MQMQ] default); the
    one UUID object every new Queue shares (a UUID is immutable) is that nil GUID."""
    first, second = Queue.with_defaults(uuid.UUID(int=1)), Queue(uuid.UUID(int=2))
    assert first.Type == second.Type == uuid.UUID(int=0)
    assert first.Type.int == 0
