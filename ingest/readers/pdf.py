"""Release notes as PDF (``faq_<set>.pdf``, Simplified Chinese), text extracted with pypdf.

Layout of the extracted lines: card blocks (name, mana cost, type line, rules text)
each followed by ``• `` ruling paragraphs; the PDF breaks every paragraph into
lines of about 45 characters. A ruling paragraph runs from its ``• `` line to the
next bullet, blank line or line ending in a paragraph break (pypdf leaves a
trailing space on the last line of a paragraph, none on a wrapped line). Wrapped
lines are joined without a space, except between two Latin letters or digits
(``Magic.Wizards.com/Rules`` text and numbers keep their word spacing).

Bullets inside card text are a modal spell's options (``选择一项～`` followed by
``•放逐目标神器。``): they come before the block's first ruling and have no space
after the bullet, where rulings have one (``• 如果…``). They are not rulings.

Card of a ruling: the first line of its block when the next line is a mana cost
(``{三}{白}``) or a type line; rulings before the card-specific section
(``单卡解惑``) have no card. Set code: the file name ``faq_<set>``; date: the
``此文件最近更新日期：2023 年 1 月 20 日`` line.
"""

from __future__ import annotations

import logging
import re
import struct
import zlib
from pathlib import Path
from typing import Iterator

from pypdf import PdfReader
from pypdf.errors import DependencyError, PdfReadError

from rulings.ingest.dates import parse_date
from rulings.ingest.errors import NoRulings, ReadError
from rulings.ingest.model import Ruling, Source
from rulings.ingest.readers import limits
from rulings.ingest.readers.docx import COST_LINE, TYPE_PREFIX, clean_card_name, set_code_from_name

FORMAT = "pdf"

_BULLET = re.compile(r"^\s*•(\s*)")
_TYPE_LINE = re.compile(TYPE_PREFIX)
_CARD_SECTION = re.compile(r"^[^「」]{0,30}单卡解惑$")
_UPDATED = re.compile(r"更新日期")
_LATIN = re.compile(r"[A-Za-z0-9]")
_CJK = re.compile(r"[\u3400-\u9fff]")


def looks_like(head: bytes, suffix: str) -> bool:
    """True for a file starting with the ``%PDF`` signature."""
    return head.lstrip(b"\r\n\t ")[:5] == b"%PDF-"


def read(path: Path) -> Iterator[Ruling]:
    """Yield the ``•`` ruling paragraphs of one release-notes PDF.

    Raises ReadError for a damaged or truncated PDF, NoRulings for a PDF without
    ruling paragraphs (or without extractable text).
    """
    lines = extract_lines(path)
    source = Source(str(path), FORMAT)
    date = document_date(lines[:60])
    set_code = set_code_from_name(path)
    rulings = [
        Ruling(text=text, source=source, position=i,
               lang="zh-Hans" if _CJK.search(text) else "en", date=date, card=card,
               set_code=set_code, publisher="wotc",
               declared_lang="zh-Hans" if _CJK.search(text) else None, card_text=card_text)
        for i, (text, card, card_text) in enumerate(ruling_paragraphs(lines))
    ]
    if not rulings:
        raise NoRulings(str(path), "PDF without • ruling paragraphs")
    return iter(rulings)


def extract_lines(path: Path) -> list[str]:
    """Every text line of every page, in order (trailing spaces kept: they mark paragraph ends).

    Raises ReadError for a damaged PDF, a file past limits.PDF_BYTES, and an encrypted PDF
    that does not open with the empty password (one encrypted only against editing opens).
    pypdf bounds what a compressed stream may inflate to (``pypdf.filters.ZLIB_MAX_OUTPUT_LENGTH``).
    """
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    limits.check_size(path, limits.PDF_BYTES, "PDF")
    try:
        reader = PdfReader(str(path), strict=False)
        if reader.is_encrypted:
            _decrypt(path, reader)
        if not reader.pages:
            raise ReadError(str(path), "PDF without pages")
        return [line for page in reader.pages for line in (page.extract_text() or "").split("\n")]
    except ReadError:
        raise
    except _DAMAGED as err:
        raise ReadError(str(path), f"damaged or truncated PDF ({type(err).__name__}: {err})"[:200]) from None


# What pypdf raises for a damaged file besides its own PdfReadError: a missing or mistyped object,
# a bad number, an unsupported filter name (found by tests/test_fuzz_readers.py), a broken stream.
_DAMAGED = (PdfReadError, ValueError, LookupError, TypeError, AttributeError, ArithmeticError,
            NotImplementedError, AssertionError, OSError, zlib.error, struct.error)


def _decrypt(path: Path, reader: PdfReader) -> None:
    """Open an encrypted PDF with the empty user password; ReadError when that fails."""
    try:
        opened = reader.decrypt("")
    except (PdfReadError, DependencyError, NotImplementedError, ValueError) as err:
        raise ReadError(str(path), f"encrypted PDF that cannot be opened ({type(err).__name__}: {err})"[:200]) from None
    if not opened:
        raise ReadError(str(path), "encrypted PDF (needs a password)")


def join_lines(lines: list[str]) -> str:
    """Re-join hard-wrapped lines: no space between CJK characters, one between Latin words."""
    text = ""
    for line in (line.strip() for line in lines):
        if not line:
            continue
        if text and _LATIN.match(text[-1]) and _LATIN.match(line[0]):
            text += " "
        text += line
    return text


def ruling_paragraphs(lines: list[str]) -> Iterator[tuple[str, str | None, str | None]]:
    """Yield (ruling text, card name or None, the card's text or None: block_card_text()) for every
    ``•`` ruling paragraph of the lines."""
    in_cards, card, text_of_card = False, None, None
    block: list[str] = []           # non-bullet lines since the last blank line or ruling
    in_card_text = True             # no ruling yet in this block: "•" + text is a modal option
    current: list[str] | None = None
    for line in lines + [""]:
        stripped = line.strip()
        bullet = _BULLET.match(line)
        if current is not None and (not stripped or bullet or _ends_paragraph(current[-1])):
            yield join_lines(current), card, text_of_card
            current = None
        if not stripped:
            block, in_card_text = [], True
            continue
        if bullet:
            if in_card_text and block and not bullet.group(1):
                block.append(stripped)      # a modal option of the card text
                continue
            if block:
                named = card_name(block) if in_cards else None
                if named:
                    card, text_of_card = named, block_card_text(block)
                elif not in_cards:
                    card = text_of_card = None
                block, in_card_text = [], False
            current = [line[bullet.end():]]
            continue
        if current is not None:
            current.append(line)
            continue
        if _CARD_SECTION.match(stripped):
            in_cards, card, text_of_card, block = True, None, None, []
            continue
        block.append(stripped)


def _ends_paragraph(line: str) -> bool:
    return line != line.rstrip(" ")


def card_name(block: list[str]) -> str | None:
    """The card name of a block: the line before its first mana-cost line, else before a type line."""
    at = _name_at(block)
    return clean_card_name(block[at]) if at is not None else None


def block_card_text(block: list[str]) -> str | None:
    """The type line and rules text of a card block: its lines after the name but for mana-cost lines,
    joined as join_lines() joins a paragraph's wrapped lines; None for a block without a name."""
    at = _name_at(block)
    if at is None:
        return None
    return join_lines([line for line in block[at + 1:] if not COST_LINE.match(line)]) or None


def _name_at(block: list[str]) -> int | None:
    for i, line in enumerate(block[1:], start=1):
        if COST_LINE.match(line):
            return i - 1
    if len(block) > 1 and _TYPE_LINE.match(block[1]) and len(block[0]) <= 30:
        return 0
    return None


def document_date(lines: list[str]) -> str | None:
    """The ISO date of the "last updated" line (the first date on it), or None."""
    for line in lines:
        if _UPDATED.search(line):
            parsed = parse_date(line)
            if parsed:
                return parsed.iso
    return None
