"""Time the tag stage (ingest.tag.tag) on the real corpus, and dump or check every ruling's tags.

Usage::

    python bench/tag_speed.py [FOLDER ...] [--dump FILE] [--check FILE]

FOLDER defaults to ``../shared/realdata``. Every file is read through the normal readers
(ingest.read.read_file over ingest.read.walk); the rulings go through ingest.pipeline.build_entries
(normalise -> dedup -> ids -> tag), whose ``tag`` seconds are printed, then ``tag`` runs again
by itself on the same entries, its caches cleared (vocabulary and patterns built again), and is timed
(wall and CPU seconds).

``--dump FILE`` writes one JSON line per distinct (text, card) of the kept rulings,
``{"text", "card", "tags"}`` with ``tags`` = ingest.tag.mechanics_in(text, [card]), then one line
per entry ``{"entry", "mechanics"}``. ``--check FILE`` compares the same lines with a dump and
exits 1 naming the first differences.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rulings.ingest.tag as tag_module  # noqa: E402
from rulings.ingest.pipeline import build_entries  # noqa: E402
from rulings.ingest.read import read_file, walk  # noqa: E402
from rulings.ingest.tag import mechanics_in, tag  # noqa: E402

REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata"


def read_rulings(folders: list[Path]) -> list:
    """Every ruling the readers find under the folders, in path and position order."""
    rulings = [r for folder in folders for path in walk(folder) for r in read_file(path).rulings]
    rulings.sort(key=lambda r: (str(r.source.path), r.position))
    return rulings


def tag_lines(entries) -> list[dict]:
    """One line per distinct (text, card) of the entries' variants, then one per entry."""
    lines, seen = [], set()
    for entry in entries:
        for variant in entry.variants:
            r = variant.ruling
            key = (r.repaired_text or r.text, r.card)
            if key not in seen:
                seen.add(key)
                lines.append({"text": key[0], "card": key[1],
                              "tags": list(mechanics_in(key[0], [key[1]] if key[1] else []))})
    lines.sort(key=lambda line: (line["text"], line["card"] or ""))
    lines += [{"entry": e.id, "mechanics": list(e.mechanics)} for e in sorted(entries, key=lambda e: e.id)]
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[REALDATA])
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--check", type=Path)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    rulings = read_rulings(args.folders)
    print(f"read {len(rulings):,} rulings in {time.perf_counter() - start:.1f} s")
    timings: dict[str, float] = {}
    entries = build_entries(rulings, timings=timings).entries
    print(f"{len(entries):,} entries; pipeline stages: "
          + ", ".join(f"{k} {v:.2f} s" for k, v in timings.items()))
    first = [list(e.mechanics) for e in entries]
    for obj in vars(tag_module).values():      # cold: vocabulary, patterns and caches built again
        if hasattr(obj, "cache_clear"):
            obj.cache_clear()
    start, cpu = time.perf_counter(), time.process_time()
    tag(entries)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert first == [list(e.mechanics) for e in entries], "tag gave different mechanics on a second run"
    print(f"tag alone: {seconds:.2f} s wall, {cpu:.2f} s CPU ({len(rulings) / seconds:,.0f} rulings/s)")

    if args.dump or args.check:
        lines = tag_lines(entries)
        if args.dump:
            args.dump.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
            print(f"wrote {len(lines):,} lines to {args.dump}")
        if args.check:
            want = [json.loads(x) for x in args.check.read_text("utf-8").splitlines()]
            wrong = [(a, b) for a, b in zip(want, lines) if a != b]
            if len(want) != len(lines) or wrong:
                print(f"DIFFERENT: {len(want):,} lines expected, {len(lines):,} now, {len(wrong):,} differ")
                for a, b in wrong[:10]:
                    print(f"  expected {a}\n  now      {b}")
                return 1
            print(f"identical: all {len(lines):,} lines match {args.check}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
