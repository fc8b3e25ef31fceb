"""Shared JSON helpers of the Scryfall and MTGJSON readers: encodings, loading, head sniffing.

Encodings read: UTF-8 with or without a BOM, UTF-16 with a BOM, cp1252 (the
same set as the text reader, ingest/readers/text.py). Damaged JSON raises
ReadError naming the reason (truncated, bad syntax, undecodable bytes).
"""

from __future__ import annotations

import json
from pathlib import Path

from ingest.errors import ReadError
from ingest.readers.text import decode

UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
UTF8_BOM = b"\xef\xbb\xbf"


def head_text(head: bytes) -> str:
    """The first bytes of a file as text (BOM removed, undecodable bytes dropped), for sniffing."""
    if head.startswith(UTF16_BOMS):
        return head.decode("utf-16", errors="ignore")
    if head.startswith(UTF8_BOM):
        head = head[3:]
    return head.decode("utf-8", errors="ignore")


def looks_like_json(head: bytes) -> str | None:
    """``"{"`` or ``"["`` when the text starts like a JSON object or array, else None."""
    stripped = head_text(head).lstrip()
    return stripped[:1] if stripped[:1] in ("{", "[") else None


def is_utf8(raw: bytes) -> bool:
    """True when raw (possibly cut mid-character at the end) is UTF-8."""
    try:
        raw.decode("utf-8")
        return True
    except UnicodeDecodeError as err:
        return err.start >= len(raw) - 3 and err.reason == "unexpected end of data"


def load(path: Path):
    """Parse a whole JSON file; raises ReadError for undecodable bytes or damaged JSON."""
    text = decode(path.read_bytes(), str(path))
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        if err.pos >= len(text.rstrip()) or not text.rstrip().endswith(("}", "]")):
            raise ReadError(str(path), f"truncated JSON (ends at line {err.lineno})") from None
        raise ReadError(str(path), f"damaged JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
