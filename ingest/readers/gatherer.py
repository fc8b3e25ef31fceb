"""Gatherer card pages (``Pages/Card/Details.aspx``, the ASP.NET site of 2008-2020), parsed with beautifulsoup4.

The rulings table holds, per ruling, a date cell (``td`` id ``..._rulingsRepeater_ctlNN_rulingDate``,
written month/day/year like ``6/1/2011``: Gatherer is a US site) and a text cell
(``..._rulingText``). In the text, ``<autocard>`` and link tags become their text
and symbol images (``Image.ashx?name=R&type=symbol``) become their ``{R}`` symbol;
a word and a tag's text that touch across the tag boundary are kept apart by a space.
The card name is every ``Card Name:`` row of the page joined with `` // `` (a
double-faced card's page shows both faces and carries the rulings of the whole card).
The text of ``<script>``, ``<style>`` and ``<template>`` elements and of comments is never
ruling text (a browser shows none of it). The page's bytes are decoded as every text-based
reader decodes them (ingest/readers/encoding.py: a stray byte in a UTF-8 page is replaced, with a
warning, instead of the whole page being read as cp1252); a page that declares another charset in
its ``<meta>`` and is not UTF-8 is left to BeautifulSoup's own detection.
A page without a rulings table holds no rulings (NoRulings); a page cut short
(no closing ``</html>``) is rejected.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator
from urllib.parse import parse_qs, urlparse
from warnings import catch_warnings, simplefilter

from bs4 import BeautifulSoup, CData, NavigableString, Tag, XMLParsedAsHTMLWarning

from rulings.ingest.dates import source_date
from rulings.ingest.errors import NoRulings, ReadError
from rulings.ingest.model import Ruling, Source
from rulings.ingest.readers import encoding, limits

FORMAT = "gatherer"

_MARKERS = (b"ClientIDs.", b"gatherer.wizards.com", b"rulingsRepeater", b"Card/Details.aspx")
_BLOCK_TAGS = {"br", "p", "div", "li", "tr", "td"}
_HIDDEN_TAGS = {"script", "style", "template"}   # content a browser never shows as text
_TEXT_STRINGS = (NavigableString, CData)         # exact types: not Comment, Script, Stylesheet, Doctype, ...
_CHARSET = re.compile(rb"<meta[^>]*charset\s*=\s*[\"']?\s*([\w.:-]+)", re.I)
_TAG_START, _TAG_END = "\x00<", "\x00>"   # markers of inline tag boundaries in cell_text()
# Gatherer symbol names (Image.ashx?name=...) that are not written as themselves.
_SYMBOL_NAMES = {"tap": "T", "untap": "Q", "snow": "S", "chaos": "CHAOS", "infinity": "∞",
                 "half": "½", "500": "HALFW"}
# alt texts of symbol images, for pages whose src has no name parameter.
_ALT_SYMBOLS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G", "colorless": "C",
                "tap": "T", "untap": "Q", "snow": "S", "variable colorless": "X", "energy": "E",
                "phyrexian": "P"}
_ALT_COLOR = re.compile(r"^(?:phyrexian )?(white|blue|black|red|green)(?: or (white|blue|black|red|green))?$", re.I)


def looks_like(head: bytes, suffix: str) -> bool:
    """True for HTML (or XHTML) that carries Gatherer page markers in its first bytes."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text.startswith(b"<"):
        return False
    lowered = head.lower()
    return (b"<html" in lowered or b"<!doctype html" in lowered) and any(m in head for m in _MARKERS)


def read(path: Path) -> Iterator[Ruling]:
    """Yield the rulings of one Gatherer card page.

    Raises ReadError for a page cut short or past limits.HTML_BYTES, NoRulings for a
    page without a rulings table. A ruling cell nested deeper than Python's recursion
    limit raises RecursionError (read_file rejects the file for it).
    """
    limits.check_size(path, limits.HTML_BYTES, "HTML page")
    raw = path.read_bytes()
    if b"</html>" not in raw[-4096:].lower():
        raise ReadError(str(path), "HTML page cut short (no closing </html>)")
    with catch_warnings():
        simplefilter("ignore", XMLParsedAsHTMLWarning)     # a damaged page that looks like XML
        soup = BeautifulSoup(page_text(raw, str(path)), "html.parser")
    dates = soup.find_all("td", id=re.compile(r"rulingDate$"))
    texts = soup.find_all("td", id=re.compile(r"rulingText$"))
    if not texts:
        raise NoRulings(str(path), "Gatherer card page without a rulings table")
    if len(dates) != len(texts):
        raise ReadError(str(path), f"rulings table has {len(dates)} dates for {len(texts)} texts")
    source = Source(str(path), FORMAT)
    card, set_code = card_name(soup), set_code_of(soup)
    lang = (soup.html.get("lang") or soup.html.get("xml:lang") or "") if soup.html else ""
    for position, (date_cell, text_cell) in enumerate(zip(dates, texts)):
        parsed, warnings = source_date(date_cell.get_text(" ", strip=True), "mdy")
        yield Ruling(
            text=cell_text(text_cell), source=source, position=position, lang="en",
            date=parsed.iso if parsed else None, card=card, set_code=set_code,
            publisher="wotc", declared_lang=lang or None, warnings=warnings,
        )


def page_text(raw: bytes, path: str) -> str | bytes:
    """The page as text (encoding.decode), or its bytes for BeautifulSoup to decode when they are not
    UTF-8 and a ``<meta>`` charset in the first 4 KiB names another encoding. Raises ReadError for
    bytes that are no text."""
    declared = _CHARSET.search(raw[:4096])
    name = declared.group(1).decode("ascii", "replace").lower() if declared else "utf-8"
    if name.replace("_", "-") not in ("utf-8", "utf8") and encoding.scan_bytes(raw).bad:
        return raw
    return encoding.decode(raw, path)


def card_name(soup: BeautifulSoup) -> str | None:
    """Every ``Card Name:`` value of the page, in page order, joined with `` // ``."""
    names: list[str] = []
    for row in soup.find_all("div", id=re.compile(r"nameRow$")):
        value = row.find("div", class_="value")
        name = " ".join(value.get_text(" ", strip=True).split()) if value else ""
        if name and name not in names:
            names.append(name)
    return " // ".join(names) or None


def set_code_of(soup: BeautifulSoup) -> str | None:
    """The set code of the page's current printing (``set=`` of its expansion symbol image)."""
    block = soup.find("div", id=re.compile(r"currentSetSymbol$"))
    for img in block.find_all("img") if block else []:
        code = parse_qs(urlparse(img.get("src", "")).query).get("set")
        if code and code[0]:
            return code[0].upper()
    return None


def cell_text(cell: Tag) -> str:
    """The text of a ruling cell: tags become their text, symbol images their ``{…}`` symbol; scripts,
    styles, templates and comments give nothing."""
    parts: list[str] = []
    _collect(cell, parts)
    return " ".join(_join(parts).split())


def _collect(node: Tag, parts: list[str]) -> None:
    for child in node.children:
        if isinstance(child, NavigableString):
            if type(child) in _TEXT_STRINGS:
                parts.append(str(child))
        elif isinstance(child, Tag):
            if child.name in _HIDDEN_TAGS:
                continue
            if child.name == "img":
                parts.append(symbol(child))
            elif child.name in _BLOCK_TAGS:
                parts.append(" ")
                _collect(child, parts)
                parts.append(" ")
            else:
                _apart(parts)
                _collect(child, parts)
                parts.append(_TAG_END)


def _apart(parts: list[str]) -> None:
    """Mark a tag start so that a word before it and the tag's first word stay apart."""
    parts.append(_TAG_START)


def _join(parts: list[str]) -> str:
    """Join text pieces; at a tag boundary put a space between two letters or digits."""
    text = ""
    boundary = False
    for part in parts:
        if part in (_TAG_START, _TAG_END):
            boundary = True
            continue
        if boundary and text and part and text[-1].isalnum() and part[0].isalnum():
            text += " "
        boundary = False
        text += part
    return text


def symbol(img: Tag) -> str:
    """``{…}`` for a Gatherer symbol image from its ``name=`` src parameter, else its alt text."""
    query = parse_qs(urlparse(img.get("src", "")).query)
    name = (query.get("name") or [""])[0]
    if name:
        return "{" + _symbol_from_name(name) + "}"
    alt = (img.get("alt") or "").strip()
    key = alt.lower()
    if key in _ALT_SYMBOLS:
        return "{" + _ALT_SYMBOLS[key] + "}"
    m = _ALT_COLOR.match(alt)
    if m:
        colors = [_ALT_SYMBOLS[c.lower()] for c in m.groups() if c]
        if key.startswith("phyrexian"):
            colors.append("P")
        return "{" + "/".join(colors) + "}"
    if re.fullmatch(r"\d+|[XYZ]", alt):
        return "{" + alt + "}"
    return alt


def _symbol_from_name(name: str) -> str:
    """Gatherer symbol names: ``R``, ``12``, ``UR`` (hybrid), ``2W``, ``WP``/``PW`` (Phyrexian), ``tap``."""
    if name.lower() in _SYMBOL_NAMES:
        return _SYMBOL_NAMES[name.lower()]
    upper = name.upper()
    if upper.isdigit() or len(upper) == 1:
        return upper
    if len(upper) == 2 and "P" in upper:
        return upper.replace("P", "") + "/P"
    if len(upper) == 2:
        return upper[0] + "/" + upper[1]
    return upper
