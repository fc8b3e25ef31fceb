"""Shared JSON helpers of the Scryfall and MTGJSON readers: encodings, loading, head sniffing.

Encodings read: UTF-8 with or without a BOM, UTF-16 with a BOM, cp1252 (the
same set as the text reader, ingest/readers/text.py). Damaged JSON raises
ReadError naming the reason (truncated, bad syntax, undecodable bytes).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import ijson

from ingest.errors import ReadError
from ingest.readers import limits
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
    """Parse a whole JSON file; raises ReadError for undecodable bytes, damaged JSON, JSON
    nested deeper than Python's recursion limit, or a file past limits.JSON_WHOLE_BYTES."""
    limits.check_size(path, limits.JSON_WHOLE_BYTES, "JSON read whole")
    raw = path.read_bytes()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.reason == "unexpected end of data" and err.start >= len(raw) - 3:
            raw = raw[:err.start]        # UTF-8 cut inside a character: a truncated file
    text = decode(raw, str(path))
    try:
        return json.loads(text)
    except RecursionError:
        raise ReadError(str(path), f"JSON nested deeper than {sys.getrecursionlimit()} levels") from None
    except json.JSONDecodeError as err:
        if err.pos >= len(text.rstrip()) or not text.rstrip().endswith(("}", "]")):
            raise ReadError(str(path), f"truncated JSON (ends at line {err.lineno})") from None
        raise ReadError(str(path), f"damaged JSON: {err.msg} at line {err.lineno} column {err.colno}") from None


def stream_error(path: Path, err: Exception) -> ReadError:
    """The ReadError for an ijson error while streaming path: ``truncated JSON`` when the
    parser met the end too early or the file does not end with ``}`` or ``]`` (cut short),
    else ``damaged JSON``; both with ijson's reason."""
    detail = (str(err).splitlines() or [type(err).__name__])[0][:80]
    with open(path, "rb") as handle:
        handle.seek(max(0, path.stat().st_size - 64))
        tail = handle.read().rstrip()
    cut = "premature eof" in detail.lower() or "incomplete" in detail.lower()
    if cut or not tail.endswith((b"}", b"]")):
        return ReadError(str(path), f"truncated JSON ({detail})")
    return ReadError(str(path), f"damaged JSON ({detail})")


# Ruling documents nest a few levels (AllPrintings: data > set > cards > card > rulings > ruling); ijson's
# prefix-tracking parsers keep a path string per open level, so memory grows with the square of the depth.
MAX_DEPTH = 256


def check_depth(path: Path) -> None:
    """Raise ReadError when the JSON in path nests arrays and objects deeper than MAX_DEPTH.

    Streams ijson's basic events (no path strings kept), before a prefix-tracking
    parse of the same file; a damaged or undecodable file passes here and is
    reported by that parse.
    """
    depth = 0
    with open(path, "rb") as handle:
        if handle.read(3) != UTF8_BOM:
            handle.seek(0)
        try:
            for event, _ in ijson.basic_parse(handle):
                if event in ("start_map", "start_array"):
                    depth += 1
                    if depth > MAX_DEPTH:
                        raise ReadError(str(path), f"JSON nested deeper than {MAX_DEPTH} levels")
                elif event in ("end_map", "end_array"):
                    depth -= 1
        except (ijson.JSONError, UnicodeDecodeError):
            return


def check(path: Path) -> None:
    """Parse the whole file as JSON without keeping it (ijson events for UTF-8, else json);
    raises ReadError (truncated, damaged, undecodable) when it is not valid JSON."""
    with open(path, "rb") as handle:
        head = handle.read(4096)
    raw = head[3:] if head.startswith(UTF8_BOM) else head
    if head.startswith(UTF16_BOMS) or not is_utf8(raw):
        load(path)
        return
    check_depth(path)
    with open(path, "rb") as handle:
        if handle.read(3) != UTF8_BOM:
            handle.seek(0)
        try:
            for _ in ijson.basic_parse(handle):
                pass
        except ijson.JSONError as err:
            raise stream_error(path, err) from None
        except UnicodeDecodeError:
            raise ReadError(str(path), "JSON is not valid UTF-8") from None
