"""What the fake reads from uploaded bytes: a media type, an image's size, an image data URI.

No imaging library: PNG and GIF sizes come from their headers (a PNG's IHDR chunk, a GIF's logical screen),
which is all Discord's ``width``/``height`` need for those formats. JPEG and WebP images get a content type
but no size here (the fake leaves ``width``/``height`` out for them; Discord would send them).
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
import struct

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# data:image/png;base64,....  (Discord's "image data" for emojis, avatars, icons)
_DATA_URI = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+);base64,(?P<data>[A-Za-z0-9+/=\s]*)$", re.DOTALL)


def sniff_image(data: bytes) -> str | None:
    """The image media type the bytes start with (the formats discord.py itself recognises), or None."""
    if data.startswith(PNG_MAGIC):
        return "image/png"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[4:12] in (b"ftypavif", b"ftypavis"):
        return "image/avif"
    return None


def content_type(filename: str, data: bytes) -> str | None:
    """The ``content_type`` of an attachment: the image kind from the bytes, else a guess from the name
    (text types get ``; charset=utf-8`` as Discord reports them), else None (the field is then left out)."""
    sniffed = sniff_image(data)
    if sniffed is not None:
        return sniffed
    guessed, _ = mimetypes.guess_type(filename, strict=False)
    if guessed is None:
        return None
    return f"{guessed}; charset=utf-8" if guessed.startswith("text/") else guessed


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG (IHDR) or GIF (logical screen); None for anything else or a broken header."""
    if data.startswith(PNG_MAGIC) and len(data) >= 24 and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return width, height
    return None


def is_animated(data: bytes) -> bool:
    """A GIF, or a WebP with an animation chunk, or a PNG with an acTL chunk (APNG) before its image data."""
    kind = sniff_image(data)
    if kind == "image/gif":
        return True
    if kind == "image/webp":
        return b"ANIM" in data[:4096]
    if kind == "image/png":
        head = data[: data.find(b"IDAT")] if b"IDAT" in data else data[:4096]
        return b"acTL" in head
    return False


def decode_data_uri(value: object) -> tuple[str, bytes] | None:
    """(declared media type, decoded bytes) of a base64 data URI, or None if it is not one."""
    if not isinstance(value, str):
        return None
    match = _DATA_URI.match(value)
    if match is None:
        return None
    try:
        data = base64.b64decode(match["data"], validate=False)
    except (binascii.Error, ValueError):
        return None
    return match["mime"], data
