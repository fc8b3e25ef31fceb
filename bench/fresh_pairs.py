"""Fresh labelled dedup pairs and tagged rulings kept without their texts: rebuild them from ../shared/realdata.

The repository holds no ruling text (README, "Data"), so a labelled pair file of our own names each
side by ``text_hash`` (known_item.target_hash: the first 16 hex digits of the SHA-1 of the
whitespace-collapsed text) and its card; this script finds those texts among the variants of an
index of ../shared/realdata and writes the pairs in the format of ../shared/gold/dedup-pairs.jsonl,
for bench/dedup_quality.py::

    python bench/fresh_pairs.py                                  # bench/dedup_pairs/*.jsonl -> bench/out/
    python bench/fresh_pairs.py --index DIR                      # an existing index of ../shared/realdata
    python bench/dedup_quality.py bench/out/fresh-h.jsonl        # then score them
    python bench/tag_quality.py bench/out/tags-fresh-4.jsonl     # and the tagged rulings

Our own tagged rulings are kept the same way (bench/tag_sets/NAME.jsonl: each item's ``text_hash``
beside its tags, the format of ../shared/gold/mechanic-tags.jsonl otherwise) and rebuilt in the same
run to bench/out/tags-NAME.jsonl, for bench/tag_quality.py.

``--store FILE.jsonl NAME`` does the reverse once, when a new set has been labelled: it writes
bench/dedup_pairs/NAME.jsonl from a full pairs file, or bench/tag_sets/NAME.jsonl from a full tagged
file (told apart by their lines: a pair has sides ``a`` and ``b``), texts replaced by their hashes.

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
TAG_SETS = HERE / "tag_sets"
SIDE = ("card", "set", "date", "lang", "source")


def store(full: Path, name: str) -> Path:
    """bench/dedup_pairs/NAME.jsonl from a full pairs file, or bench/tag_sets/NAME.jsonl from a full
    tagged file: each text replaced by its hash."""
    records = [json.loads(line) for line in full.open(encoding="utf-8") if line.strip()]
    pairs = bool(records) and "a" in records[0]
    out = (PAIRS if pairs else TAG_SETS) / f"{name}.jsonl"
    out.parent.mkdir(exist_ok=True)
    with out.open("w", encoding="utf-8") as dst:
        for record in records:
            if pairs:
                for side in ("a", "b"):
                    text = record[side].pop("text")
                    record[side] = {"text_hash": target_hash(text), **record[side]}
            else:
                text = record.pop("text")
                record = {"item": record.pop("item"), "text_hash": target_hash(text), **record}
            dst.write(json.dumps(record, ensure_ascii=False) + "\n")
    return out


def texts_by_hash(index_dir: Path) -> dict[str, str]:
    """{text_hash: text} of every variant of every entry of the index."""
    from rulings.search import index

    found = {}
    for entry in index.all_entries(index_dir):
        for text in [entry["text"], *(v["text"] for v in entry["variants"])]:
            found.setdefault(target_hash(text), " ".join(text.split()))
    return found


def _with_text(pair: dict, texts: dict[str, str]) -> dict | None:
    """A stored pair with both sides' texts, or None when the index lacks one."""
    sides = {side: texts.get(pair[side]["text_hash"]) for side in ("a", "b")}
    if None in sides.values():
        return None
    for side in ("a", "b"):
        pair[side] = {"text": sides[side], **{k: pair[side].get(k) for k in SIDE}}
    return pair


def _tagged_with_text(item: dict, texts: dict[str, str]) -> dict | None:
    """A stored tagged ruling with its text, or None when the index lacks it."""
    text = texts.get(item.pop("text_hash"))
    return None if text is None else {"item": item.pop("item"), "text": text, **item}


def rebuild(stored: Path, texts: dict[str, str], out: Path, with_text=_with_text) -> tuple[int, int]:
    """Write out the records of stored whose texts are all found; (written, missing)."""
    written = missing = 0
    with stored.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for line in src:
            if not line.strip():
                continue
            record = with_text(json.loads(line), texts)
            if record is None:
                missing += 1
                continue
            dst.write(json.dumps(record, ensure_ascii=False) + "\n")
            written += 1
    return written, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, help="an index of ../shared/realdata (built when not given)")
    parser.add_argument("--store", nargs=2, metavar=("FILE", "NAME"),
                        help="keep a labelled full pairs file or tagged file")
    args = parser.parse_args(argv)
    if args.store:
        print(store(Path(args.store[0]), args.store[1]))
        return 0
    texts = texts_by_hash(ensure_index(args.index))
    OUT.mkdir(exist_ok=True)
    kinds = ((PAIRS, "", _with_text, "pairs"), (TAG_SETS, "tags-", _tagged_with_text, "tagged rulings"))
    for folder, prefix, with_text, what in kinds:
        for stored in sorted(folder.glob("*.jsonl")):
            out = OUT / f"{prefix}{stored.name}"
            written, missing = rebuild(stored, texts, out, with_text)
            print(f"{out}: {written} {what}" + (f", {missing} whose texts the index lacks" if missing else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
