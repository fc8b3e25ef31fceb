"""Pairwise dedup quality on a labelled pairs file.

Usage: python bench/dedup_quality.py PAIRS.jsonl [--errors/--no-errors]

PAIRS.jsonl has the format of ``../shared/gold/dedup-pairs.jsonl``: one pair per
line, ``{"pair", "lang", "a": {text, card, set, date, lang, source}, "b": {...},
"label": "same"|"different"}``. The rulings of all pairs are built into Ruling
objects and run together through the normal pipeline (ingest.pipeline.build_entries);
a pair is predicted ``same`` when both its rulings end in one entry. Prints
precision, recall and F1 for ``same`` overall and per language, then every wrong
decision with both texts.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.model import Ruling, Source  # noqa: E402
from ingest.pipeline import build_entries  # noqa: E402

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_FORMATS = {".json": "mtgjson", ".docx": "docx", ".pdf": "pdf", ".txt": "text", ".html": "gatherer"}


@dataclass(frozen=True)
class Scores:
    """Pairwise counts for the label ``same`` and the scores derived from them (0..1)."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def scores(decisions: list[tuple[bool, bool]]) -> Scores:
    """Scores of (gold same, predicted same) decisions."""
    tp = sum(1 for gold, pred in decisions if gold and pred)
    fp = sum(1 for gold, pred in decisions if not gold and pred)
    fn = sum(1 for gold, pred in decisions if gold and not pred)
    return Scores(tp, fp, fn, len(decisions) - tp - fp - fn)


def read_pairs(path: Path) -> list[dict]:
    """The labelled pairs of a JSONL file (blank lines skipped); raises ValueError naming a bad line."""
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            pair = json.loads(line)
            pair["a"]["text"], pair["b"]["text"], pair["label"]
        except (ValueError, KeyError, TypeError) as err:
            raise ValueError(f"{path}:{number}: not a labelled pair ({err})") from None
        pairs.append(pair)
    return pairs


def to_ruling(side: dict, position: int) -> Ruling:
    """A Ruling from one side of a pair; a card that is a Scryfall oracle id becomes ``oracle_id``."""
    card = side.get("card") or None
    oracle_id = None
    if card and _UUID.match(card):
        card, oracle_id = None, side["card"]
    lang = side.get("lang") or "en"
    source = side.get("source") or "pairs"
    return Ruling(text=side["text"], source=Source(source, _FORMATS.get(Path(source).suffix, "text")),
                  position=position, lang="zh-Hans" if lang.startswith("zh") else lang,
                  date=side.get("date"), card=card, set_code=side.get("set"), oracle_id=oracle_id,
                  publisher="wotc")


def decide(pairs: list[dict]) -> list[tuple[dict, bool]]:
    """Run every ruling of the pairs through build_entries; a pair is same when both sides share an entry."""
    rulings = []
    for pair in pairs:
        for side in ("a", "b"):
            rulings.append(to_ruling(pair[side], len(rulings)))
    entries = build_entries(rulings).entries
    entry_of = {}
    for entry in entries:
        for variant in entry.variants:
            entry_of[variant.ruling.position] = entry.id
    return [(pair, entry_of.get(2 * i) is not None and entry_of.get(2 * i) == entry_of.get(2 * i + 1))
            for i, pair in enumerate(pairs)]


def report(decided: list[tuple[dict, bool]], errors: bool = True) -> str:
    """Text report: P/R/F1 overall and per language, then the wrong decisions."""
    lines = []
    groups = {"all": decided}
    for lang in sorted({p.get("lang", "en") for p, _ in decided}):
        groups[lang] = [(p, s) for p, s in decided if p.get("lang", "en") == lang]
    for name, items in groups.items():
        s = scores([(p["label"] == "same", pred) for p, pred in items])
        lines.append(f"{name:4} pairs {len(items):4}  precision {s.precision:.3f}  recall {s.recall:.3f}"
                     f"  F1 {s.f1:.3f}  (tp {s.tp} fp {s.fp} fn {s.fn} tn {s.tn})")
    if errors:
        wrong = [(p, pred) for p, pred in decided if (p["label"] == "same") != pred]
        lines.append(f"\n{len(wrong)} wrong decisions:")
        for p, pred in wrong:
            kind = "false merge" if pred else "missed merge"
            lines.append(f"\n{p.get('pair', '?')} [{p.get('lang', '?')}] {kind}; gold: {p.get('reason', '')}")
            lines.append(f"  a ({p['a'].get('card') or '-'}): {p['a']['text']}")
            lines.append(f"  b ({p['b'].get('card') or '-'}): {p['b']['text']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", type=Path, help="labelled pairs file (JSONL)")
    parser.add_argument("--no-errors", action="store_true", help="print the scores only")
    args = parser.parse_args(argv)
    try:
        pairs = read_pairs(args.pairs)
    except (OSError, ValueError) as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    print(report(decide(pairs), errors=not args.no_errors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
