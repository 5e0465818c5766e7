"""Scapy layers for the MSMQ wire packets: the inspectable twin of the wire struct codec.

The struct codec (:mod:`mqcn_model.wire`) reads and judges; these layers *build* anything,
including the malformed packets the codec refuses (a wrong Signature, a PacketSize that
lies, flags announcing headers that are not there), and ``show()`` them field by field.
Every length, count and PacketSize is computed when left at ``None`` and can be set to lie.

* :class:`UserMessagePacket` ([MS-MQMQ] 2.2.20): BaseHeader, UserHeader and the optional
  headers as nested layers, then ``Extra`` (bytes inside PacketSize after the last header)
  and the trailing SessionHeader;
* :class:`InternalPacketLayer` ([MS-MQQB] 2.2.1-2.2.3, 2.2.6): BaseHeader, InternalHeader and
  the SessionHeader / EstablishConnectionHeader / ConnectionParametersHeader the PT names;
* :class:`PingPacket` ([MS-MQQB] 2.2.7).

Flags fields are split into one scapy field per bit group, named as in the spec (PR, IN,
SH ...; bit 0 is the least significant).  An optional header is on the wire when its flag
says so *or* when a value is given, so ``UserHeader(SH=0)`` with a SecurityHeader builds the
"header without its flag" form, and ``SH=1`` without one the "flag without its header" form.
The MQF format name lists are carried as lists of :class:`mqcn_model.wire.queues.MQFElement`
(their alignment depends on their position in the header), shown as format names.

Each layer's fixed fields (names, sizes, defaults, bit groups, the lengths computed when left
at ``None``) are :func:`~mqcn_model.wire.declared.scapy_fields` of its header's record -- the
one declaration the struct codec reads too; only the variable parts (strings, queue fields,
padding, the nested headers) are written here.  Only ``scapy.packet`` and ``scapy.fields`` are
imported; the dissection that never raises and the GUID, UTF-16 and computed-size fields come
from :mod:`mqcn_model.scapy_base`.  :mod:`mqcn_model.wire.layer_bridge` converts the layers
to and from the struct codec's objects (derived from the same declarations), so the two
codecs can be compared byte for byte.

>>> pkt = InternalPacketLayer(InternalHeader=InternalHeader(PT=3),
...                           Body=ConnectionParametersHeader(RecoverableAckTimeout=500,
...                                                           AckTimeout=20000, WindowSize=64))
>>> wire = bytes(pkt)
>>> len(wire), wire[4:8]
(32, b'LIOR')
>>> bad = bytes(UserMessagePacket(BaseHeader=BaseHeader(Signature=0x11223344)))
>>> bad[4:8].hex()
'44332211'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from scapy.fields import (
    ConditionalField,
    Field,
    FieldLenField,
    LEIntField,
    MultipleTypeField,
    PacketField,
    PadField,
    StrField,
    StrFixedLenField,
    StrLenField,
    XStrLenField,
)

from mqcn_model.scapy_base import (
    GUIDField,
    SalvagingLayer,
    ScapyPacket,
    UTF16Field,
)
from mqcn_model.wire import base as fast_base
from mqcn_model.wire import debug as fast_debug
from mqcn_model.wire import extension_layers as ext_layers
from mqcn_model.wire import extensions as fast_extensions
from mqcn_model.wire import internal as fast_internal
from mqcn_model.wire import mqf as fast_mqf
from mqcn_model.wire import properties as fast_properties
from mqcn_model.wire import queues as fast_queues
from mqcn_model.wire import security as fast_security
from mqcn_model.wire import session as fast_session
from mqcn_model.wire import soap as fast_soap
from mqcn_model.wire import transaction as fast_transaction
from mqcn_model.wire import user as fast_user
from mqcn_model.wire.common import NIL, align4
from mqcn_model.wire.declared import scapy_fields
from mqcn_model.wire.session import SESSION_HEADER_SIZE

__all__ = [
    "BaseHeader",
    "ConnectionParametersHeader",
    "DebugHeader",
    "DirectQueueFormatName",
    "EstablishConnectionHeader",
    "InternalHeader",
    "InternalPacketLayer",
    "MQFAddressHeader",
    "MQFSignatureHeader",
    "MessagePropertiesHeader",
    "MultiQueueFormatHeader",
    "PingPacket",
    "PrivateQueueFormatName",
    "PrivateQueueFormatNameId",
    "PublicQueueFormatName",
    "SecurityHeader",
    "SessionHeader",
    "SoapHeader",
    "TransactionHeader",
    "UserHeader",
    "UserMessagePacket",
    "base_header_of",
]

# --- fields -------------------------------------------------------------------------------------


class AlignPadField(StrLenField):
    """Padding to a 4-byte boundary after ``used(pkt)`` bytes: zeros when ``None``."""

    __slots__ = ("used",)

    def __init__(self, name: str, used: Callable[[ScapyPacket], int]) -> None:
        super().__init__(name, None, length_from=lambda p: -used(p) % 4)
        self.used = used

    def i2m(self, pkt: ScapyPacket | None, x: Any) -> bytes:
        if x is None:
            return bytes(-self.used(pkt) % 4) if pkt is not None else b""
        return bytes(x)


class MQFElementListField(Field[list[fast_queues.MQFElement], bytes]):
    """The FormatNameList of an MQFAddressHeader: ``ElementCount`` MQFFormatNameElements.

    Values are :class:`mqcn_model.wire.queues.MQFElement` objects; each element's GUID is
    aligned relative to the header start (errata W-07), so the elements are read and
    written by the struct codec's element functions.  Elements that do not decode are
    left to the ``Rest`` field.
    """

    islist = 1  # a list value is one value, not a set of packets to build

    def __init__(self, name: str) -> None:
        super().__init__(name, [], fmt="H")

    @staticmethod
    def wire(val: Any) -> bytes:
        """The elements' bytes, each placed after the ones before it (its GUID's padding
        depends on where it starts)."""
        out = b""
        for element in val or []:
            out += fast_queues.encode_mqf_element(element, fast_mqf.ADDRESS_FIXED_SIZE + len(out))
        return out

    def addfield(self, pkt: ScapyPacket, s: bytes, val: Any) -> bytes:
        return s + self.wire(val)

    def getfield(self, pkt: ScapyPacket, s: bytes) -> tuple[bytes, Any]:
        # read only when dissecting, where both fields before this one hold their wire values
        count = pkt.ElementCount
        limit = max(0, pkt.HeaderSize - fast_mqf.ADDRESS_FIXED_SIZE)
        head = bytes(fast_mqf.ADDRESS_FIXED_SIZE) + bytes(s[:limit])
        elements = []
        offset = fast_mqf.ADDRESS_FIXED_SIZE
        for _ in range(count):
            try:
                element, offset = fast_queues.decode_mqf_element(head, offset, len(head), 0)
            except ValueError:
                break
            elements.append(element)
        return s[offset - fast_mqf.ADDRESS_FIXED_SIZE :], elements

    def i2len(self, pkt: ScapyPacket, x: Any) -> int:
        return len(self.wire(x))

    def i2count(self, pkt: ScapyPacket | None, x: Any) -> int:
        return len(x or [])

    def i2repr(self, pkt: ScapyPacket | None, x: Any) -> str:
        return repr([fast_queues.mqf_element_name(e) for e in x or []])


class ExtensionChainField(Field[list[ScapyPacket], bytes]):
    """The [MS-MQRR] 2.2.5.2 extension chain after the last announced header: its layers
    (ExtensionHeader, then the headers its Flags name), read only where the bytes left are
    one (:func:`~mqcn_model.wire.extensions.is_extension_chain`), else ``None`` and the bytes
    stay for ``Extra``."""

    islist = 1
    holds_packets = 1

    def __init__(self, name: str) -> None:
        super().__init__(name, None)

    def i2m(self, pkt: ScapyPacket | None, x: Any) -> bytes:
        return b"".join(bytes(layer) for layer in x or ())

    def addfield(self, pkt: ScapyPacket, s: bytes, val: Any) -> bytes:
        return s + self.i2m(pkt, val)

    def getfield(self, pkt: ScapyPacket, s: bytes) -> tuple[bytes, Any]:
        if not fast_extensions.is_extension_chain(s, 0, len(s)):
            return s, None
        head = ext_layers.ExtensionHeader(s[: fast_extensions.EXTENSION_SIZE])
        layers: list[ScapyPacket] = [head]
        at = fast_extensions.EXTENSION_SIZE
        for bit, cls in (
            (fast_extensions.SQ, ext_layers.SubqueueHeader),
            (fast_extensions.DL, ext_layers.DeadLetterHeader),
            (fast_extensions.EA, ext_layers.ExtendedAddressHeader),
        ):
            if head.Flags & bit and at < len(s):
                layer = cls(s[at:])
                size = len(layer.raw_packet_cache or b"")
                layers.append(cls(s[at : at + size]))
                at += size
        return s[at:], layers

    def i2repr(self, pkt: ScapyPacket | None, x: Any) -> str:
        return " / ".join(layer.name for layer in x or ()) or "none"


class StrictPacketField(PacketField):
    """A PacketField that refuses to dissect from no bytes at all (scapy would quietly give
    a layer of defaults, which would hide a cut packet)."""

    def m2i(self, pkt: ScapyPacket | None, m: bytes) -> ScapyPacket:
        if not m:
            raise ValueError(f"{self.name}: no bytes left")
        return super().m2i(pkt, m)


# --- robust dissection ----------------------------------------------------------------------------


class _Header(SalvagingLayer):
    """A header nested in a packet: what follows it goes back to the container, even when
    the header is broken (the packet's ``Extra`` or ``Rest`` field holds those bytes, and
    PacketSize still bounds the packet)."""

    def extract_padding(self, s: bytes) -> tuple[bytes, bytes | None]:
        return b"", s


# --- BaseHeader (2.2.19.1) --------------------------------------------------------------------


class BaseHeader(_Header):
    """BaseHeader: 16 bytes; ``PacketSize`` is filled in by the packet container."""

    name = "MSMQ BaseHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = scapy_fields(fast_base.BaseHeader)


# --- queue formats (2.2.18.1.5, 2.2.18.1.7) -----------------------------------------------------


class PrivateQueueFormatNameId(_Header):
    name = "PrivateQueueFormatNameId"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [LEIntField("PrivateQueueIdentifier", 1)]


class PublicQueueFormatName(_Header):
    name = "PublicQueueFormatName"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [GUIDField("PublicQueueIdentifier", NIL)]


class PrivateQueueFormatName(_Header):
    name = "PrivateQueueFormatName"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        GUIDField("SourceQueueManager", NIL),
        LEIntField("PrivateQueueIdentifier", 1),
    ]


class DirectQueueFormatName(_Header):
    """Count (bytes of the name with its terminator, computed), the name, padding to 4."""

    name = "DirectQueueFormatName"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        FieldLenField("Count", None, length_of="DirectFormatName", fmt="<H"),
        UTF16Field("DirectFormatName", "", length_from=lambda p: p.Count),
        AlignPadField(
            "Padding", lambda p: 2 + len(p.get_field("DirectFormatName").i2m(p, p.DirectFormatName))
        ),
    ]


_QUEUE_CLASSES: dict[str, type[ScapyPacket]] = {
    fast_queues.PRIVATE_ID: PrivateQueueFormatNameId,
    fast_queues.PUBLIC: PublicQueueFormatName,
    fast_queues.PRIVATE: PrivateQueueFormatName,
    fast_queues.DIRECT: DirectQueueFormatName,
}


def _queue_field(name: str, code: Callable[[ScapyPacket], int]) -> MultipleTypeField:
    """The queue field typed by ``code(pkt)`` (DQ, AQ or RQ); no bytes for codes 0 and 1 when
    read, and the bytes given when built (``RQ=1`` with a ResponseQueue: W-06's letter; a
    layout code with ``b""``: the field left out, as W-06's letter writes RQ 4)."""
    choices = []
    for layout, cls in _QUEUE_CLASSES.items():
        codes = {c for c, lay in fast_queues.LAYOUT.items() if lay == layout}
        choices.append((StrictPacketField(name, cls(), cls), lambda p, c=codes: code(p) in c))
    return MultipleTypeField(choices, StrLenField(name, b""))  # no length_from: 0 bytes


# --- UserHeader (2.2.19.2) ----------------------------------------------------------------------


class UserHeader(_Header):
    name = "MSMQ UserHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(fast_user.UserHeader),
        _queue_field("DestinationQueue", lambda p: p.DQ),
        _queue_field("AdminQueue", lambda p: p.AQ),
        _queue_field("ResponseQueue", lambda p: p.RQ),
        ConditionalField(GUIDField("ConnectorType", NIL), lambda p: p.CQ == 1),
    ]


# --- MessagePropertiesHeader (2.2.19.3) ---------------------------------------------------------


def _properties_used(p: ScapyPacket) -> int:
    """The bytes before the padding: those the body room *holds* (MessageBody and BodySlack),
    so a header whose AllocationBodySize states more than it holds (W-02's letter) is padded
    after its body."""
    label = len(p.get_field("Label").i2m(p, p.Label))
    room = len(p.MessageBody or b"") + len(p.BodySlack or b"")
    return fast_properties.PROPERTIES_FIXED_SIZE + label + len(p.ExtensionData or b"") + room


class MessagePropertiesHeader(_Header):
    """The properties and the body; ``BodySlack`` is the rest of AllocationBodySize."""

    name = "MSMQ MessagePropertiesHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(
            fast_properties.MessageProperties,
            {"AllocationBodySize": lambda p: len(p.MessageBody or b"") + len(p.BodySlack or b"")},
        ),
        UTF16Field("Label", None, length_from=lambda p: 2 * p.LabelLength),
        XStrLenField("ExtensionData", b"", length_from=lambda p: p.ExtensionSize),
        XStrLenField("MessageBody", b"", length_from=lambda p: p.MessageSize),
        XStrLenField(
            "BodySlack", b"", length_from=lambda p: max(0, p.AllocationBodySize - p.MessageSize)
        ),
        AlignPadField("Padding", _properties_used),
    ]


# --- optional headers (2.2.20.1-2.2.20.8) ---------------------------------------------------------


class TransactionHeader(_Header):
    name = "MSMQ TransactionHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(fast_transaction.TransactionHeader),
        ConditionalField(GUIDField("ConnectorQMGuid", NIL), lambda p: p.CG == 1),
    ]


def _padded(name: str, size_field: str) -> PadField:
    return PadField(
        XStrLenField(name, b"", length_from=lambda p: getattr(p, size_field)), 4, padwith=b"\0"
    )


class SecurityHeader(_Header):
    name = "MSMQ SecurityHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(fast_security.SecurityHeader),
        _padded("SecurityID", "SenderIdSize"),
        _padded("EncryptionKey", "EncryptionKeySize"),
        _padded("Signature", "SignatureSize"),
        _padded("SenderCert", "SenderCertSize"),
        _padded("ProviderInfo", "ProviderInfoSize"),
    ]


class DebugHeader(_Header):
    name = "MSMQ DebugHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(fast_debug.DebugHeader),
        ConditionalField(GUIDField("QueueIdentifier", NIL), lambda p: p.QT == 1),
    ]


def _text_size(p: ScapyPacket, name: str) -> int:
    return len(p.get_field(name).i2m(p, p.getfieldval(name)))


class SoapHeader(_Header):
    """Header and Body: UTF-16 strings counted in code units with their terminator."""

    name = "MSMQ SoapHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(fast_soap.SoapHeader),
        UTF16Field("Header", "", length_from=lambda p: 2 * p.HeaderDataLength),
        AlignPadField("HeaderPadding", lambda p: _text_size(p, "Header")),
        *scapy_fields(fast_soap.SoapHeader, run=1),
        UTF16Field("Body", "", length_from=lambda p: 2 * p.BodyDataLength),
        AlignPadField("BodyPadding", lambda p: _text_size(p, "Body")),
    ]


def _address_size(p: ScapyPacket) -> int:
    return align4(fast_mqf.ADDRESS_FIXED_SIZE + len(MQFElementListField.wire(p.FormatNameList)))


class MQFAddressHeader(_Header):
    name = "MSMQ MQFAddressHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(fast_mqf.MQFAddressHeader, {"HeaderSize": _address_size}),
        MQFElementListField("FormatNameList"),
        StrLenField(
            "Rest",
            None,
            length_from=lambda p: max(
                0,
                (p.HeaderSize or 0)
                - fast_mqf.ADDRESS_FIXED_SIZE
                - len(MQFElementListField.wire(p.FormatNameList)),
            ),
        ),
    ]

    def post_build(self, pkt: bytes, pay: bytes) -> bytes:
        if self.Rest is None:  # pad the element list to the 4-byte boundary HeaderSize counts
            pkt += bytes(-len(pkt) % 4)
        return pkt + pay


class MQFSignatureHeader(_Header):
    name = "MSMQ MQFSignatureHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        *scapy_fields(fast_mqf.MQFSignatureHeader),
        _padded("Signature", "Size"),
    ]


class MultiQueueFormatHeader(_Header):
    name = "MSMQ MultiQueueFormatHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        StrictPacketField(
            "Destination", MQFAddressHeader(HeaderID=fast_mqf.DESTINATION_ID), MQFAddressHeader
        ),
        StrictPacketField(
            "Administration", MQFAddressHeader(HeaderID=fast_mqf.ADMIN_ID), MQFAddressHeader
        ),
        StrictPacketField(
            "Response", MQFAddressHeader(HeaderID=fast_mqf.RESPONSE_ID), MQFAddressHeader
        ),
        StrictPacketField("Signature", MQFSignatureHeader(), MQFSignatureHeader),
    ]


class SessionHeader(_Header):
    """Its fields are the struct codec's declaration (:mod:`mqcn_model.wire.declared`)."""

    name = "MSMQ SessionHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = scapy_fields(fast_session.SessionHeader)


# --- packet containers ----------------------------------------------------------------------------


def _present(flag: Callable[[ScapyPacket], Any], name: str) -> Callable[[ScapyPacket], bool]:
    """On the wire when the flag says so, or (building) when a value was given."""
    return lambda p: bool(flag(p)) or p.getfieldval(name) is not None


def base_header_of(p: ScapyPacket) -> ScapyPacket:
    """The BaseHeader of a packet layer (a default one while it has none)."""
    return p.BaseHeader if p.BaseHeader is not None else BaseHeader()


def _user(p: ScapyPacket) -> ScapyPacket:
    return p.UserHeader if p.UserHeader is not None else UserHeader()


class _Container(SalvagingLayer):
    """A packet whose BaseHeader.PacketSize bounds its headers: ``Extra`` takes the bytes
    inside PacketSize after the last header, and :meth:`_dissect_trailer` what lies after
    PacketSize and belongs to the packet (a UserMessage's SessionHeader)."""

    trailer_fields: ClassVar[tuple[str, ...]] = ()

    def post_build(self, pkt: bytes, pay: bytes) -> bytes:
        # PacketSize computed into a whole BaseHeader only: a container built without one, or
        # with one cut short (salvaged, then edited), is its fields' bytes, nothing patched
        header = self.BaseHeader
        whole = header is not None and len(bytes(header)) == fast_base.BASE_HEADER_SIZE
        if whole and header.PacketSize is None:
            trailer = sum(len(bytes(self.getfieldval(n) or b"")) for n in self.trailer_fields)
            size = len(pkt) - trailer
            pkt = pkt[:8] + size.to_bytes(4, "little") + pkt[12:]
        return pkt + pay

    def do_dissect(self, s: bytes) -> bytes:
        size = int.from_bytes(bytes(s[8:12]), "little") if len(s) >= 12 else len(s)
        inside, outside = s[:size], s[size:]
        self.__dict__["_dissecting"] = True
        try:
            rest = super().do_dissect(inside)
        finally:
            self.__dict__["_dissecting"] = False
        remainder = self._dissect_trailer(bytes(rest) + bytes(outside))
        self.raw_packet_cache = bytes(s[: len(s) - len(remainder)])
        return remainder

    def _dissect_trailer(self, s: bytes) -> bytes:
        return s


class UserMessagePacket(_Container):
    """UserMessage Packet ([MS-MQMQ] 2.2.20); PacketSize leaves out the trailing
    SessionHeader.

    >>> pkt = UserMessagePacket(MessagePropertiesHeader=MessagePropertiesHeader(
    ...     MessageBody=b"\\x02\\x01"))
    >>> wire = bytes(pkt)
    >>> len(wire), UserMessagePacket(wire).MessagePropertiesHeader.MessageBody
    (128, b'\\x02\\x01')
    """

    name = "MSMQ UserMessage ScapyPacket"
    trailer_fields = ("SessionHeader",)
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        StrictPacketField("BaseHeader", BaseHeader(), BaseHeader),
        StrictPacketField("UserHeader", UserHeader(), UserHeader),
        ConditionalField(
            StrictPacketField("TransactionHeader", None, TransactionHeader),
            _present(lambda p: _user(p).TH, "TransactionHeader"),
        ),
        ConditionalField(
            StrictPacketField("SecurityHeader", None, SecurityHeader),
            _present(lambda p: _user(p).SH, "SecurityHeader"),
        ),
        ConditionalField(
            StrictPacketField(
                "MessagePropertiesHeader", MessagePropertiesHeader(), MessagePropertiesHeader
            ),
            _present(lambda p: _user(p).MP, "MessagePropertiesHeader"),
        ),
        ConditionalField(
            StrictPacketField("DebugHeader", None, DebugHeader),
            _present(lambda p: base_header_of(p).DH, "DebugHeader"),
        ),
        ConditionalField(  # [MS-MQRR] 2.2.5.1.2: the SRMP pair when Flags.AH is set
            StrictPacketField("SRMPEnvelopeHeader", None, ext_layers.SRMPEnvelopeHeader),
            _present(lambda p: _user(p).AH, "SRMPEnvelopeHeader"),
        ),
        ConditionalField(
            StrictPacketField("CompoundMessageHeader", None, ext_layers.CompoundMessageHeader),
            _present(lambda p: _user(p).AH, "CompoundMessageHeader"),
        ),
        ConditionalField(
            StrictPacketField("SoapHeader", None, SoapHeader),
            _present(lambda p: _user(p).HH, "SoapHeader"),
        ),
        ConditionalField(
            StrictPacketField("MultiQueueFormatHeader", None, MultiQueueFormatHeader),
            _present(lambda p: _user(p).MQ, "MultiQueueFormatHeader"),
        ),
        ExtensionChainField("Extensions"),  # [MS-MQRR] 2.2.5.2, recognised by its bytes
        StrField("Extra", b""),
        ConditionalField(  # read after PacketSize by _dissect_trailer
            StrictPacketField("SessionHeader", None, SessionHeader),
            lambda p: (
                not p.__dict__.get("_dissecting")
                and (bool(base_header_of(p).SH) or p.getfieldval("SessionHeader") is not None)
            ),
        ),
    ]

    def _dissect_trailer(self, s: bytes) -> bytes:
        if base_header_of(self).SH and not self.broken and len(s) >= SESSION_HEADER_SIZE:
            self.fields["SessionHeader"] = SessionHeader(s[:SESSION_HEADER_SIZE])
            return s[SESSION_HEADER_SIZE:]
        return s


class InternalHeader(_Header):
    name = "MSMQ InternalHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = scapy_fields(fast_internal.InternalHeader)


class EstablishConnectionHeader(_Header):
    name = "MSMQ EstablishConnectionHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = scapy_fields(fast_internal.EstablishConnection)


class ConnectionParametersHeader(_Header):
    name = "MSMQ ConnectionParametersHeader"
    fields_desc: ClassVar[list[Field[Any, Any]]] = scapy_fields(fast_internal.ConnectionParameters)


_INTERNAL_BODIES = {
    fast_internal.PT_SESSION_ACK: SessionHeader,
    fast_internal.PT_ESTABLISH_CONNECTION: EstablishConnectionHeader,
    fast_internal.PT_CONNECTION_PARAMETERS: ConnectionParametersHeader,
}


def _internal_body_field() -> MultipleTypeField:
    def pt(p: ScapyPacket) -> int:
        header = p.InternalHeader if p.InternalHeader is not None else InternalHeader()
        return int(header.PT)

    choices = [
        (StrictPacketField("Body", cls(), cls), lambda p, k=kind: pt(p) == k)
        for kind, cls in _INTERNAL_BODIES.items()
    ]
    return MultipleTypeField(choices, StrFixedLenField("Body", b""))  # no length: 0 bytes


class InternalPacketLayer(_Container):
    """An internal packet ([MS-MQQB] 2.2.1): its PacketSize counts everything (W-01).

    >>> ack = InternalPacketLayer(BaseHeader=BaseHeader(IN=1, SH=1),
    ...                           InternalHeader=InternalHeader(PT=1), Body=SessionHeader())
    >>> len(bytes(ack)), InternalPacketLayer(bytes(ack)).Body.WindowSize
    (36, 64)
    """

    name = "MSMQ internal packet"
    fields_desc: ClassVar[list[Field[Any, Any]]] = [
        StrictPacketField("BaseHeader", BaseHeader(IN=1), BaseHeader),
        StrictPacketField("InternalHeader", InternalHeader(), InternalHeader),
        _internal_body_field(),
        StrField("Extra", b""),
    ]


class PingPacket(SalvagingLayer):
    """Ping Packet ([MS-MQQB] 2.2.7), sent over UDP."""

    name = "MSMQ Ping ScapyPacket"
    fields_desc: ClassVar[list[Field[Any, Any]]] = scapy_fields(fast_internal.Ping)
