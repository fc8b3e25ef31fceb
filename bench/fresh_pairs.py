"""Fresh labelled dedup pairs kept without their texts: rebuild them from ../shared/realdata.

The repository holds no ruling text (README, "Data"), so a labelled pair file of our own names each
side by ``text_hash`` (known_item.target_hash: the first 16 hex digits of the SHA-1 of the
whitespace-collapsed text) and its card; this script finds those texts among the variants of an
index of ../shared/realdata and writes the pairs in the format of ../shared/gold/dedup-pairs.jsonl,
for bench/dedup_quality.py::

    python bench/fresh_pairs.py                                  # bench/dedup_pairs/*.jsonl -> bench/out/
    python bench/fresh_pairs.py --index DIR                      # an existing index of ../shared/realdata
    python bench/dedup_quality.py bench/out/fresh-h.jsonl        # then score them

``--store PAIRS.jsonl NAME`` does the reverse once, when a new set has been labelled: it writes
bench/dedup_pairs/NAME.jsonl from a full pairs file (texts replaced by their hashes).

The sets and how they were drawn: docs/dedup-quality.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from known_item import OUT, ensure_index, target_hash  # noqa: E402

PAIRS = HERE / "dedup_pairs"
SIDE = ("card", "set", "date", "lang", "source")


def store(full: Path, name: str) -> Path:
    """bench/dedup_pairs/NAME.jsonl from a full pairs file: each side's text replaced by its hash."""
    out = PAIRS / f"{name}.jsonl"
    with full.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for line in src:
            if line.strip():
                pair = json.loads(line)
                for side in ("a", "b"):
                    text = pair[side].pop("text")
                    pair[side] = {"text_hash": target_hash(text), **pair[side]}
                dst.write(json.dumps(pair, ensure_ascii=False) + "\n")
    return out


def texts_by_hash(index_dir: Path) -> dict[str, str]:
    """{text_hash: text} of every variant of every entry of the index."""
    from rulings.search import index

    found = {}
    for entry in index.all_entries(index_dir):
        for text in [entry["text"], *(v["text"] for v in entry["variants"])]:
            found.setdefault(target_hash(text), " ".join(text.split()))
    return found


def rebuild(stored: Path, texts: dict[str, str], out: Path) -> tuple[int, int]:
    """Write out the pairs of stored whose both texts are found; (written, missing)."""
    written = missing = 0
    with stored.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for line in src:
            if not line.strip():
                continue
            pair = json.loads(line)
            sides = {side: texts.get(pair[side]["text_hash"]) for side in ("a", "b")}
            if None in sides.values():
                missing += 1
                continue
            for side in ("a", "b"):
                pair[side] = {"text": sides[side], **{k: pair[side].get(k) for k in SIDE}}
            dst.write(json.dumps(pair, ensure_ascii=False) + "\n")
            written += 1
    return written, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, help="an index of ../shared/realdata (built when not given)")
    parser.add_argument("--store", nargs=2, metavar=("PAIRS", "NAME"), help="keep a labelled full pairs file")
    args = parser.parse_args(argv)
    if args.store:
        print(store(Path(args.store[0]), args.store[1]))
        return 0
    texts = texts_by_hash(ensure_index(args.index))
    OUT.mkdir(exist_ok=True)
    for stored in sorted(PAIRS.glob("*.jsonl")):
        written, missing = rebuild(stored, texts, OUT / stored.name)
        print(f"{OUT / stored.name}: {written} pairs" + (f", {missing} whose texts the index lacks" if missing else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
