"""Our own JSONL export read back (PRODUCT.md, "Inputs": ``jsonl``).

Layout: the first line is a ``{"meta": {...}}`` record (skipped), then one entry
per line in the PRODUCT.md entry shape. A file is taken for an export when its
first line is our meta record (any ``{"meta": …}`` object alone on its line, or the
start ``{"meta": {"selected":``), or an entry; failing every reader's content test,
a file named ``.jsonl`` that starts with ``{`` is taken for one too (claims_by_suffix). An export with a line
that is not JSON or not an entry is rejected
naming the line (it is damaged); a ``.jsonl`` file without a meta line whose first
record is not an entry is JSON Lines of something else, and is skipped. Every variant of every entry becomes a
Ruling carrying the entry's id (``Ruling.entry_id``, kept by the pipeline for
the entries that form again) and all the variant's fields, including its
original ``source`` (path and format) and ``position``, so a re-export of the
ingested file is identical. Rulings are yielded in (source path, position)
order, the order the original ingest saw them in.
"""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path
from typing import Iterator

from rulings.ingest.dates import source_date
from rulings.ingest.errors import NoRulings, ReadError
from rulings.ingest.model import Ruling, Source
from rulings.ingest.readers import encoding, limits

FORMAT = "jsonl"

_META_HEAD = re.compile(rb'^\s*\{\s*"meta"\s*:\s*\{\s*"selected"\s*:')
_ENTRY_HEAD = re.compile(rb'^\s*\{\s*"id"\s*:\s*"[^"\n]*"\s*,\s*"text"\s*:')


def looks_like(head: bytes, suffix: str) -> bool:
    """True when the first line opens our ``{"meta": {"selected":`` record, or is a whole
    ``{"meta": …}`` object with no other key followed by more lines (an MTGJSON v5 file's
    ``{"meta": …, "data": …}`` is not), or is an entry object (``{"id": …, "text":`` holding
    ``"variants"``)."""
    head = head.removeprefix(b"\xef\xbb\xbf")
    if _META_HEAD.match(head):
        return True
    first, newline, _ = head.partition(b"\n")
    if _ENTRY_HEAD.match(first) and b'"variants"' in first:
        return True
    return bool(newline) and _meta_record(first)


def claims_by_suffix(head: bytes, suffix: str) -> bool:
    """The fallback when no reader's looks_like() claims a file: ``.jsonl`` starting with ``{``
    (a damaged export whose first line is no longer a meta record or an entry)."""
    return suffix == ".jsonl" and head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"{")


def _meta_record(line: bytes) -> bool:
    """True for a line that is a JSON object whose only key is ``meta``."""
    try:
        record = json.loads(line)
    except ValueError:
        return False
    return isinstance(record, dict) and set(record) == {"meta"}


def read(path: Path) -> Iterator[Ruling]:
    """Yield one Ruling per variant of every entry line.

    Raises ReadError naming the line for a line that is not JSON or not an entry,
    NoRulings for an export with no entries and for JSON Lines that are not an
    export (no meta line, first record not an entry).
    """
    rulings: list[Ruling] = []
    export = False
    for number, line in _lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as err:
            raise ReadError(str(path), f"line {number}: not JSON ({err.msg})") from None
        if not export and isinstance(record, dict) and set(record) == {"meta"}:
            export = True
            continue
        if not export and not rulings and not _is_entry(record):
            raise NoRulings(str(path), "JSON Lines that are not a rulings export (no meta line, no entries)")
        rulings.extend(entry_rulings(record, str(path), number))
    if not rulings:
        raise NoRulings(str(path), "export holds no entries")
    rulings.sort(key=lambda r: (r.source.path, r.position))
    yield from rulings


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line) of the file read one line at a time (a file of any size), decoded as every
    text-based reader decodes (ingest/readers/encoding.py: bad bytes of a mostly-UTF-8 export are
    replaced, with a warning); ReadError for bytes that are no text and for a line longer than
    limits.JSONL_LINE_BYTES characters."""
    with encoding.open_text(path) as handle:
        number = 0
        while line := handle.readline(limits.JSONL_LINE_BYTES + 1):
            number += 1
            if len(line) > limits.JSONL_LINE_BYTES:
                raise ReadError(str(path), f"line {number} is longer than {limits.JSONL_LINE_BYTES:,} "
                                           f"characters, the most read at once")
            yield number, line.lstrip("\ufeff") if number == 1 else line


def _is_entry(record) -> bool:
    return isinstance(record, dict) and isinstance(record.get("id"), str) and "variants" in record


def entry_rulings(entry, path: str, number: int) -> list[Ruling]:
    """The rulings of one entry record (PRODUCT.md entry shape); ReadError when it is not one."""
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) \
            or not isinstance(entry.get("variants"), list) or not entry["variants"]:
        raise ReadError(path, f"line {number}: not an entry (needs an id and a list of variants)")
    try:
        return [variant_ruling(v, entry["id"], path) for v in entry["variants"]]
    except (KeyError, TypeError, ValueError) as err:
        raise ReadError(path, f"line {number}: damaged variant ({type(err).__name__}: {err})") from None


# Ruling fields a variant dict carries under the same name; "set" is set_code. Fields that later
# stages compute (match, repairs, repaired_text) or that come from elsewhere are not read.
_COMPUTED = {"text", "source", "position", "entry_id", "match", "repairs", "repaired_text", "warnings"}
_CARRIED = tuple(f.name for f in fields(Ruling) if f.name not in _COMPUTED)


def variant_ruling(variant: dict, entry_id: str, path: str) -> Ruling:
    """One variant dict as a Ruling with every field it carries; its source defaults to the export file."""
    text = variant["text"]
    if not isinstance(text, str) or not text:
        raise ValueError("text is not a non-empty string")
    source = variant.get("source") or {}
    values = {name: variant[name] for name in _CARRIED if variant.get(name) is not None}
    if variant.get("set") is not None:
        values["set_code"] = variant["set"]
    values.pop("date", None)
    parsed, warnings = source_date(variant.get("date"))
    if parsed:
        values["date"] = parsed.iso
    values.setdefault("lang", "en")
    values["date_ambiguous"] = bool(values.get("date_ambiguous", False))
    return Ruling(text=text, source=Source(str(source.get("path") or path), str(source.get("format") or FORMAT)),
                  position=int(variant.get("position") or 0), entry_id=entry_id, warnings=warnings, **values)
