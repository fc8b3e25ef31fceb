"""Time normalise + dedup on the real corpus (../shared/realdata), and on growing shares of it.

Usage: python bench/dedup_speed.py [REALDATA_DIR]

Reading is not timed (the catalog caches parsed sources). Prints rulings, entries
and seconds for 25 %, 50 % and 100 % of the rulings, so linear growth can be read
off the seconds per 1,000 rulings.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rulings.ingest.compare import compare_form  # noqa: E402
from rulings.ingest.dedup import dedup  # noqa: E402
from rulings.ingest.normalise import normalise  # noqa: E402
from rulings.ingest.read import read_file, walk  # noqa: E402


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else Path(__file__).resolve().parents[2] / "shared" / "realdata"
    rulings = [r for path in walk(folder) for r in read_file(path).rulings]
    rulings.sort(key=lambda r: (r.source.path, r.position))
    for share in (0.25, 0.5, 1.0):
        part = rulings[::round(1 / share)] if share < 1 else rulings
        compare_form.cache_clear()
        start = time.perf_counter()
        kept, _ = normalise(part)
        entries = dedup(kept)
        seconds = time.perf_counter() - start
        print(f"{len(part):6} rulings -> {len(entries):6} entries in {seconds:6.2f} s "
              f"({1000 * seconds / len(part):.3f} s per 1,000 rulings)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
