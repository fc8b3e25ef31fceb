"""Time normalise + dedup on the real corpus (../shared/realdata), and on growing shares of it.

Usage: python bench/dedup_speed.py [REALDATA_DIR]

Each share runs the pipeline (ingest/pipeline.py build_entries, what a first ``rulings ingest``
runs); its normalise and dedup steps are timed (their wall seconds in build_entries' timings),
not the ids, tags and translation links after them. Reading is not timed (the catalog caches
parsed sources). Prints rulings, entries and seconds for 25 %, 50 % and 100 % of the rulings,
so linear growth can be read off the seconds per 1,000 rulings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rulings.ingest.compare import compare_form  # noqa: E402
from rulings.ingest.pipeline import build_entries  # noqa: E402
from rulings.ingest.read import read_file, walk  # noqa: E402


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else Path(__file__).resolve().parents[2] / "shared" / "realdata"
    rulings = [r for path in walk(folder) for r in read_file(path).rulings]
    rulings.sort(key=lambda r: (r.source.path, r.position))
    for share in (0.25, 0.5, 1.0):
        part = rulings[::round(1 / share)] if share < 1 else rulings
        compare_form.cache_clear()
        timings: dict[str, float] = {}
        entries = build_entries(part, timings=timings).entries
        seconds = timings["normalise"] + timings["dedup"]
        print(f"{len(part):6} rulings -> {len(entries):6} entries in {seconds:6.2f} s "
              f"({1000 * seconds / len(part):.3f} s per 1,000 rulings)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
