"""Time the pipeline stages (normalise, dedup, ids, tag, translate) of a full ingest, without the index.

Usage::

    python bench/stage_speed.py PATH [PATH ...] [--every K] [--limit N] [--cpu] [--profile FILE] [--memory]

PATH: files or folders of rulings (e.g. bench/generated/million). Rulings are
read with the normal readers (not timed; card names resolved by oracle id as
search/catalog.py does), optionally cut to every Kth and to the first N in
(path, position) order, then run through ``ingest.pipeline.update_corpus`` as
a full ingest does (one added source, everything rewritten). Prints per stage
seconds and rulings/s, the cyclic garbage collector's collections and seconds,
peak RSS and the RSS after each stage. --cpu: stage seconds are CPU seconds of this process
(time.process_time) instead of wall seconds, for a shared machine.
--profile FILE: cProfile of the stages to FILE. --memory: tracemalloc's
top lines still holding memory after the stages (traced from before reading). --dump FILE: every entry's id,
variant keys, Related ids and mechanics as JSON lines, to show that a faster
pipeline forms the same entries (``cmp`` two dumps).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rulings.ingest import pipeline  # noqa: E402
from rulings.ingest.read import read_file, walk  # noqa: E402


class GcWatch:
    """Counts the cyclic collector's runs per generation and the seconds they took."""

    def __init__(self):
        self.runs = [0, 0, 0]
        self.seconds = 0.0
        self._start = 0.0

    def __call__(self, phase, info):
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.runs[info["generation"]] += 1
            self.seconds += time.perf_counter() - self._start


def current_rss_mb() -> float:
    """Resident memory of this process now (Linux /proc), MB."""
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize() / 2**20


def worker_cpu() -> float:
    """CPU seconds of the worker processes that have ended so far: children of this process, and
    of multiprocessing's fork server (the pipeline's workers, ingest/runtime.py form_workers; Linux /proc)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = usage.ru_utime + usage.ru_stime
    from multiprocessing import forkserver
    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if pid:
        time.sleep(0.2)                       # the fork server reaps its ended workers on SIGCHLD
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        seconds += (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")    # cutime, cstime
    return seconds


def read_all(paths: list[Path]) -> list:
    """Every ruling of the paths in (path, position) order, card names resolved by oracle id from
    the other files as search/catalog.py does (a Scryfall ruling names no card)."""
    results = [read_file(file) for path in paths for file in walk(path)]
    names: dict[str, str] = {}
    for result in sorted(results, key=lambda r: r.path):
        for oracle_id, name in result.card_names.items():
            names.setdefault(oracle_id, name)
    rulings = [replace(r, card=names[r.oracle_id]) if r.card is None and r.oracle_id in names else r
               for result in results for r in result.rulings]
    rulings.sort(key=lambda r: (r.source.path, r.position))
    return rulings


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--every", type=int, default=1, help="keep every Nth ruling (a smaller corpus of the same mix)")
    parser.add_argument("--cpu", action="store_true")
    parser.add_argument("--profile")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--dump", help="write every entry (id, variants, related, mechanics) as JSON lines")
    args = parser.parse_args(argv)
    if args.memory:
        import tracemalloc
        tracemalloc.start(1)
    started = time.perf_counter()
    rulings = read_all(args.paths)
    rulings = rulings[::args.every]
    if args.limit:
        rulings = rulings[:args.limit]
    print(f"read {len(rulings):,} rulings in {time.perf_counter() - started:.1f} s, RSS {current_rss_mb():,.0f} MB",
          flush=True)
    if args.cpu:
        pipeline.Clock.now = staticmethod(time.process_time)
    rss_after: dict[str, float] = {}
    lap = pipeline.Clock.lap

    def lap_with_rss(clock, stage):
        lap(clock, stage)
        rss_after[stage] = current_rss_mb()

    pipeline.Clock.lap = lap_with_rss
    watch = GcWatch()
    gc.callbacks.append(watch)
    timings: dict[str, float] = {}
    corpus = pipeline.Corpus()
    cpu, wall = time.process_time(), time.perf_counter()
    children = worker_cpu()
    profiler = None
    if args.profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()
    result = pipeline.update_corpus(corpus, {}, {0: rulings}, lambda refs: {}, everything=True, timings=timings)
    if profiler:
        profiler.disable()
        profiler.dump_stats(args.profile)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    children_cpu = worker_cpu() - children
    gc.callbacks.remove(watch)
    n = len(rulings)
    print(f"{n:,} rulings -> {len(result.entries):,} entries; {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"(+ {children_cpu:.1f} s CPU in worker processes)")
    for stage, seconds in timings.items():
        rate = f"{n / seconds:10,.0f} rulings/s" if seconds > 0.01 else ""
        print(f"  {stage:10} {seconds:8.2f} s {rate:22} RSS after {rss_after.get(stage, 0):7,.0f} MB")
    print(f"  gc runs gen0/1/2 {watch.runs[0]}/{watch.runs[1]}/{watch.runs[2]}, {watch.seconds:.2f} s")
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    if args.dump:
        import json
        with open(args.dump, "w", encoding="utf-8") as out:
            for entry in sorted(result.entries, key=lambda e: e.id):
                out.write(json.dumps([entry.id, entry.text, sorted(v.ruling.key() for v in entry.variants),
                                      sorted(r.id for r in entry.related), entry.mechanics],
                                     ensure_ascii=False) + "\n")
    if args.memory:
        import tracemalloc
        print(f"  traced now / peak {tracemalloc.get_traced_memory()[0] / 2**20:,.0f} / "
              f"{tracemalloc.get_traced_memory()[1] / 2**20:,.0f} MB")
        snapshot = tracemalloc.take_snapshot()
        for stat in snapshot.statistics("lineno")[:25]:
            print(f"  {stat.size / 2**20:8.1f} MB {stat.count:10,} {stat.traceback}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
