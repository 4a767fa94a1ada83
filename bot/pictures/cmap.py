"""Which characters a font file has a glyph for, read from its own ``cmap`` table: the truth the pictures
choose a font by (a character no shipped font has is never drawn as a box). Only the two subtable formats
fonts use for Unicode are read: 4 (the Basic Multilingual Plane) and 12 (all planes)."""

from __future__ import annotations

import struct

from bot.pictures.errors import PictureError

# (platform, encoding) of the Unicode subtables, best first: full Unicode, then the BMP.
_WANTED = ((3, 10), (0, 4), (0, 6), (3, 1), (0, 3), (0, 2), (0, 1), (0, 0))


def _tables(data: bytes) -> dict[str, int]:
    """The offsets of an sfnt's tables, by tag."""
    (count,) = struct.unpack_from(">H", data, 4)
    out = {}
    for i in range(count):
        tag, _, offset, _ = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        out[tag.decode("latin-1")] = offset
    return out


def _format4(data: bytes, at: int) -> set[int]:
    (seg_x2,) = struct.unpack_from(">H", data, at + 6)
    n = seg_x2 // 2
    ends = struct.unpack_from(f">{n}H", data, at + 14)
    starts = struct.unpack_from(f">{n}H", data, at + 16 + seg_x2)
    deltas = struct.unpack_from(f">{n}h", data, at + 16 + 2 * seg_x2)
    ranges_at = at + 16 + 3 * seg_x2
    offsets = struct.unpack_from(f">{n}H", data, ranges_at)
    out = set()
    for i, (start, end) in enumerate(zip(starts, ends, strict=True)):
        for c in range(start, min(end, 0xFFFE) + 1):
            if offsets[i] == 0:
                glyph = (c + deltas[i]) & 0xFFFF
            else:
                where = ranges_at + 2 * i + offsets[i] + 2 * (c - start)
                (glyph,) = struct.unpack_from(">H", data, where)
                glyph = (glyph + deltas[i]) & 0xFFFF if glyph else 0
            if glyph:
                out.add(c)
    return out


def _format12(data: bytes, at: int) -> set[int]:
    (groups,) = struct.unpack_from(">I", data, at + 12)
    out: set[int] = set()
    for g in range(groups):
        start, end, glyph = struct.unpack_from(">III", data, at + 16 + 12 * g)
        out.update(range(start if glyph else start + 1, end + 1))
    return out


def characters(data: bytes) -> frozenset[int]:
    """The code points the font in ``data`` (TrueType or OpenType) maps to a glyph other than .notdef."""
    try:
        cmap = _tables(data)["cmap"]
        (count,) = struct.unpack_from(">H", data, cmap + 2)
        found = {}
        for i in range(count):
            platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
            found[(platform, encoding)] = cmap + offset
        for key in _WANTED:
            if key in found:
                at = found[key]
                (fmt,) = struct.unpack_from(">H", data, at)
                if fmt == 12:
                    return frozenset(_format12(data, at))
                if fmt == 4:
                    return frozenset(_format4(data, at))
    except (KeyError, struct.error) as e:
        raise PictureError(f"a font's cmap could not be read: {e!r}") from e
    raise PictureError("a font has no Unicode cmap of format 4 or 12")
