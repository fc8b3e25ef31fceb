"""Whoosh analyzers for rulings text (the English/European main field and card names).

What one token is (``TOKEN_PATTERN``), in order of precedence:

* a mana or game symbol in braces, ``{T}`` ``{Q}`` ``{E}`` ``{W/P}`` ``{2/W}`` ``{G/U/P}``:
  one lower-case token; the parts of a hybrid symbol are put in a canonical
  order so ``{P/W}`` is ``{w/p}`` like ``{W/P}`` (``canonical_symbol``); the
  variable ``{X}`` is the word ``x``, so ``X`` finds rulings that write either;
* a signed P/T modifier ``+1/+1`` ``-1/-1`` ``+X/+0`` (U+2212 is read as ``-``),
  or a plain P/T ``2/2``: one token;
* a number or a Comprehensive Rules number, ``702.19b``: one token, so ``702.1``
  never matches ``702.19b``;
* a word, with inner apostrophes (``can't``) and hyphens (``Lim-Dûl``). A
  hyphenated word gives its parts and, when indexing, also the joined form, so
  ``lim-dul`` and ``limdul`` both find "Lim-Dûl".

Every token is folded (``fold``): curly apostrophes to ``'``, ``æ`` to ``ae``,
accents removed, lower case. One-letter words are kept and there are no stop
words. The main-field analyzer then stems words with ``stem`` (Snowball English
with the final-e fault fixed, see there); contractions (``can't``, ``it's``)
are kept whole. The stored text is never changed: tokens carry the character
offsets of the words as written, so highlights show the original spelling.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Iterator

from whoosh.analysis import Token, Tokenizer
from whoosh.formats import Positions
from whoosh.lang.snowball.english import EnglishStemmer

APOSTROPHES = "'\u2019\u2018\u02bc"
_A = APOSTROPHES
TOKEN_PATTERN = re.compile(
    r"(?P<symbol>\{[^{}\s]{1,10}\})"
    rf"|(?P<pt>(?<![\w/])[+\-\u2212][\dxX*]+/[+\-\u2212][\dxX*]+(?![\w/])"
    rf"|(?<![\w/+\-\u2212.])[\dxX*]+/[\dxX*]+(?![\w/]))"
    r"|(?P<number>\d+(?:\.\d+[a-z]?)?(?!\w))"
    rf"|(?P<word>\w+(?:[{_A}]\w+)*(?:-\w+(?:[{_A}]\w+)*)*)",
    re.UNICODE)

_FOLD = str.maketrans({
    "\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2212": "-",
    "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ß": "ss", "ø": "o", "Ø": "o",
    "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "þ": "th", "Þ": "th", "ð": "d", "Ð": "d",
})


def fold(text: str) -> str:
    """Matching form of a piece of text: apostrophes to ``'``, ``æ`` to ``ae``, lower case, accents removed.

    NFKD decomposition without combining marks, so "Dandân" -> "dandan" and
    "Æther" -> "aether"; full-width letters become ASCII.
    """
    text = text.translate(_FOLD).lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


# Full-width digits and Latin letters (U+FF10-FF19, FF21-FF3A, FF41-FF5A) -> ASCII; full-width
# punctuation is left alone (Chinese text uses it: ，？：).
_HALF_WIDTH = {code: code - 0xFEE0 for start, end in ((0xFF10, 0xFF19), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A))
               for code in range(start, end + 1)}


def half_width(text: str) -> str:
    """text with full-width digits and Latin letters as ASCII (``ＣＭＣ`` -> ``CMC``, ``ｃａｒｄ`` -> ``card``),
    as a Chinese keyboard's full-width mode types them; every other character as given."""
    return text.translate(_HALF_WIDTH)


def typed(text: str) -> str:
    """A query as its words are meant: half_width(), and without the invisible format characters (Unicode
    category Cf: soft hyphen U+00AD, zero-width space U+200B and joiners, word joiner U+2060, BOM U+FEFF)
    that text pasted from a web page or a PDF carries inside words (``prolif\u00aderate`` is proliferate)."""
    return "".join(ch for ch in half_width(text) if unicodedata.category(ch) != "Cf")


# Alias kept for callers that used the first name.
fold_token = fold

# ---------------------------------------------------------------- symbols

_COLORS = "WUBRG"
# Two-colour hybrid symbols as printed (CR 107.4e): allied then enemy pairs.
_PAIRS = ("WU", "UB", "BR", "RG", "GW", "WB", "UR", "BG", "RW", "GU")
_VARIABLES = {"X", "Y", "Z"}


def _part_order(part: str) -> tuple:
    if part.isdigit():
        return (0, int(part), "")
    if part in _VARIABLES:
        return (1, 0, part)
    if part in _COLORS:
        return (2, _COLORS.index(part), "")
    if part == "P":
        return (9, 0, "")
    return (5, 0, part)


def canonical_symbol(symbol: str) -> str:
    """The token of a braced symbol: lower case, hybrid parts in canonical order.

    ``{P/W}`` and ``{W/P}`` -> ``{w/p}``; ``{W/2}`` -> ``{2/w}``; ``{U/G/P}`` ->
    ``{g/u/p}`` (two-colour pairs in printed order); ``{WP}`` (no slash, all
    colour or P letters) is read as ``{W/P}``; ``{X}`` ``{Y}`` ``{Z}`` -> ``x`` ``y`` ``z``.
    """
    inner = fold(symbol[1:-1]).upper().replace("\u2212", "-")
    if "/" in inner:
        parts = [p for p in inner.split("/") if p]
    elif len(inner) > 1 and all(ch in _COLORS + "P" for ch in inner):
        parts = list(inner)
    else:
        parts = [inner]
    if len(parts) == 1 and parts[0] in _VARIABLES:
        return parts[0].lower()
    parts = sorted(set(parts), key=_part_order)
    colors = [p for p in parts if p in _COLORS]
    if len(colors) == 2:
        pair = next((pr for pr in _PAIRS if set(pr) == set(colors)), "".join(colors))
        first = parts.index(colors[0])
        parts[first:first + 2] = list(pair)
    return "{" + "/".join(parts).lower() + "}"


# ---------------------------------------------------------------- stemming

_STEMMER = EnglishStemmer()
# Forms Snowball gets wrong or leaves apart; checked against the ruling texts of realdata/mtgjson3-sets.
_STEM_EXCEPTIONS = {
    "add": "add", "adds": "add", "added": "add", "adding": "add",
    "does": "do", "goes": "go", "freed": "free", "frees": "free",
    "scry": "scri", "scrys": "scri", "scries": "scri", "scried": "scri", "scrying": "scri",
}
# Irregular forms (past tense, past participle, plural) Snowball leaves apart from their verb or noun: "damage
# dealt" is "deals damage", "the chosen mode" is "choose a mode", a foretold card is foretell's. Listed with
# lemminflect's irregular forms over the English words of ../shared/realdata, read one by one, and the other
# forms of the same verbs; left out
# were modals and forms of be / have (function words), "won" (the corpus's is won't's), "dice" (not "die"),
# "crew" (the keyword action, not "crow") and card-name words (whir, unbound).
_IRREGULAR = {
    "dealt": "deal", "chosen": "choose", "chose": "choose", "paid": "pay", "left": "leave", "spent": "spend",
    "found": "find", "made": "make", "began": "begin", "begun": "begin", "shown": "show", "lost": "lose",
    "drawn": "draw", "drew": "draw", "came": "come", "written": "write", "wrote": "write", "became": "become",
    "given": "give", "gave": "give", "seen": "see", "saw": "see", "known": "know", "knew": "know",
    "hidden": "hide", "hid": "hide", "brought": "bring", "got": "get", "gotten": "get", "taken": "take",
    "took": "take", "foretold": "foretell", "stolen": "steal", "stole": "steal", "kept": "keep",
    "driven": "drive", "drove": "drive", "caught": "catch", "fought": "fight", "broken": "break",
    "broke": "break", "gone": "go", "went": "go", "forgotten": "forget", "forgot": "forget", "done": "do",
    "did": "do", "held": "hold", "meant": "mean", "sent": "send", "told": "tell", "thought": "think",
    "fell": "fall", "fallen": "fall", "ran": "run", "wolves": "wolf", "werewolves": "werewolf",
    "thieves": "thief", "elves": "elf", "dwarves": "dwarf", "halves": "half", "knives": "knife",
}
_PRONOUNS = {"it", "that", "there", "here", "what", "who", "he", "she", "let", "where", "how"}
_E_WORD = re.compile(r"[aeiouy].*[^aeiouy]e$")
_ES_WORD = re.compile(r"[^aeiouy]es$")


# The longest word stemmed (search/analysis.py stem()): longer ones are their own term, in the index and in queries.
LONGEST_STEMMED = 64


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """The stem of one folded word, the same for every inflected form of it.

    Snowball English strips a final ``e`` only after its suffix steps, so
    ``sacrifice`` -> ``sacrific`` while ``sacrificed`` -> ``sacrif``. Here a word
    ending in consonant + ``e`` (and its ``-es`` plural) is stemmed through its
    ``-ed`` form, the way its inflected forms are: sacrifice, sacrifices,
    sacrificed, sacrificing -> ``sacrif``. A short table fixes the rest
    (added -> add, freed -> free, scrys -> scri). Possessive ``'s`` is dropped;
    other words with an apostrophe (``can't``, ``it's``) are returned whole, as
    are symbols, P/T modifiers and numbers, and a word longer than LONGEST_STEMMED characters (no
    English word is; Snowball's time grows with the square of a word's length, so a pasted run of
    50,000 letters took 9 s to search).
    """
    if not word[:1].isalpha() or len(word) > LONGEST_STEMMED:
        return word
    if "'" in word:
        base, _, suffix = word.rpartition("'")
        if suffix != "s" or base in _PRONOUNS or "'" in base or not base:
            return word
        word = base
    if word in _STEM_EXCEPTIONS:
        return _STEM_EXCEPTIONS[word]
    word = _IRREGULAR.get(word, word)
    if len(word) > 4 and _ES_WORD.search(word) and _STEMMER.stem(word) == _STEMMER.stem(word[:-1]):
        word = word[:-1]
    if len(word) > 3 and _E_WORD.search(word):
        return _STEMMER.stem(word[:-1] + "ed")
    return _STEMMER.stem(word)


# ---------------------------------------------------------------- tokenizer

def terms(text: str, stemming: bool = True, joined: bool = True) -> Iterator[tuple[str, int, int, int]]:
    """Each token of text as ``(term, startchar, endchar, position)``.

    ``joined`` adds the joined form of a hyphenated word (``limdul``) at the
    position of its first part, before the parts. Terms are folded and, with
    ``stemming``, stemmed. Offsets index into ``text`` as written.
    """
    pos = 0
    for match in TOKEN_PATTERN.finditer(text):
        start = match.start()
        for term, offset, length, step in _match_terms(match.group(), match.lastgroup, stemming, joined):
            yield term, start + offset, start + offset + length, pos
            pos += step


def flagged_terms(text: str, words: frozenset[str], stemming: bool = True) -> Iterator[tuple[str, int, int, bool]]:
    """``(term, startchar, endchar, is one of words)`` of each token of text, as ``terms(text, stemming)``
    gives them, for marking a snippet's query words.

    A word that cannot stem to one of words (``_cannot_be``: its folded first two
    letters) is given as written and unmatched, without stemming it: a first-seen
    word's stem was most of a snippet's time.
    """
    prefixes = _prefixes(words)
    for match in TOKEN_PATTERN.finditer(text):
        token, kind, start = match.group(), match.lastgroup, match.start()
        if kind == "word" and _cannot_be(token, prefixes):
            yield token, start, start + len(token), False
            continue
        for term, offset, length, _ in _match_terms(token, kind, stemming, True):
            yield term, start + offset, start + offset + length, term in words


@lru_cache(maxsize=1)
def _irregular_forms() -> dict[str, tuple[str, ...]]:
    """{stem: the irregular forms that stem to it} (went, gone -> ``go``)."""
    forms: dict[str, list[str]] = {}
    for form in _IRREGULAR:
        forms.setdefault(stem(form), []).append(form)
    return {key: tuple(value) for key, value in forms.items()}


@lru_cache(maxsize=1024)
def _prefixes(words: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """(first two letters of the words of two or more letters, the words of one letter), in lower case;
    ``di`` ``li`` ``ti`` also as ``dy`` ``ly`` ``ty`` (Snowball English: dying -> die, lying, tying), and
    a stem's irregular forms' own (went -> go, gave -> give: _IRREGULAR)."""
    pairs, singles = set(), set()
    irregular = _irregular_forms()
    for word in words:
        word = word.lower()
        pairs.update(form[:2] for form in irregular.get(word, ()))
        if len(word) < 2:
            singles.add(word)
            continue
        pairs.add(word[:2])
        if word[:2] in ("di", "li", "ti"):
            pairs.add(word[0] + "y")
    return frozenset(pairs), frozenset(singles)


def _cannot_be(token: str, prefixes: tuple[frozenset[str], frozenset[str]]) -> bool:
    """Whether a word token (TOKEN_PATTERN's ``word``) surely has no term among the words of prefixes
    (_prefixes): folding, stem() and Snowball English keep a word's first two letters but for case (a
    stem of one letter its first; dying, lying, tying aside), checked on every word of the real data and
    400,000 random ones. A hyphenated word is never ruled out (its joined form and parts are terms)."""
    if "-" in token:
        return False
    key = token[:2]
    key = key.lower() if key.isascii() else fold(token)[:2].lower()
    pairs, singles = prefixes
    return key not in pairs and key[:1] not in singles


# In match_spans(): one or more tokens that are not query words between two that are.
BETWEEN = (-1, -1, False)


def match_spans(text: str, words: frozenset[str], stemming: bool = True) -> list[tuple[int, int, bool]]:
    """``(startchar, endchar, True)`` of each token of text that is one of words, in order, with BETWEEN
    where other tokens come between two of them (or before the first): what marking a short text needs
    of flagged_terms(), made in one loop.

    In an ASCII text, when every word's first two characters are letters, only the whitespace-separated
    pieces of text holding a possible start of such a word are tokenized (``_starts``: the first two
    letters of a word that _cannot_be() does not rule out; no token holds whitespace, so a piece
    tokenizes as in the whole text); of the rest it is enough to know whether it holds any token. The
    same list as tokenizing everything (``_every_match_span``; tested).
    """
    starts = _starts(_prefixes(words)) if text.isascii() else None
    if starts is None:
        return _every_match_span(text, words, stemming, 0, len(text), [], False)[0]
    found: list[tuple[int, int, bool]] = []
    between, done, length = False, 0, len(text)
    while (candidate := starts.search(text, done)) is not None:
        start = candidate.start()
        while start > done and not text[start - 1].isspace():
            start -= 1
        if not between and start > done and TOKEN_PATTERN.search(text, done, start):
            between = True
        space = _SPACE.search(text, candidate.end())
        done = space.start() if space else length
        found, between = _every_match_span(text, words, stemming, start, done, found, between)
    return found


_SPACE = re.compile(r"\s")


@lru_cache(maxsize=1024)
def _starts(prefixes: tuple[frozenset[str], frozenset[str]]) -> re.Pattern | None:
    """Where a token may start that _cannot_be() does not rule out for these prefixes (_prefixes): not
    after a word character, the two letters of a pair in either case, hyphens allowed between them (a
    hyphenated word's joined form: ``X-ray`` for ``xray``), or the letter of a one-letter word. None
    when a pair or a one-letter word is not made of ASCII letters."""
    pairs, singles = prefixes
    if not (pairs or singles) or not all(part.isascii() and part.isalpha() for part in pairs | singles):
        return None
    alternatives = [f"{pair[0]}-*{pair[1]}" for pair in sorted(pairs)] + sorted(singles)
    return re.compile(rf"(?<!\w)(?i:{'|'.join(alternatives)})")


def _every_match_span(text: str, words: frozenset[str], stemming: bool, start: int, end: int, found: list,
                      between: bool) -> tuple[list, bool]:
    """match_spans() of text[start:end] (start and end not inside a token), every token read; appends
    to found and returns it with whether a token that is not a word came after the last one found."""
    prefixes = _prefixes(words)
    for match in TOKEN_PATTERN.finditer(text, start, end):
        token = match.group()
        if match.lastgroup == "word" and _cannot_be(token, prefixes):
            between = True
            continue
        kind, at = match.lastgroup, match.start()
        for term, offset, length, _ in _match_terms(token, kind, stemming, True):
            if term in words:
                if between:
                    found.append(BETWEEN)
                    between = False
                found.append((at + offset, at + offset + length, True))
            else:
                between = True
    return found, between


@lru_cache(maxsize=200_000)
def _match_terms(token: str, kind: str, stemming: bool, joined: bool) -> tuple[tuple[str, int, int, int], ...]:
    """The terms of one TOKEN_PATTERN match: (term, offset in the match, length, position step).

    Cached per distinct written token: folding and stemming run once per word, not once per occurrence.
    """
    if kind == "symbol":
        return ((canonical_symbol(token), 0, len(token), 1),)
    if kind in ("pt", "number"):
        return ((fold(token), 0, len(token), 1),)
    norm = stem if stemming else (lambda w: w)
    if "-" not in token:
        return ((norm(fold(token)), 0, len(token), 1),)
    found = []
    if joined:
        found.append((norm(fold(token.replace("-", ""))), 0, len(token), 0))
    offset = 0
    for part in token.split("-"):
        found.append((norm(fold(part)), offset, len(part), 1))
        offset += len(part) + 1
    return tuple(found)


def term_positions(text: str, stemming: bool = True, tokens: set | None = None) -> dict[str, list[int]]:
    """Each indexed term of text -> its positions, in order of first occurrence: what ``terms(text,
    stemming, joined=True)`` yields, gathered per term without offsets (the postings of one field).

    tokens, when given, receives each written token as (token, TOKEN_PATTERN group name), the
    input of words_of_token() (the spelling words of the same pass)."""
    found: dict[str, list[int]] = {}
    pos = 0
    for match in TOKEN_PATTERN.finditer(text):
        token, kind = match.group(), match.lastgroup
        if tokens is not None:
            tokens.add((token, kind))
        for term, _, _, step in _match_terms(token, kind, stemming, True):
            positions = found.get(term)
            if positions is None:
                found[term] = [pos]
            else:
                positions.append(pos)
            pos += step
    return found


def unstemmed_words(text: str) -> set[str]:
    """The folded, unstemmed words of text that start with a letter: the terms of ``terms(text,
    stemming=False, joined=False)`` (hyphenated words as their parts) that start with a letter
    and hold no space, worked out once per distinct written token."""
    words: set[str] = set()
    for token in {(match.group(), match.lastgroup) for match in TOKEN_PATTERN.finditer(text)}:
        words.update(words_of_token(*token))
    return words


@lru_cache(maxsize=200_000)
def words_of_token(token: str, kind: str) -> tuple[str, ...]:
    """The unstemmed_words() of one written token (token, TOKEN_PATTERN group name)."""
    return tuple(term for term, *_ in _match_terms(token, kind, False, False)
                 if term[:1].isalpha() and " " not in term)


class TermPositions(Positions):
    """Whoosh's Positions format (same postings, same bytes) that indexes a RulingsTokenizer field
    without Token objects.

    Whoosh's word_values() walks the analyzer's Token stream and gathers each
    term's positions and boosts; with a RulingsTokenizer (every boost 1.0) the
    same (term, frequency, weight, encoded positions) come from
    ``term_positions()`` directly: a third of the index stage's analysing was the
    Token protocol. Any other analyzer, a list value or a query-time call takes
    Whoosh's path.
    """

    def word_values(self, value, analyzer, **kwargs):
        if type(analyzer) is not RulingsTokenizer or not isinstance(value, str) or kwargs.get("mode") != "index" \
                or set(kwargs) - {"mode"}:
            yield from super().word_values(value, analyzer, **kwargs)
            return
        boost = self.field_boost
        for term, positions in term_positions(value, analyzer.stemming).items():
            yield term, len(positions), len(positions) * boost, self.encode(positions)


class RulingsTokenizer(Tokenizer):
    """Whoosh tokenizer yielding ``terms()``; the joined form of hyphenated words only when indexing."""

    def __init__(self, stemming: bool = True):
        self.stemming = stemming

    def __eq__(self, other):
        return type(other) is type(self) and other.stemming == self.stemming

    def __call__(self, value, positions=False, chars=False, keeporiginal=False, removestops=True,
                 start_pos=0, start_char=0, tokenize=True, mode="", **kwargs):
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        if not tokenize:
            token.original = token.text = value
            token.boost = 1.0
            if positions:
                token.pos = start_pos
            if chars:
                token.startchar, token.endchar = start_char, start_char + len(value)
            yield token
            return
        for text, start, end, pos in terms(value, self.stemming, joined=(mode != "query")):
            token.text = text
            token.boost = 1.0
            token.stopped = False
            if keeporiginal:
                token.original = value[start:end]
            if positions:
                token.pos = start_pos + pos
            if chars:
                token.startchar, token.endchar = start_char + start, start_char + end
            yield token


def rulings_analyzer():
    """Analyzer of the main text field: MTG-aware tokens, folded and stemmed, no stop words."""
    return RulingsTokenizer(stemming=True)


def name_analyzer():
    """Analyzer for card names and the spelling vocabulary: the same tokens, folded, not stemmed."""
    return RulingsTokenizer(stemming=False)


@lru_cache(maxsize=100_000)
def card_key(name: str) -> str:
    """Lookup key of a card or face name: folded, everything but letters and digits removed.

    "Fire // Ice", "fire/ice" and "Fire / Ice" -> "fireice"; "Lim-Dûl's Vault" -> "limdulsvault".
    Cached per name (an index run asks for the same card names many times).
    """
    return re.sub(r"[\W_]", "", fold(name))
