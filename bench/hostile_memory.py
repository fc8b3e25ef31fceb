"""Peak memory and time of ingesting the hostile folder of issue 10, against the stated bound.

    python bench/hostile_memory.py [--seeds ../shared/seeds] [--limits] [--work DIR]

Builds the hostile folder (tests/hostile_files.py: zero-byte, random binary, invalid UTF-8,
cp1252 and UTF-16 rulings, a 100 MB single-line JSON, JSON and HTML nested 100,000 deep, a
docx zip bomb, a docx with an external entity, encrypted and damaged PDFs, symlink loops),
runs ``rulings ingest FOLDER SEEDS --format json`` in a fresh process and prints its exit
code, the files skipped and rejected with their reasons, the wall time, and the peak RSS:
``ru_maxrss`` of the largest process of the run (the CLI or one of its reader workers) and
the largest sum of the whole process tree sampled every 20 ms (psutil, the bench extra).

``--limits`` also reads one file at each reader's size limit (ingest/readers/limits.py),
each in a fresh process, and prints that process's peak RSS: the cost of the largest file a
reader accepts, which the bound is built on.

The bound (README "Trust"): reading one file stays under 1 GiB, so an ingest with the
default 4 reader workers stays under 4 GiB for reading plus what the pipeline needs for the
rulings read; the hostile run must stay under BOUND_MB for the whole process tree.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import hostile_files  # noqa: E402

BOUND_MB = 1024


def tree_rss(process) -> int:
    """Bytes of resident memory of a psutil process and all its descendants (0 once gone)."""
    import psutil
    total = 0
    try:
        for proc in [process, *process.children(recursive=True)]:
            try:
                total += proc.memory_info().rss
            except psutil.NoSuchProcess:
                pass
    except psutil.NoSuchProcess:
        pass
    return total


def run_measured(args: list[str]) -> tuple[subprocess.CompletedProcess, float, int, int]:
    """(finished process, seconds, ru_maxrss MB of its largest process, largest sampled tree RSS MB)."""
    import psutil
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    popen = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    watched, peak = psutil.Process(popen.pid), 0
    while popen.poll() is None:
        peak = max(peak, tree_rss(watched))
        time.sleep(0.02)
    stdout, stderr = popen.communicate()
    seconds = time.perf_counter() - started
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss   # the first run of this script
    if largest <= before:
        print("  (ru_maxrss not above an earlier child's; the sampled figure stands)")
    return subprocess.CompletedProcess(args, popen.returncode, stdout, stderr), seconds, largest // 1024, peak >> 20


def limit_files(folder: Path) -> dict[str, Path]:
    """One file per reader size limit, each just under it."""
    from ingest.readers import limits
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    path = folder / "text-64MiB.txt"
    with open(path, "w", encoding="utf-8") as handle:
        line = "A line of a text file that is in none of the three ruling layouts, repeated.\n"
        handle.write(line * (limits.TEXT_BYTES // len(line) - 1))
    files["text at TEXT_BYTES"] = path
    path = folder / "json-64MiB.json"
    card = json.dumps({"object": "card", "oracle_id": "0" * 36, "name": "Card", "oracle_text": "x" * 300})
    count = limits.JSON_WHOLE_BYTES // (len(card) + 1) - 10
    path.write_text('{"object": "list", "data": [' + ",".join([card] * count) + "]}", encoding="utf-8")
    files["Scryfall card list at JSON_WHOLE_BYTES"] = path
    path = folder / "gatherer-16MiB.html"
    row = '<tr><td><div class="value"><span>word</span> <i>word</i></div></td></tr>\n'
    body = row * ((limits.HTML_BYTES - 400) // len(row))
    path.write_text('<!DOCTYPE html><html><head><title>Card/Details.aspx</title></head><body><table>'
                    f'{body}</table></body></html>', encoding="utf-8")
    files["Gatherer page at HTML_BYTES"] = path
    path = folder / "faq_big.docx"
    paragraph = "＊" + "一条裁定的文字。" * 20
    per_paragraph = len(f"<w:p><w:r><w:t>{paragraph}</w:t></w:r></w:p>".encode())
    path.write_bytes(hostile_files.docx_bytes([paragraph] * ((limits.DOCX_PART_BYTES - 1000) // per_paragraph)))
    files["docx with document.xml at DOCX_PART_BYTES"] = path
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=Path, default=ROOT.parent / "shared" / "seeds")
    parser.add_argument("--limits", action="store_true", help="also read one file at each size limit")
    parser.add_argument("--work", type=Path, help="keep the folders here (default: a temporary folder)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="hostile-bench-"))
    folder = work / "hostile"
    expected = hostile_files.build(folder)
    sources = [str(folder)] + ([str(args.seeds)] if args.seeds.is_dir() else [])
    cli = [sys.executable, "-c", "from search.cli import main; main()"]
    done, seconds, largest, tree = run_measured(cli + ["ingest", *sources, "--format", "json",
                                                       "--index", str(work / "index"), "--rebuild"])
    print(f"rulings ingest {' '.join(sources)}: exit {done.returncode}, {seconds:.1f} s")
    report = json.loads(done.stdout)
    print(f"  {report['rulings']} rulings read, {report['entries']} entries; {len(expected)} hostile files")
    for kind in ("skipped", "rejected"):
        for item in report[kind]:
            print(f"  {kind}: {Path(item['path']).name}: {item['reason']}")
    print(f"peak RSS: largest process {largest} MB, whole process tree {tree} MB (bound {BOUND_MB} MB: "
          f"{'within' if tree <= BOUND_MB else 'EXCEEDED'})")
    if args.limits:
        print("reading one file at each size limit, each in a fresh process:")
        reader = "import resource, sys; from pathlib import Path; from ingest.read import read_file; " \
                 "r = read_file(Path(sys.argv[1])); print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024); " \
                 "print(len(r.rulings), 'rulings;', r.skipped or r.rejected or '')"
        for what, path in limit_files(work / "limits").items():
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", reader, str(path)], capture_output=True, text=True)
            peak, outcome = done.stdout.strip().split("\n", 1)
            print(f"  {what}: {path.stat().st_size / 2 ** 20:.1f} MiB file, {time.perf_counter() - started:.1f} s, "
                  f"peak RSS {peak} MB ({outcome[:80]})")


if __name__ == "__main__":
    main()
