"""Every errata item of docs/errata.md, the readings this suite takes, and the letter.

Where MS-MQCN (or the MSMQ wire documents, or the directory documents of LDAP mode) is
inconsistent or silent, :data:`ERRATA` holds one :class:`Item` per ID (E-01..E-25,
W-01..W-10, D-01..D-20): its topic, the suite's reading, *the letter* (what an implementer who
does exactly what the words say does), and either the :class:`Switch` that accepts the other
readings or why the words admit one behaviour only.

A switch has named readings, the suite's own first; a binary switch keeps the names
``strict`` and ``lenient``.  :class:`Readings` holds one value per switch: a ``bool`` field for
a binary switch (True = ``lenient``), a ``str`` field naming the reading otherwise.
``STRICT`` (the suite's readings) is the default everywhere; ``LENIENT`` accepts the other
reading of every binary switch (what ``mqcn decode --lenient`` judges with); ``LETTER``
follows the letter of every item.

>>> LENIENT.objectguid_close_with_space, STRICT.objectguid_close_with_space
(True, False)
>>> LETTER.reading_of("E-24"), STRICT.reading_of("E-24"), LETTER.reading_of("E-14")
('replace', 'keep', 'strict')
>>> following("E-24=merge").reading_of("E-24")
'merge'
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True, slots=True)
class Readings:
    """Which reading of each errata switch is followed (``bool``: True = ``lenient``)."""

    objectguid_close_with_space: bool = False  # E-01: "</ObjectGuid >" as the ABNF spells it
    trailing_data: bool = False  # E-05: bytes after the last update beyond the spare byte
    lone_surrogates: bool = False  # E-07: unpaired UTF-16 surrogates in VT_LPWSTR / PathName
    pathname_msmq10_charset: bool = False  # E-10: MSMQ 1.0 QueueName characters (+ , ")
    extra_update_propids: bool = False  # E-11: PROPIDs beyond the lists of 3.3.5.2
    deletion_object_type: str = "named"  # E-12: named | positional
    shallow_value_checks: bool = False  # E-13: only the wire type of BLOB/URL/address values
    disregard_whole_message: bool = False  # E-14: a v1 disregard also undoes earlier updates
    note12_hashes: bool = False  # E-16: note <12>'s MSMQ 2.0 may hash with SHA-1 too
    creation_without_instance: str = "nothing"  # E-22: nothing | nil-identifier
    foreign_machine_update: str = "unchanged"  # E-23: unchanged | local
    existing_queue_creation: str = "keep"  # E-24: keep | replace | merge | disregard

    @property
    def is_strict(self) -> bool:
        return self == STRICT

    def describe(self) -> dict[str, bool | str]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def reading_of(self, errata: str) -> str:
        """The name of the reading followed for switch ``errata``."""
        value = getattr(self, switch_of(errata).field)
        if isinstance(value, bool):
            return "lenient" if value else "strict"
        return value

    def with_reading(self, errata: str, name: str) -> Readings:
        """These readings with switch ``errata`` set to its reading ``name``."""
        switch = switch_of(errata)
        if name not in switch.names:
            raise ValueError(
                f"{name!r} is not a reading of {errata}; one of {', '.join(switch.names)}"
            )
        value: bool | str = name == "lenient" if switch.binary else name
        return replace(self, **{switch.field: value})


@dataclass(frozen=True, slots=True)
class Switch:
    """One errata item where implementations may reasonably differ (docs/errata.md).

    ``readings`` pairs each reading's name with what an implementation following it does, in
    a phrase; the first is the suite's own.  ``letter`` names the reading that does what the
    words say.  The report names the reading a target was seen to follow.  ``judging_only``
    switches change only how the suite judges bytes a sender took from its directory: no
    conforming implementation chooses between them, so no scenario can observe which one it
    follows (docs/errata.md says why for each).
    """

    errata: str
    field: str
    topic: str
    readings: tuple[tuple[str, str], ...]
    letter: str
    judging_only: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.readings)

    @property
    def suite(self) -> str:
        """The suite's own reading (the default of ``STRICT``)."""
        return self.readings[0][0]

    @property
    def others(self) -> tuple[str, ...]:
        """Every reading but the suite's own."""
        return self.names[1:]

    @property
    def binary(self) -> bool:
        return self.names == READING_NAMES

    def phrase(self, name: str) -> str:
        return dict(self.readings)[name]

    @property
    def strict(self) -> str:
        """What the suite's reading does (kept for callers of the binary switches)."""
        return self.readings[0][1]

    @property
    def lenient(self) -> str:
        """What the first other reading does."""
        return self.readings[1][1]

    @property
    def flipped(self) -> Readings:
        """The suite's readings with this item at its letter (or, where the letter is the
        suite's reading, at its first other reading)."""
        name = self.letter if self.letter != self.suite else self.others[0]
        return STRICT.with_reading(self.errata, name)


READING_NAMES = ("strict", "lenient")
READING_SEPARATOR = "|"  # an observation that fits several readings names them all: keep|merge


def _binary(
    errata: str,
    field: str,
    topic: str,
    strict: str,
    lenient: str,
    letter: str,
    judging_only: bool = False,
) -> Switch:
    return Switch(
        errata, field, topic, (("strict", strict), ("lenient", lenient)), letter, judging_only
    )


SWITCHES: tuple[Switch, ...] = (
    _binary(
        "E-01",
        "objectguid_close_with_space",
        "</ObjectGuid > in the ABNF vs </ObjectGuid> in the template (2.2.5)",
        "only </ObjectGuid> closes the GUID element",
        "</ObjectGuid > as the ABNF spells it is accepted (and may be sent)",
        "lenient",
    ),
    _binary(
        "E-05",
        "trailing_data",
        "bytes after the announced updates beyond the spare byte (2.2.4, 3.3.5.3)",
        "at most the one spare byte follows the structure",
        "more bytes after the announced updates are ignored (and may be sent)",
        "strict",
    ),
    _binary(
        "E-07",
        "lone_surrogates",
        "unpaired UTF-16 surrogates in VT_LPWSTR and PathName (2.2.3.10, 2.2.6)",
        "a lone surrogate makes the string malformed",
        "any 16-bit unit is a character, as the glossary says (the unit is kept)",
        "lenient",
    ),
    _binary(
        "E-10",
        "pathname_msmq10_charset",
        'QueueName character set of MSMQ 1.0 (+ , ") in path names (2.2.6, [MS-MQMQ] 2.1.1)',
        "QueueName uses the MSMQ 2.0 and later set",
        'the MSMQ 1.0 set (with + , ") is accepted',
        "lenient",
        judging_only=True,
    ),
    _binary(
        "E-11",
        "extra_update_propids",
        "properties beyond the lists of 3.3.5.2 (note <11>)",
        "an update carries only the listed PROPIDs",
        "other known PROPIDs may ride along (the server ignores them)",
        "strict",
    ),
    Switch(
        "E-12",
        "deletion_object_type",
        "where a deletion's object type comes from (3.2.5.1)",
        (
            (
                "named",
                "the object type is PropertyValue[1] only where PropertyId[1] is "
                "PROPID_D_OBJTYPE; otherwise the deletion is disregarded",
            ),
            ("positional", "the object type is PropertyValue[1] whatever PropertyId[1] is"),
        ),
        "positional",
    ),
    _binary(
        "E-13",
        "shallow_value_checks",
        "depth of [MS-MQMQ] checks of descriptors, addresses, URLs (3.3.5.2)",
        "the outer structure of each value is checked",
        "only the wire type of those values is checked",
        "strict",
        judging_only=True,
    ),
    _binary(
        "E-14",
        "disregard_whole_message",
        "what disregarding a Version 0x01 message undoes (3.2.5.1)",
        "updates before the disregarded one stay applied",
        "none of the message's updates stays applied (all or nothing)",
        "strict",
    ),
    _binary(
        "E-16",
        "note12_hashes",
        "HashAlgorithm of MSMQ 2.0: the table of [MS-MQMQ] note <7> or note <12> (3.3.5.3)",
        "MSMQ 2.0 hashes with MD5",
        "MSMQ 2.0 may hash with SHA-1, as note <12> also lists version 2 under SHA1",
        "strict",
    ),
    Switch(
        "E-22",
        "creation_without_instance",
        "a queue creation without PROPID_Q_INSTANCE (3.2.5.1)",
        (
            ("nothing", "the creation names no queue: nothing is created"),
            ("nil-identifier", "the queue is created with the default (nil GUID) Identifier"),
        ),
        "nil-identifier",
    ),
    Switch(
        "E-23",
        "foreign_machine_update",
        "a machine update that names another queue manager (3.2.5.1, 3.2.5.2)",
        (
            ("unchanged", "the local queue manager is left unchanged"),
            ("local", "the local queue manager is updated, as the words say"),
        ),
        "local",
    ),
    Switch(
        "E-24",
        "existing_queue_creation",
        "a creation of a queue the queue manager already has (3.2.5.1, 3.2.5.2)",
        (
            ("keep", "the existing queue is kept unchanged; the message goes on"),
            (
                "replace",
                "the queue is created afresh from the defaults and what the creation "
                "carries, replacing the existing one",
            ),
            ("merge", "what the creation carries is set on the existing queue"),
            ("disregard", "the message is disregarded from that update on"),
        ),
        "replace",
    ),
)
SWITCH_OF: dict[str, Switch] = {s.errata: s for s in SWITCHES}


def switch_of(errata: str) -> Switch:
    """The switch of ``errata``; ValueError naming the switchable items otherwise."""
    try:
        return SWITCH_OF[errata]
    except KeyError:
        raise ValueError(
            f"{errata!r} is not a switchable errata item; one of {', '.join(SWITCH_OF)}"
        ) from None


STRICT = Readings()
LENIENT = Readings(**{s.field: True for s in SWITCHES if s.binary})
LETTER = Readings(**{s.field: (s.letter == "lenient" if s.binary else s.letter) for s in SWITCHES})


def following(*errata: str) -> Readings:
    """The suite's readings with the named items changed: ``E-07`` to its other reading (for
    a switch with several, to the letter, or the first other reading where the letter is the
    suite's), ``E-24=merge`` to the reading named, ``letter`` to the letter everywhere.

    >>> following("E-07").lone_surrogates, following("E-07").trailing_data
    (True, False)
    >>> following("letter", "E-14=lenient").reading_of("E-14")
    'lenient'
    """
    readings = STRICT
    for spec in errata:
        if spec == "letter":
            readings = replace(
                LETTER, **{s.field: getattr(readings, s.field) for s in _changed(readings)}
            )
            continue
        errata_id, _, name = spec.partition("=")
        switch = switch_of(errata_id)
        name = name or switch.flipped.reading_of(errata_id)
        readings = readings.with_reading(errata_id, name)
    return readings


def _changed(readings: Readings) -> list[Switch]:
    """The switches ``readings`` sets away from the suite's reading."""
    return [s for s in SWITCHES if getattr(readings, s.field) != getattr(STRICT, s.field)]


def followed(readings: Readings) -> dict[str, str]:
    """Which reading ``readings`` takes for every switch: ``{"E-01": "strict", ...}``."""
    return {s.errata: readings.reading_of(s.errata) for s in SWITCHES}


def spelt(readings: Readings) -> str:
    """``readings`` as a target suffix: the changed items (``E-07,E-24=merge``), or relative
    to the letter where that is shorter (``letter``, ``letter,E-14``).

    >>> spelt(LETTER), spelt(following("E-07", "E-24=merge")), spelt(STRICT)
    ('letter', 'E-07,E-24=merge', '')
    >>> spelt(following("letter", "E-14")), spelt(following("letter", "E-01=strict"))
    ('letter,E-14', 'letter,E-01=strict')
    """
    from_suite = [_spell(readings, s) for s in _changed(readings)]
    from_letter = [
        _spell(readings, s)
        for s in SWITCHES
        if getattr(readings, s.field) != getattr(LETTER, s.field)
    ]
    if from_suite and len(from_letter) + 1 < len(from_suite):
        return ",".join(["letter", *from_letter])
    return ",".join(from_suite)


def _spell(readings: Readings, switch: Switch) -> str:
    """One item of :func:`spelt`: ``E-07`` where :func:`following` reads the bare ID back as
    this reading, else ``E-24=merge``."""
    name = readings.reading_of(switch.errata)
    if name == switch.flipped.reading_of(switch.errata):
        return switch.errata
    return f"{switch.errata}={name}"


# --- the registry: every item, switched or justified ---------------------------------------


@dataclass(frozen=True, slots=True)
class Item:
    """One errata item: what the suite reads, what the words alone make an implementer do
    (the letter), and the switch accepting the other readings — or, with none, why the words
    admit one behaviour only (``why_no_switch``).  docs/errata.md states the same."""

    id: str
    topic: str
    reading: str
    letter: str
    switch: Switch | None = None
    why_no_switch: str | None = None

    def __post_init__(self) -> None:
        if (self.switch is None) == (self.why_no_switch is None):
            raise ValueError(f"{self.id}: an item has a switch or says why it has none")


def _item(id_: str, topic: str, reading: str, letter: str, why: str | None = None) -> Item:
    return Item(id_, topic, reading, letter, SWITCH_OF.get(id_), why)


ERRATA: dict[str, Item] = {
    item.id: item
    for item in (
        _item(
            "E-01",
            "`</ObjectGuid >` in the ABNF vs `</ObjectGuid>` in the template",
            "the template's `</ObjectGuid>`",
            "the ABNF is the grammar: `</ObjectGuid >` with the space is accepted and may be sent.",
        ),
        _item(
            "E-02",
            "Case of ABNF literals and hex digits",
            "tags and hexadecimal digits match in any case",
            "RFC 5234 makes quoted ABNF strings case-insensitive: any case matches.",
            "the suite's reading is what RFC 5234 says the ABNF means; no other behaviour "
            "follows the words.",
        ),
        _item(
            "E-03",
            "NUL terminator and BOM of the Notification Body string",
            "one trailing U+0000 is accepted and ignored, none required; a BOM breaks MQCN-2.2.5-5",
            "a body with or without one U+0000 terminator (the glossary allows both), never a BOM.",
            "the suite's reading already accepts both forms the glossary allows; a BOM is "
            "excluded by the glossary itself, so every behaviour the words admit passes.",
        ),
        _item(
            "E-04",
            "GUID comment with 13 digits in the last group",
            "the rule governs: 8-4-4-4-12",
            "the ABNF rule `12HEXDIG` governs; the comment beside it is no rule.",
            "only the rule is normative grammar; a 13-digit group matches no rule, so one "
            "behaviour follows the words.",
        ),
        _item(
            "E-05",
            "Bytes after the structure beyond the spare byte",
            "at most the spare byte follows the structure",
            "a sender puts nothing after the announced updates but the spare byte (2.2.4 counts "
            "every update in Data); a receiver reads the announced updates.",
        ),
        _item(
            "E-06",
            "[MS-MQMQ] sections cited two ways",
            "the PROPID values of 2.2.2.1 govern",
            "the PROPID numbers 2.2.2.1 lists are what travels; a citation names no number.",
            "the bytes carry the 2.2.2.1 values whichever section is cited; the citations "
            "change no behaviour.",
        ),
        _item(
            "E-07",
            "Unpaired UTF-16 surrogates in strings",
            "a lone surrogate breaks MQCN-2.2.3.10-2 / MQCN-2.2.6-4",
            "the glossary's Unicode character is any 16-bit code unit: a lone surrogate is a "
            "character and is kept as that unit.",
        ),
        _item(
            "E-08",
            "A Version 1 message that fails to parse part-way",
            "a message that does not decode is disregarded whole",
            "3.2.5 parses the whole body before any processing: a body that does not parse is "
            "never processed, and the loop goes on.",
            "parsing comes before processing in 3.2.5, so no update of a body that fails to "
            "parse is ever reached; applying a prefix would process an unparsed message.",
        ),
        _item(
            "E-09",
            "PROPIDs that [MS-MQMQ] defines but 2.2.2.1 does not list",
            "an unknown PROPID stops decoding (MQCN-2.2.2-1)",
            "a receiver walks past a value only by its type, which the wire does not carry.",
            "a value of unknown type cannot be skipped, so no reader can go on past it; there "
            "is one behaviour (E-08 then disregards the message).",
        ),
        _item(
            "E-10",
            "QueuePathName character set and the `Computer` rule",
            "the MSMQ 2.0+ QueueName set",
            "[MS-MQMQ] 2.1.1 gives the QueueName set per MSMQ version, the MSMQ 1.0 one included.",
        ),
        _item(
            "E-11",
            "Properties beyond the lists of 3.3.5.2",
            "only the listed PROPIDs",
            "a sender carries the properties 3.3.5.2 lists; a receiver ignores others (3.2.5.1).",
        ),
        _item(
            "E-12",
            "Where a deletion's object type comes from",
            "PropertyValue[1] only where PropertyId[1] is PROPID_D_OBJTYPE",
            "the object type is PropertyValue[1], whatever PropertyId[1] is.",
        ),
        _item(
            "E-13",
            "Depth of [MS-MQMQ] value checks for BLOBs, URLs, addresses",
            "the outer structure of each value is checked",
            "each value obeys [MS-MQMQ] for its PROPID, its structure included.",
        ),
        _item(
            "E-14",
            'What "disregard the message" undoes in a Version 1 message',
            "updates before the disregarded one stay applied",
            '"perform no further processing" stops at the update; nothing says to undo '
            "what was done before it.",
        ),
        _item(
            "E-15",
            "The numeric value of SenderIdentifierType QueueManagerIdentifier",
            "QueueManagerIdentifier = 2",
            "the type is named QueueManagerIdentifier; the adapter protocol carries the name.",
            "a target is judged by the name, never by a number, so no number it picks can "
            "be failed.",
        ),
        _item(
            "E-16",
            "HashAlgorithm per MSMQ version (note <12>)",
            "the table of [MS-MQMQ] note <7>: MSMQ 2.0 uses MD5",
            "note <12> lists version 2 under MD5 and under SHA1: an MSMQ 2.0 sender may use "
            "either.",
        ),
        _item(
            "E-17",
            "ADM attribute names spelt several ways",
            "the spellings name the same attribute",
            "the same attribute under each spelling.",
            "a spelling is no behaviour: whichever name an implementation uses, the attribute "
            "and its value are the same.",
        ),
        _item(
            "E-18",
            "A Version 1 message with no updates",
            "conforming; the server does nothing and dequeues the next",
            "a count of 0 with an empty Data satisfies 2.2.4; there is nothing to process.",
            "2.2.4 is satisfied and 3.2.5 processes each of zero updates: one behaviour.",
        ),
        _item(
            "E-19",
            "The values Set Queue Defaults gives",
            "the [MS-MQMQ] defaults",
            "the defaults of [MS-MQDMPR] 3.1.7.1.33, whatever an implementation takes them to be.",
            "no scenario judges an attribute a creation does not carry, so every set of "
            "defaults passes; the suite's values only fill its own model.",
        ),
        _item(
            "E-20",
            "What a receiver does with a message breaking a sender's rule",
            "the server processes a Version 0x01 message whose announced updates parse",
            "3.2.5 parses and processes; it gives no receiver a reason to reject a sender's "
            "violation.",
            "the words give one behaviour (process); a receiver that also disregards such "
            "messages is stricter than asked and the scenarios accept it too.",
        ),
        _item(
            "E-21",
            "The SenderIdentifier of a Version 0x01 message",
            "the owning queue manager's GUID",
            "the Identifier of the QueueManager the iDirectoryObject argument references.",
            '3.3.5.3 names the value exactly; only a reader\'s expectation of a "sender" '
            "differs, not the words.",
        ),
        _item(
            "E-22",
            "A queue creation without PROPID_Q_INSTANCE",
            "the creation names no queue: nothing is created",
            "Set Queue Defaults, then an Identifier from a property that is not there: the "
            "queue keeps the default (nil GUID) Identifier and is created.",
        ),
        _item(
            "E-23",
            "A machine update that names another queue manager",
            "the local queue manager is left unchanged",
            "the attributes are set on the local QueueManager, whatever the GuidIdentifier or "
            "ObjectGuid names.",
        ),
        _item(
            "E-24",
            "A creation of a queue that already exists",
            "the existing queue is kept unchanged",
            "Create Queue with the values the creation gives: the queue is made afresh and "
            "takes the place of the existing one.",
        ),
        _item(
            "E-25",
            "A Read Directory on event 3 (delete queue)",
            "a read there is admitted; the deletion is the whole outcome",
            "3.2.5.2 lists no read for event 3 and calls Delete Queue with iSkipDirectory "
            "True; it forbids no read.",
            "a read that changes nothing leaves the outcome the deletion's, so the scenarios "
            "judge the outcome and both behaviours pass: there is nothing to observe.",
        ),
        _item(
            "W-01",
            "PacketSize and the SessionHeader",
            "PacketSize of a UserMessage stops before the SessionHeader; of an internal packet it "
            "counts everything",
            "2.2.19.1 keeps the SessionHeader out of PacketSize, so a SessionAck written to the "
            "letter says 20 and its 16-byte SessionHeader follows.",
            "both forms are framed and decoded (`framing`, `decode_internal`): the suite reads "
            "what comes, so neither a sender following the letter nor one following the reading "
            "is refused. What the suite writes to a transport target is the form its hello names "
            "(`transport.mqqb.readings`, W-01 `windows` or `letter`): a declaration the target "
            "makes, not a reading the suite observes.",
        ),
        _item(
            "W-02",
            "The room of the message body: MessageSize or AllocationBodySize",
            "the body occupies AllocationBodySize bytes",
            "MessageBody is MessageSize bytes and the header is padded to 4 bytes after it; "
            "AllocationBodySize only states the room allocated.",
            "both layouts are read: a packet whose headers add up only under the letter is "
            "decoded so and names W-02 in its `letter` list, so there is nothing to switch.",
        ),
        _item(
            "W-03",
            "An administration queue without requested acknowledgments",
            "acknowledgments need an administration queue; an unused one is accepted",
            "2.2.19.2 ties the AdminQueue to the acknowledgment flags both ways: present exactly "
            "when an acknowledgment is requested.",
            "every packet the letter allows is read and passes under the reading, and "
            "acknowledgments without an administration queue are a finding (MQMQ-2.2.19.2-9) on a "
            "decoded packet, never a refusal: no sender is refused for either.",
        ),
        _item(
            "W-04",
            "Custom message classes",
            "a listed value or a custom value within mask 0xE1FF",
            "MessageClass is one of the MESSAGE_CLASS_VALUES of 2.2.19.3.",
            "the letter's classes are a subset of what the reading accepts, and any other class "
            "is a finding (MQMQ-2.2.19.3-3) on a decoded packet, never a refusal.",
        ),
        _item(
            "W-05",
            "AuthenticationLevel on the wire (Flags.AU / Flags.AS)",
            "AU and AS are 0 on the wire; a signature says whether the packet is signed",
            "AU and AS are 0 as sent (2.2.20.6), and [MS-MQDMPR] 3.1.7.1.31 reads "
            "AuthenticationLevel from the AU bit.",
            "a sender by the letter passes (AU or AS set is a finding, not a refusal). Read to "
            "the letter, a receiver would take the level from a bit that is always 0, so no "
            "message could ever be authenticated and 3.2.5.1 could process none: that is no "
            "working behaviour, and the suite's reading is the only one under which the "
            "authentication rule can be met.",
        ),
        _item(
            "W-06",
            "ResponseQueue present or not for RQ 0x1 and 0x4",
            "the table: RQ 0x1 carries nothing, RQ 0x4 a queue number",
            "the text's list of present codes leaves 0x4 out, so RQ 0x4 carries no ResponseQueue "
            "field; it names 0x1 both present and absent, so RQ 0x1 may carry one.",
            "both layouts are read: a packet whose headers add up only under the letter is "
            "decoded so and names W-06 in its `letter` list, so there is nothing to switch.",
        ),
        _item(
            "W-07",
            "Alignment of GUIDs in an MQFFormatNameElement",
            "every GUID-bearing FormatName starts on a 4-byte boundary",
            "a public element's GUID follows its FormatType with no padding; only private and "
            "distribution-list GUIDs start on a 4-byte boundary.",
            "both layouts are read and a packet read to the letter names W-07; where a public "
            "element ends its list both layouts fit the sizes and the reading is kept (said "
            "above), the one place where bytes alone cannot tell the two apart.",
        ),
        _item(
            "W-08",
            "Padding inside the SoapHeader",
            "the Header part and the Body part are each padded to 4 bytes",
            "BodySectionID follows Header directly; only the SoapHeader as a whole is aligned to "
            "4 bytes.",
            "both layouts are read: a SoapHeader without inner padding is decoded so and names "
            "W-08 in its `letter` list, so there is nothing to switch.",
        ),
        _item(
            "W-09",
            "A session acknowledgment riding on an OrderAck or FinalAck",
            "Flags.SH is allowed on an OrderAck or FinalAck",
            "every BaseHeader.Flags bit of an OrderAck or FinalAck is clear, SH included.",
            "the letter's packets are a subset of what the reading accepts, and any other bit set "
            "is a finding (MQQB-2.2.4-1) on a decoded packet, never a refusal.",
        ),
        _item(
            "W-10",
            "HashAlgorithm 0x00008003: MD5 or MD4",
            "MD5",
            "0x00008003 is MD5 in [MS-MQMQ] 2.2.19.3 and [MS-MQDMPR] 3.1.7.1.32, MD4 in the "
            "3.1.7.1.31 table.",
            "the same number travels whatever it is called; no behaviour depends on the name.",
        ),
        _item(
            "W-11",
            "Flags.CS for a zero ServerGuid",
            "GUID_NULL is accepted (3.1.5.3.1); CS is set only for a queue manager the acceptor is "
            "not",
            "[MS-MQQB] 2.2.1's Flags.CS is to be set when ServerGuid is zero or not the receiving "
            "queue manager's; 3.1.5.3.1 accepts GUID_NULL, as 2.2.3.1 tells an initiator using a "
            "direct format name to send it.",
            "the suite never sends a zero ServerGuid to a target (its EstablishConnection names "
            "the target's queue manager, 3.1.5.2.3) and accepts one as 3.1.5.3.1 says; a target "
            "that refuses GUID_NULL is never asked to take it.",
        ),
        _item(
            "W-12",
            "[MS-MQRR] headers inside a session's UserMessage Packet",
            "decoded wherever they stand, each with the value finding MQQB-2.2-1; never a refusal",
            "[MS-MQMQ] 2.2.19.2 says Flags.AH is not set when a packet is sent; [MS-MQQB] 2.2 "
            "lists its headers without the [MS-MQRR] ones and without saying a packet may carry "
            "no others.",
            "the finding is about traffic (the audit, `decode --packet`), never a target's "
            "verdict: no scenario sends or demands these headers, so no reading of a target "
            "depends on it.",
        ),
        _item(
            "W-13",
            "The unit of SRMPEnvelopeHeader.DataLength",
            "DataLength may count the text (with its terminator) in WCHARs or in bytes",
            '[MS-MQRR] 2.2.5.1.2.1 gives DataLength as a ULONG "length of the data" without a '
            "unit.",
            "both units are read: a sender counting either way does what the words say, and the "
            "decoded header names the unit it found.",
        ),
        # --- directory errata (D-nn): MS-MQDSSM, MS-MQDMPR and the AD schema, and the LDAP
        # fixture (docs/directory.md); every reading real directories differ on passes
        _item(
            "D-01",
            "The objectGUID search filter: hex text against a 16-byte value",
            "the letter's compact hex filter and AD practice's escaped 16 bytes both name the "
            "object",
            'Find Object By GUID (3.1.6.19) searches the whole subtree from base "" with '
            "`(objectGuid=<CompactGuid>)`: the 32 hex digits of the braced string form, in "
            "string order.",
            "both forms pass: the fixture's rwm rules make slapd match the compact text against "
            "the 16 stored bytes, the escaped bytes match as they are, and the read judge names "
            "the object from either form, so no target is judged by the form it sends.",
        ),
        _item(
            "D-02",
            "The naming context that holds queue and queue manager objects",
            "`CN=Computers` under the root domain naming context, as 2.2.1 lays them out",
            "2.2.1 puts mSMQConfiguration and mSMQQueue under `CN=Computers,<rootDomain"
            "NamingContext>`, while Search Using LDAP (3.1.6.15) looks for them under "
            "configurationNamingContext.",
            "a read by Identifier (3.1.6.3, 3.1.6.14, 3.1.6.19), the only read MS-MQCN 3.2.5.2 "
            'raises, searches from base "", which the fixture serves from the root, so it '
            "reaches the objects under either layout; no scenario depends on the base of a "
            "Read Directory Begin.",
        ),
        _item(
            "D-03",
            "[MS-ADA2] sections cited wrongly, and a mislabelled table",
            "attributes are identified by name, never by the section cited",
            "mSMQDsServices is cited as [MS-ADA2] 2.585 (that is mSMQServices), "
            "mSMQQueueJournalQuota as 2.564 (that is mSMQJournalQuota), and the Queue table of "
            "3.1.6.10.2 is introduced as mSMQConfiguration attributes.",
            "the attribute names on the wire are the same whichever section is cited; a "
            "citation or a heading changes no behaviour.",
        ),
        _item(
            "D-04",
            "Boolean values: TRUE/FALSE or 1/0",
            "written `TRUE`/`FALSE`; `TRUE`, `FALSE`, `1` and `0` are read",
            "MS-MQDSSM writes and reads Boolean attributes as 1 and 0 (3.1.6.1.2.2, 3.1.6.11.2) "
            "or 0x01 and 0x00 (3.1.6.1.1.2, 3.1.6.11.1); the AD Boolean syntax is the LDAP "
            "`TRUE`/`FALSE`.",
            "the fixture holds what an Active Directory server returns (`TRUE`/`FALSE`), the "
            "form every reading must read; the reference and the Node example read 1/0 too, and "
            "no scenario writes a value a reader could take either way.",
        ),
        _item(
            "D-05",
            "Integer attributes are signed 32-bit; ADM quotas are unsigned",
            "values of 2^31 and more are written as their two's complement negative and read "
            "back masked to 32 bits",
            "3.1.6.11 copies mSMQQueueQuota, mSMQQuota and the journal quotas into ADM "
            "attributes that run to 0xFFFFFFFF (their default); the AD Integer syntax is 32-bit "
            "signed ([MS-ADTS] 3.1.1.2.2.2), so 0xFFFFFFFF can only be stored as -1.",
            "a reader that masks and one that reads an unsigned decimal get the same ADM value "
            "from what the fixture holds (-1 is 0xFFFFFFFF either way a server shows it), and "
            "the suite compares ADM values only.",
        ),
        _item(
            "D-06",
            "A Find Object By GUID that finds nothing",
            "ObjectNotFound",
            "3.1.6.19 extracts distinguishedName from the result and sets Success; it says "
            "nothing of a search that succeeds with no entry.",
            "a result with no entry gives no DN to read, so every reading ends the read without "
            "an object, and what follows a failed read is D-08's; the judge counts the search "
            "as a read of the GUID in its filter, so the status a target names is never "
            "judged.",
        ),
        _item(
            "D-07",
            "The attributes a read asks the server for",
            "a read seen at the server must cover 3.2.5.2's list; asking for more passes",
            "Get Object Properties (3.1.6.14) sends an empty attribute list (every attribute), "
            "although 3.1.6.10 builds the list of the LDAP attributes needed.",
            "the judge requires only that the LDAP attributes of 3.2.5.2's list (3.1.6.10) "
            "were asked for: the letter's empty list covers them, and so does a list of "
            "exactly those names.",
        ),
        _item(
            "D-08",
            "What a failed Read Directory leaves",
            "nothing of the failed read is taken; the queue manager goes on serving",
            "[MS-MQDMPR] 3.1.7.1.20 leaves rDirectoryObject undefined when rStatus is not "
            "Success, and MS-MQCN 3.2.5.2 does not say what the queue manager does then.",
            "the words give no behaviour to judge, so the failure scenarios of "
            "features/3.2.5.2-directory-ldap.feature demand only the read 3.2.5.2 asks for and "
            "that the next notification is served (3.2.5).",
        ),
        _item(
            "D-09",
            "`<GUID=...>` search bases",
            "a base-scope search at `<GUID=...>` reads that object",
            "Active Directory accepts a DN of the form `<GUID=...>` ([MS-ADTS] 3.1.1.3.1.2.4); "
            "MS-MQDSSM itself never sends one (3.1.6.14 uses the DN that 3.1.6.19 found).",
            "it is a limit of the fixture, not a reading: slapd refuses such a base as invalid "
            "DN syntax (result 34), so a target using it reads nothing there; the read judge "
            "still counts the search as a read of that object, and the letter never depends on "
            "it.",
        ),
        _item(
            "D-10",
            "Simple bind instead of SASL GSS-SPNEGO",
            "the target binds with the DN and password `reset` gives it (LDAP simple bind)",
            "access to Active Directory is authenticated with SASL GSS-SPNEGO (5.1, [MS-ADTS] "
            "5.1.1).",
            "the suite judges what the queue manager reads, not how it authenticates; a "
            "Kerberos realm is beyond a test fixture, so every target binds the one way the "
            "fixture offers, and a bind that fails is DirectoryNotConnected (3.1.6.18).",
        ),
        _item(
            "D-11",
            "AD's `top` and `name` in an OpenLDAP schema",
            "what AD's top gives every object is optional on every class; `name` is left out",
            "every AD object has the attributes of `top` ([MS-ADSC] 2.266), objectGUID among "
            "them, and `name` ([MS-ADA3] 2.1).",
            "slapd cannot redefine `top`, and AD's `name` clashes with OpenLDAP's core `name`: "
            "only queues and queue managers carry objectGUID, a read of `name` returns "
            "nothing, and a scenario can leave nTSecurityDescriptor out. MS-MQCN's reads ask "
            "for neither missing part, so no reading a target could take is affected.",
        ),
        _item(
            "D-12",
            "The classes around the MSMQ objects",
            "computer is `SUP top`; domainDNS, the rootDSE naming contexts and AD's ranges are "
            "the fixture's approximations",
            "computer is a subclass of user ([MS-ADSC] 2.21), domainDNS and the rootDSE "
            "attributes have AD's own definitions, and AD enforces each attribute's range.",
            "a 3.2.5.2 read touches none of these: it finds mSMQQueue and mSMQConfiguration "
            "objects by objectGUID and reads their own attributes, which have AD's names, OIDs "
            "and syntaxes; the rootDSE still names every naming context (3.1.3).",
        ),
        _item(
            "D-13",
            "DNs as the server returns them",
            "search bases and bind DNs compare as DNs; DirectoryPath is the DN as the server "
            "returned it",
            "DirectoryPath is `LDAP://` followed by distinguishedName as read (3.1.6.11.2); "
            "Active Directory spells attribute types `CN=`, slapd `cn=`, and each escapes in "
            "its own way.",
            "a target that keeps the DN the server returned, as the letter says, holds what the "
            "expectations hold (a read of the fixture, put back into the scenario); the DNs a "
            "target sends are compared as DNs, so every spelling of the same DN reads alike.",
        ),
        _item(
            "D-14",
            "A queue name shared by two queues of a scenario",
            "the later queue is published as `<name>-<first 8 hex digits of its GUID>`",
            "2.2.1 makes a queue's DN from its Pathname, so a directory holds one queue per "
            "name; the in-memory directory keeps queues by GUID.",
            "the scenario's data is adjusted before the target is reset, and the expectations "
            "use the renamed queue; what a target does with the name it reads is judged as "
            "before.",
        ),
        _item(
            "D-15",
            "Empty values",
            'an empty Label or MulticastAddress is not written and reads back as ""; an '
            "empty Security is not written and the read fails",
            "LDAP holds no empty value; 3.1.6.11 gives the absent text attributes the default "
            '"" and makes an absent nTSecurityDescriptor an error.',
            "what the directory holds is the same for every reader, and the reader's defaults "
            "and error rows are the words' own; the suite puts back into each scenario what a "
            "read of the fixture returns.",
        ),
        _item(
            "D-16",
            "The QueueManagerQuota default",
            "0x00100000 (3.1.6.11.1)",
            "3.1.6.11.1 gives an absent mSMQQuota the default 0x00100000; its note <10> says "
            "Windows XP uses 0xFFFFFFFF.",
            "the fixture always writes mSMQQuota, so no scenario reads a default and either "
            "value passes.",
        ),
        _item(
            "D-17",
            'OperatingSystemType of "Unknown"',
            "an absent mSMQOSType reads 0",
            "3.1.6.11.1 defaults OperatingSystemType to Unknown, a value the table of "
            "3.1.6.11.1.2 does not list.",
            "MS-MQCN 3.2.5.2 reads no OperatingSystemType and the fixture writes mSMQOSType "
            "from the scenario, so no scenario sees the default.",
        ),
        _item(
            "D-18",
            "Queue names the fixture cannot hold",
            "names over 63 characters, names with a backslash and queues on another computer "
            "than their Pathname names are refused with one line",
            "names over 63 characters take the hash of 2.2.5 and mSMQQueueNameExt (2.2.5 is "
            "not among the sources); the DN of 2.2.1 follows the Pathname.",
            "the refusal is the suite's, before the target is reset, and names the queue; no "
            "scenario uses such a name, and the read side still takes a 64-character RDN with "
            "mSMQQueueNameExt as 3.1.6.11.2.1 says.",
        ),
        _item(
            "D-19",
            "QueueManager attributes outside the AD object",
            "whenCreated and whenChanged are written as the epoch; "
            "ConnectedNetworkIdentifierList is not stored",
            "AD gives every object whenCreated and whenChanged; ConnectedNetworkIdentifierList "
            "is not stored in the directory (3.1.6.20.1), and a read asking for it is "
            "GenericError (3.1.6.3.2.1).",
            "MS-MQCN 3.2.5.2 reads three other QueueManager attributes; the fixture needs a "
            "time for every object and refuses a non-empty network list, so nothing a target "
            "reads depends on these.",
        ),
        _item(
            "D-20",
            "Values of the wrong syntax",
            "a read that meets one is GenericError",
            "the tables of 3.1.6.11 convert well-formed values and name error rows for absent "
            "ones; they say nothing of a value of the wrong syntax.",
            "the fixture's server refuses such values when the suite writes them (one line "
            "naming the entry and the attribute), so a target never reads one; the GenericError "
            "reading only decides what the suite's own reader does.",
        ),
    )
}
