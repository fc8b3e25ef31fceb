"""Best match: a plain query ranks entries by how much of it they hold, not whether they hold all of it.

A plain query (words, with or without quoted phrases, ``+word``, ``-word`` and filters; no
parentheses, no ``AND`` / ``OR`` / ``NOT``) is read as *units*: each word typed (a run of Chinese
characters cut into the index's own words), its meanings from search/terms.py, and the
mechanic it names. Then (``BestMatch.combine_scores``), for each entry holding any unit:

- its score is the BM25F score of the units it holds (function and question words weighted
  ``FUNCTION_WEIGHT``, meanings ``MEANING_WEIGHT``, a mechanic's tag ``MECHANIC_WEIGHT``), plus
  ``NEAR_WEIGHT`` times the score of each pair of adjacent query words found close together, plus
  ``CARD_TEXT_WEIGHT`` times the score of each content word in the rules text of the entry's cards
  (a query that describes the card, "the indestructible artifact land"); neither makes a match;
- times its coordination: the share of the query's content words it holds (each word weighted
  by its idf), to the power ``COORDINATION``; a word held through a meaning counts as held;
- tiers, removed from the score shown: entries holding every content word come before the others
  (``ALL_WORDS``), and within each, entries in the query's language before those in another one,
  found through a mechanic's tag or a card's name (``SAME_LANGUAGE``); an entry holding only
  function words of a query that has others is no match.

Quoted phrases, ``+word``, ``-word`` and filters keep their meaning, as the parser reads each: a
required phrase or word selects, and the best-match part ranks what it selects (``+deathtouch
trample``: every entry holding deathtouch, those holding trample first); filters and exclusions
narrow the matches of both.
Query text with parentheses or an operator word goes to the parser whole (every word required).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from functools import lru_cache

from whoosh.query import Or, Phrase, Query, Term
from whoosh.query.compound import CompoundQuery

from rulings.ingest.errors import QueryError
from rulings.search.analysis import TOKEN_PATTERN, card_key, fold, stem, terms
from rulings.search.engine import listed, scores_of
from rulings.search.terms import FUNCTION_WORDS_ZH, key_of, longest_key, meanings

FUNCTION_WEIGHT = 0.15
MEANING_WEIGHT = 0.6
MECHANIC_WEIGHT = 2.5
CARD_WEIGHT = 2.0
CARD_WORD_SHARE = 3
NEAR_WEIGHT = 0.5
CARD_TEXT_WEIGHT = 0.5
SHORT_QUERY = 5
NEAR_SLOP = 3
COORDINATION = 2.0
ALL_WORDS = 2_000_000.0
SAME_LANGUAGE = 1_000_000.0
TIER = 1_000_000.0

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_PUNCTUATION = "?!.,;:？！。，；：、“”\"'()（）"
_OPERATOR = re.compile(r"(?:^|\s)(?:OR|ANDNOT|ANDMAYBE)(?:\s|$)|[()]")
_PREFIX_WORDS = {"NOT": "-", "AND": "+"}
# One item of a plain query: a filter, a quoted phrase, or a word; each may carry a sign.
# A sign is never read before X or * as a token or as the power of a P/T modifier: "-X/-X" and "+X/+0" are
# modifiers (search/analysis.py), and "-X" the variable, never "exclude the word x".
_ITEM = re.compile(r'(?P<sign>[+\-](?=[^\W\d_]|["])(?!(?i:[x*])(?:/[+\-\u2212]?(?i:[x*\d]+))?(?![\w\'/])))?'
                   r'(?:(?P<filter>(?i:card|set|mechanic|lang|date):"[^"]*"?)'
                   r'|"(?P<phrase>[^"]*)"?(?P<slop>~\d*)?|(?P<word>\S+))')
# ``prolif*`` (words starting with prolif) and ``prolifirate~`` / ``~2`` (words within 1 or 2 edits).
WILDCARD = re.compile(r"([^\W\d_][\w']*)\*")
FUZZY = re.compile(r"([^\W\d_][\w']*)~([12])?")
_FILTER = re.compile(r"(?i)(card|set|mechanic|lang|date):")
# ``name:value`` with a name we might be thought to have as a field; other ``x:`` text is words.
_FIELDS_WE_LACK = ("text", "variants", "cards", "card", "name", "id", "entry", "sets", "dates", "oracle",
                   "type", "body", "title", "ruling", "rulings", "source", "mechanics", "language")


@dataclass
class Unit:
    """One word of the query as best match weighs it: ``clause`` finds it (every searched field),
    ``weight`` multiplies its score, ``content`` counts it for coordination with weight ``idf``."""

    key: tuple[str, ...]
    clause: Query
    weight: float
    content: bool
    idf: float = 1.0
    chinese: bool = False
    text: str = ""
    times: int = 1


class BestMatch(CompoundQuery):
    """The best-match query node: units, then the meanings and mechanic tags that stand for some of
    them (``covers``: unit numbers), then the proximity pairs and card-text words; search/engine/scoring.py
    SegmentScores calls ``combine_scores`` with each subquery's {docnum: score}.

    subqueries: [unit clauses..., cover clauses..., near and card-text clauses...]; units: how many unit clauses;
    covers: for each cover clause the unit numbers it stands for; idfs and content: per unit;
    other_language: a query of the documents in another language than the query's, or None.
    """

    JOINT = " BEST "
    intersect_merge = False

    def __init__(self, subqueries, boost=1.0, units=0, covers=(), weights=(), idfs=(), content=(),
                 chinese=False):
        super().__init__(subqueries, boost=boost)
        self.units, self.covers, self.weights = units, tuple(covers), tuple(weights)
        self.idfs, self.content, self.chinese = tuple(idfs), tuple(content), chinese
        self.other_language = Or([Term("lang", "zh-hans"), Term("lang", "zh-hant")])

    def _meta(self) -> dict:
        return {"units": self.units, "covers": self.covers, "weights": self.weights, "idfs": self.idfs,
                "content": self.content, "chinese": self.chinese}

    def __eq__(self, other):
        return super().__eq__(other) and isinstance(other, BestMatch) and self._meta() == other._meta()

    __hash__ = CompoundQuery.__hash__

    def apply(self, fn):
        return BestMatch([fn(q) for q in self.subqueries], boost=self.boost, **self._meta())

    def normalize(self):
        return BestMatch([q.normalize() for q in self.subqueries], boost=self.boost, **self._meta())

    def estimate_size(self, ixreader):
        return min(sum(q.estimate_size(ixreader) for q in self.subqueries[:self.units]), ixreader.doc_count_all())

    def matcher(self, searcher, context=None):
        """The best-match scores of one segment's documents as a matcher (Whoosh's public seam: a
        ListMatcher of precomputed scores), each subquery scored by Whoosh's own matcher tree: what
        Whoosh's collector reads on the engine's public path (search/engine/scoring.py whoosh_top)."""
        parts = [scores_of(q, searcher, context) for q in self.subqueries]
        return listed(self.combine_scores(parts, scores_of(self.other_language, searcher, scored=False)))

    def marked(self) -> Query:
        """The clauses whose words a snippet marks: content units and what covers them."""
        return Or([q for i, q in enumerate(self.subqueries[:self.units]) if self.content[i]]
                  + list(self.subqueries[self.units:self.units + len(self.covers)]))

    def combine_scores(self, parts: list[dict[int, float]], chinese_docs) -> dict[int, float]:
        """{docnum: best-match score} from each subquery's {docnum: score} (the module docstring says
        how); chinese_docs: the documents of ``other_language`` (entries in Chinese)."""
        content_idfs = [idf if content else 0.0 for idf, content in zip(self.idfs, self.content)]
        total = sum(content_idfs) or 1.0
        held: dict[int, int] = {}           # docnum -> the units it holds, one bit each
        summed: dict[int, float] = {}
        for number, part in enumerate(parts):
            weight = self.weights[number]
            for docnum, score in part.items():
                summed[docnum] = summed.get(docnum, 0.0) + score * weight
            mask = self.holds(number)
            if mask:
                for docnum in part:
                    held[docnum] = held.get(docnum, 0) | mask
        shares: dict[int, float] = {}      # held units -> their share of the content words' idf
        found = {}
        for docnum, mask in held.items():
            share = shares.get(mask)
            if share is None:
                share = shares[mask] = sum(content_idfs[i] for i in range(self.units) if mask >> i & 1) / total
            if share <= 0.0:             # only function words: not a match
                continue
            score = summed[docnum] * share ** COORDINATION * self.boost
            if share >= 1.0 - 1e-9:
                score += ALL_WORDS
            if (docnum in chinese_docs) == self.chinese:
                score += SAME_LANGUAGE
            found[docnum] = score
        return found

    def holds(self, number: int) -> int:
        """The units subquery ``number`` stands for, one bit each (bit i: unit i): a unit itself, the
        units a cover stands for, none for a proximity pair or a card-text word."""
        if number < self.units:
            return 1 << number
        if number < self.units + len(self.covers):
            return sum(1 << unit for unit in set(self.covers[number - self.units]))
        return 0

    def bears_content(self, number: int) -> bool:
        """True when subquery ``number`` can make a document a match: it stands for a content unit. The
        others (function words, proximity pairs, card-text words) only add to the score of documents
        that another subquery matches, so they need only be asked about those documents."""
        mask = self.holds(number)
        return any(self.content[i] for i in range(self.units) if mask >> i & 1)


def holds_every_word(score: float) -> bool:
    """True when a hit's score (of a query holding a BestMatch node) is in the first tier: the entry
    holds every content word of the query (``ALL_WORDS`` is added only then, and nothing else adds as
    much)."""
    return score >= ALL_WORDS


def plain(text: str) -> bool:
    """True when best match reads the text (no parentheses, no operator words)."""
    return not _OPERATOR.search(text)


@dataclass
class Items:
    """A plain query's items: the words for best match, and the query text for the parser of each
    required item (a phrase, ``+word``, a symbol typed in a short query) and of each selector (a
    filter, an excluded ``-word`` or phrase). Required items select what best match ranks: an entry
    holding them is a match even when it holds none of the words; selectors narrow the matches."""

    words: list[str]
    required: list[str]
    selectors: list[str] = dataclasses.field(default_factory=list)
    signed: bool = False        # a word is required with +word or a AND b


def items(text: str) -> Items:
    """Split a plain query into its items; raises QueryError for syntax we do not support (boosts
    ``word^2``) and for a field we do not have (``text:flying``). A symbol or P/T modifier typed
    (``{T}``, ``+1/+1``) is required in a short query (at most SHORT_QUERY words: "+1/+1 counter dies"
    never brings -1/-1 rulings); in a longer one, a question ("do creatures I cast later get the
    +2/+0 too?"), it is one of its words, the rarest kind, and never matches another modifier. A quote
    left open (``"deathtouch trample``) is a stray character, not a phrase to the end of the query."""
    words, required, selectors, precise, signed = [], [], [], [], False
    if text.count('"') % 2:
        at = text.rindex('"')
        text = text[:at] + text[at + 1:]
    found = list(_ITEM.finditer(text))
    signs = _operator_signs(found)
    for number, match in enumerate(found):
        if signs.get(number) == "op":
            continue
        sign, phrase, word = signs.get(number) or match.group("sign") or "", match.group("phrase"), match.group("word")
        if match.group("filter"):
            selectors.append(("-" if sign == "-" else "") + match.group("filter"))
            continue
        if phrase is not None:
            if phrase.strip():
                quoted = f'"{phrase}"{match.group("slop") or ""}'
                (selectors if sign == "-" else required).append(("-" if sign == "-" else "") + quoted)
            continue
        if number and _FILTER.fullmatch(word):
            word = word[:-1]        # a sentence's colon after other words ("my split card: the target ...")
        elif _FILTER.match(word):
            selectors.append(sign + word if sign == "-" else word)
            continue
        _refuse_unsupported(word)
        if sign == "-":
            selectors.append("-" + word)
        elif sign:
            required.append(word)
            signed = True
        elif _precise(word):
            precise.append(word)
        else:
            words.append(word)
    if len(words) + len(precise) > SHORT_QUERY:      # a question: what it names need not be in the ruling
        return Items(words + precise, required, selectors, signed)
    return Items(words, required + precise, selectors, signed)


def _operator_signs(found: list[re.Match]) -> dict[int, str]:
    """``NOT x`` read as ``-x`` and ``x AND y`` as ``+x +y``: {item number: "-", "+" or "op" (the operator
    word itself)}. An operator word without an operand (first or last for AND, followed by another
    operator) is a plain word, as the parser's cleanup makes it."""
    signs: dict[int, str] = {}
    words = [m.group("word") for m in found]
    for number, word in enumerate(words):
        if word not in _PREFIX_WORDS:
            continue
        following = words[number + 1] if number + 1 < len(found) else ""
        if following is None:
            following = "phrase"
        if not following or following in _PREFIX_WORDS:
            continue
        if word == "AND":
            if number == 0 or signs.get(number - 1) == "op" or words[number - 1] in _PREFIX_WORDS:
                continue
            signs[number - 1] = signs.get(number - 1) or "+"
            signs[number + 1] = "+"
        else:
            signs[number + 1] = "-"
        signs[number] = "op"
    return signs


def _precise(word: str) -> bool:
    """True for a mana or game symbol (``{T}``, ``{W/P}``) or a P/T modifier (``+1/+1``, ``-1/-1``): a
    user who types one means it, so it is required (search/analysis.py TOKEN_PATTERN)."""
    found = TOKEN_PATTERN.fullmatch(bare(word) if not word.startswith(("+", "-", "{")) else word.rstrip("?!.,;:"))
    return bool(found) and found.lastgroup in ("symbol", "pt")


def _refuse_unsupported(word: str) -> None:
    found = re.fullmatch(r"([A-Za-z_]+):([^\s:]+)", word)
    if found:
        raise QueryError(f"there is no field {found.group(1)!r}: words search every text; filters are "
                         "card: set: mechanic: lang: date:")
    if re.match(r"[+\-]{2,}[^\W\d_\s]", word):
        raise QueryError(f"{_short(word)!r}: one sign before a word: -word excludes it, +word requires it")
    if re.search(r"\w\^", word):
        raise QueryError(f"boosts ({_short(word)}) are not supported; write the word alone, or +word to require it")
    word = word.strip("?!.,;:？！。，")
    if "*" in word and re.search(r"[^\W\d_]", word) and not WILDCARD.fullmatch(word) \
            and not TOKEN_PATTERN.fullmatch(word):
        raise QueryError(f"{_short(word)!r}: a wildcard goes at the end of a word (prolif*)")
    if "~" in word and re.search(r"[^\W\d_]", word) and not FUZZY.fullmatch(word):
        raise QueryError(f"{_short(word)!r}: a fuzzy word ends with ~ (one edit), ~1 or ~2 (prolifirate~)")


def _short(text: str, size: int = 60) -> str:
    """Text for an error line: at most size characters, with … where it was cut."""
    return text if len(text) <= size else text[:size] + "…"


def bare(word: str) -> str:
    """A query word without the punctuation around it (``proliferate?`` -> ``proliferate``)."""
    return word.strip(_PUNCTUATION)


def chinese_units(run: str, vocabulary: dict[str, int], without: str = "") -> list[str]:
    """A run of Han characters cut into words as the index's texts were: the cut whose words are most
    likely by their document frequencies in the index (a unigram model over the index's own words,
    up to 6 characters; a table word of search/terms.py or a function word counts as the most
    common word; a character the index lacks as rare). The query's pieces are then those of the texts (jieba cut them
    at ingest, with their sub-words), without loading jieba for a query. without: a word not to
    use (a card name, to cut it into the words of the texts)."""
    tables = _table_words()
    total = sum(vocabulary.values()) + 1
    common = max(vocabulary.values(), default=1)

    def cost(piece: str) -> float | None:
        frequency = 0 if piece == without else common if piece in tables else vocabulary.get(piece, 0)
        if not frequency and len(piece) > 1:
            return None
        return -math.log((frequency + 0.5) / total)

    best: list[tuple[float, int]] = [(0.0, 0)] + [(math.inf, 0)] * len(run)
    for end in range(1, len(run) + 1):
        for start in range(max(0, end - 6), end):
            piece_cost = cost(run[start:end])
            if piece_cost is not None and best[start][0] + piece_cost < best[end][0]:
                best[end] = (best[start][0] + piece_cost, start)
    units, end = [], len(run)
    while end > 0:
        start = best[end][1]
        units.append(run[start:end])
        end = start
    return units[::-1]


@lru_cache(maxsize=1)
def _table_words() -> frozenset[str]:
    words = {w for w in FUNCTION_WORDS_ZH if _HAN.fullmatch(w)}
    for key, rows in meanings().items():
        if not all(row.across for row in rows):       # a translation's Chinese word segments nothing
            words.update(w for w in key if _HAN.fullmatch(w))
    return frozenset(words)


def word_units(words: list[str], vocabulary: dict[str, int]) -> list[tuple[str, bool]]:
    """(unit text, is Chinese) of each unit of the plain words, in order: a word of letters as typed
    (without its punctuation; a made-up compound of three or more hyphenated words as its words), a
    run of Han characters as chinese_units()."""
    found = []
    for word in words:
        if WILDCARD.fullmatch(word) or FUZZY.fullmatch(word):      # prolif*, 增*: expanded whole
            found.append((word, False))
            continue
        at = 0
        for run in _HAN.finditer(word):
            from rulings.ingest.language import to_simplified  # opencc: only for a query with Han characters
            simplified = to_simplified(run.group())
            simplified = simplified if len(simplified) == len(run.group()) else run.group()
            before = bare(word[at:run.start()])
            if before:
                found.append((before, False))
            found += [(unit, True) for unit in chinese_units(simplified, vocabulary)]
            at = run.end()
        rest = bare(word[at:])
        if _MADE_UP_COMPOUND.fullmatch(rest):       # draw-and-lose-life: the words, not that phrase
            found += [(part, False) for part in rest.split("-")]
        elif rest:
            found.append((rest, False))
    return found


# Three or more words joined by hyphens: a compound made up for the query ("destroy-a-random-attacker"),
# not a term of the rules (two-headed, face-down, Lim-Dûl keep their hyphen and are a phrase).
_MADE_UP_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+){2,}")


def unit_key(text: str, chinese: bool) -> tuple[str, ...]:
    return (text,) if chinese else key_of([text])


def longest_spans(count: int, longest: int, lookup) -> list[tuple[int, int, object]]:
    """(first, end, value) of the runs of ``count`` items that lookup(first, end) gives a value for (not
    None), the longest run (at most ``longest`` items) first at each place; runs do not overlap."""
    spans, at = [], 0
    while at < count:
        for size in range(min(longest, count - at), 0, -1):
            value = lookup(at, at + size)
            if value is not None:
                spans.append((at, at + size, value))
                at += size
                break
        else:
            at += 1
    return spans


def covered_spans(keys: list[tuple[str, ...]]) -> list[tuple[int, int, tuple]]:
    """(first unit, end unit, meanings) of each run of units that is a table key, longest first at
    each place; runs do not overlap."""
    table = meanings()
    return longest_spans(len(keys), longest_key(),
                         lambda start, end: table.get(tuple(k for unit in keys[start:end] for k in unit)))


def mechanic_spans(units: list[tuple[str, bool]]) -> list[tuple[int, int, str]]:
    """(first unit, end unit, mechanic id) of each run of up to three units naming a mechanic: its id,
    printed name (any inflection of its words) or a Chinese name; also a one-word name written as two
    English words, the first inflected ("flashed back", "life link": flashback, lifelink)."""
    names = _mechanic_names()

    def named(start: int, end: int) -> str | None:
        words = units[start:end]
        if all(z for _, z in words):
            return names.get("".join(w for w, _ in words))
        stems = [stem(fold(w)) for w, _ in words]
        found = names.get(" ".join(stems))
        if found is None and len(stems) == 2 and not any(z for _, z in words):
            found = names.get(stems[0] + fold(words[1][0]))
        return found
    return longest_spans(len(units), 3, named)


def mechanic_name_table() -> dict[str, str]:
    """Mechanic names as best match compares them (stems of the English words joined by spaces;
    Chinese names as written) -> the id ingest/tag.py's resolver (find_mechanic, the one behind
    ``--mechanic``, ``mechanic:`` and ``rulings mechanics NAME``) gives that name. The names: each
    mechanic's printed name, id and Chinese names (ingest/data/mechanics.json), then every other name
    the resolver knows (its forms that are plain words, the CR glossary's names); where two names share
    a key, the first decides. search/data/names.json holds it made (scripts/derive_terms.py --names)."""
    from rulings.ingest.tag import find_mechanic, mechanic_spellings, vocabulary

    names: dict[str, str] = {}

    def add(name: str, as_written: bool = False) -> None:
        found = find_mechanic(name)
        key = name if as_written else " ".join(stem(fold(w)) for w in re.findall(r"[\w'+/-]+", name) if w)
        if found is not None and key:
            names.setdefault(key, found.id)
    for mechanic in vocabulary():
        for name in (mechanic.name, mechanic.id.replace("-", " ")):
            add(name)
        for name in mechanic.zh:
            add(name, as_written=True)
    for spelling, _ in mechanic_spellings():
        add(spelling)
    return names


@lru_cache(maxsize=1)
def _names() -> dict:
    """search/data/names.json: {"mechanics": mechanic_name_table(), "cards": card_name_table()[0]}, made
    once by scripts/derive_terms.py --names, so that a cold search reads it instead of deriving it
    (and never imports ingest/tag.py); tests/test_bestmatch.py checks it is what the functions derive today."""
    import json
    from importlib import resources
    return json.loads(resources.files("rulings.search").joinpath("data", "names.json").read_text("utf-8"))


def _mechanic_names() -> dict[str, str]:
    return _names()["mechanics"]


def card_name_spans(units: list[tuple[str, bool]]) -> list[tuple[int, int, Query]]:
    """(first unit, end unit, clause) of each run of units naming a card whose name the project knows
    in the other language (ingest/data/zh_card_names.json, from MTGJSON's foreignData): an English name
    of up to 8 words finds the card's Chinese name in ``cards``, a Chinese name its English name."""
    english, chinese = _card_names()

    def other_name(start: int, end: int) -> Query | None:
        words = units[start:end]
        if len(words) == 1 and words[0][1]:
            other = chinese.get(words[0][0])
            return (Phrase("cards", other) if len(other) > 1 else Term("cards", other[0])) if other else None
        if not any(z for _, z in words) and (len(words) > 1 or len(words[0][0]) > 3):
            found = english.get(name_key(" ".join(w for w, _ in words)))
            return Or([Term("cards", name) for name in found]) if found else None
        return None
    return longest_spans(len(units), 8, other_name)


_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")


def own_card_spans(units: list[tuple[str, bool]], card_entries, text_entries) -> list[tuple[int, int, Query]]:
    """(first unit, end unit, clause) of each run of units that names a card of the index, in its own
    language: up to 8 words of letters (the last one's possessive 's dropped: "Allosaurus's") whose
    search/analysis.py card_key is a full name or a face of an entry's card, or one Chinese unit of 3
    or more characters that is one. The clause is the name in ``cards`` (BM25F: an entry of fewer
    cards scores higher). A single word names the card only when the texts rarely use it otherwise
    (``text_entries(word)`` at most CARD_WORD_SHARE times ``card_entries(key)``) and it names no
    mechanic (``flash`` is the keyword first, as mechanic_spans() reads it) unless it is written as a
    name: capitalised after the query's first word ("… get +2/+0 from Fortify"). card_entries(key) /
    text_entries(word): the numbers of entries holding a card key / the word in ``text``."""
    def named(start: int, end: int) -> Query | None:
        words = [w for w, _ in units[start:end]]
        if any(z for _, z in units[start:end]):
            if end - start > 1 or len(words[0]) < 3 or not card_entries(card_key(words[0])):
                return None
            return Term("cards", words[0])
        words[-1] = _POSSESSIVE.sub("", words[-1])
        key = card_key(" ".join(words))
        if not re.search(r"[^\W\d_]", key):
            return None
        found = card_entries(key)
        if not found or end - start == 1 and (text_entries(words[0]) > CARD_WORD_SHARE * found
                                              or mechanic_spans(units[start:end]) and not (
                                                  start > 0 and words[0][:1].isupper())):
            return None
        return phrase_of("cards", " ".join(words), 0, 1.0)
    return longest_spans(len(units), 8, named)



def card_name_table() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(name_key of an English card name -> its Chinese names, Chinese name -> the English name's words),
    from ingest/data/zh_card_names.json (MTGJSON's foreignData)."""
    import json
    from importlib import resources
    raw = json.loads(resources.files("rulings.ingest").joinpath("data/zh_card_names.json").read_text("utf-8"))
    english: dict[str, list[str]] = {}
    chinese: dict[str, list[str]] = {}
    for names in raw.values():
        for zh, en in names.items():
            key = name_key(en)
            if not key:
                continue
            found = english.setdefault(key, [])
            if zh not in found:
                found.append(zh)
            chinese.setdefault(zh, key.split())
    return english, chinese


@lru_cache(maxsize=1)
def _card_names() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    english = _names()["cards"]
    chinese: dict[str, list[str]] = {}
    for key, names in english.items():
        for zh in names:
            chinese.setdefault(zh, key.split())
    return english, chinese


_NAME_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def name_key(name: str) -> str:
    """A card name as card_name_spans() compares it: its folded words (apostrophes kept) joined by spaces
    (``Kari Zev, Skyship Raider`` -> ``kari zev skyship raider``); the same words as the cards field's."""
    return " ".join(_NAME_WORD.findall(name.lower() if name.isascii() else fold(name)))


def idf(searcher, clause: Query) -> float:
    """The idf of a unit: log(1 + N / (1 + documents holding any of its terms)); 0 when it holds none."""
    total = searcher.doc_count_all() or 1
    frequency = 0
    for leaf in [clause] if clause.is_leaf() else clause.leaves():
        if isinstance(leaf, Term):
            frequency += searcher.doc_frequency(leaf.fieldname, leaf.text)
    if not frequency:
        return 0.0
    return math.log(1 + total / (1 + min(frequency, total)))


def phrase_of(field: str, text: str, slop: int, boost: float) -> Query | None:
    """The words of a meaning as they are indexed in a field (its analyzer's terms), as a phrase
    with this slop, or the one term; None when nothing is left."""
    words = [w for w, *_ in terms(text, stemming=field != "cards", joined=False)]
    if not words:
        return None
    if len(words) == 1:
        return Term(field, words[0], boost=boost)
    return Phrase(field, words, slop=slop, boost=boost)


def near_pairs(units: list[Unit], fields: list[str]) -> list[Query]:
    """For each two neighbouring content units, a phrase of their words with slop NEAR_SLOP in the text
    fields (English words in the English fields, Chinese in text_zh)."""
    pairs = []
    content = [u for u in units if u.content and u.idf > 0]
    for first, second in zip(content, content[1:]):
        if first.chinese != second.chinese:
            continue
        wanted = ["text_zh"] if first.chinese else [f for f in fields if f in ("text", "variants")]
        clauses = []
        for field in wanted:
            words = [first.key[0], second.key[0]] if first.chinese else \
                [w for text in (first.key, second.key) for w in text]
            if not first.chinese:
                words = [w for w in words if w]
            clauses.append(Phrase(field, words, slop=NEAR_SLOP))
        if clauses:
            pairs.append(Or(clauses) if len(clauses) > 1 else clauses[0])
    return pairs
