"""Plain-text ruling pages, in exactly three layouts (PRODUCT.md, "Inputs"):

1. a ``Rulings`` header line, then ``• YYYY-MM-DD`` bullet lines each followed by the text;
2. a card-name line, then ``DD/MM/YYYY`` date lines each followed by the text;
3. a ``Search`` header line, then undated paragraphs separated by blank lines.

Any other text (the Comprehensive Rules, README-like files) holds no rulings.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from rulings.ingest.dates import source_date
from rulings.ingest.errors import NoRulings
from rulings.ingest.model import Ruling, Source
from rulings.ingest.readers import limits
from rulings.ingest.readers.encoding import decode

FORMAT = "text"

_BULLET_DATE = re.compile(r"^\s*•\s*(\d{4})-(\d{2})-(\d{2})\s*$")
_DMY_DATE = re.compile(r"^\s*(\d{1,2})/(\d{1,2})/(\d{4})\s*$")


def looks_like(head: bytes, suffix: str) -> bool:
    """True for a decodable text file that is not JSON, HTML, or a binary container."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        head = head.decode("utf-16", errors="ignore").encode("utf-8")
    if head.startswith((b"PK\x03\x04", b"%PDF")) or b"\x00" in head[:1024]:
        return False
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return not stripped.startswith((b"{", b"[", b"<"))


def read(path: Path) -> Iterator[Ruling]:
    """Yield the rulings of one text page in one of the three layouts.

    Dates: layout 1 is ISO; layout 2 is day/month/year (``25/07/2025``); layout 3
    is undated. ``card`` is the card-name line of layout 2, else None. Bytes are
    decoded by ingest/readers/encoding.py (a stray byte in UTF-8 text is replaced,
    with a warning). Raises NoRulings for any other text and ReadError for bytes
    that are no text or a file past limits.TEXT_BYTES.
    """
    limits.check_size(path, limits.TEXT_BYTES, "text file")
    text = decode(path.read_bytes(), str(path))
    lines = [line.rstrip() for line in text.splitlines()]
    nonblank = [i for i, line in enumerate(lines) if line.strip()]
    if not nonblank:
        raise NoRulings(str(path), "empty text file")
    first = lines[nonblank[0]].strip()
    source = Source(str(path), FORMAT)
    if first == "Rulings":
        rulings = list(_dated_blocks(lines[nonblank[0] + 1:], _BULLET_DATE, _iso, source, None))
    elif first == "Search":
        rulings = list(_paragraphs(lines[nonblank[0] + 1:], source))
    elif len(nonblank) > 1 and _DMY_DATE.match(lines[nonblank[1]]):
        rulings = list(_dated_blocks(lines[nonblank[0] + 1:], _DMY_DATE, _dmy, source, first))
    else:
        raise NoRulings(str(path), "text in none of the three ruling layouts")
    if not rulings:
        raise NoRulings(str(path), "ruling layout with no rulings")
    yield from rulings


def _iso(m: re.Match) -> str:
    return f"{m.group(1)}-{m.group(2)}-{m.group(3)}"


def _dmy(m: re.Match) -> str:
    return f"{int(m.group(3)):04d}-{int(m.group(2)):02d}-{int(m.group(1)):02d}"


def _dated_blocks(lines, date_re, to_iso, source, card) -> Iterator[Ruling]:
    """The rulings after each date line. A date line that is no real date (``• 2019-13-45``,
    ``31/02/2019``) keeps its ruling undated with the warning ``dates.INVALID_DATE``, as the JSON
    readers do."""
    dated, date, warnings, body, position = False, None, (), [], 0
    for line in lines + ["\x00end"]:
        m = date_re.match(line)
        if m or line == "\x00end":
            if body and dated:
                yield Ruling(text=" ".join(body), source=source, position=position,
                             date=date, card=card, warnings=warnings)
                position += 1
            dated, body = m is not None, []
            if m:
                parsed, warnings = source_date(to_iso(m))
                date = parsed.iso if parsed else None
        elif line.strip() and dated:
            body.append(line.strip())


def _paragraphs(lines, source) -> Iterator[Ruling]:
    body, position = [], 0
    for line in lines + [""]:
        if line.strip():
            body.append(line.strip())
        elif body:
            yield Ruling(text=" ".join(body), source=source, position=position)
            position, body = position + 1, []
