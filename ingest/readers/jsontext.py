"""Shared JSON helpers of the Scryfall and MTGJSON readers: encodings, loading, head sniffing.

Encodings: as every text-based reader (ingest/readers/encoding.py): UTF-8 with or
without a BOM, mostly-UTF-8 with its bad bytes replaced (and a warning), UTF-16 with
a BOM, cp1252. A file read as UTF-8 is streamed (``streams``, ``open_stream``);
others are loaded whole. Damaged JSON raises ReadError naming the reason
(truncated, bad syntax, bytes that are no text).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import ijson

from rulings.ingest.errors import ReadError
from rulings.ingest.readers import encoding, limits
from rulings.ingest.readers.encoding import UTF8_BOM, UTF16_BOMS, decode, open_utf8


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


def streams(path: Path) -> bool:
    """True when the file is read as UTF-8 (valid, or mostly so with its bad bytes replaced), so that it
    can be streamed with ijson; False for UTF-16 and cp1252 files, which are loaded whole."""
    return encoding.scan_file(path).streams_as_utf8()


open_stream = open_utf8


def load(path: Path):
    """Parse a whole JSON file; raises ReadError for undecodable bytes, damaged JSON, JSON
    nested deeper than Python's recursion limit, or a file past limits.JSON_WHOLE_BYTES."""
    limits.check_size(path, limits.JSON_WHOLE_BYTES, "JSON read whole")
    raw = path.read_bytes()
    cut = _cut_character(raw)
    text = decode(raw[:cut], str(path))
    try:
        return json.loads(text)
    except RecursionError:
        raise ReadError(str(path), f"JSON nested deeper than {sys.getrecursionlimit()} levels") from None
    except json.JSONDecodeError as err:
        if err.pos >= len(text.rstrip()) or not text.rstrip().endswith(("}", "]")):
            raise ReadError(str(path), f"truncated JSON (ends at line {err.lineno})") from None
        raise ReadError(str(path), f"damaged JSON: {err.msg} at line {err.lineno} column {err.colno}") from None


def _cut_character(raw: bytes) -> int:
    """len(raw), or where a UTF-8 character cut by the end of a truncated file starts (so that the
    file is reported as truncated JSON, not as bad bytes)."""
    tail = raw[-3:]
    for back in range(len(tail), 0, -1):
        lead = tail[-back]
        needs = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 0
        if needs > back and all(0x80 <= b <= 0xBF for b in tail[len(tail) - back + 1:]):
            return len(raw) - back
    return len(raw)


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
    with open_stream(path) as handle:
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
    raises ReadError (truncated, damaged, bytes that are no text) when it is not valid JSON."""
    if not streams(path):
        load(path)
        return
    check_depth(path)
    with open_stream(path) as handle:
        try:
            for _ in ijson.basic_parse(handle):
                pass
        except ijson.JSONError as err:
            raise stream_error(path, err) from None
        except UnicodeDecodeError:
            raise ReadError(str(path), "JSON is not valid UTF-8") from None
