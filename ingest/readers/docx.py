"""Release notes as Word documents (``faq_<set>.docx``), read with python-docx.

A ruling paragraph (PRODUCT.md "Inputs") is one marked in any of three ways:

1. a leading ``＊`` (full width) or ``*`` (ASCII) in its text (2014-2018 files);
2. Word list numbering: ``<w:numPr>`` on the paragraph or on its style chain, the
   bullet not being part of the text (2018-2020 files), ``numId 0`` meaning "no list";
3. the paragraph style ``FAQ Point``.

Not rulings although marked: a card's power/toughness line like ``*/4``, a
double-faced card's colour indicator ``*蓝*`` (or ``*红*，*绿*``) and other lines
that are only a word between emphasis stars (``***中文版勘误***``), and the
paragraphs of a ``FAQ Card`` (card text) block.

A star inside a ruling paragraph, after a sentence end (``。＊当该牌…``) or a line
break, starts a new ruling: a paragraph may hold several rulings run together.

Card of a ruling: in the card-specific section (``单卡解惑`` / ``CARD-SPECIFIC NOTES``)
each run of rulings follows a header run of other paragraphs (card name, mana cost,
type line, rules text; one ``FAQ Card`` paragraph holds them as lines). The card name
is the header line just before the first mana-cost line (``{三}{白}``), else the line
before a type line (lands have no cost), or the X of ``与X有关的说明``. Separator
lines (``-----`` between blocks, ``/////`` between the faces of a double-faced card)
and section headings that are a type word (``地``) are never a card name; the header's
lines after the name, but for cost and power/toughness, are the card's text (``Ruling.card_text``,
for search). Rulings of the general notes have no card. Set code: the file name ``faq_<set>``; date: the
``此文件最近更新日期：2016年10月26日`` (``Document last modified June 14, 2018``) line.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Iterator

import docx as python_docx
from docx.oxml.ns import qn

from rulings.ingest.dates import parse_date
from rulings.ingest.errors import NoRulings, ReadError
from rulings.ingest.model import Ruling, Source
from rulings.ingest.readers import limits

FORMAT = "docx"

_STAR = re.compile(r"^\s*[＊*]\s*")
# Only words between emphasis stars: a colour indicator ``*蓝*``, ``*红*，*绿*``, a heading ``***中文版勘误***``.
_EMPHASIS_ONLY = re.compile(r"^[＊*]+[^＊*，,]{1,12}[＊*]+(\s*[，,]\s*[＊*]+[^＊*，,]{1,12}[＊*]+)*$")
# A line of dashes/slashes/underscores: ``-----`` between card blocks, ``/////`` between faces.
_SEPARATOR = re.compile(r"^\s*[-－—_=~/／]{3,}\s*$")
_BLOCK_SEPARATOR = re.compile(r"^\s*[-－—_=]{3,}\s*$")
_POWER_TOUGHNESS = re.compile(r"^[\d*＊+X]+\s*/\s*[\d*＊+X]+$")
# Shared with the PDF reader: a mana-cost line, and the start of a Chinese type line.
COST_LINE = re.compile(r"^(\{[^{}]+\}\s*)+$")
TYPE_PREFIX = r"^(传奇|基本|雪境|部族|\s)*(地|神器|结界|生物|鹏洛客|瞬间|法术|战役|时代)"
_TYPE_LINE = re.compile(TYPE_PREFIX + r"|"
                        r"^(Legendary |Basic |Snow |Tribal )*(Land|Artifact|Enchantment|Creature|"
                        r"Planeswalker|Instant|Sorcery)\b")
_NOTES_ABOUT = re.compile(r"^与(.+?)有关的说明")
_CARD_SECTION = re.compile(r"^[^「」]{0,30}单卡解惑|^CARD-SPECIFIC NOTES", re.I)
_GENERAL_SECTION = re.compile(r"^[^「」]{0,30}通则释疑$|^GENERAL NOTES$", re.I)
_UPDATED = re.compile(r"更新日期|last modified|last updated", re.I)
_CJK = re.compile(r"[\u3400-\u9fff]")
_SET_FROM_NAME = re.compile(r"^faq[_-]([a-z0-9]{2,6})$", re.I)
_LANGS = {"zh-cn": "zh-Hans", "zh-sg": "zh-Hans", "zh-tw": "zh-Hant", "zh-hk": "zh-Hant"}


def looks_like(head: bytes, suffix: str) -> bool:
    """True for a zip whose first entries are Word parts, or any zip named ``.docx``."""
    if not head.startswith(b"PK\x03\x04"):
        return False
    return b"word/" in head or suffix == ".docx"


def read(path: Path) -> Iterator[Ruling]:
    """Yield the ruling paragraphs of one release-notes document.

    Raises ReadError for a file that is not a Word document (a zip of something
    else, a damaged zip, an encrypted document), for a zip bomb (see check_parts),
    NoRulings for a document without ruling paragraphs. XML is parsed by python-docx's
    lxml parser, which resolves no entities (``resolve_entities=False``) and opens no
    network connection, so a document cannot pull in another file's text.
    """
    document = _open(path)
    try:
        paragraphs = list(logical_paragraphs(document))
        declared = declared_lang(document, paragraphs)
    except (AttributeError, TypeError, ValueError, KeyError, IndexError) as err:  # parts missing their elements
        raise ReadError(str(path), f"damaged Word document ({type(err).__name__}: {err})"[:200]) from None
    date = document_date([text for text, _, _ in paragraphs[:40]])
    set_code = set_code_from_name(path)
    source = Source(str(path), FORMAT)
    has_card_section = any(_CARD_SECTION.match(text) for text, _, _ in paragraphs)
    in_cards = not has_card_section
    header: list[str] = []
    card = text_of_card = None
    rulings: list[Ruling] = []
    for text, style, numbered in paragraphs:
        if not text:
            continue
        if _CARD_SECTION.match(text) and len(text) < 40:
            in_cards, header, card = True, [], None
            continue
        if _GENERAL_SECTION.match(text):
            in_cards, header, card = False, [], None
            continue
        body = ruling_text(text, style, numbered)
        if body is None:
            header.append(text)
            continue
        if header:
            named = card_from_header(header) if in_cards else None
            if named or not in_cards or any(_BLOCK_SEPARATOR.match(line)
                                            for text in header for line in text.split("\n")):
                card, text_of_card = named, header_card_text(header) if named else None
            header = []
        rulings.append(Ruling(
            text=body, source=source, position=len(rulings),
            lang="zh-Hans" if _CJK.search(body) else "en", date=date, card=card,
            set_code=set_code, publisher="wotc", declared_lang=declared, card_text=text_of_card,
        ))
    if not rulings:
        raise NoRulings(str(path), "Word document without ruling paragraphs")
    return iter(rulings)


def _open(path: Path):
    try:
        with zipfile.ZipFile(path) as archive:
            if "word/document.xml" not in archive.namelist():
                raise ReadError(str(path), "zip file without word/document.xml, not a Word document")
            check_parts(path, archive.infolist())
        return python_docx.Document(str(path))
    except ReadError:
        raise
    except zipfile.BadZipFile as err:
        raise ReadError(str(path), f"damaged zip file ({err})") from None
    except Exception as err:  # python-docx and lxml raise many kinds for a damaged part
        raise ReadError(str(path), f"damaged Word document ({type(err).__name__}: {err})"[:200]) from None


def check_parts(path: Path, parts: list[zipfile.ZipInfo]) -> None:
    """Raise ReadError for a zip bomb: more than limits.DOCX_PARTS parts, a part that inflates
    past limits.DOCX_PART_BYTES, or parts that inflate past limits.DOCX_TOTAL_BYTES together;
    and for an encrypted part. The sizes are the ones the zip declares; zipfile never
    inflates a part past its declared size (it fails the CRC check instead)."""
    if len(parts) > limits.DOCX_PARTS:
        raise ReadError(str(path), f"zip of {len(parts)} parts, more than {limits.DOCX_PARTS} (not a Word document)")
    for part in parts:
        if part.flag_bits & 0x1:
            raise ReadError(str(path), f"encrypted zip part {part.filename}")
        if part.file_size > limits.DOCX_PART_BYTES:
            raise ReadError(str(path), f"zip part {part.filename} inflates to {limits.size_text(part.file_size)}, "
                                       f"more than {limits.size_text(limits.DOCX_PART_BYTES)} (a zip bomb?)")
    total = sum(part.file_size for part in parts)
    if total > limits.DOCX_TOTAL_BYTES:
        raise ReadError(str(path), f"zip parts inflate to {limits.size_text(total)} together, "
                                   f"more than {limits.size_text(limits.DOCX_TOTAL_BYTES)} (a zip bomb?)")


def logical_paragraphs(document) -> Iterator[tuple[str, str, bool]]:
    """Yield (text, style name, numbered) per paragraph as a reader sees it.

    Some files (AKH) hold a whole card block in one Word paragraph, its lines
    separated by soft breaks: card text, a blank line, ``* ruling``, a blank line,
    ``* ruling``, then a ``-----`` line. The ruling paragraph is the Word
    paragraph (PRODUCT.md, ``docx``): such a paragraph yields its card text as
    one paragraph (a block header) and everything from its first starred line as
    one ruling paragraph, so its starred lines stay one ruling, text kept whole;
    a ``-----`` line inside it ends the block as a separate paragraph.
    """
    styles: dict[str | None, tuple[str, bool]] = {}   # style id -> (name, numbered by the style chain)
    for paragraph in document.paragraphs:
        style_id = paragraph._p.style
        if style_id not in styles:       # python-docx looks a style up in styles.xml on every access
            found = paragraph.style
            styles[style_id] = (found.name if found is not None else "", _style_numbered(found))
        style, style_numbered = styles[style_id]
        numbered = _numbered(paragraph, style_numbered)
        text = paragraph.text.strip()
        lines = text.split("\n")
        if style == "FAQ Card" or numbered or style == "FAQ Point" \
                or not any(_starred(line) or _BLOCK_SEPARATOR.match(line) for line in lines[1:]):
            yield text, style, numbered
            continue
        chunk: list[str] = []
        for line in lines:
            if _BLOCK_SEPARATOR.match(line) or (_starred(line) and chunk and not _starred(chunk[0])):
                if chunk:
                    yield "\n".join(chunk).strip(), style, False
                chunk = [line] if _starred(line) else []
                if _BLOCK_SEPARATOR.match(line):
                    yield line.strip(), style, False
            elif line.strip() or chunk:
                chunk.append(line)
        if chunk:
            yield "\n".join(chunk).strip(), style, False
def _starred(line: str) -> bool:
    """True for a line marked with a leading star that is not a P/T like ``*/4`` nor a colour indicator."""
    line = line.strip()
    return bool(_STAR.match(line)) and not _POWER_TOUGHNESS.match(line) and not _EMPHASIS_ONLY.match(line)


def _numbered(paragraph, style_numbered: bool) -> bool:
    """True when the paragraph has Word list numbering (numId other than 0), or else its style chain has
    (style_numbered, from _style_numbered())."""
    p_pr = paragraph._p.pPr
    if p_pr is not None and p_pr.numPr is not None:
        return _num_id(p_pr.numPr) != 0
    return style_numbered


def _style_numbered(style) -> bool:
    """True when the nearest style of the chain that sets list numbering sets a numId other than 0."""
    while style is not None:
        s_pr = style.element.pPr
        if s_pr is not None and s_pr.numPr is not None:
            return _num_id(s_pr.numPr) != 0
        style = style.base_style
    return False


def _num_id(num_pr) -> int:
    num_id = num_pr.numId
    return num_id.val if num_id is not None else 1


def ruling_text(text: str, style: str, numbered: bool) -> str | None:
    """The ruling text of a paragraph (star removed), or None when it is not a ruling paragraph."""
    if style == "FAQ Card":
        return None
    star = _STAR.match(text)
    first = text.split("\n")[0].strip()
    if star and (_POWER_TOUGHNESS.match(first) or _EMPHASIS_ONLY.match(first)):
        return None
    if star:
        body = text[star.end():].strip()
    elif numbered or style == "FAQ Point":
        body = text
    else:
        return None
    if not body or _POWER_TOUGHNESS.match(text):
        return None
    return body


def card_from_header(header: list[str]) -> str | None:
    """The card name of a block header (paragraphs, possibly multi-line), or None (a section heading).

    The name is cleaned by clean_card_name().
    """
    name = _card_line(header)
    return clean_card_name(name) if name else None


def clean_card_name(name: str) -> str:
    """Drop a trailing note like ``（仅出现在鹏洛客套牌中）`` and keep the Chinese part of ``English/中文``."""
    name = re.sub(r"\s*（[^（）]*）\s*$", "", name.strip())
    if "/" in name and not name.startswith("{"):
        english, _, chinese = name.rpartition("/")
        if _CJK.search(chinese) and not _CJK.search(english):
            name = chinese
    return name.strip()


def header_card_text(header: list[str]) -> str | None:
    """The type line and rules text of a card block header: its lines after the card name, one per
    line, without the mana cost, separators and power/toughness (``法师雷击 / {二}{红} / 瞬间 / ...``
    gives ``瞬间\n如果你操控法术师，...``); None when the header names no card by a cost or type line."""
    lines = _header_lines(header)
    found = _name_line(lines)
    if found is None or found[0] is None:
        return None
    rest = [line for line in lines[found[0] + 1:] if not COST_LINE.match(line) and not _POWER_TOUGHNESS.match(line)]
    return "\n".join(rest) or None


def _header_lines(header: list[str]) -> list[str]:
    return [line.strip() for text in header for line in text.split("\n")
            if line.strip() and not _SEPARATOR.match(line)]


def _card_line(header: list[str]) -> str | None:
    found = _name_line(_header_lines(header))
    return found[1] if found else None


def _name_line(lines: list[str]) -> tuple[int | None, str] | None:
    """(index, text) of a header's card-name line; (None, X) for a ``与X有关的说明`` heading."""
    for line in reversed(lines):
        m = _NOTES_ABOUT.match(line)
        if m:
            return None, m.group(1)
    for i, line in enumerate(lines[1:], start=1):
        if COST_LINE.match(line):
            return i - 1, lines[i - 1]
    for i, line in enumerate(lines[1:], start=1):
        if _TYPE_LINE.match(line) and len(lines[i - 1]) <= 30 and not _TYPE_LINE.match(lines[i - 1]):
            return i - 1, lines[i - 1]
    return None


def document_date(texts: list[str]) -> str | None:
    """The ISO date of the document's "last updated" line, or None."""
    for text in texts:
        if _UPDATED.search(text):
            parsed = parse_date(text.split("；")[0])
            if parsed:
                return parsed.iso
    return None


def set_code_from_name(path: Path) -> str | None:
    """``AER`` for ``faq_aer.docx``; None when the file name does not follow the pattern."""
    m = _SET_FROM_NAME.match(path.stem)
    return m.group(1).upper() if m else None


def declared_lang(document, paragraphs: list[tuple[str, str, bool]]) -> str | None:
    """The document's language: ``zh-Hans`` for Chinese release notes, else its default run language.

    The Chinese files often keep Word's ``en-US`` default run language although
    their text is Chinese, so a title or preface in Chinese declares ``zh-Hans``;
    otherwise the ``w:docDefaults`` language is mapped (``zh-CN`` -> ``zh-Hans``,
    ``en-US`` -> ``en``).
    """
    if any(_CJK.search(text) for text, _, _ in paragraphs[:8]):
        return "zh-Hans"
    defaults = document.styles.element.find(qn("w:docDefaults"))
    lang = defaults.find(".//" + qn("w:lang")) if defaults is not None else None
    value = (lang.get(qn("w:val")) or "") if lang is not None else ""
    if not value:
        return None
    return _LANGS.get(value.lower(), value.split("-")[0].lower())
