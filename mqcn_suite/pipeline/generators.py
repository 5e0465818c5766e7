"""Deterministic message generators shared by ``corpus generate`` and ``fuzz``.

Everything here is plain Python driven by one :class:`random.Random`, so a (seed, row) pair
always yields the same bytes, whichever Spark partition, machine or Python process draws it.
Hypothesis strategies (:mod:`mqcn_suite.strategies`) are the right tool inside tests, but they
cannot be replayed from a bare integer, so the pipeline uses these twins instead:

* **valid** messages come from :mod:`mqcn_model.builders` (the same conforming builders the
  tests, the vectors and the client model use): the four Version 0x01 update kinds of 3.3.5.2
  (queue creation, queue update, machine update, queue deletion) and the four Version 0x02
  events of 2.2.5, with every PROPID the spec's property lists allow; together they carry
  every PROPVALUE type a PROPID can have on the wire (I2, I4, UI1, UI4, LPWSTR, BLOB, CLSID,
  CLSID|VECTOR -- the other seven VTs of 2.2.3 belong to no PROPID of 2.2.2.1);
* **malformed or non-conforming** messages come from what the negative tests use: byte
  mutations of valid messages (the operators of ``tests/test_fuzz.py``), the catalogue of
  named defects that the scenarios and the hypothesis strategies draw from too
  (:mod:`mqcn_suite.scenarios.defects`: lying counts, Versions, Commands, UseGuid, VTs,
  body tokens, encodings, trailing data, broken values, content-rule violations…, built
  with identities of the population) and the invalid reference vectors, themselves sometimes
  mutated.

Nothing here judges anything: the audit and the fuzzer do that with :func:`mqcn_model.judge`.

>>> rng = random.Random("doc")
>>> population = Population.from_seed(1)
>>> kind, message = valid_message(rng, population)
>>> from mqcn_model.judge import judge
>>> judge(body_buffer(message)).conforming
True
"""

from __future__ import annotations

import json
import random
import struct
import uuid
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mqcn_model import builders
from mqcn_model.codec import ChangeNotificationMessage, NotificationUpdate, body_buffer
from mqcn_model.constants import (
    MACHINE_UPDATE_IGNORED,
    MACHINE_UPDATE_MODIFIABLE,
    PROPERTIES,
    QUEUE_UPDATE_MODIFIABLE,
    SCOPES,
    VT,
    AuthLevel,
    Event,
    PropId,
    SenderIdType,
    Version,
    notify_queue_format_name,
)
from mqcn_model.envelope import Envelope, MessageId
from mqcn_suite.locations import bundled_root
from mqcn_suite.pipeline.byte_mutations import CORPUS_OPERATORS, BytewiseDraw, mutate_once
from mqcn_suite.scenarios.defects import FAMILIES, Defect, every_defect
from mqcn_suite.scenarios.fixtures import ScenarioIds
from mqcn_suite.scenarios.messages import (
    creation_of,
    deletion_with,
    distinctive_creation,
    without_property,
)
from mqcn_suite.scenarios.vocabulary import pair_from_text

P = PropId
_UINT32 = (1 << 32) - 1

# --- the population the messages talk about ------------------------------------------------


def random_guid(rng: random.Random) -> uuid.UUID:
    """A GUID of 128 random bits (not necessarily RFC 4122 version 4, as on the wire)."""
    return uuid.UUID(int=rng.getrandbits(128))


@dataclass(frozen=True)
class Population:
    """The machines and queues a corpus (or a fuzz run) talks about.

    ``directory_services`` send Version 0x01 messages, ``queue_managers`` send Version 0x02
    ones and receive both; ``queues`` are the objects changed; ``domain_controllers`` appear
    in Version 0x02 bodies.  A small fixed population makes the corpus look like a real enterprise
    (the same few senders again and again) and lets the fuzzer aim at objects its target knows.
    """

    directory_services: tuple[uuid.UUID, ...]
    queue_managers: tuple[uuid.UUID, ...]
    queues: tuple[uuid.UUID, ...]
    domain_controllers: tuple[str, ...]
    computers: tuple[str, ...]

    @classmethod
    def from_seed(
        cls, seed: int, *, services: int = 16, managers: int = 200, queues: int = 2000
    ) -> Population:
        """The population of ``seed`` (string-seeded, so independent of PYTHONHASHSEED)."""
        rng = random.Random(f"mqcn-world:{seed}")
        return cls(
            directory_services=tuple(random_guid(rng) for _ in range(services)),
            queue_managers=tuple(random_guid(rng) for _ in range(managers)),
            queues=tuple(random_guid(rng) for _ in range(queues)),
            domain_controllers=tuple(f"dc{i:02d}.corp{seed % 7}.example.com" for i in range(8)),
            computers=tuple(f"host{i:03d}" for i in range(managers)),
        )


# --- conforming values -------------------------------------------------------------------------

_QUEUE_CHARS = "".join(chr(c) for c in range(0x21, 0x80) if chr(c) not in '\\;+,"')
_LABEL_CHARS = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.éüß日本語"


def _text(rng: random.Random, alphabet: str, low: int, high: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


def pathname(rng: random.Random, population: Population) -> str:
    """A QueuePathName of [MS-MQMQ] 2.1.1 (public or private) on one of the population's hosts."""
    computer = rng.choice(population.computers)
    queue = _text(rng, _QUEUE_CHARS, 1, 24)
    return f"{computer}\\private$\\{queue}" if rng.random() < 0.3 else f"{computer}\\{queue}"


def label(rng: random.Random) -> str:
    return _text(rng, _LABEL_CHARS, 0, 40)


def multicast(rng: random.Random) -> str:
    octets = [rng.randint(224, 239), rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)]
    return ".".join(map(str, octets)) + f":{rng.randint(0, 65535)}"


def security_descriptor(rng: random.Random) -> bytes:
    return builders.minimal_security_descriptor(rng.choice((0x0004, 0x0000, 0x0010, 0x1004)))


def ta_addresses(rng: random.Random) -> bytes:
    """A packed TA_ADDRESS array: one to three IPv4 (type 1, port + address) entries."""
    out = b""
    for _ in range(rng.randint(1, 3)):
        address = struct.pack(">H", rng.randint(1, 65535)) + bytes(
            rng.randrange(256) for _ in "1234"
        )
        out += struct.pack("<HH", len(address), 1) + address
    return out


def conforming_value(rng: random.Random, pid: PropId, population: Population) -> object:
    """A value both the wire type and the [MS-MQMQ] rule of ``pid`` allow."""
    definition = PROPERTIES[pid]
    if definition.allowed:
        return rng.choice(definition.allowed)
    if pid in (P.PROPID_Q_SECURITY, P.PROPID_QM_SECURITY):
        return security_descriptor(rng)
    if pid == P.PROPID_QM_ADDRESS:
        return ta_addresses(rng)
    if pid == P.PROPID_QM_CNS:
        return tuple(random_guid(rng) for _ in range(rng.randint(0, 3)))
    if pid == P.PROPID_QM_MACHINE_TYPE:
        return rng.choice(("Windows Server 2019", "Windows 10", "MSMQ 6.3", ""))
    vt = definition.vt
    if vt is VT.I2:
        return rng.randint(-(1 << 15), (1 << 15) - 1)
    if vt is VT.I4:
        return rng.randint(1_500_000_000, 1_800_000_000)
    if vt is VT.UI4:
        return rng.choice((_UINT32, rng.randint(0, _UINT32), rng.randint(0, 1 << 20)))
    if vt is VT.CLSID:
        return random_guid(rng)
    raise ValueError(f"no conforming generator for {pid.name}")  # pragma: no cover


# --- conforming updates and messages -------------------------------------------------------------


def queue_creation(rng: random.Random, population: Population) -> NotificationUpdate:
    """A conforming queue creation (15 properties, sometimes a multicast address too)."""
    extra = [(P.PROPID_Q_MULTICAST_ADDRESS, multicast(rng))] if rng.random() < 0.2 else []
    return builders.queue_creation(
        rng.choice(population.queues),
        pathname(rng, population),
        master=rng.choice(population.directory_services),
        extra=extra,
        label=label(rng),
        queue_type=random_guid(rng) if rng.random() < 0.5 else None,
        base_priority=rng.randint(-(1 << 15), (1 << 15) - 1),
        journal=rng.choice(PROPERTIES[P.PROPID_Q_JOURNAL].allowed),
        quota=rng.choice((_UINT32, rng.randint(0, _UINT32))),
        journal_quota=rng.choice((_UINT32, rng.randint(0, _UINT32))),
        create_time=rng.randint(1_500_000_000, 1_800_000_000),
        modify_time=rng.randint(1_500_000_000, 1_800_000_000),
        scope=rng.choice(SCOPES),
        security=security_descriptor(rng),
        authenticate=rng.choice(PROPERTIES[P.PROPID_Q_AUTHENTICATE].allowed),
        priv_level=rng.choice(PROPERTIES[P.PROPID_Q_PRIV_LEVEL].allowed),
        transaction=rng.choice(PROPERTIES[P.PROPID_Q_TRANSACTION].allowed),
    )


def _changes(
    rng: random.Random, allowed: Sequence[PropId], population: Population
) -> list[tuple[int, object]]:
    chosen = rng.sample(list(allowed), rng.randint(1, len(allowed)))
    return [(pid, conforming_value(rng, pid, population)) for pid in chosen]


def queue_update(rng: random.Random, population: Population) -> NotificationUpdate:
    """A conforming queue update: PROPID_Q_QMID, then some modifiable properties."""
    return builders.queue_update(
        rng.choice(population.queues),
        rng.choice(population.queue_managers),
        _changes(rng, QUEUE_UPDATE_MODIFIABLE, population),  # type: ignore[arg-type]
        master=rng.choice(population.directory_services),
    )


def machine_update(rng: random.Random, population: Population) -> NotificationUpdate:
    """A conforming machine update: MACHINE_ID, FOREIGN, then modifiable/ignored properties."""
    return builders.machine_update(
        rng.choice(population.queue_managers),
        _changes(rng, MACHINE_UPDATE_MODIFIABLE + MACHINE_UPDATE_IGNORED, population),  # type: ignore[arg-type]
        master=rng.choice(population.directory_services),
        foreign=rng.choice(PROPERTIES[P.PROPID_QM_FOREIGN].allowed),
    )


def queue_deletion(rng: random.Random, population: Population) -> NotificationUpdate:
    return builders.queue_deletion(
        rng.choice(population.queues), master=rng.choice(population.directory_services)
    )


UPDATE_KINDS: dict[str, Callable[[random.Random, Population], NotificationUpdate]] = {
    "queue-creation": queue_creation,
    "queue-update": queue_update,
    "machine-update": machine_update,
    "queue-deletion": queue_deletion,
}


def valid_message(
    rng: random.Random, population: Population
) -> tuple[str, ChangeNotificationMessage]:
    """A conforming message of either version; the first item names its kind."""
    if rng.random() < 0.5:
        kinds = [rng.choice(list(UPDATE_KINDS)) for _ in range(rng.choice((1, 1, 1, 2, 3, 4)))]
        updates = [UPDATE_KINDS[k](rng, population) for k in kinds]
        return "v1:" + "+".join(dict.fromkeys(kinds)), builders.v1_message(updates)
    event = rng.choice(list(Event))
    target = population.queue_managers if event is Event.CHANGE_MACHINE else population.queues
    message = builders.v2_notification(
        event, rng.choice(target), rng.choice(population.domain_controllers)
    )
    return f"v2:{event.name.lower().replace('_', '-')}", message


# --- malformed and non-conforming messages -------------------------------------------------------


def mutate(rng: random.Random, buf: bytes, rounds: int | None = None) -> bytes:
    """Apply 1-4 of the corpus's byte mutations (:data:`~.byte_mutations.CORPUS_OPERATORS`)
    to ``buf``, drawn from ``rng``."""
    data = bytearray(buf)
    draw = BytewiseDraw(rng)
    for _ in range(rounds if rounds is not None else rng.randint(1, 4)):
        mutate_once(data, draw, CORPUS_OPERATORS)
    return bytes(data)


def catalogue_ids(rng: random.Random, population: Population) -> ScenarioIds:
    """Identities for a builder of the defect catalogue, drawn from ``population``."""
    return ScenarioIds(
        queue=rng.choice(population.queues),
        new_queue=rng.choice(population.queues),
        qm=rng.choice(population.queue_managers),
        master=rng.choice(population.directory_services),
        computer=rng.choice(population.computers),
        server=rng.choice(population.domain_controllers),
    )


# The catalogue by family, in catalogue order (a stable order: draws replay by seed).
DEFECTS_BY_FAMILY: dict[str, tuple[Defect, ...]] = {
    family: tuple(d for d in every_defect() if d.family == family) for family in FAMILIES
}


def defective_message(rng: random.Random, population: Population) -> tuple[Defect, bytes]:
    """A member of the catalogue of named defects (:mod:`mqcn_suite.scenarios.defects`) built
    with identities of ``population``: a family first, then a member of it, so that a large family
    (the Version 0x02 body's) does not crowd out a small one (the content rules')."""
    family = rng.choice(FAMILIES)
    defect = rng.choice(DEFECTS_BY_FAMILY[family])
    return defect, defect.build(catalogue_ids(rng, population))


@lru_cache(maxsize=1)
def reference_vectors() -> tuple[tuple[bytes, str], ...]:
    """Every ChangeNotificationMessageTest ``msg`` of ``reference_vectors/`` with its result.

    Read once per process from the checkout, or from the copy an installed wheel carries
    (:mod:`mqcn_suite.locations`) -- or, on a Spark executor, from the zip the driver shipped
    (:mod:`.shipping`), which holds the very files the driver sees, beside ``mqcn_suite/``.
    """
    beside = Path(__file__).resolve().parents[2] / "reference_vectors"  # a checkout, the zip
    texts = _vector_texts(beside) or _vector_texts(bundled_root() / "reference_vectors")
    found: list[tuple[bytes, str]] = []
    for text in texts:
        try:
            document = json.loads(text)
        except ValueError:
            continue
        for group in document.get("testGroups", []):
            if group.get("type") != "ChangeNotificationMessageTest":
                continue
            for test in group.get("tests", []):
                found.append((bytes.fromhex(test["msg"]), str(test["result"])))
    return tuple(found)


def _vector_texts(root: Path) -> list[str]:
    """The text of every ``*_test.json`` in ``root``, a folder or a folder inside a zip."""
    archive = root.parent
    if archive.is_file() and zipfile.is_zipfile(archive):
        folder = zipfile.Path(archive, f"{root.name}/")
        if not folder.is_dir():
            return []
        entries = sorted(folder.iterdir(), key=lambda entry: entry.name)
        return [e.read_text("utf-8") for e in entries if e.name.endswith("_test.json")]
    texts = []
    for path in sorted(root.glob("*_test.json")):
        try:
            texts.append(path.read_text("utf-8"))
        except OSError:
            continue
    return texts


MALFORMED_FAMILIES = ("mutation", "defect", "vector")
# how often each family is drawn: the catalogue took the place of two families of recipes
# (lying scapy layers, content-rule violations), and keeps their share
MALFORMED_WEIGHTS = (1, 2, 1)


def malformed_message(rng: random.Random, population: Population) -> tuple[str, bytes]:
    """A malformed or non-conforming message body; the first item names the family
    (``mutation``, ``defect:<name in the catalogue>``, ``vector``, ``vector-mutation``).

    Mutations can (rarely) land on a conforming message: the audit judges, it does not trust
    the label.
    """
    family = rng.choices(MALFORMED_FAMILIES, MALFORMED_WEIGHTS)[0]
    vectors = reference_vectors()
    if family == "vector" and vectors:
        buf, result = rng.choice(vectors)
        if result == "valid" or rng.random() < 0.3:
            return "vector-mutation", mutate(rng, buf)
        return "vector", buf
    if family == "defect":
        defect, body = defective_message(rng, population)
        return f"defect:{defect.name}", body
    _, message = valid_message(rng, population)
    return "mutation", mutate(rng, body_buffer(message, rng.randrange(256)))


# --- messages only the readings of an errata item decide ---------------------------------------

# (PropertyId[0], PropertyId[1]) of a deletion whose PropertyValue[1] is 1 (MQDS_QUEUE) though
# PropertyId[1] is no PROPID_D_OBJTYPE: where its object type comes from is errata E-12
E12_PAIRS = (
    ("PROPID_D_SCOPE", "PROPID_Q_JOURNAL"),
    ("PROPID_D_SCOPE", "PROPID_D_SCOPE"),
    ("PROPID_D_OBJTYPE", "PROPID_D_SCOPE"),
    ("PROPID_D_OBJTYPE", "PROPID_Q_QUOTA"),
)


def reading_message(
    rng: random.Random, population: Population
) -> tuple[str, ChangeNotificationMessage]:
    """A Version 0x01 message whose effect only the reading of one errata item decides, and
    that neither the valid builders nor the catalogue of defects make: ``reading:E-12`` (a
    deletion whose PropertyId[1] is not PROPID_D_OBJTYPE, with the value 1) or ``reading:E-22``
    (a queue creation without PROPID_Q_INSTANCE).  Other items' cases come from the other
    families (a creation of a queue the target owns, E-24; a machine update naming another
    queue manager, E-23; a lone surrogate, E-07)."""
    ids = catalogue_ids(rng, population)
    if rng.random() < 0.5:
        first, second = rng.choice(E12_PAIRS)
        pairs = [pair_from_text(first, "1"), pair_from_text(second, "1")]
        return "reading:E-12", builders.v1_message([deletion_with(ids.queue, pairs, ids.master)])
    pairs = without_property(distinctive_creation(ids), PropId.PROPID_Q_INSTANCE)
    return "reading:E-22", builders.v1_message([creation_of(ids, pairs)])


# --- envelopes ------------------------------------------------------------------------------------


def envelope(
    rng: random.Random,
    population: Population,
    body: bytes,
    sequence: int,
    arrival: float,
    *,
    anomalies: float = 0.06,
) -> Envelope:
    """The MSMQ message around ``body``: sender, authentication, destination, arrival.

    Version 0x01 messages come from a directory service, everything else from a queue manager.
    A share ``anomalies`` of the envelopes carries what makes a conforming server disregard a
    Version 0x01 message (3.2.5.1): a sender type other than QueueManagerIdentifier, or an
    AuthenticationLevel of None.
    """
    v1 = bool(body) and body[0] == Version.DIRECTORY_SERVICE
    sender = rng.choice(population.directory_services if v1 else population.queue_managers)
    sender_type = SenderIdType.QueueManagerIdentifier
    auth = rng.choice((AuthLevel.Sig20, AuthLevel.Sig20, AuthLevel.Sig30, AuthLevel.Always))
    draw = rng.random()
    if draw < anomalies / 2:
        auth = AuthLevel.None_
    elif draw < anomalies:
        sender_type = rng.choice((SenderIdType.Sid, SenderIdType.None_))
    destination = rng.choice(population.queue_managers)
    return Envelope(
        body=body,
        message_id=MessageId(sender, sequence & _UINT32),
        sender_identifier=None if sender_type is SenderIdType.None_ else sender,
        sender_identifier_type=sender_type,
        authentication_level=auth,
        destination_format_name=notify_queue_format_name(str(destination)),
        arrival_time=arrival,
    )


def row_rng(seed: int, row: int) -> random.Random:
    """The generator of one row: depends on (seed, row) only, never on the partitioning."""
    return random.Random(f"mqcn:{seed}:{row}")


__all__ = [
    "MALFORMED_FAMILIES",
    "MALFORMED_WEIGHTS",
    "UPDATE_KINDS",
    "Population",
    "catalogue_ids",
    "defective_message",
    "envelope",
    "malformed_message",
    "mutate",
    "reference_vectors",
    "row_rng",
    "valid_message",
]
