"""Measure mechanic tagging against a tagged file (the format of ``shared/gold/mechanic-tags.jsonl``).

Usage::

    python bench/tag_quality.py ../shared/gold/mechanic-tags.jsonl [--json]

Each line is ``{"item", "lang", "card", "set", "text", "tags": [...], "optional": [...]}``. Every line
becomes a Ruling (card, set code, language ``en`` or ``zh`` -> ``zh-Hans``) and the rulings go through the
normal pipeline (ingest.pipeline.build_entries: normalise -> dedup -> ids -> tag); an item's predicted
tags are its entry's mechanics. Only ids of the gold vocabulary (CR 701/702 and the named mechanics,
``ingest/data/mechanics.json``) are scored; an id in ``optional`` is neither a hit nor an error.

Prints micro precision, recall and F1 for all items, English and Chinese, the per-tag figures, and every
wrong tag (false positive ``+id`` / false negative ``-id``) with the item and its text.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rulings.ingest.model import Ruling, Source  # noqa: E402
from rulings.ingest.pipeline import build_entries  # noqa: E402
from rulings.ingest.tag import vocabulary  # noqa: E402

LANGS = {"zh": "zh-Hans"}
SCORED_KINDS = {"keyword ability", "keyword action", "counters", "mana", "other"}


@dataclass
class Item:
    """One labelled ruling and the tags the pipeline gave it."""

    item: str
    lang: str
    text: str
    gold: set[str]
    optional: set[str]
    predicted: set[str] = field(default_factory=set)


@dataclass
class Score:
    """Micro counts: true positives, false positives, false negatives."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def figures(self) -> tuple[float, float, float]:
        """(precision, recall, F1); 1.0 where nothing was predicted or expected."""
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        return p, r, f


def read_items(path: Path) -> list[dict]:
    """The JSON lines of a tagged file; a line that is not a JSON object is a one-line error."""
    rows = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise SystemExit(f"Error: {path}:{number}: not JSON ({err.msg})") from None
        if not isinstance(row, dict) or "text" not in row:
            raise SystemExit(f"Error: {path}:{number}: not a tagged ruling")
        rows.append(row)
    return rows


def tag_items(path: Path) -> list[Item]:
    """Run the pipeline over the file's rulings; each Item carries gold and predicted (scored ids only)."""
    scored = {m.id for m in vocabulary() if m.kind in SCORED_KINDS}
    rows = read_items(path)
    rulings = [Ruling(text=row["text"], source=Source(str(path), "jsonl"), position=i,
                      lang=LANGS.get(row.get("lang", "en"), row.get("lang", "en")),
                      card=row.get("card") or None, set_code=row.get("set") or None)
               for i, row in enumerate(rows)]
    by_position = {}
    for entry in build_entries(rulings).entries:
        for variant in entry.variants:
            by_position[variant.ruling.position] = set(entry.mechanics) & scored
    return [Item(row.get("item", str(i)), row.get("lang", "en"), row["text"], set(row.get("tags", [])),
                 set(row.get("optional", [])), by_position.get(i, set()))
            for i, row in enumerate(rows)]


def score(items: list[Item]) -> tuple[Score, dict[str, Score]]:
    """Micro score over the items and per-tag scores; optional ids are ignored."""
    total, per_tag = Score(), {}
    for it in items:
        predicted = it.predicted - it.optional
        gold = it.gold - it.optional
        for tag_id in predicted | gold:
            s = per_tag.setdefault(tag_id, Score())
            if tag_id in predicted and tag_id in gold:
                s.tp += 1
                total.tp += 1
            elif tag_id in predicted:
                s.fp += 1
                total.fp += 1
            else:
                s.fn += 1
                total.fn += 1
    return total, per_tag


def report(items: list[Item]) -> dict:
    """The figures as a JSON-able dict: all, per language, per tag, and the errors."""
    out = {}
    for label, subset in [("all", items), ("en", [i for i in items if i.lang == "en"]),
                          ("zh", [i for i in items if i.lang.startswith("zh")])]:
        total, _ = score(subset)
        p, r, f = total.figures()
        out[label] = {"items": len(subset), "precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4),
                      "tp": total.tp, "fp": total.fp, "fn": total.fn}
    _, per_tag = score(items)
    out["tags"] = {t: dict(zip(("precision", "recall", "f1"), (round(x, 3) for x in s.figures())),
                           tp=s.tp, fp=s.fp, fn=s.fn) for t, s in sorted(per_tag.items())}
    out["errors"] = [{"item": it.item, "lang": it.lang, "wrong": sorted(
        [f"+{t}" for t in (it.predicted - it.gold - it.optional)]
        + [f"-{t}" for t in (it.gold - it.predicted - it.optional)]), "text": it.text}
        for it in items if (it.predicted ^ it.gold) - it.optional]
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the report for the tagged file given on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tagged", type=Path, help="a tagged JSONL file (format of mechanic-tags.jsonl)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if not args.tagged.is_file():
        print(f"Error: {args.tagged}: no such file", file=sys.stderr)
        return 1
    result = report(tag_items(args.tagged))
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return 0
    for label in ("all", "en", "zh"):
        r = result[label]
        print(f"{label:3} items {r['items']:4}  precision {r['precision']:.4f}  recall {r['recall']:.4f}  "
              f"F1 {r['f1']:.4f}  (tp {r['tp']}, fp {r['fp']}, fn {r['fn']})")
    print("\nper tag (precision recall F1 tp fp fn):")
    for tag_id, s in result["tags"].items():
        print(f"  {tag_id:28} {s['precision']:.3f} {s['recall']:.3f} {s['f1']:.3f} {s['tp']:4} {s['fp']:3} {s['fn']:3}")
    print(f"\nwrong tags ({len(result['errors'])} items):")
    for err in result["errors"]:
        print(f"  {err['item']} [{err['lang']}] {' '.join(err['wrong'])}: {err['text'][:160]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
