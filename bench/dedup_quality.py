"""Pairwise dedup quality on a labelled pairs file.

Usage: python bench/dedup_quality.py PAIRS.jsonl [MORE.jsonl ...] [--no-errors] [--folds K]

PAIRS.jsonl has the format of ``../shared/gold/dedup-pairs.jsonl``: one pair per
line, ``{"pair", "lang", "a": {text, card, set, date, lang, source}, "b": {...},
"label": "same"|"different"}``. The rulings of all pairs are built into Ruling
objects and run together through the normal pipeline (ingest.pipeline.build_entries);
a pair is predicted ``same`` when both its rulings end in one entry. Prints
precision, recall and F1 for ``same`` overall and per language, then every wrong
decision with both texts.

``--folds K`` measures the verifier's fitted settings honestly: the pairs are split into K folds
so that the same ruling text is never in two folds (pairs sharing a text go together); for each
fold the settings (FITTED: the learned alternations' least count, the least token similarity, the
most words of a slip)
are chosen on the other folds (the highest recall whose precision is at least TARGET_PRECISION,
ties to the stricter setting) and the fold is decided with them. Prints the scores of those
held-out decisions overall, per language and per labelling round (``P…`` first round, ``Q…``
second), and the settings each fold chose.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rulings.ingest import compare  # noqa: E402
from rulings.ingest.model import Ruling, Source  # noqa: E402
from rulings.ingest.pipeline import build_entries  # noqa: E402

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


# the settings tried: (least pairs of a learned alternation, least token similarity); 10**6: none
FITTED = [(pairs, similarity, slip) for pairs in (2, 3, 4, 6, 10, 20, 10**6) for similarity in (0.45, 0.55, 0.65)
          for slip in (0, 1, 2)]
TARGET_PRECISION = 0.99


def folds_of(pairs: list[dict], k: int) -> list[int]:
    """A fold number 0..k-1 per pair; pairs that share a ruling text (after folding case and
    space) are in one fold, the groups dealt to the smallest fold, largest group first."""
    parent = list(range(len(pairs)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    first_with: dict[str, int] = {}
    for i, pair in enumerate(pairs):
        for side in ("a", "b"):
            text = " ".join(pair[side]["text"].lower().split())
            j = first_with.setdefault(text, i)
            parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(pairs)):
        groups.setdefault(root(i), []).append(i)
    sizes = [0] * k
    fold = [0] * len(pairs)
    for members in sorted(groups.values(), key=lambda m: (-len(m), m[0])):
        target = min(range(k), key=lambda f: (sizes[f], f))
        sizes[target] += len(members)
        for i in members:
            fold[i] = target
    return fold


def decide_with(pairs: list[dict], setting: tuple[int, float, int]) -> list[tuple[dict, bool]]:
    """decide() with the verifier's fitted settings set to ``setting`` (then restored)."""
    saved = compare.MIN_ALTERNATION_PAIRS, compare.MIN_SIMILARITY, compare.SLIP_TOKENS
    compare.MIN_ALTERNATION_PAIRS, compare.MIN_SIMILARITY, compare.SLIP_TOKENS = setting
    compare.alternations.cache_clear()
    try:
        return decide(pairs)
    finally:
        compare.MIN_ALTERNATION_PAIRS, compare.MIN_SIMILARITY, compare.SLIP_TOKENS = saved
        compare.alternations.cache_clear()


def cross_validate(pairs: list[dict], k: int) -> tuple[list[tuple[dict, bool]], list[tuple[int, float, int]]]:
    """Held-out decisions of every pair (each fold decided with the settings fitted on the others)
    and the setting each fold chose."""
    fold = folds_of(pairs, k)
    members = [[i for i in range(len(pairs)) if fold[i] == f] for f in range(k)]
    decided = {setting: {} for setting in FITTED}
    for setting in FITTED:
        for f in range(k):
            for i, (_, same) in zip(members[f], decide_with([pairs[i] for i in members[f]], setting)):
                decided[setting][i] = same
    held_out: dict[int, bool] = {}
    chosen = []
    for f in range(k):
        train = [i for i in range(len(pairs)) if fold[i] != f]
        best = max(FITTED, key=lambda setting, train=train: _quality(pairs, decided[setting], train, setting))
        chosen.append(best)
        for i in members[f]:
            held_out[i] = decided[best][i]
    return [(pairs[i], held_out[i]) for i in range(len(pairs))], chosen


def _quality(pairs: list[dict], decided: dict[int, bool], train: list[int], setting: tuple[int, float, int]
             ) -> tuple:
    """How good a setting is on the training pairs: precision reaching TARGET_PRECISION, then recall,
    then precision, then the stricter setting."""
    s = scores([(pairs[i]["label"] == "same", decided[i]) for i in train])
    return (s.precision >= TARGET_PRECISION, s.recall, s.precision, setting[0], setting[1], -setting[2])


def by_round(decided: list[tuple[dict, bool]]) -> str:
    """Scores per labelling round (the pair id's first letter) and language."""
    lines = []
    for round_ in sorted({p.get("pair", "?")[:1] for p, _ in decided}):
        for lang in sorted({p.get("lang", "en") for p, _ in decided}):
            items = [(p, s) for p, s in decided if p.get("pair", "?")[:1] == round_ and p.get("lang", "en") == lang]
            if items:
                s = scores([(p["label"] == "same", pred) for p, pred in items])
                lines.append(f"{round_}… {lang:3} pairs {len(items):4}  precision {s.precision:.3f}"
                             f"  recall {s.recall:.3f}  (tp {s.tp} fp {s.fp} fn {s.fn} tn {s.tn})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", type=Path, nargs="+",
                        help="labelled pairs files (JSONL), measured together (pair ids must differ)")
    parser.add_argument("--no-errors", action="store_true", help="print the scores only")
    parser.add_argument("--folds", type=int, default=0,
                        help="cross-validate the fitted settings over this many folds (5: the figure we report)")
    args = parser.parse_args(argv)
    try:
        pairs = [pair for path in args.pairs for pair in read_pairs(path)]
    except (OSError, ValueError) as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    if args.folds > 1:
        decided, chosen = cross_validate(pairs, args.folds)
        print(f"{args.folds}-fold cross-validation (each fold decided with the settings fitted on the others)")
        print("settings chosen per fold (least alternation pairs, least similarity, most slip words):", chosen)
        print(by_round(decided))
        print(report(decided, errors=not args.no_errors))
        return 0
    print(report(decide(pairs), errors=not args.no_errors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
