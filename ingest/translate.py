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

from ingest.language import to_simplified
from ingest.model import Entry, Ruling, Translation

ZH_PER_EN = 0.36          # median length ratio of linked pairs (Chinese chars / English chars)
MIN_SCORE = 0.55
WEIGHTS = {"guards": 0.4, "length": 0.3, "position": 0.2, "mechanics": 0.1}

_GUARD = re.compile(r"\{[^{}]*\}|[+-][\dx]+/[+-][\dx]+|\d+")
_NOTE = re.compile(r"[（(][^）)]*[）)]\s*$")


@lru_cache(maxsize=1)
def card_names() -> dict[str, dict[str, str]]:
    """Set code -> {Simplified Chinese card name: English card name} (ingest/data/zh_card_names.json)."""
    text = resources.files("ingest").joinpath("data/zh_card_names.json").read_text("utf-8")
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


def pair_score(zh: Ruling, en: Ruling, zh_pos: float, en_pos: float,
               zh_mechanics: set[str], en_mechanics: set[str]) -> float:
    """How likely (0..1) the Chinese ruling translates the English one; positions are 0..1 within the card."""
    gz, ge = guards(zh.match), guards(en.match)
    total = sum(gz.values()) + sum(ge.values())
    guard = 2 * sum((gz & ge).values()) / total if total else 0.6
    ratio = len(zh.match) / max(len(en.match), 1) / ZH_PER_EN
    length = math.exp(-abs(math.log(max(ratio, 1e-6))) * 2.5)
    position = 1.0 - min(abs(zh_pos - en_pos), 1.0)
    union = zh_mechanics | en_mechanics
    mechanics = len(zh_mechanics & en_mechanics) / len(union) if union else 0.6
    return (WEIGHTS["guards"] * guard + WEIGHTS["length"] * length
            + WEIGHTS["position"] * position + WEIGHTS["mechanics"] * mechanics)


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


def link_rulings(entries: list[Entry], names: dict[str, dict[str, str]] | None = None
                 ) -> list[tuple[Ruling, Ruling]]:
    """The (Chinese ruling, English ruling) pairs found among the entries' variants."""
    names = card_names() if names is None else names
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
        scores = [[pair_score(z, e, _position(i, len(zh_rulings)), _position(j, len(en_rulings)),
                              set(entry_of[id(z)].mechanics), set(entry_of[id(e)].mechanics))
                   for j, e in enumerate(en_rulings)] for i, z in enumerate(zh_rulings)]
        pairs += [(zh_rulings[i], en_rulings[j]) for i, j in align(scores)]
    return pairs


def _distinct(rulings: list[Ruling]) -> list[Ruling]:
    seen, out = set(), []
    for r in rulings:
        if id(r) not in seen:
            seen.add(id(r))
            out.append(r)
    return out


def link_translations(entries: list[Entry], names: dict[str, dict[str, str]] | None = None) -> int:
    """Set ``translations`` on linked entries, both ways (in place); returns the number of ruling links."""
    entry_of = {id(v.ruling): e for e in entries for v in e.variants}
    pairs = link_rulings(entries, names)
    linked: dict[str, dict[str, Entry]] = defaultdict(dict)
    for zh, en in pairs:
        a, b = entry_of[id(zh)], entry_of[id(en)]
        linked[a.id][b.id] = b
        linked[b.id][a.id] = a
    for entry in entries:
        others = linked.get(entry.id, {})
        known = {t.id for t in entry.translations}
        entry.translations += [Translation(o.id, o.lang, o.text) for o in others.values() if o.id not in known]
    return len(pairs)
