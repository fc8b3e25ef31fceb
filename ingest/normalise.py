"""Normalise stage: the folded form of a ruling used for matching only.

The display text is never changed; ``Ruling.match`` receives the folded form:
NFKC (full-width to ASCII), curly quotes to straight, dashes to ``-``, U+2212
to ``-``, whitespace collapsed, lower case. A ruling whose first word is a
known corpus word minus its first letter ("hield", "hen") has that letter
restored in the matching form, and the repair is noted on the ruling.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from ingest.language import detect_language, match_text
from ingest.model import Ruling

_QUOTES = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u02bc": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-", "\u00a0": " ", "\u3000": " ",
})
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[a-z]+")
_FIRST_WORD = re.compile(r"^([a-z]+)\b")


@dataclass
class Rejection:
    """A ruling dropped by normalisation, with the reason counted in stats."""

    ruling: Ruling
    reason: str


def fold(text: str) -> str:
    """Return the matching form of a text: NFKC, straight quotes, ASCII dashes, collapsed space, lower case.

    Idempotent: fold(fold(t)) == fold(t).
    """
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _SPACE.sub(" ", text).strip()
    return text.lower()


def corpus_words(rulings: Iterable[Ruling]) -> Counter:
    """Count the lower-case words of every ruling's folded text (the repair vocabulary)."""
    words: Counter = Counter()
    for ruling in rulings:
        words.update(_WORD.findall(fold(ruling.text)))
    return words


def repair_first_letter(ruling: Ruling, folded: str, words: Counter) -> tuple[str, str | None, str | None]:
    """Restore a dropped first letter of a ruling's first word.

    A text whose original starts with a lower-case word that is not a corpus word
    (seen at least twice) but becomes one with a letter in front ("hield" ->
    "shield") is repaired in its folded form. Returns (folded text, repair note
    or None, display text with the letter restored or None).
    """
    if not ruling.text[:1].islower():
        return folded, None, None
    m = _FIRST_WORD.match(folded)
    if not m or words.get(m.group(1), 0) > 1:
        return folded, None, None
    word = m.group(1)
    best = max(((words.get(c + word, 0), c + word) for c in "abcdefghijklmnopqrstuvwxyz"),
               default=(0, ""))
    if best[0] < 2:
        return folded, None, None
    letter = best[1][0]
    return (best[1] + folded[len(word):], f"first letter restored: {word!r} -> {best[1]!r}",
            letter.upper() + ruling.text)


def normalise(rulings: list[Ruling]) -> tuple[list[Ruling], list[Rejection]]:
    """Fill ``match`` (and ``repairs``) on each ruling; reject empty ones.

    Returns (kept rulings in input order, rejections with reasons).
    """
    words = corpus_words(rulings)
    kept, rejected = [], []
    for ruling in rulings:
        ruling.lang = detect_language(ruling.text, default=ruling.lang)
        folded = fold(match_text(ruling.text, ruling.lang))
        if not _WORD.search(folded) and not re.search(r"\w", folded):
            rejected.append(Rejection(ruling, "empty text"))
            continue
        folded, note, repaired = repair_first_letter(ruling, folded, words)
        ruling.match = folded
        if note:
            ruling.repairs, ruling.repaired_text = (note,), repaired
        kept.append(ruling)
    return kept, rejected
