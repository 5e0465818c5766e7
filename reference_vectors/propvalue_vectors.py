"""The vectors of propvalue_test.json: one PROPVALUE (2.2.3) of each wire type, decoded
alone.

Part of :mod:`generate` (see its documentation): every verdict here is stated by hand.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from mqcn_model.constants import VT
from reference_vectors import vector_building as vb
from reference_vectors.vector_building import (
    BODY_GUID,
    CN1,
    CN2,
    CN3,
    PV,
    Group,
    R,
    enc_value,
    json_value,
    utf16z,
)

# The fixed-width integers (2.2.3.1-2.2.3.9 but VT_BOOL, which has rules of its own): the
# requirements of each type (the first is the one an input cut short breaks), then every vector
# in order: the type, comment, input and the value it decodes to, or None where the input is cut
# short (too few bytes for the type).
_INTEGER_RULES: dict[VT, list[str]] = {
    VT.I2: R("2.2.3.1-1", "2.2.3.1-2"),
    VT.I4: R("2.2.3.2-1", "2.2.3.2-2"),
    VT.I1: R("2.2.3.4-1"),
    VT.UI1: R("2.2.3.5-1"),
    VT.UI2: R("2.2.3.6-1", "2.2.3.6-2"),
    VT.UI4: R("2.2.3.7-1", "2.2.3.7-2"),
    VT.I8: R("2.2.3.8-1", "2.2.3.8-2"),
    VT.UI8: R("2.2.3.9-1", "2.2.3.9-2"),
}
N, B, T = ("Normal",), ("Boundary",), ("Truncated",)
_INTEGERS: tuple[tuple[VT, str, str, int | None, tuple[str, ...]], ...] = (
    (VT.I2, "zero", "0000", 0, N),
    (VT.I2, "one", "0100", 1, N),
    (VT.I2, "minus one", "ffff", -1, N),
    (VT.I2, "minimum -32768", "0080", -32768, B),
    (VT.I2, "maximum 32767", "ff7f", 32767, B),
    (VT.I2, "0x1234 is little-endian", "3412", 0x1234, N),
    (VT.I2, "one byte of two", "01", None, T),
    (VT.I2, "no bytes", "", None, T),
    (VT.I4, "zero", "00000000", 0, N),
    (VT.I4, "minus one", "ffffffff", -1, N),
    (VT.I4, "minimum", "00000080", -(2**31), B),
    (VT.I4, "maximum", "ffffff7f", 2**31 - 1, B),
    (VT.I4, "0x12345678 is little-endian", "78563412", 0x12345678, N),
    (VT.I4, "three bytes of four", "ffffff", None, T),
    (VT.I4, "no bytes", "", None, T),
    (VT.I1, "zero", "00", 0, N),
    (VT.I1, "maximum 127", "7f", 127, B),
    (VT.I1, "minimum -128", "80", -128, B),
    (VT.I1, "minus one", "ff", -1, N),
    (VT.I1, "no bytes", "", None, T),
    (VT.UI1, "zero", "00", 0, B),
    (VT.UI1, "maximum 255", "ff", 255, B),
    (VT.UI1, "0x80 is unsigned", "80", 128, N),
    (VT.UI1, "no bytes", "", None, T),
    (VT.UI2, "zero", "0000", 0, B),
    (VT.UI2, "maximum 65535", "ffff", 65535, B),
    (VT.UI2, "0x8000 is unsigned", "0080", 0x8000, N),
    (VT.UI2, "0x1234 is little-endian", "3412", 0x1234, N),
    (VT.UI2, "one byte of two", "ff", None, T),
    (VT.UI2, "no bytes", "", None, T),
    (VT.UI4, "zero", "00000000", 0, B),
    (VT.UI4, "maximum 0xFFFFFFFF", "ffffffff", 0xFFFFFFFF, B),
    (VT.UI4, "0x80000000 is unsigned", "00000080", 0x80000000, N),
    (VT.UI4, "0x12345678 is little-endian", "78563412", 0x12345678, N),
    (VT.UI4, "three bytes of four", "ffffff", None, T),
    (VT.UI4, "no bytes", "", None, T),
    (VT.I8, "zero", "0000000000000000", 0, N),
    (VT.I8, "minus one", "ffffffffffffffff", -1, N),
    (VT.I8, "minimum", "0000000000000080", -(2**63), B),
    (VT.I8, "maximum", "ffffffffffffff7f", 2**63 - 1, B),
    (VT.I8, "0x0102030405060708 is little-endian", "0807060504030201", 0x0102030405060708, N),
    (VT.I8, "seven bytes of eight", "ffffffffffffff", None, T),
    (VT.I8, "no bytes", "", None, T),
    (VT.UI8, "zero", "0000000000000000", 0, B),
    (VT.UI8, "maximum", "ffffffffffffffff", 2**64 - 1, B),
    (VT.UI8, "2**63 is unsigned", "0000000000000080", 2**63, N),
    (VT.UI8, "0x0102030405060708 is little-endian", "0807060504030201", 0x0102030405060708, N),
    (VT.UI8, "seven bytes of eight", "00000000000000", None, T),
    (VT.UI8, "four bytes of eight", "00000000", None, T),
)


def _decoded(value: Any, data: bytes) -> dict[str, Any]:
    """What a PROPVALUE decoded from exactly ``data`` is expected to give."""
    return {"value": json_value(value), "size": len(data)}


class _PropValueKit(vb.Kit):
    """The file, its groups and the helpers its sections share."""

    def __init__(self) -> None:
        super().__init__(
            "propvalue_test.json",
            "PROPVALUE (2.2.3): each of the 15 wire types decoded alone from exactly 'msg'.",
            PV,
        )

    def ok(
        self,
        vt: VT,
        comment: str,
        hexdata: str,
        value: Any,
        reqs: list[str],
        flags: Sequence[str] = ("Normal",),
    ) -> None:
        """A valid (strict) ``vt`` vector ``hexdata`` that decodes to ``value``."""
        data = bytes.fromhex(hexdata)
        self.s.valid(comment, data, _decoded(value, data), reqs, flags, vt=vt)

    def bad(
        self,
        vt: VT,
        comment: str,
        hexdata: str,
        req: str,
        offset: int = 0,
        flags: Sequence[str] = ("Truncated",),
        group: Group | None = None,
    ) -> None:
        """An invalid ``vt`` vector (strict unless ``group``) breaking ``req`` at ``offset``."""
        group = self.s if group is None else group
        group.invalid(comment, bytes.fromhex(hexdata), [req], offset, flags, vt=vt)

    def integers(self, *vts: VT) -> None:
        """The vectors of the integer types ``vts``, from :data:`_INTEGERS`, in its order."""
        for vt, comment, hexdata, value, flags in _INTEGERS:
            if vt in vts and value is None:
                self.bad(vt, comment, hexdata, _INTEGER_RULES[vt][0], flags=flags)
            elif vt in vts:
                self.ok(vt, comment, hexdata, value, _INTEGER_RULES[vt], flags)

    def lone(self, vt: VT, comment: str, hexdata: str, offset: int, lenient_value: Any) -> None:
        """A lone surrogate at ``offset``: acceptable under errata E-07, as ``lenient_value``."""
        data = bytes.fromhex(hexdata)
        self.s.acceptable(
            comment,
            data,
            R("2.2.3.10-2"),
            offset,
            _decoded(lenient_value, data),
            ["LoneSurrogate", "E-07"],
            vt=vt,
        )


_sections: vb.Sections[_PropValueKit] = vb.Sections()


@_sections.add
def _vt_i2_and_vt_i4(kit: _PropValueKit) -> None:
    """VT_I2 and VT_I4 (2.2.3.1, 2.2.3.2); VT_BOOL comes next, then the other integers."""
    kit.integers(VT.I2, VT.I4)


@_sections.add
def _vt_bool(kit: _PropValueKit) -> None:
    """VT_BOOL (2.2.3.3)."""
    ok, bad = kit.ok, kit.bad
    ok(VT.BOOL, "VARIANT_FALSE 0x0000", "0000", False, R("2.2.3.3-1", "2.2.3.3-5"), B)
    ok(VT.BOOL, "VARIANT_TRUE 0xFFFF", "ffff", True, R("2.2.3.3-1", "2.2.3.3-4"), B)
    for raw, name in (
        ("0100", "0x0001"),
        ("ff00", "0x00FF"),
        ("00ff", "0xFF00"),
        ("feff", "0xFFFE"),
        ("0080", "0x8000"),
        ("ff7f", "0x7FFF"),
    ):
        bad(
            VT.BOOL,
            f"{name} is neither VARIANT_TRUE nor VARIANT_FALSE",
            raw,
            "MQCN-2.2.3.3-3",
            flags=("Boundary",),
        )
    bad(VT.BOOL, "one byte of two", "ff", "MQCN-2.2.3.3-1")
    bad(VT.BOOL, "no bytes", "", "MQCN-2.2.3.3-1")


@_sections.add
def _the_other_integers(kit: _PropValueKit) -> None:
    """VT_I1, VT_UI1, VT_UI2, VT_UI4, VT_I8 and VT_UI8 (2.2.3.4 to 2.2.3.9)."""
    kit.integers(VT.I1, VT.UI1, VT.UI2, VT.UI4, VT.I8, VT.UI8)


@_sections.add
def _vt_lpwstr(kit: _PropValueKit) -> None:
    """VT_LPWSTR (2.2.3.10)."""
    ok, bad, lone = kit.ok, kit.bad, kit.lone
    r = R("2.2.3.10-1", "2.2.3.10-2", "2.2.3.10-3")

    def s_ok(comment: str, text: str, flags: Sequence[str] = ("Normal",)) -> None:
        ok(VT.LPWSTR, comment, utf16z(text).hex(), text, r, flags)

    s_ok("empty string: the terminator alone", "", B)
    s_ok("one character", "a")
    s_ok("ASCII word", "MSMQ")
    s_ok("Latin-1 character U+00E9", "caf\u00e9")
    s_ok("CJK characters", "\u65e5\u672c")
    s_ok("a surrogate pair (U+1F600) is two code units", "\U0001f600")
    s_ok("U+FEFF inside a string is an ordinary character", "\ufeffa")
    s_ok("noncharacter U+FFFF is still a 16-bit code unit", "\uffff")
    s_ok("0x00 0x00 at an odd offset is not the terminator", "\u0100\u0001")
    s_ok("long string of 4096 characters", "q" * 4096, B)
    bad(VT.LPWSTR, "no terminator", "6100", "MQCN-2.2.3.10-1")
    bad(VT.LPWSTR, "no bytes at all", "", "MQCN-2.2.3.10-1")
    bad(VT.LPWSTR, "half a terminator", "610000", "MQCN-2.2.3.10-1")
    bad(VT.LPWSTR, "0x00 0x00 only at an odd offset", "6100620000", "MQCN-2.2.3.10-1")
    lone(VT.LPWSTR, "lone high surrogate U+D800", "00d80000", 0, "\ud800")
    lone(VT.LPWSTR, "lone low surrogate U+DC00", "00dc0000", 0, "\udc00")
    lone(VT.LPWSTR, "high surrogate followed by 'a'", "00d861000000", 0, "\ud800a")
    lone(VT.LPWSTR, "'a' then a high surrogate before the terminator", "610000d80000", 2, "a\ud800")
    lone(VT.LPWSTR, "surrogates in the wrong order (low, high)", "00dc00d80000", 0, "\udc00\ud800")


@_sections.add
def _vt_blob(kit: _PropValueKit) -> None:
    """VT_BLOB (2.2.3.11)."""
    ok, bad = kit.ok, kit.bad
    r = R("2.2.3.11-1", "2.2.3.11-2", "2.2.3.11-3", "2.2.3.11-4")

    def blob_ok(comment: str, data: bytes, flags: Sequence[str] = ("Normal",)) -> None:
        ok(VT.BLOB, comment, enc_value(VT.BLOB, data).hex(), data, r, flags)

    blob_ok("empty BLOB (Size 0)", b"", B)
    blob_ok("one byte", b"\xff")
    blob_ok("three bytes", b"\xaa\xbb\xcc")
    blob_ok("every byte value 0..255", bytes(range(256)))
    blob_ok("1024 bytes", bytes(1024), B)
    bad(
        VT.BLOB,
        "Size 5, 4 bytes of data",
        "05000000" + "01020304",
        "MQCN-2.2.3.11-3",
        flags=("CountMismatch",),
    )
    bad(VT.BLOB, "Size 1, no data", "01000000", "MQCN-2.2.3.11-3", flags=("CountMismatch",))
    bad(
        VT.BLOB,
        "Size 0xFFFFFFFF, no data",
        "ffffffff",
        "MQCN-2.2.3.11-3",
        flags=("CountMismatch", "Boundary"),
    )
    bad(
        VT.BLOB,
        "Size 0xFFFFFFFF, 8 bytes of data",
        "ffffffff" + "00" * 8,
        "MQCN-2.2.3.11-3",
        flags=("CountMismatch", "Boundary"),
    )
    bad(
        VT.BLOB,
        "Size 0x80000000 (negative if read signed)",
        "00000080" + "00" * 4,
        "MQCN-2.2.3.11-3",
        flags=("CountMismatch", "Boundary"),
    )
    bad(VT.BLOB, "Size field cut to 3 bytes", "000000", "MQCN-2.2.3.11-2")
    bad(VT.BLOB, "no bytes", "", "MQCN-2.2.3.11-2")


@_sections.add
def _vt_clsid(kit: _PropValueKit) -> None:
    """VT_CLSID (2.2.3.12)."""
    ok, bad = kit.ok, kit.bad
    r = R("2.2.3.12-1")
    ok(VT.CLSID, "GUID_NULL", "00" * 16, uuid.UUID(int=0), r, B)
    ok(
        VT.CLSID,
        "bytes 00..0F: Data1-3 little-endian, Data4 in order",
        bytes(range(16)).hex(),
        uuid.UUID("03020100-0504-0706-0809-0a0b0c0d0e0f"),
        r,
    )
    ok(VT.CLSID, "all bits set", "ff" * 16, uuid.UUID(int=2**128 - 1), r, B)
    ok(
        VT.CLSID,
        "the RFC 4122 example GUID",
        uuid.UUID(BODY_GUID).bytes_le.hex(),
        uuid.UUID(BODY_GUID),
        r,
    )
    bad(VT.CLSID, "15 bytes of 16", "00" * 15, "MQCN-2.2.3.12-1")
    bad(VT.CLSID, "8 bytes of 16", "00" * 8, "MQCN-2.2.3.12-1")
    bad(VT.CLSID, "no bytes", "", "MQCN-2.2.3.12-1")


@_sections.add
def _vt_ui4_vector(kit: _PropValueKit) -> None:
    """VT_UI4 | VT_VECTOR (2.2.3.13)."""
    ok, bad = kit.ok, kit.bad
    r = R("2.2.3.13-1", "2.2.3.13-2", "2.2.3.13-3", "2.2.3.13-4")
    for comment, items, flags in (
        ("empty vector (Size 0)", [], B),
        ("one element", [1], ("Normal",)),
        ("0, 0xFFFFFFFF, 0x12345678", [0, 0xFFFFFFFF, 0x12345678], B),
        ("64 elements", list(range(64)), ("Normal",)),
    ):
        ok(VT.UI4_VECTOR, comment, enc_value(VT.UI4_VECTOR, items).hex(), items, r, flags)
    bad(
        VT.UI4_VECTOR,
        "Size 2, one element",
        "02000000" + "01000000",
        "MQCN-2.2.3.13-4",
        flags=("CountMismatch",),
    )
    bad(
        VT.UI4_VECTOR,
        "Size 1, three bytes",
        "01000000" + "010000",
        "MQCN-2.2.3.13-4",
        flags=("CountMismatch",),
    )
    bad(
        VT.UI4_VECTOR,
        "Size 0xFFFFFFFF, no data",
        "ffffffff",
        "MQCN-2.2.3.13-4",
        flags=("CountMismatch", "Boundary"),
    )
    bad(VT.UI4_VECTOR, "Size field cut to 3 bytes", "000000", "MQCN-2.2.3.13-2")
    bad(VT.UI4_VECTOR, "no bytes", "", "MQCN-2.2.3.13-2")


@_sections.add
def _vt_clsid_vector(kit: _PropValueKit) -> None:
    """VT_CLSID | VT_VECTOR (2.2.3.14)."""
    ok, bad = kit.ok, kit.bad
    r = R("2.2.3.14-1", "2.2.3.14-2", "2.2.3.14-3", "2.2.3.14-4")
    for comment, items, flags in (
        ("empty vector (Size 0)", [], B),
        ("one GUID", [CN1], ("Normal",)),
        ("three GUIDs", [CN1, CN2, CN3], ("Normal",)),
    ):
        ok(VT.CLSID_VECTOR, comment, enc_value(VT.CLSID_VECTOR, items).hex(), items, r, flags)
    bad(
        VT.CLSID_VECTOR,
        "Size 2, one GUID",
        "02000000" + CN1.bytes_le.hex(),
        "MQCN-2.2.3.14-4",
        flags=("CountMismatch",),
    )
    bad(
        VT.CLSID_VECTOR,
        "Size 1, 15 bytes",
        "01000000" + "00" * 15,
        "MQCN-2.2.3.14-4",
        flags=("CountMismatch",),
    )
    bad(
        VT.CLSID_VECTOR,
        "Size 0xFFFFFFFF, one GUID",
        "ffffffff" + CN1.bytes_le.hex(),
        "MQCN-2.2.3.14-4",
        flags=("CountMismatch", "Boundary"),
    )
    bad(VT.CLSID_VECTOR, "Size field cut to 2 bytes", "0100", "MQCN-2.2.3.14-2")


@_sections.add
def _vt_lpwstr_vector(kit: _PropValueKit) -> None:
    """VT_LPWSTR | VT_VECTOR (2.2.3.15)."""
    f, lenient, ok, bad, lone = kit.f, kit.lenient, kit.ok, kit.bad, kit.lone
    r = R("2.2.3.15-1", "2.2.3.15-2", "2.2.3.15-3", "2.2.3.15-4")
    for comment, items, flags in (
        ("empty vector (Size 0)", [], B),
        ("one empty string", [""], B),
        ("'a' and 'bc'", ["a", "bc"], ("Normal",)),
        ("three empty strings", ["", "", ""], B),
        ("non-ASCII and a surrogate pair", ["caf\u00e9", "\U0001f600"], ("Normal",)),
    ):
        ok(VT.LPWSTR_VECTOR, comment, enc_value(VT.LPWSTR_VECTOR, items).hex(), items, r, flags)
    bad(
        VT.LPWSTR_VECTOR,
        "Size 2, one string",
        "02000000" + utf16z("a").hex(),
        "MQCN-2.2.3.15-4",
        flags=("CountMismatch",),
    )
    bad(
        VT.LPWSTR_VECTOR,
        "Size 3, two strings",
        "03000000" + (utf16z("a") + utf16z("")).hex(),
        "MQCN-2.2.3.15-4",
        flags=("CountMismatch",),
    )
    bad(
        VT.LPWSTR_VECTOR, "Size 1, no data", "01000000", "MQCN-2.2.3.15-4", flags=("CountMismatch",)
    )
    bad(
        VT.LPWSTR_VECTOR,
        "Size 0xFFFFFFFF, one string",
        "ffffffff" + utf16z("a").hex(),
        "MQCN-2.2.3.15-4",
        flags=("CountMismatch", "Boundary"),
    )
    bad(
        VT.LPWSTR_VECTOR,
        "Size 1, the string has no terminator",
        "01000000" + "6100",
        "MQCN-2.2.3.15-3",
        offset=4,
    )
    bad(
        VT.LPWSTR_VECTOR,
        "Size 2, the second string has no terminator",
        "02000000" + utf16z("a").hex() + "62006300",
        "MQCN-2.2.3.15-3",
        offset=8,
    )
    bad(VT.LPWSTR_VECTOR, "Size field cut to 3 bytes", "010000", "MQCN-2.2.3.15-2")
    lone(
        VT.LPWSTR_VECTOR,
        "an element holds a lone high surrogate",
        "02000000" + utf16z("a").hex() + "00d80000",
        8,
        ["a", "\ud800"],
    )

    # Under the lenient readings: the surrogate vectors are valid, the rest stays invalid.
    data = bytes.fromhex("00d80000")
    lenient.valid(
        "lone high surrogate U+D800 (lenient: any 16-bit unit)",
        data,
        {"value": json_value("\ud800"), "size": 4},
        R("2.2.3.10-2"),
        ("LoneSurrogate", "E-07"),
        vt=VT.LPWSTR,
    )
    bad(
        VT.LPWSTR,
        "lone surrogate and no terminator: still unterminated",
        "00d8",
        "MQCN-2.2.3.10-1",
        flags=("LoneSurrogate", "Truncated"),
        group=lenient,
    )
    bad(
        VT.BOOL,
        "0x0001 stays malformed under every reading",
        "0100",
        "MQCN-2.2.3.3-3",
        flags=("Boundary",),
        group=lenient,
    )
    bad(
        VT.BLOB,
        "Size beyond the data stays malformed",
        "ffffffff",
        "MQCN-2.2.3.11-3",
        flags=("CountMismatch",),
        group=lenient,
    )

    # Size x the smallest element (2 bytes, an empty string) is more than the data: the Size
    # is what is wrong (2.2.3.15-4, at the Size field), not the last, cut string (-3).
    counted = f.group(PV, "strict")
    for comment, hexdata in (
        ("Size 3, one string and one byte", "03000000" + utf16z("a").hex() + "00"),
        ("Size 2, one byte", "02000000" + "00"),
        ("Size 2, an empty string and one byte", "02000000" + utf16z("").hex() + "62"),
    ):
        bad(
            VT.LPWSTR_VECTOR,
            comment,
            hexdata,
            "MQCN-2.2.3.15-4",
            flags=("CountMismatch", "Truncated"),
            group=counted,
        )


def propvalue_file() -> vb.VectorFile:
    """propvalue_test.json, section by section."""
    return _PropValueKit().build(_sections)
