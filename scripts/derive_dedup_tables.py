"""Derive ingest/data/dedup_tables.json from ../shared/realdata: the verifier's learned tables.

``types``: the card types, subtypes and supertypes the Comprehensive Rules list (rules 205.2a,
205.3g-205.3m, 205.4a), lower case: a guard class of the verifier (ingest/compare.py guard_words).

``names``: English card names other rulings may mention (folded; each face of ``A // B`` and the
full name of ``Name, Title``), taken from the card fields of the corpus's rulings and the cards of its
JSON card lists (MTGJSON, Scryfall: objects with a name and a mana cost or type line), and kept only
when no ruling text of the corpus writes the name in lower case (so "hold the line" or
"cast out", which are also ordinary words, are left out): the verifier masks them (ingest/compare.py
OTHER_CARD), so that an example card swapped for another is the same ruling.

``alternations``: for each language, the pairs of spans that alternate in rulings of the real
corpus that are otherwise identical. Every distinct ruling text of ../shared/realdata is read and
normalised as an ingest does; pairs of texts that MinHash LSH puts together (ingest/candidates.py),
with the same guard tokens and named effects and a token similarity of at least MIN_PAIR_SIMILARITY,
whose alignment leaves exactly one differing span the verifier cannot excuse (ingest/compare.py
span_kind: ``content``, not ``guard``), give that span's two sides. Each row is
``[side a, side b, pairs]``: the hard tokens of each side (English stems, Chinese characters,
space-separated; a side may be empty), and in how many distinct pairs of texts the alternation was
seen. Mining runs in ROUNDS rounds, the rows learned in one excusing their spans in the next (a
pair of texts differing in two spans, one of them learned, gives the other). The verifier uses the
rows seen in at least MIN_ALTERNATION_PAIRS pairs, a threshold chosen by cross-validation on the
labelled pairs (bench/dedup_quality.py --folds). No label is read here.

    python scripts/derive_dedup_tables.py [--shared ../shared] [--out ingest/data/dedup_tables.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulings.ingest import compare  # noqa: E402
from rulings.ingest.candidates import BandIndex, band_keys, shingles, signatures  # noqa: E402
from rulings.ingest.normalise import fold, normalise  # noqa: E402
from rulings.ingest.read import read_files, walk  # noqa: E402

CR = Path("realdata/comprules-rulesraker/MagicCompRules.txt")
MIN_PAIR_SIMILARITY = 0.7      # texts less alike than this are not "otherwise identical"
MAX_SPAN = {"en": 3, "zh": 4}  # longest side of an alternation, in hard tokens (a short phrase)
# longest span against nothing: a Chinese particle or adverb is a character or two (些, 依旧); an
# English function word outside the soft words is one word ("into", "considered to be" -> consid)
MAX_INSERTION = {"en": 1, "zh": 2}
MIN_STORED_PAIRS = 2
# mining rounds: a pair of texts that differ in two spans, one of them learned in a round, gives
# the other in the next (two rounds merged no labelled pair more and learned 精怪, a creature type,
# as an insertion: docs/dedup-quality.md)
ROUNDS = 1
_TYPE_RULES = re.compile(r"^(205\.2a|205\.3[g-km]|205\.4a) (.*)$")
_LIST = re.compile(r"(?:The (?:[a-z]+ )?(?:super)?types are|other creature types are one word long:) (.*?)\.(?:\s|$)")


def card_types(rules_text: str) -> list[str]:
    """The lower-case type words of CR 205.2a (card types), 205.3g-k and 205.3m (subtypes) and
    205.4a (supertypes); the one two-word creature type (Time Lord) is left out."""
    found: set[str] = set()
    for line in rules_text.splitlines():
        rule = _TYPE_RULES.match(line.strip())
        if not rule:
            continue
        listed = _LIST.search(rule.group(2))
        if not listed:
            continue
        items = re.sub(r"\([^)]*\)", "", listed.group(1)).replace(" and ", ", ")
        for item in items.split(","):
            found.update(w for w in re.findall(r"[a-z][a-z'’-]*", item.strip().lower()))
    return sorted(found)


def read_rulings(realdata: Path) -> list:
    """Every ruling of the folder, as the readers give them."""
    return [r for result in read_files(list(walk(realdata))) for r in result.rulings]


def distinct_texts(rulings: list) -> list[str]:
    """The distinct matching forms of the rulings, as an ingest normalises them."""
    kept, _ = normalise(rulings)
    return sorted({r.match for r in kept})


_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]*")


_CARD_KEYS = ("manaCost", "mana_cost", "type_line", "types", "typeLine")


def listed_cards(realdata: Path) -> set[str]:
    """The names of the card objects in the folder's JSON files (a name and a mana cost or type line)."""
    found: set[str] = set()

    def visit(node) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("name"), str) and any(key in node for key in _CARD_KEYS):
                found.add(node["name"])
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    for path in sorted(realdata.rglob("*.json")):
        try:
            visit(json.loads(path.read_text(encoding="utf-8-sig")))
        except (ValueError, UnicodeDecodeError):
            continue
    return found


def card_names(rulings: list, listed: set[str] = frozenset(), words: set[str] = frozenset()) -> list[str]:
    """The ``names`` table (see the module docstring): folded English card names (of the rulings'
    card fields and the ``listed`` ones) that no ruling text writes in lower case, sorted; a
    one-word name that is a rules word of ``words`` (a type, mechanic or counter kind: "spirit",
    "island") is left out."""
    names: set[str] = set()
    for card in {r.card for r in rulings if r.card} | set(listed):
        if compare.is_chinese(card):
            continue
        for face in [card] + card.split("//"):
            name = fold(face).strip()
            if (len(name) >= 4 and _WORDS.match(name) and name[-1].isalnum() and name not in words
                    and not any(ch.isdigit() for ch in name)):
                names.add(name)
    by_first: dict[str, list[str]] = defaultdict(list)
    for name in names:
        by_first[name.split(" ")[0]].append(name)
    lower_seen: set[str] = set()
    for text in {r.text for r in rulings if r.text and not compare.is_chinese(r.text)}:
        text = " ".join(text.split())
        for word in _WORDS.finditer(text):
            for name in by_first.get(word.group(0), ()):
                end = word.start() + len(name)
                if text.startswith(name, word.start()) and not text[end:end + 1].isalnum():
                    lower_seen.add(name)
    return sorted(names - lower_seen)


def alternations(texts: list[str], seen: dict[str, dict[tuple, set]] | None = None) -> dict[str, list[list]]:
    """The alternation rows of each language (see the module docstring), most seen first; ``seen``
    (span -> pairs of text numbers, per language) gathers the pairs, across rounds when given."""
    forms = [compare.compare_form(t) for t in texts]
    hashes = signatures([shingles(compare.hard_tokens(f)) for f in forms])
    tables = {"en": BandIndex(), "zh": BandIndex()}
    if seen is None:
        seen = {"en": defaultdict(set), "zh": defaultdict(set)}
    for number, (form, signature) in enumerate(zip(forms, hashes)):
        lang = "zh" if form.zh else "en"
        bands = band_keys(signature)
        for other in tables[lang].query(signature, bands):
            span = _only_span(forms[other], form)
            if span is not None:
                seen[lang][span].add((other, number))
        tables[lang].insert(number, signature, bands)
    return {lang: sorted(([" ".join(a), " ".join(b), len(pairs)] for (a, b), pairs in found.items()
                          if len(pairs) >= MIN_STORED_PAIRS), key=lambda row: (-row[2], row[0], row[1]))
            for lang, found in seen.items()}


def _only_span(fa, fb) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The one span two forms differ in that the verifier cannot excuse, as (smaller side, larger
    side) in a fixed order, or None when they differ in guards, effects, more or fewer spans, or
    a span too long or of a guard class."""
    if fa.guards != fb.guards or fa.effects != fb.effects:
        return None
    if compare.Indel.normalized_similarity(fa.tokens, fb.tokens) < MIN_PAIR_SIMILARITY:
        return None
    lang = "zh" if fa.zh else "en"
    soft = compare._ZH_SOFT if fa.zh else compare._en_soft_stems()
    found = None
    for chunk in compare._chunks(fa.tokens, fb.tokens):
        i1, i2, j1, j2 = chunk
        ha = [t for t in fa.tokens[i1:i2] if t not in soft]
        hb = [t for t in fb.tokens[j1:j2] if t not in soft]
        if not ha and not hb:
            continue
        kind = compare.span_kind(fa.zh, fa.tokens, fb.tokens, chunk, ha, hb)
        if kind in compare.MAY_DIFFER:
            continue
        if kind == "guard" or found is not None:
            return None
        found = (tuple(ha), tuple(hb))
    if found is None:
        return None
    a, b = sorted(found)
    if max(len(a), len(b)) > MAX_SPAN[lang] or (not a and len(b) > MAX_INSERTION[lang]):
        return None
    return a, b


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--out", type=Path, default=compare.TABLES)
    args = parser.parse_args(argv)
    rules = (args.shared / CR).read_text(encoding="utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    rulings = read_rulings(args.shared / "realdata")
    mechanics = json.loads((compare.TABLES.parent / "mechanics.json").read_text(encoding="utf-8"))
    words = set(card_types(rules)) | compare.rules_words() | {m["name"].lower() for m in mechanics}
    names = card_names(rulings, listed_cards(args.shared / "realdata"), words)
    tables = {"types": card_types(rules), "names": names, "alternations": {"en": [], "zh": []}}
    texts = distinct_texts(rulings)
    seen: dict[str, dict[tuple, set]] = {"en": defaultdict(set), "zh": defaultdict(set)}
    for _ in range(ROUNDS):
        # the rows learned so far excuse their spans in the next round (none in the first)
        args.out.write_text(json.dumps(tables, ensure_ascii=False), encoding="utf-8")
        compare.clear_caches()
        tables["alternations"] = alternations(texts, seen)
    args.out.write_text(json.dumps(tables, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    counts = {lang: len(rows) for lang, rows in tables["alternations"].items()}
    print(f"{args.out}: {len(tables['types'])} types, {len(tables['names'])} names, alternations {counts}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
