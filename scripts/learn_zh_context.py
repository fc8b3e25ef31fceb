"""Learn which Chinese mechanic names are everyday words: ingest/data/zh_context.json.

A Chinese release note is a translation of the English one, and the pipeline links a Chinese entry
to the English entry it translates (ingest/translate.py). Where the Chinese name of a mechanic is
also an everyday word (终止 "ends" for abandon), the Chinese entries tagged with it mostly translate
English entries that do not have the mechanic. Every ruling of ../shared/realdata is run through the
pipeline (ingest/pipeline.py build_entries: tags and translation links); for each mechanic, the
linked pairs whose Chinese side has the tag are counted by whether the English side has it too. A
mechanic whose Chinese tag lacks the English one in at least MIN_DISAGREEING pairs, and in more pairs
than it agrees, is written as ``keyword_only``: its Chinese name then counts only with the context a
keyword has (具有X, X异能, 「X」, ...; ingest/tag.py). scripts/derive_mechanics.py reads the file.

    python scripts/learn_zh_context.py [--shared ../shared] [--out ingest/data/zh_context.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulings.ingest.pipeline import build_entries  # noqa: E402
from rulings.ingest.read import read_files, walk  # noqa: E402

OUT = ROOT / "ingest" / "data" / "zh_context.json"
MIN_DISAGREEING = 5


def agreement(entries) -> dict[str, Counter]:
    """Per mechanic, over linked (Chinese entry, English translation) pairs where the Chinese entry
    has the tag: ``both`` (the English entry has it too) and ``zh_only``."""
    by_id = {entry.id: entry for entry in entries}
    counts: dict[str, Counter] = defaultdict(Counter)
    for entry in entries:
        if not entry.lang.startswith("zh"):
            continue
        for link in entry.translations:
            english = by_id.get(link.id)
            if english is None:
                continue
            for mechanic in entry.mechanics:
                counts[mechanic]["both" if mechanic in english.mechanics else "zh_only"] += 1
    return counts


def everyday(counts: dict[str, Counter]) -> list[str]:
    """The mechanics whose Chinese tag disagrees with the English translation's (see the docstring)."""
    return sorted(m for m, c in counts.items() if c["zh_only"] >= MIN_DISAGREEING and c["zh_only"] > c["both"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    rulings = [r for result in read_files(list(walk(args.shared / "realdata"))) for r in result.rulings]
    counts = agreement(build_entries(rulings).entries)
    learned = everyday(counts)
    table = {"keyword_only": learned,
             "evidence": {m: {"both": counts[m]["both"], "zh_only": counts[m]["zh_only"]} for m in learned}}
    args.out.write_text(json.dumps(table, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {', '.join(learned) or 'none'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
