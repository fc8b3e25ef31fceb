"""Read stage: sniff each file's format from its content and run its reader.

``read_sources(paths)`` walks directories recursively and returns a ReadReport:
the rulings read plus, per file, whether it was read, skipped (holds no rulings)
or rejected (cannot be read). Nothing is silently dropped. A file that starts like
JSON but that no reader claims is checked to the end: valid JSON of another kind
is skipped, damaged or truncated JSON is rejected with the reason.
"""

from __future__ import annotations

import os
import re
from xml.etree import ElementTree
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ingest.errors import NoRulings, ReadError
from ingest.model import Ruling
from ingest.readers import docx, gatherer, jsonl, jsontext, mtgjson, pdf, scryfall, text

# Order matters: the first reader whose looks_like() accepts the head wins. jsonl (our own
# export) goes first: its entries hold card and set keys the JSON readers would claim.
READERS = [jsonl, scryfall, mtgjson, gatherer, docx, pdf, text]
HEAD_BYTES = 65536


@dataclass
class FileResult:
    """What reading one file gave: format and rulings, or a skip/reject reason."""

    path: str
    format: str | None = None
    rulings: list[Ruling] = field(default_factory=list)
    skipped: str | None = None
    rejected: str | None = None
    card_names: dict[str, str] = field(default_factory=dict)  # oracle_id -> card name


def sniff(path: Path, head: bytes | None = None):
    """Return the reader module for a file, chosen by content (first 64 KiB).

    The suffix is passed to readers as a hint. Returns None when no reader claims it.
    When no content test passes, a reader may still claim the file by its suffix
    (``claims_by_suffix``: a ``.jsonl`` file starting with ``{``).
    """
    if head is None:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    suffix = path.suffix.lower()
    for reader in READERS:
        if reader.looks_like(head, suffix):
            return reader
    for reader in READERS:
        claims = getattr(reader, "claims_by_suffix", None)
        if claims is not None and claims(head, suffix):
            return reader
    return None


def looks_binary(head: bytes) -> bool:
    """True when the first bytes hold NULs outside a UTF-16 BOM text, or are not UTF-8 and mostly control bytes."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head[:4096] if b < 9 or 13 < b < 32)
    return controls > len(head[:4096]) // 10


def unclaimed(path: Path, head: bytes) -> tuple[str | None, str | None]:
    """(skip reason, reject reason) of a file no reader claims; exactly one is set.

    Binary content is rejected. JSON and markup are checked to the end, so that a
    damaged or truncated file is rejected with the reason rather than skipped: JSON
    with ijson (jsontext.check), HTML by its closing ``</html>``, XML with the
    stdlib parser. Whole files of another kind (the CR's JSON, wiki XML) are skipped.
    """
    if looks_binary(head):
        return None, "binary file, not a ruling document"
    if jsontext.looks_like_json(head):
        try:
            jsontext.check(path)
        except ReadError as err:
            return None, err.reason
        return "JSON that is not a ruling document (no Scryfall, MTGJSON or export shape)", None
    text = jsontext.head_text(head).lstrip().lower()
    if text.startswith("<"):
        if "<html" in text[:4096] or "<!doctype html" in text[:4096]:
            with open(path, "rb") as handle:
                handle.seek(max(0, path.stat().st_size - 4096))
                if b"</html>" not in handle.read().lower():
                    return None, "HTML page cut short (no closing </html>)"
            return "HTML page that is not a Gatherer card page", None
        if text.startswith("<?xml") or re.match(r"<[a-z_][\w:.-]*[\s>/]", text):
            try:
                for _ in ElementTree.iterparse(path):
                    pass
            except ElementTree.ParseError as err:
                return None, f"damaged or truncated XML ({err})"[:200]
            return "XML that is not a ruling document", None
    return "not a ruling document (unknown format)", None


def read_file(path: Path) -> FileResult:
    """Read one file into a FileResult; never raises for bad content.

    Raises OSError only when the file cannot be opened at all.
    """
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES)
    reader = sniff(path, head)
    result = FileResult(str(path))
    if reader is None:
        result.skipped, result.rejected = unclaimed(path, head)
        return result
    result.format = reader.FORMAT
    try:
        if hasattr(reader, "read_with_names"):
            rulings, result.card_names = reader.read_with_names(path)
            result.rulings = list(rulings)
        else:
            result.rulings = list(reader.read(path))
    except NoRulings as err:
        result.skipped = err.reason
        result.card_names = err.card_names
    except ReadError as err:
        result.rejected = err.reason
    if not result.rulings and not (result.skipped or result.rejected):
        result.skipped = "holds no rulings"
    return result


def walk(path: Path) -> Iterable[Path]:
    """Yield the files under path (or path itself), sorted, skipping hidden entries."""
    if path.is_file():
        yield path
        return
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield Path(root) / name
