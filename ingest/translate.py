"""Translation links: a Chinese release-notes ruling and the English ruling it translates.

Runs after dedup and tag. Two rulings are candidates when they are about the
same card of the same set: the Chinese ruling's card name is looked up in
``ingest/data/zh_card_names.json`` (Simplified Chinese name -> English name per
set, derived from MTGJSON v3 ``foreignNames`` by ``bench/derive_zh_card_names.py``).
Within one card, the Chinese rulings and the English rulings are aligned in
order (release notes and Gatherer list a card's rulings in the same order, but
either side may hold rulings the other lacks) by a monotone alignment that
maximises the summed pair score over pairs scoring at least ``MIN_SCORE``.

The pair score (0..1) combines what a translation keeps:
- guard tokens: the multiset of symbols (``{T}``, ``{1}{R}``: Chinese symbol
  words are canonical in the matching form), signed P/T modifiers and digits;
- length: Chinese characters per English character, near ``ZH_PER_EN``;
- position of the ruling within its card's rulings;
- mechanics both entries are tagged with.

Linked entries get each other in ``Entry.translations`` (both ways).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from functools import lru_cache
from importlib import resources

from rulings.ingest.language import to_simplified
from rulings.ingest.model import Entry, Ruling

ZH_PER_EN = 0.36          # median length ratio of linked pairs (Chinese chars / English chars)
MIN_SCORE = 0.55         # first pass, without a lexicon
LEXICAL_MIN_SCORE = 0.55
GENERAL_MIN_SCORE = 0.7   # general notes are matched without a card, so a stricter bar
LEXICON_SEED_SCORE = 0.7  # first-pass pairs the lexicon is learnt from
LEXICON_DICE = 0.3
WEIGHTS = {"guards": 0.4, "length": 0.3, "position": 0.2, "mechanics": 0.1}
LEXICAL_WEIGHTS = {"lexical": 0.45, "guards": 0.2, "length": 0.15, "position": 0.15, "mechanics": 0.05}
STOP_WORDS = frozenset(
    "the and that this with for are was were will would can can't isn't won't doesn't don't its it's "
    "you your they their them then than from into onto has have had any each one not all but".split())

_GUARD = re.compile(r"\{[^{}]*\}|[+-][\dx]+/[+-][\dx]+|\d+")
_EN_WORD = re.compile(r"[a-z]{3,}")
_HAN_RUN = re.compile(r"[\u4e00-\u9fff]+")
_NOTE = re.compile(r"[（(][^）)]*[）)]\s*$")


@lru_cache(maxsize=1)
def card_names() -> dict[str, dict[str, str]]:
    """Set code -> {Simplified Chinese card name: English card name} (ingest/data/zh_card_names.json)."""
    text = resources.files("rulings.ingest").joinpath("data/zh_card_names.json").read_text("utf-8")
    return json.loads(text)


def english_name(chinese: str, set_code: str | None, names: dict[str, dict[str, str]]) -> str | None:
    """The English name of a Chinese card name in a set (any set when unique), or None.

    A trailing note in parentheses (``（仅出现在鹏洛客套牌中）``) is ignored;
    Traditional characters are folded to Simplified.
    """
    name = to_simplified(_NOTE.sub("", chinese.strip())).strip()
    by_set = names.get((set_code or "").upper(), {})
    if name in by_set:
        return by_set[name]
    found = {table[name] for table in names.values() if name in table}
    if len(found) == 1:
        return found.pop()
    for sep in ("／", "/", "//"):
        if sep in name:
            return english_name(name.split(sep)[0], set_code, names)
    return None


def _card_key(name: str) -> str:
    return re.sub(r"\W", "", name.lower())


def guards(match: str) -> Counter:
    """Guard tokens of a matching-form text: symbols, signed P/T modifiers, digits."""
    return Counter(_GUARD.findall(match))


def english_words(match: str) -> frozenset[str]:
    """Content words (3+ letters, not STOP_WORDS) of an English matching-form text."""
    return frozenset(w for w in _EN_WORD.findall(match) if w not in STOP_WORDS)


def chinese_bigrams(match: str) -> frozenset[str]:
    """Pairs of adjacent Han characters of a Chinese matching-form text."""
    return frozenset(a + b for run in _HAN_RUN.findall(match) for a, b in zip(run, run[1:]))


def learn_lexicon(pairs: list[tuple[Ruling, Ruling]], min_count: int = 3,
                  min_dice: float = LEXICON_DICE) -> dict[str, frozenset[str]]:
    """English word -> the Chinese bigrams that translate it, learnt from linked (zh, en) pairs.

    A bigram is kept for a word when their Dice coefficient over the pairs
    (2 * pairs with both / (pairs with the word + pairs with the bigram)) is at
    least min_dice and the word occurs in at least min_count pairs; at most 3 per word.
    """
    word_count, bigram_count, both = Counter(), Counter(), defaultdict(Counter)
    for zh, en in pairs:
        words, bigrams = english_words(en.match), chinese_bigrams(zh.match)
        word_count.update(words)
        bigram_count.update(bigrams)
        for word in words:
            both[word].update(bigrams)
    lexicon = {}
    for word, n in word_count.items():
        if n < min_count:
            continue
        scored = sorted(((2 * c / (n + bigram_count[b]), b) for b, c in both[word].items()), reverse=True)
        kept = frozenset(b for dice, b in scored[:3] if dice >= min_dice)
        if kept:
            lexicon[word] = kept
    return lexicon


class Scorer:
    """Pair scores (0..1) for (Chinese ruling, English ruling), with an optional learnt lexicon."""

    def __init__(self, entry_of: dict[int, Entry], lexicon: dict[str, frozenset[str]] | None = None):
        self.entry_of = entry_of
        self.lexicon = lexicon or {}
        self._features: dict[int, tuple] = {}

    def _of(self, ruling: Ruling) -> tuple:
        key = id(ruling)
        if key not in self._features:
            zh = ruling.lang.startswith("zh")
            words = chinese_bigrams(ruling.match) if zh else english_words(ruling.match)
            self._features[key] = (guards(ruling.match), len(ruling.match), words,
                                   set(self.entry_of[key].mechanics) if key in self.entry_of else set())
        return self._features[key]

    def lexical(self, zh_bigrams: frozenset[str], en_words: frozenset[str]) -> float | None:
        """Share of the English words with a lexicon entry whose translation occurs; None below 2 such words."""
        known = [w for w in en_words if w in self.lexicon]
        if len(known) < 2:
            return None
        return sum(1 for w in known if self.lexicon[w] & zh_bigrams) / len(known)

    def __call__(self, zh: Ruling, en: Ruling, zh_pos: float | None, en_pos: float | None) -> float:
        """The pair score; positions are 0..1 within the card, None when position does not count."""
        gz, nz, bz, mz = self._of(zh)
        ge, ne, we, me = self._of(en)
        total = sum(gz.values()) + sum(ge.values())
        parts = {
            "guards": 2 * sum((gz & ge).values()) / total if total else 0.6,
            "length": math.exp(-abs(math.log(max(nz / max(ne, 1) / ZH_PER_EN, 1e-6))) * 2.5),
            "position": 0.6 if zh_pos is None else 1.0 - min(abs(zh_pos - en_pos), 1.0),
            "mechanics": len(mz & me) / len(mz | me) if mz | me else 0.6,
        }
        lexical = self.lexical(bz, we) if self.lexicon else None
        weights = WEIGHTS if lexical is None else LEXICAL_WEIGHTS
        if lexical is not None:
            parts["lexical"] = lexical
        return sum(weights[k] * v for k, v in parts.items())


def align(scores: list[list[float]], minimum: float = MIN_SCORE) -> list[tuple[int, int]]:
    """Monotone alignment of rows to columns maximising the summed (score - minimum) of pairs.

    scores[i][j] is the score of row i with column j; only pairs scoring at
    least minimum are used. Returns (row, column) pairs in order.
    """
    n = len(scores)
    m = len(scores[0]) if n else 0
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            choice = max(best[i - 1][j], best[i][j - 1])
            s = scores[i - 1][j - 1]
            if s >= minimum:
                choice = max(choice, best[i - 1][j - 1] + s - minimum + 1e-9)
            best[i][j] = choice
    pairs, i, j = [], n, m
    while i and j:
        s = scores[i - 1][j - 1]
        if s >= minimum and abs(best[i][j] - (best[i - 1][j - 1] + s - minimum + 1e-9)) < 1e-12:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif best[i][j] == best[i - 1][j]:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]


def _position(index: int, count: int) -> float:
    return index / (count - 1) if count > 1 else 0.0


def link_rulings(entries: list[Entry], names: dict[str, dict[str, str]] | None = None,
                 lexicon: dict[str, frozenset[str]] | None = None) -> list[tuple[Ruling, Ruling]]:
    """The (Chinese ruling, English ruling) pairs found among the entries' variants.

    lexicon: the learnt lexicon to score with (learn_from_entries); by default it is
    learnt from these entries.
    """
    names = card_names() if names is None else names
    entry_of, english, chinese = _by_card(entries, names)
    if lexicon is None:
        first = _card_pairs(chinese, english, Scorer(entry_of))
        lexicon = learn_lexicon([(z, e) for z, e, score in first if score >= LEXICON_SEED_SCORE])
    scorer = Scorer(entry_of, lexicon)
    pairs = [(z, e) for z, e, _ in _card_pairs(chinese, english, scorer)]
    return pairs + _link_general_notes(entries, entry_of, english, names, scorer)


def learn_from_entries(entries: list[Entry], names: dict[str, dict[str, str]] | None = None
                       ) -> dict[str, frozenset[str]]:
    """The lexicon link_rulings learns from these entries (first-pass pairs scoring LEXICON_SEED_SCORE)."""
    names = card_names() if names is None else names
    entry_of, english, chinese = _by_card(entries, names)
    first = _card_pairs(chinese, english, Scorer(entry_of))
    return learn_lexicon([(z, e) for z, e, score in first if score >= LEXICON_SEED_SCORE])


def _by_card(entries: list[Entry], names: dict[str, dict[str, str]]):
    """(entry of each ruling by id(), English rulings by (set, card key), Chinese rulings by (set, English card
    key))."""
    entry_of: dict[int, Entry] = {}
    english: dict[tuple[str, str], list[Ruling]] = defaultdict(list)
    chinese: dict[tuple[str, str], list[Ruling]] = defaultdict(list)
    for entry in entries:
        for variant in entry.variants:
            r = variant.ruling
            entry_of[id(r)] = entry
            if not (r.set_code and r.card):
                continue
            if r.lang == "en":
                faces = {r.card, *r.card.split(" // ")}
                for face in faces:
                    english[(r.set_code.upper(), _card_key(face))].append(r)
            elif r.lang.startswith("zh"):
                name = english_name(r.card, r.set_code, names)
                if name:
                    chinese[(r.set_code.upper(), _card_key(name))].append(r)
    return entry_of, english, chinese


def _card_pairs(chinese: dict[tuple[str, str], list[Ruling]], english: dict[tuple[str, str], list[Ruling]],
                scorer: Scorer) -> list[tuple[Ruling, Ruling, float]]:
    """Align each card's Chinese rulings with the same card's English rulings: (zh, en, score) triples."""
    pairs = []
    for key, zh_rulings in chinese.items():
        en_rulings = _distinct(english.get(key, []))
        if not en_rulings:
            key = (key[0], _card_key(key[1].split("//")[0]))
            en_rulings = _distinct(english.get(key, []))
        if not en_rulings:
            continue
        zh_rulings = sorted(_distinct(zh_rulings), key=lambda r: (r.source.path, r.position))
        en_rulings = sorted(en_rulings, key=lambda r: (r.source.path, r.position))
        scores = [[scorer(z, e, _position(i, len(zh_rulings)), _position(j, len(en_rulings)))
                   for j, e in enumerate(en_rulings)] for i, z in enumerate(zh_rulings)]
        minimum = LEXICAL_MIN_SCORE if scorer.lexicon else MIN_SCORE
        pairs += [(zh_rulings[i], en_rulings[j], scores[i][j]) for i, j in align(scores, minimum)]
    return pairs


def _link_general_notes(entries: list[Entry], entry_of: dict[int, Entry],
                        english: dict[tuple[str, str], list[Ruling]],
                        names: dict[str, dict[str, str]], scorer: Scorer) -> list[tuple[Ruling, Ruling]]:
    """Link the general notes of a set's release notes (Chinese rulings with no known card).

    Gatherer repeats a mechanic's general notes on every card with the mechanic,
    in the release notes' order. So the set's Chinese general notes (in document
    order) are aligned with each card's English rulings that recur on two or more
    cards of the set; each Chinese note is linked to the English ruling it was
    paired with most often (ties: higher summed score), position not counted.
    """
    general: dict[str, list[Ruling]] = defaultdict(list)
    for entry in entries:
        for variant in entry.variants:
            r = variant.ruling
            if r.lang.startswith("zh") and r.set_code and not (r.card and english_name(r.card, r.set_code, names)):
                general[r.set_code.upper()].append(r)
    pairs = []
    for set_code, notes in general.items():
        notes = sorted(_distinct(notes), key=lambda r: (r.source.path, r.position))
        cards_of = defaultdict(set)
        for (code, card), rulings in english.items():
            if code == set_code:
                for r in rulings:
                    cards_of[entry_of[id(r)].id].add(card)
        votes: dict[int, Counter] = defaultdict(Counter)
        by_entry: dict[str, Ruling] = {}
        for (code, _card), rulings in english.items():
            if code != set_code:
                continue
            recurring = [r for r in _distinct(rulings) if len(cards_of[entry_of[id(r)].id]) > 1]
            if not recurring:
                continue
            recurring.sort(key=lambda r: (r.source.path, r.position))
            scores = [[scorer(z, e, None, None) for e in recurring] for z in notes]
            for i, j in align(scores, GENERAL_MIN_SCORE):
                target = entry_of[id(recurring[j])].id
                by_entry[target] = recurring[j]
                votes[i][target] += 1 + scores[i][j]
        for i, counter in votes.items():
            target, _ = counter.most_common(1)[0]
            pairs.append((notes[i], by_entry[target]))
    return pairs


def _distinct(rulings: list[Ruling]) -> list[Ruling]:
    seen, out = set(), []
    for r in rulings:
        if id(r) not in seen:
            seen.add(id(r))
            out.append(r)
    return out
