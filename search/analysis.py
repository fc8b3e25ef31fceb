"""Whoosh analyzers for rulings text.

Tokens: mana and game symbols in braces (``{T}``, ``{W/P}``) as single lower-case
tokens; signed P/T modifiers (``+1/+1``, ``-1/-1``) as single tokens; words with
their apostrophes (``can't``); one-letter words kept; no stop words. Accents are
folded and ``æ`` becomes ``ae`` for matching; the stored text keeps the original.
"""

from __future__ import annotations

import re
import unicodedata

from whoosh.analysis import Filter, RegexTokenizer, StemFilter
from whoosh.lang.snowball.english import EnglishStemmer

TOKEN_PATTERN = re.compile(
    r"\{[^{}\s]{1,8}\}"                       # {T} {W/P} {2/W}
    r"|[+\-\u2212][\dxX*]+/[+\-\u2212][\dxX*]+"  # +1/+1 -1/-1 +X/+0
    r"|\d+(?:\.\d+[a-z]?)?"                   # numbers and rule numbers 702.19b
    r"|\w+(?:['\u2019\u2018\u02bc]\w+)*",     # words, can't
    re.UNICODE)

_FOLD = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2212": "-",
                       "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ß": "ss"})


def fold_token(text: str) -> str:
    """Lower-case, fold apostrophes and ``æ``, strip accents (NFKD without combining marks)."""
    text = text.translate(_FOLD).lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


class FoldFilter(Filter):
    """Fold each token with fold_token(); symbols in braces are kept whole."""

    def __call__(self, tokens):
        for token in tokens:
            token.text = fold_token(token.text)
            yield token


_STEMMER = EnglishStemmer()


def stem(word: str) -> str:
    """English stem for a folded word; symbols, P/T modifiers and numbers are returned unchanged."""
    if not word[:1].isalpha() or "'" in word:
        return word
    return _STEMMER.stem(word)


def rulings_analyzer():
    """The analyzer of the main text field: tokenize, fold, stem (no stop words)."""
    return RegexTokenizer(TOKEN_PATTERN) | FoldFilter() | StemFilter(stemfn=stem, cachesize=50000)


def name_analyzer():
    """Analyzer for card names: tokenize and fold, no stemming."""
    return RegexTokenizer(TOKEN_PATTERN) | FoldFilter()


def card_key(name: str) -> str:
    """Lookup key of a card or face name: folded, punctuation and spaces removed."""
    return re.sub(r"[^\w]", "", fold_token(name))
