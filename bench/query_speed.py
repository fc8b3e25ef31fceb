"""Time the benchmark's 200 queries on an existing index folder, and profile them.

Usage: python bench/query_speed.py INDEX_DIR [--profile FILE] [--repeat N]

The queries are bench/run.py's (make_queries, seed 9) drawn from the index's own
entries; each runs through ``search.query.search(limit=20)`` in this process,
after one warm-up pass (the searcher is opened and kept). Prints p50/p95/p99 per
query kind and overall, in milliseconds of wall time and of CPU time
(time.process_time, steadier on a shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from run import make_queries, percentiles  # noqa: E402

from rulings.ingest.errors import RulingsError  # noqa: E402
from rulings.search import index, query  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index_dir", type=Path)
    parser.add_argument("--profile")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    queries = make_queries(list(index.all_entries(args.index_dir)))

    def one(q):
        f = q["filters"]
        filters = query.Filters(f.get("mechanics", []), f.get("card"), f.get("set_code"), f.get("lang"))
        try:
            return query.search(args.index_dir, q["text"] or None, filters, limit=20)
        except RulingsError:
            return []

    for q in queries:
        one(q)
    profiler = None
    if args.profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for q in queries:
            w, c = time.perf_counter(), time.process_time()
            one(q)
            wall.setdefault(q["kind"], []).append(time.perf_counter() - w)
            cpu.setdefault(q["kind"], []).append(time.process_time() - c)
    if profiler:
        profiler.disable()
        profiler.dump_stats(args.profile)
    for kind in [*wall, "all"]:
        w = [x for k in wall for x in wall[k]] if kind == "all" else wall[kind]
        c = [x for k in cpu for x in cpu[k]] if kind == "all" else cpu[kind]
        pw, pc = percentiles(w), percentiles(c)
        print(f"{kind:8} n={len(w):4}  wall p50/p95/p99 {pw['p50']:7.1f} {pw['p95']:7.1f} {pw['p99']:7.1f} ms"
              f"   CPU p50/p95/p99 {pc['p50']:7.1f} {pc['p95']:7.1f} {pc['p99']:7.1f} ms"
              f"   mean {statistics.fmean(c) * 1000:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
