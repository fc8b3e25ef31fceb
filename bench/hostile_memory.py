"""Peak memory and time of ingesting the hostile folders of issues 10 and 21, against the stated bound,
and a check that every file and ruling is accounted for.

    python bench/hostile_memory.py [--shared ../shared] [--limits] [--no-update] [--work DIR]

Builds the hostile folder (tests/hostile_files.py build: zero-byte, random binary, invalid UTF-8,
cp1252 and UTF-16 rulings, a 100 MB single-line JSON, JSON and HTML nested 100,000 deep, a
docx zip bomb, a docx with an external entity, encrypted and damaged PDFs, symlink loops) and
the damaged folder (build_damaged: real documents with a stray byte, control characters, a
script in a Gatherer cell, a 40,000-letter date field), runs ``rulings ingest HOSTILE DAMAGED
SEEDS --format json`` in a fresh process and prints its exit code, the files skipped and
rejected with their reasons, the wall time, and the peak RSS: ``ru_maxrss`` of the largest
process of the run (the CLI or one of its reader workers) and the largest sum of the whole
process tree sampled every 20 ms (psutil, the bench extra). Then it accounts for every file
(``rulings sources``: each expected outcome and ruling count), every ruling (the JSONL export
holds as many variants as rulings were read) and every output (no control character and no
script text in any export format), and prints ``nothing lost`` or each thing lost.

Unless ``--no-update``, it also runs ``rulings update`` against a local HTTP server (127.0.0.1)
serving hostile data built from real responses: Scryfall rulings with published_at values such
as ``../../../../X`` and ``.2015-06-22``, an MTGJSON AllPrintings with the set code
``../../../../X`` and a code given twice; every ruling must reach the index and no file may be
written outside the cache's folders.

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
import os
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
CLI = [sys.executable, "-c", "from rulings.search.cli import main; main()"]
CONTROLS = {chr(c) for c in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]} - {"\n", "\t"}


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
    from rulings.ingest.readers import limits
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


def account(index_dir: Path, expected: dict[Path, tuple[str, object]], read: int) -> list[str]:
    """What was lost: files whose outcome differs from the expected one, rulings missing from the export,
    control characters or script text in any export format. Prints a line per file."""
    lost = []
    rows = json.loads(subprocess.run(CLI + ["sources", "--format", "json", "--index", str(index_dir)],
                                     capture_output=True, text=True, check=True).stdout)
    by_path = {Path(row["path"]): row for row in rows}
    report = {Path(item["path"]): (kind, item["reason"]) for kind in ("skipped", "rejected")
              for item in LAST_REPORT.get(kind, [])}
    for path, (outcome, detail) in sorted(expected.items()):
        row = by_path.get(path)
        if outcome == "rulings":
            got = row["rulings"] if row else 0
            ok = got == detail
            shown = f"{got} of {detail} rulings" + ("" if ok else f" ({row and (row['skipped'] or row['rejected'])})")
        else:
            kind, reason = report.get(path, (None, ""))
            ok = kind == outcome and detail in reason
            shown = f"{kind or 'not reported'}: {reason}"
        print(f"  {'ok  ' if ok else 'LOST'} {path.parent.name}/{path.name}: {shown}")
        if not ok:
            lost.append(f"{path.name}: {shown}")
    exported = {}
    for fmt in ("jsonl", "json", "csv", "md", "html"):
        exported[fmt] = subprocess.run(CLI + ["export", "--format", fmt, "--index", str(index_dir)]
                                       + (["--variants"] if fmt == "csv" else []),
                                       capture_output=True, text=True, check=True).stdout
        raw = set(exported[fmt]) & CONTROLS
        if raw or hostile_files.SCRIPT_TEXT in exported[fmt] or "pwned" in exported[fmt]:
            lost.append(f"{fmt} export holds {sorted(map(hex, map(ord, raw)))} or the script or escape text")
    variants = sum(len(json.loads(line)["variants"]) for line in exported["jsonl"].splitlines()[1:])
    print(f"  export: {variants} variants of {read} rulings read; no control character, script or escape "
          "payload in jsonl, json, csv, md, html: "
          f"{'yes' if not lost or all('export' not in x for x in lost) else 'NO'}")
    if variants != read:
        lost.append(f"the export holds {variants} variants of {read} rulings read")
    return lost


LAST_REPORT: dict = {}


def hostile_update(work: Path, shared: Path) -> list[str]:
    """Run ``rulings update`` (Scryfall, then MTGJSON) against a local server serving hostile data; return
    what was lost or written outside the cache."""
    import gzip
    import hashlib
    import threading
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    decoded = shared / "realdata/scryfall-cassette-mtgjson/decoded_bodies"
    site = work / "site"
    (site / "api/v5").mkdir(parents=True, exist_ok=True)
    rulings = [r for p in sorted(decoded.glob("rulings_*.json")) for r in json.loads(p.read_text("utf-8"))["data"]]
    odd = ["../../../../X", ".2015-06-22", "2019/05/03", "2019-13-45", "soon", 20190503, None, "\x00bad",
           "~/../../etc", "2018-06/../../../Y"]
    for ruling, value in zip(rulings, odd):
        ruling["published_at"] = value
    cards = [card for p in sorted(decoded.glob("search_langany_*.json"))
             for card in json.loads(p.read_text("utf-8"))["data"] if card.get("lang") == "en"]
    (site / "rulings.json").write_text(json.dumps(rulings), "utf-8")
    (site / "oracle_cards.json").write_text(json.dumps(cards), "utf-8")
    tsp = json.loads((shared / "realdata/mtgjson5-TSP/TSP.json").read_text("utf-8"))["data"]
    bro = json.loads((shared / "realdata/mightstone-samples/mtgjson/set.json").read_text("utf-8"))
    allprintings = {"../../../../X": tsp | {"code": "../../../../X"}, "BRO": bro, "BRO2": bro | {"code": "bro"}}
    body = gzip.compress(json.dumps({"meta": {"date": "2025-08-25"}, "data": allprintings}).encode(), mtime=0)
    (site / "api/v5/AllPrintings.json.gz").write_bytes(body)
    (site / "api/v5/AllPrintings.json.gz.sha256").write_text(hashlib.sha256(body).hexdigest())
    (site / "api/v5/Meta.json").write_text(json.dumps({"meta": {"date": "2025-08-25", "version": "5"}}))

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    bulk = [{"object": "bulk_data", "type": kind, "download_uri": f"{base}/{kind}.json",
             "updated_at": "2025-11-01T10:00:00+00:00", "size": (site / f"{kind}.json").stat().st_size}
            for kind in ("rulings", "oracle_cards")]
    (site / "bulk-data").write_text(json.dumps({"object": "list", "data": bulk}))
    lost = []
    root = work / "update"
    env = {**os.environ, "RULINGS_CACHE_DIR": str(root / "cache"), "RULINGS_MIN_DELAY": "0"}
    try:
        for source, wanted, folder in (("scryfall", len(rulings), "scryfall"), ("mtgjson", 921 + 874 * 2, "mtgjson")):
            done = subprocess.run(CLI + ["update", "--source", source, "--base-url", base, "--format", "json",
                                         "--index", str(root / f"ix-{source}")],
                                  capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                lost.append(f"update {source}: exit {done.returncode}: {done.stderr.strip()}")
                continue
            shape = json.loads(done.stdout)
            got = shape["ingest"]["rulings"]
            print(f"  update {source}: {got} of {wanted} rulings; notes: {shape['notes'] or 'none'}; "
                  f"warnings: {shape['ingest']['warnings'] or 'none'}")
            if got != wanted:
                lost.append(f"update {source}: {got} of {wanted} rulings")
            for path in (root / "cache").rglob("*"):
                inside = path.relative_to(root / "cache").parts
                if path.is_file() and inside[0] == folder and inside[1] not in ("downloads", "ingest"):
                    lost.append(f"update {source} wrote {path} outside its folders")
        outside = [p for p in root.parent.rglob("X.json")] + [p for p in root.parent.rglob("Y.json")]
        lost += [f"written outside the cache: {p}" for p in outside]
    finally:
        server.shutdown()
        server.server_close()
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared",
                        help="the real data folder (seeds/, realdata/)")
    parser.add_argument("--limits", action="store_true", help="also read one file at each size limit")
    parser.add_argument("--no-update", action="store_true", help="skip rulings update against hostile data")
    parser.add_argument("--work", type=Path, help="keep the folders here (default: a temporary folder)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="hostile-bench-"))
    folder = work / "hostile"
    expected = {folder / name: outcome for name, outcome in hostile_files.build(folder).items()
                if not name.startswith("loop/")}
    sources = [str(folder)]
    if (args.shared / "realdata").is_dir():
        damaged = work / "damaged"
        built = hostile_files.build_damaged(damaged, args.shared)
        expected |= {damaged / name: outcome for name, outcome in built.items()}
        sources += [str(damaged), str(args.shared / "seeds")]
    else:
        print(f"{args.shared} has no realdata/: only the hostile folder of issue 10 is ingested")
    done, seconds, largest, tree = run_measured(CLI + ["ingest", *sources, "--format", "json",
                                                       "--index", str(work / "index"), "--rebuild"])
    print(f"rulings ingest {' '.join(sources)}: exit {done.returncode}, {seconds:.1f} s")
    report = json.loads(done.stdout)
    LAST_REPORT.update(report)
    print(f"  {report['rulings']} rulings read, {report['entries']} entries; {len(expected)} hostile and damaged files")
    for kind in ("skipped", "rejected"):
        for item in report[kind]:
            print(f"  {kind}: {Path(item['path']).name}: {item['reason']}")
    for reason, count in report["warnings"].items():
        print(f"  warnings: {count} rulings ({reason})")
    print(f"peak RSS: largest process {largest} MB, whole process tree {tree} MB (bound {BOUND_MB} MB: "
          f"{'within' if tree <= BOUND_MB else 'EXCEEDED'})")
    print("every file, ruling and output accounted for:")
    lost = account(work / "index", expected, report["rulings"])
    if not args.no_update and (args.shared / "realdata").is_dir():
        print("rulings update against hostile data on 127.0.0.1:")
        lost += hostile_update(work, args.shared)
    print("nothing lost" if not lost else "LOST:\n  " + "\n  ".join(lost))
    if args.limits:
        print("reading one file at each size limit, each in a fresh process:")
        reader = "import resource, sys; from pathlib import Path; from rulings.ingest.read import read_file; " \
                 "r = read_file(Path(sys.argv[1])); " \
                 "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024); " \
                 "print(len(r.rulings), 'rulings;', r.skipped or r.rejected or '')"
        for what, path in limit_files(work / "limits").items():
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", reader, str(path)], capture_output=True, text=True)
            peak, outcome = done.stdout.strip().split("\n", 1)
            print(f"  {what}: {path.stat().st_size / 2 ** 20:.1f} MiB file, {time.perf_counter() - started:.1f} s, "
                  f"peak RSS {peak} MB ({outcome[:80]})")
    sys.exit(1 if lost else 0)


if __name__ == "__main__":
    main()
