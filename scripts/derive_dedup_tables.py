"""Derive ingest/data/dedup_tables.json from ../shared/realdata: the verifier's learned tables.

``types``: the card types, subtypes and supertypes the Comprehensive Rules list (rules 205.2a,
205.3g-205.3m, 205.4a), lower case: a guard class of the verifier (ingest/compare.py guard_words).

``alternations``: for each language, the pairs of spans that alternate in rulings of the real
corpus that are otherwise identical. Every distinct ruling text of ../shared/realdata is read and
normalised as an ingest does; pairs of texts that MinHash LSH puts together (ingest/candidates.py),
with the same guard tokens and named effects and a token similarity of at least MIN_PAIR_SIMILARITY,
whose alignment leaves exactly one differing span the verifier cannot excuse (ingest/compare.py
span_kind: ``content``, not ``guard``), give that span's two sides. Each row is
``[side a, side b, pairs]``: the hard tokens of each side (English stems, Chinese characters,
space-separated; a side may be empty), and in how many distinct pairs of texts the alternation was
seen. The verifier uses the rows seen in at least MIN_ALTERNATION_PAIRS pairs, a threshold chosen by
cross-validation on the labelled pairs (bench/dedup_quality.py --folds). No label is read here.

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
from rulings.ingest.normalise import normalise  # noqa: E402
from rulings.ingest.read import read_files, walk  # noqa: E402

CR = Path("realdata/comprules-rulesraker/MagicCompRules.txt")
MIN_PAIR_SIMILARITY = 0.7      # texts less alike than this are not "otherwise identical"
MAX_SPAN = {"en": 3, "zh": 4}  # longest side of an alternation, in hard tokens (a short phrase)
# longest span against nothing: a Chinese particle or adverb is a character or two (些, 依旧), while
# an English word outside the soft words is content, so English learns no insertion
MAX_INSERTION = {"en": 0, "zh": 2}
MIN_STORED_PAIRS = 2
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


def distinct_texts(realdata: Path) -> list[str]:
    """The distinct matching forms of every ruling in the folder, as an ingest normalises them."""
    rulings = [r for result in read_files(list(walk(realdata))) for r in result.rulings]
    kept, _ = normalise(rulings)
    return sorted({r.match for r in kept})


def alternations(texts: list[str]) -> dict[str, list[list]]:
    """The alternation rows of each language (see the module docstring), most seen first."""
    forms = [compare.compare_form(t) for t in texts]
    hashes = signatures([shingles(compare.hard_tokens(f)) for f in forms])
    tables = {"en": BandIndex(), "zh": BandIndex()}
    seen: dict[str, dict[tuple, set]] = {"en": defaultdict(set), "zh": defaultdict(set)}
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
    tables = {"types": card_types(rules), "alternations": {"en": [], "zh": []}}
    args.out.write_text(json.dumps(tables), encoding="utf-8")      # no alternation while mining them
    compare._tables.cache_clear()
    compare.alternations.cache_clear()
    tables["alternations"] = alternations(distinct_texts(args.shared / "realdata"))
    args.out.write_text(json.dumps(tables, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    counts = {lang: len(rows) for lang, rows in tables["alternations"].items()}
    print(f"{args.out}: {len(tables['types'])} types, alternations {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
