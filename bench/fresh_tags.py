"""Fresh tagged rulings kept without their texts: rebuild them from ../shared/realdata.

The repository holds no ruling text (README, "Data"), so a tagged set of our own names each ruling by
``text_hash`` (known_item.target_hash) beside its item, language, card, set, ``tags`` and ``optional``
(the format of ../shared/gold/mechanic-tags.jsonl otherwise); this script finds the texts among the
variants of an index of ../shared/realdata and writes files bench/tag_quality.py reads::

    python bench/fresh_tags.py --index DIR                  # bench/tag_sets/*.jsonl -> bench/out/tags-*.jsonl
    python bench/tag_quality.py bench/out/tags-fresh-4.jsonl

``--store TAGGED.jsonl NAME`` does the reverse once, when a new set has been tagged: it writes
bench/tag_sets/NAME.jsonl from a full tagged file (texts replaced by their hashes).

The sets and how they were drawn: docs/dedup-quality.md ("Tags").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from fresh_pairs import texts_by_hash  # noqa: E402
from known_item import OUT, ensure_index, target_hash  # noqa: E402

SETS = HERE / "tag_sets"


def store(full: Path, name: str) -> Path:
    """bench/tag_sets/NAME.jsonl from a full tagged file: each item's text replaced by its hash."""
    SETS.mkdir(exist_ok=True)
    out = SETS / f"{name}.jsonl"
    with full.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for line in src:
            if line.strip():
                item = json.loads(line)
                text = item.pop("text")
                dst.write(json.dumps({"item": item.pop("item"), "text_hash": target_hash(text), **item},
                                     ensure_ascii=False) + "\n")
    return out


def rebuild(index_dir: Path) -> list[Path]:
    """bench/out/tags-NAME.jsonl for each stored set, texts found by hash in the index; an item whose
    text the index lacks is left out and counted on stderr."""
    texts = texts_by_hash(index_dir)
    OUT.mkdir(exist_ok=True)
    written = []
    for path in sorted(SETS.glob("*.jsonl")):
        out = OUT / f"tags-{path.stem}.jsonl"
        missing = 0
        with path.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
            for line in src:
                if not line.strip():
                    continue
                item = json.loads(line)
                text = texts.get(item.pop("text_hash"))
                if text is None:
                    missing += 1
                    continue
                dst.write(json.dumps({"item": item.pop("item"), "text": text, **item}, ensure_ascii=False) + "\n")
        if missing:
            print(f"{path}: {missing} items not in the index", file=sys.stderr)
        written.append(out)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, help="an index of ../shared/realdata (built when not given)")
    parser.add_argument("--store", nargs=2, metavar=("TAGGED", "NAME"), help="store a full tagged file by hash")
    args = parser.parse_args(argv)
    if args.store:
        print(store(Path(args.store[0]), args.store[1]))
        return 0
    for out in rebuild(ensure_index(args.index)):
        print(f"{out}: {sum(1 for _ in out.open(encoding='utf-8'))} items")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
