"""Time incremental ingest on a corpus: everything but one file, then add it, then remove it.

Each step runs in a fresh ``rulings`` process (as a user would run it), and the
groupings after adding are compared with a full rebuild of the same files
(--compare). Peak RSS of the full ingest is read from the child's rusage.

Usage: ``python bench/incremental.py [--dataset real|scryfall50k|million] [--work DIR] [--compare]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run as harness  # noqa: E402


def timed(argv: list[str], env: dict) -> tuple[float, float, str]:
    """(wall seconds, the child's peak RSS in MB, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    return wall, peak, done.stdout


def groupings(index_dir: Path) -> list:
    """Each entry as the sorted (source path, position) of its variants."""
    from rulings.search import index

    return sorted(tuple(sorted((v["source"]["path"], v["position"]) for v in e["variants"]))
                  for e in index.all_entries(index_dir))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=["real", "scryfall50k", "million"], default="real")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--compare", action="store_true", help="Compare with a full rebuild after adding.")
    args = parser.parse_args()
    paths, one = harness.dataset_sources(args.dataset)
    work = args.work or Path(tempfile.mkdtemp(prefix="rulings-incremental-"))
    held = work / "held"
    held.mkdir(parents=True, exist_ok=True)
    index_dir = work / "index"
    cli = harness.rulings_cli()
    env = dict(os.environ, RULINGS_INDEX=str(index_dir))
    figures: dict = {"dataset": args.dataset, "file": str(one), "load_before": os.getloadavg()}
    # the corpus without the one file: walk the folders but leave it out by moving a copy aside is not
    # possible in ../shared (read-only), so ingest everything, then remove the file first
    wall, peak, out = timed([cli, "ingest", *map(str, paths), "--rebuild", "--format", "json"], env)
    full = json.loads(out)
    figures["full"] = {"seconds": wall, "peak_rss_mb": peak, "rulings": full["rulings"],
                       "entries": full["entries"]}
    wall, peak, out = timed([cli, "remove", str(one)], env)
    figures["remove"] = {"seconds": wall, "peak_rss_mb": peak, "output": out.strip()}
    wall, peak, out = timed([cli, "ingest", str(one), "--format", "json"], env)
    figures["add"] = {"seconds": wall, "peak_rss_mb": peak, "entries": json.loads(out)["entries"]}
    wall, peak, out = timed([cli, "ingest", *map(str, paths), "--format", "json"], env)
    figures["unchanged"] = {"seconds": wall}
    if args.compare:
        other = work / "full"
        timed([cli, "ingest", *map(str, paths), "--rebuild", "--index", str(other), "--format", "json"], env)
        a, b = groupings(index_dir), groupings(other)
        figures["compare"] = {"entries_incremental": len(a), "entries_full": len(b),
                              "same_groupings": a == b,
                              "entries_only_incremental": len(set(a) - set(b)),
                              "entries_only_full": len(set(b) - set(a))}
        shutil.rmtree(other, ignore_errors=True)
    figures["load_after"] = os.getloadavg()
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
