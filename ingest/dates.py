"""Date parsing shared by all readers.

``parse_date(text, order)`` reads one date as sources write it:

- ISO ``2016-10-26`` (also ``2016/10/26``);
- CJK ``2016年10月26日`` (spaces allowed: ``2023 年 1 月 20 日``), Korean ``2016년 10월 26일``;
- numeric ``26/10/2016``, ``10/26/2016``, ``26.10.2016``: the order comes from the
  source's convention (``"mdy"`` for Gatherer, a US site; ``"dmy"`` for European
  sources); without one, a date whose first number is over 12 is day first, whose
  second is over 12 month first, and anything else is ambiguous;
- month names in the languages Magic is printed in: ``26 octobre 2016``,
  ``October 26, 2016``, ``26. Oktober 2016``, ``26 de octubre de 2016``,
  ``26 ottobre 2016``, ``26 de outubro de 2016``, ``26 октября 2016``.

``resolve_dates(texts, order)`` reads all dates of one document together: when
the order is not given, it is inferred from the document's unambiguous dates
(any ``26/10`` fixes day first) and dates still ambiguous are kept day first
with ``ambiguous=True`` (PRODUCT.md, variant field ``date_ambiguous``).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass

_MONTHS = {
    # en
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    # fr (accents folded)
    "janvier": 1, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7,
    "aout": 8, "septembre": 9, "octobre": 10, "novembre": 11, "decembre": 12,
    # de
    "januar": 1, "februar": 2, "marz": 3, "maerz": 3, "juni": 6, "juli": 7,
    "oktober": 10, "dezember": 12,
    # es
    "enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7,
    "agosto": 8, "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
    # it
    "gennaio": 1, "febbraio": 2, "aprile": 4, "maggio": 5, "giugno": 6, "luglio": 7,
    "settembre": 9, "ottobre": 10, "dicembre": 12,
    # pt
    "janeiro": 1, "fevereiro": 2, "marco": 3, "maio": 5, "junho": 6, "julho": 7,
    "setembro": 9, "outubro": 10, "novembro": 11, "dezembro": 12,
    # ru (nominative and genitive)
    "январь": 1, "января": 1, "февраль": 2, "февраля": 2, "март": 3, "марта": 3,
    "апрель": 4, "апреля": 4, "май": 5, "мая": 5, "июнь": 6, "июня": 6, "июль": 7, "июля": 7,
    "август": 8, "августа": 8, "сентябрь": 9, "сентября": 9, "октябрь": 10, "октября": 10,
    "ноябрь": 11, "ноября": 11, "декабрь": 12, "декабря": 12,
}

_ISO = re.compile(r"(\d{4})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{1,2})(?!\d)")
_CJK = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]")
_NUMERIC = re.compile(r"(?<!\d)(\d{1,2})\s*[/.\-]\s*(\d{1,2})\s*[/.\-]\s*(\d{4})(?!\d)")
_DAY_MONTH_YEAR = re.compile(r"(?<!\d)(\d{1,2})(?:er|\.|º)?\s+(?:de\s+)?([^\W\d_]+)\.?\s+(?:de\s+)?(\d{4})")
# A month word starts a word (the lookbehind): without it, finditer tried the pattern at every letter of a
# long word, each try running to the word's end (quadratic): a 16,000-letter date field took 11 s, a
# 40,000-letter one over a minute, so one such field had its whole file rejected by the time limit.
_MONTH_DAY_YEAR = re.compile(r"(?<![^\W\d_])([^\W\d_]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})")


@dataclass(frozen=True)
class ParsedDate:
    """One date read from a source: ISO ``YYYY-MM-DD`` and whether day/month order was a guess."""

    iso: str
    ambiguous: bool = False


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c) or c == "\u0306")


def _month(word: str) -> int | None:
    word = word.lower()
    return _MONTHS.get(word) or _MONTHS.get(_fold(word)) or _MONTHS.get(
        unicodedata.normalize("NFC", _fold(word)))


def _iso(year: int, month: int, day: int) -> str | None:
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


_PREFIX = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?")      # ASCII digits (\d takes ٢٠١٩ too)


def is_date_prefix(text) -> bool:
    """True for a year, a month or a day that exists, written as a date filter takes it: ``2019``,
    ``2019-06``, ``2019-06-30`` (not ``2019-13``, ``2019-02-30``, ``20190101``)."""
    match = _PREFIX.fullmatch(text) if isinstance(text, str) else None
    return bool(match) and _iso(int(match.group(1)), int(match.group(2) or 1), int(match.group(3) or 1)) is not None


def numeric_order(first: int, second: int) -> str | None:
    """``"dmy"`` or ``"mdy"`` when two leading numbers of a date fix the order, else None."""
    if first > 12 >= second:
        return "dmy"
    if second > 12 >= first:
        return "mdy"
    return None


def parse_date(text: str, order: str | None = None) -> ParsedDate | None:
    """Read the first date in text, or None when there is none (or it is impossible, like 31/02).

    order: ``"dmy"``, ``"mdy"`` or None, the source's convention for numeric dates.
    Without it an ambiguous numeric date is read day first with ``ambiguous=True``.
    """
    if not text:
        return None
    m = _CJK.search(text) or _ISO.search(text)
    if m:
        iso = _iso(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        return ParsedDate(iso) if iso else None
    m = _NUMERIC.search(text)
    if m:
        first, second, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        fixed = numeric_order(first, second)
        ambiguous = False
        if fixed is None:
            fixed, ambiguous = (order, False) if order else ("dmy", first != second)
        day, month = (first, second) if fixed == "dmy" else (second, first)
        iso = _iso(year, month, day)
        return ParsedDate(iso, ambiguous) if iso else None
    for pattern, day_group, month_group in ((_DAY_MONTH_YEAR, 1, 2), (_MONTH_DAY_YEAR, 2, 1)):
        for m in pattern.finditer(text):
            month = _month(m.group(month_group))
            if month:
                iso = _iso(int(m.group(3)), month, int(m.group(day_group)))
                if iso:
                    return ParsedDate(iso)
    return None


def infer_order(texts) -> str | None:
    """The day/month order fixed by any numeric date among texts (``"dmy"``/``"mdy"``), else None.

    When dates disagree (both a 26/10 and a 10/26), returns None.
    """
    found = set()
    for text in texts:
        m = _NUMERIC.search(text or "")
        if m and not _CJK.search(text) and not _ISO.search(text):
            fixed = numeric_order(int(m.group(1)), int(m.group(2)))
            if fixed:
                found.add(fixed)
    return found.pop() if len(found) == 1 else None


def resolve_dates(texts: list[str], order: str | None = None) -> list[ParsedDate | None]:
    """Parse all dates of one document, using its convention or inferring it from its other dates."""
    order = order or infer_order(texts)
    return [parse_date(text, order) for text in texts]


INVALID_DATE = "invalid date (ruling kept without a date)"
MAX_DATE_CHARS = 100      # a date field longer than this is no date (the longest real one: 20 characters)


def source_date(raw, order: str | None = None) -> tuple[ParsedDate | None, tuple[str, ...]]:
    """A reader's date field read with parse_date(): (parsed date or None, warnings).

    A missing or empty field (None, ``""``) is no date and no warning; a value that
    is not a real date (``2019-13-45``, ``soon``, a number, a text longer than
    MAX_DATE_CHARS) gives None and the warning ``INVALID_DATE``: the ruling is
    kept, undated, and the warning counted.
    """
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None, ()
    parsed = parse_date(raw, order) if isinstance(raw, str) and len(raw) <= MAX_DATE_CHARS else None
    return parsed, (() if parsed else (INVALID_DATE,))
