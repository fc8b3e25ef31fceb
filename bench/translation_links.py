"""Measure translation links on the real data: share of Chinese .docx rulings linked to an English ruling.

Reads the Chinese release notes (.docx) and the MTGJSON v3 file of each set that has both
(PRODUCT/issue 4: AER AKH BBD BFZ C18 DOM GRN HOU KLD M19 RIX SOI XLN A25), runs the
pipeline, and prints the link rate per set and overall, then a random sample of links
(Chinese text, English text) for a person to check by reading.

Usage: python bench/translation_links.py [../shared/realdata] [--sample 30] [--seed 4]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from pathlib import Path

from rulings.ingest.pipeline import build_entries
from rulings.ingest.read import read_file
from rulings.ingest.translate import link_rulings

SETS = "AER AKH BBD BFZ C18 DOM GRN HOU KLD M19 RIX SOI XLN A25".split()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("realdata", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared/realdata"))
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--seed", type=int, default=4)
    args = parser.parse_args()
    root = Path(args.realdata)
    rulings = []
    for code in SETS:
        rulings += read_file(root / f"zh-cn-release-notes-athenacykes/release_notes/faq_{code.lower()}.docx").rulings
        rulings += read_file(root / f"mtgjson3-sets/{code}.json").rulings
    result = build_entries(rulings)
    pairs = link_rulings(result.entries)
    linked = {id(z) for z, _ in pairs}
    chinese = [r for r in rulings if r.source.format == "docx" and r.lang.startswith("zh")]
    print("languages of the docx rulings:", dict(Counter(r.lang for r in rulings if r.source.format == "docx")))
    total = Counter(r.set_code for r in chinese)
    done = Counter(r.set_code for r in chinese if id(r) in linked)
    for code in SETS:
        print(f"{code}: {done[code]}/{total[code]}")
    print(f"linked: {len(linked)}/{len(chinese)} = {len(linked) / max(len(chinese), 1):.4f}")
    unlinked = Counter((r.set_code, r.card) for r in chinese if id(r) not in linked)
    print("most unlinked cards:", unlinked.most_common(12))
    random.seed(args.seed)
    for n, (zh, en) in enumerate(random.sample(pairs, min(args.sample, len(pairs))), 1):
        print(f"\n{n}. {zh.set_code} {zh.card} | {en.card}\n   ZH {zh.text}\n   EN {en.text}")


if __name__ == "__main__":
    main()
