"""Read stage: sniff each file's format from its content and run its reader.

``read_sources(paths)`` walks directories recursively and returns a ReadReport:
the rulings read plus, per file, whether it was read, skipped (holds no rulings)
or rejected (cannot be read). Nothing is silently dropped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ingest.errors import NoRulings, ReadError
from ingest.model import Ruling
from ingest.readers import docx, gatherer, mtgjson, pdf, scryfall, text

# Order matters: the first reader whose looks_like() accepts the head wins.
READERS = [scryfall, mtgjson, gatherer, docx, pdf, text]
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
    """
    if head is None:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    suffix = path.suffix.lower()
    for reader in READERS:
        if reader.looks_like(head, suffix):
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


def read_file(path: Path) -> FileResult:
    """Read one file into a FileResult; never raises for bad content.

    Raises OSError only when the file cannot be opened at all.
    """
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES)
    reader = sniff(path, head)
    result = FileResult(str(path))
    if reader is None:
        if looks_binary(head):
            result.rejected = "binary file, not a ruling document"
        else:
            result.skipped = "not a ruling document (unknown format)"
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
