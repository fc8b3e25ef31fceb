"""The benchmark harness: ingest, incremental ingest, index size, query latency, cold CLI,
side by side with SQLite FTS5 and ``grep -c -F``.

Run after ``pip install -e .[bench]``::

    python bench/run.py --dataset real          # ../shared/realdata plus the seeds
    python bench/run.py --dataset scryfall50k   # one Scryfall-shaped bulk file, 50,000 rulings
    python bench/run.py --dataset million       # 1,000,000 rulings, about 250,000 entries

Synthetic datasets are generated on first use (bench/generate.py, into
bench/generated/). Prints a table and writes the figures as JSON to
``bench/out/<dataset>.json`` (bench/out/ is git-ignored).

What is measured (wall seconds; CPU seconds too, since other work may share the machine):

- full ingest (``--rebuild``) in a fresh process: seconds and rulings/s per stage
  (read, normalise, dedup, ids, tag, index, save) and peak RSS (ru_maxrss);
- ``rulings ingest`` of the unchanged sources as a whole process; ``rulings remove``
  of one file and ``rulings ingest`` of that file again (adding one file);
- index size on disk (the Whoosh folder; state.pkl listed apart);
- 200 queries (words, phrases, filters, Chinese) made deterministically from the
  indexed entries: in-process latency p50/p95/p99 of ``search.query.search``
  (which opens the index, parses, searches, highlights and decodes the JSON);
  the same queries on SQLite FTS5 over the same entries (stdlib sqlite3, every
  user term quoted, bm25 order, filters as joins, the JSON decoded), and
  ``grep -c -F`` of each query's text over the JSONL export, the floor;
- the cold ``rulings search`` process (several runs) against a cold Python
  process running the same FTS5 query, and a ``grep -c -F`` process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"
OUT = HERE / "out"
QUERY_SEED = 9
COLD_RUNS = 7

sys.path.insert(0, str(ROOT))


# ---------------------------------------------------------------- datasets

def dataset_sources(name: str) -> tuple[list[Path], Path]:
    """(paths a full ingest is given, one file that is removed and added again)."""
    if name == "real":
        return [SHARED / "realdata", SHARED / "seeds"], SHARED / "realdata" / "mtgjson3-sets" / "XLN.json"
    sys.path.insert(0, str(HERE))
    import generate

    folder = generate.GENERATED / name
    if not folder.exists():
        started = time.perf_counter()
        generate.generate(name)
        print(f"generated {folder} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    if name == "scryfall50k":
        return [folder / "rulings.json"], folder / "extra" / "extra-set.json"
    return [folder], folder / "mtgjson" / "S07.json"


# ---------------------------------------------------------------- helpers

def percentiles(values: list[float]) -> dict[str, float]:
    """p50/p95/p99 and mean of a list of seconds, in milliseconds."""
    if not values:
        return {"p50": None, "p95": None, "p99": None, "mean": None}
    ordered = sorted(values)

    def at(q):
        return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] * 1000

    return {"p50": at(0.50), "p95": at(0.95), "p99": at(0.99), "mean": statistics.fmean(values) * 1000}


def folder_bytes(path: Path) -> int:
    """Total size of the files under a folder."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def rulings_cli() -> str:
    """The ``rulings`` console script of the running interpreter's environment."""
    script = Path(sys.executable).with_name("rulings")
    return str(script) if script.exists() else shutil.which("rulings") or "rulings"


def timed_process(argv: list[str], env: dict | None = None) -> tuple[float, subprocess.CompletedProcess]:
    """Run a process to completion; (wall seconds, completed process)."""
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    return time.perf_counter() - started, done


# ---------------------------------------------------------------- ingest worker (fresh process)

def worker_ingest(index_dir: Path, paths: list[Path]) -> dict:
    """Full ingest in this process; stage seconds, CPU seconds, peak RSS."""
    from rulings.search import catalog

    cpu = time.process_time()
    report = catalog.ingest(index_dir, paths, rebuild=True)
    figures = report.to_json()
    return {"seconds": report.seconds, "cpu_seconds": time.process_time() - cpu,
            "timings": report.timings, "rulings": figures["rulings"], "entries": report.entries,
            "formats": figures["formats"], "skipped": len(figures["skipped"]),
            "rejected": len(figures["rejected"]),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


# ---------------------------------------------------------------- queries

_WORD = re.compile(r"[A-Za-z]{4,}")
_CJK = re.compile(r"[\u4e00-\u9fff]{3,}")
STOP = {"this", "that", "with", "from", "have", "will", "when", "then", "your", "they", "their", "into",
        "does", "each", "only", "also", "were", "been", "there", "which", "other", "than", "those"}


def make_queries(entries: list[dict], seed: int = QUERY_SEED) -> list[dict]:
    """200 queries drawn deterministically from the entries.

    70 word queries (one or two words of an English entry), 50 phrases (two or
    three consecutive words), 40 filtered (mechanic alone, word + mechanic,
    word + set, word + card), 40 Chinese (three or four characters of a Chinese
    entry, or the Chinese mechanic names when the data holds none; ten with --lang zh).
    """
    rng = random.Random(seed)
    entries = sorted(entries, key=lambda e: e["id"])
    english = [e for e in entries if e["lang"] == "en" and len(_WORD.findall(e["text"])) >= 4]
    chinese = [e for e in entries if e["lang"].startswith("zh") and _CJK.search(e["text"])]
    tagged = [e for e in english if e["mechanics"]] or english
    queries: list[dict] = []

    def words_of(entry):
        return [w.lower() for w in _WORD.findall(entry["text"]) if w.lower() not in STOP]

    def add(kind, text, **filters):
        queries.append({"kind": kind, "text": text, "filters": filters})

    for i in range(70):
        words = words_of(rng.choice(english)) or ["ability"]
        add("words", " ".join(rng.sample(words, min(len(words), 1 + i % 2))))
    for i in range(50):
        raw = re.findall(r"[A-Za-z']+", rng.choice(english)["text"])
        size = 2 + i % 2
        start = rng.randrange(max(1, len(raw) - size))
        add("phrase", '"' + " ".join(raw[start:start + size]).lower() + '"')
    for i in range(40):
        entry = rng.choice(tagged)
        word = rng.choice(words_of(entry) or ["ability"])
        mechanic = rng.choice(entry["mechanics"]) if entry["mechanics"] else None
        if i % 4 == 0 and mechanic:
            add("filter", "", mechanics=[mechanic])
        elif i % 4 == 1 and mechanic:
            add("filter", word, mechanics=[mechanic])
        elif i % 4 == 2 and entry["sets"]:
            add("filter", word, set_code=rng.choice(entry["sets"]))
        elif entry["cards"]:
            add("filter", word, card=rng.choice(entry["cards"]))
        else:
            add("filter", word)
    if chinese:
        for i in range(40):
            runs = _CJK.findall(rng.choice(chinese)["text"])
            run = rng.choice(runs)
            size = 3 + i % 2
            start = rng.randrange(max(1, len(run) - size + 1))
            add("chinese", run[start:start + size], **({"lang": "zh"} if i % 4 == 0 else {}))
    else:
        import json as _json
        from importlib import resources
        vocab = _json.loads(resources.files("rulings.ingest").joinpath("data/mechanics.json").read_text("utf-8"))
        names = sorted(z for m in vocab for z in m.get("zh", []))
        for i in range(40):
            add("chinese", names[i % len(names)], **({"lang": "zh"} if i % 4 == 0 else {}))
    return queries


def run_ours(index_dir: Path, queries: list[dict]) -> tuple[list[float], list[int], int]:
    """In-process latency of search.query.search per query (limit 20); (seconds, hits, errors)."""
    from rulings.ingest.errors import RulingsError
    from rulings.search import query

    def one(q):
        f = q["filters"]
        filters = query.Filters(f.get("mechanics", []), f.get("card"), f.get("set_code"), f.get("lang"))
        return query.search(index_dir, q["text"] or None, filters, limit=20)

    for q in queries[:10]:  # warm the OS cache and lazy imports
        try:
            one(q)
        except RulingsError:
            pass
    seconds, hits, errors = [], [], 0
    for q in queries:
        started = time.perf_counter()
        try:
            found = one(q)
        except RulingsError:
            found, errors = [], errors + 1
        seconds.append(time.perf_counter() - started)
        hits.append(len(found))
    return seconds, hits, errors


# ---------------------------------------------------------------- SQLite FTS5

def build_fts(db: Path, entries: list[dict]) -> float:
    """Load the entries into SQLite FTS5 (unicode61 for words, trigram for Chinese); seconds taken."""
    from rulings.search.index import document, search_texts

    started = time.perf_counter()
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE VIRTUAL TABLE fts USING fts5(text, cards, mechanics, tokenize='unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE tri USING fts5(text, tokenize='trigram');
        CREATE TABLE doc(rowid INTEGER PRIMARY KEY, id TEXT, lang TEXT, date TEXT, entry TEXT);
        CREATE TABLE mech(rowid INTEGER, mechanic TEXT);
        CREATE TABLE sets(rowid INTEGER, code TEXT);
        CREATE TABLE cards(rowid INTEGER, card_key TEXT);
    """)
    for rowid, entry in enumerate(entries, 1):
        d = document(entry)
        main, others = search_texts(entry)
        text = "\n".join([main, *others])
        con.execute("INSERT INTO fts(rowid, text, cards, mechanics) VALUES (?,?,?,?)",
                    (rowid, text, d["cards"], " ".join(entry["mechanics"])))
        if entry["lang"].startswith("zh"):
            con.execute("INSERT INTO tri(rowid, text) VALUES (?,?)", (rowid, text))
        con.execute("INSERT INTO doc VALUES (?,?,?,?,?)", (rowid, entry["id"], entry["lang"].lower(),
                                                          entry["date"] or "", d["entry"]))
        con.executemany("INSERT INTO mech VALUES (?,?)", [(rowid, m) for m in entry["mechanics"]])
        con.executemany("INSERT INTO sets VALUES (?,?)", [(rowid, s.lower()) for s in entry["sets"]])
        con.executemany("INSERT INTO cards VALUES (?,?)",
                        [(rowid, k) for k in d["card_keys"].split(",") if k])
    con.executescript("""
        CREATE INDEX mech_i ON mech(mechanic, rowid); CREATE INDEX sets_i ON sets(code, rowid);
        CREATE INDEX cards_i ON cards(card_key, rowid); CREATE INDEX doc_lang ON doc(lang);
    """)
    con.commit()
    con.close()
    return time.perf_counter() - started


def fts_sql(q: dict) -> tuple[str, list]:
    """The FTS5 statement of a query: every user term quoted, filters as sub-selects, bm25 order, limit 20."""
    from rulings.search.analysis import card_key

    text, f = q["text"].strip(), q["filters"]
    where, args = [], []
    table = "tri" if q["kind"] == "chinese" else "fts"
    if text:
        if text.startswith('"') and text.endswith('"'):
            match = '"' + text.strip('"').replace('"', '""') + '"'
        else:
            match = " ".join('"' + w.replace('"', '""') + '"' for w in text.split())
        where.append(f"{table} MATCH ?")
        args.append(match)
    for mechanic in f.get("mechanics", []):
        where.append("d.rowid IN (SELECT rowid FROM mech WHERE mechanic = ?)")
        args.append(mechanic)
    if f.get("set_code"):
        where.append("d.rowid IN (SELECT rowid FROM sets WHERE code = ?)")
        args.append(f["set_code"].lower())
    if f.get("card"):
        where.append("d.rowid IN (SELECT rowid FROM cards WHERE card_key = ?)")
        args.append(card_key(f["card"]))
    if f.get("lang"):
        where.append("d.lang IN ('zh-hans', 'zh-hant')" if f["lang"] == "zh" else "d.lang = ?")
        if f["lang"] != "zh":
            args.append(f["lang"].lower())
    if text:
        sql = (f"SELECT d.entry FROM {table} JOIN doc d ON d.rowid = {table}.rowid "
               f"WHERE {' AND '.join(where)} ORDER BY bm25({table}) LIMIT 20")
    else:
        sql = f"SELECT d.entry FROM doc d WHERE {' AND '.join(where) or '1'} ORDER BY d.date DESC LIMIT 20"
    return sql, args


def run_fts(db: Path, queries: list[dict]) -> tuple[list[float], list[int]]:
    """In-process latency of each query on FTS5, JSON of the hits decoded; (seconds, hits)."""
    con = sqlite3.connect(db)
    for q in queries[:10]:
        sql, args = fts_sql(q)
        con.execute(sql, args).fetchall()
    seconds, hits = [], []
    for q in queries:
        sql, args = fts_sql(q)
        started = time.perf_counter()
        rows = [json.loads(row[0]) for row in con.execute(sql, args)]
        seconds.append(time.perf_counter() - started)
        hits.append(len(rows))
    con.close()
    return seconds, hits


def grep_text(q: dict) -> str:
    """The string grep counts for a query: the phrase, the words (first word), or the filter's value."""
    text = q["text"].strip().strip('"')
    if q["kind"] == "words":
        return text.split()[0]
    return text or q["filters"].get("mechanics", ["?"])[0]


def run_grep(jsonl: Path, queries: list[dict]) -> list[float]:
    """Seconds of one ``grep -c -F`` process per query over the JSONL export."""
    seconds = []
    for q in queries:
        wall, _ = timed_process(["grep", "-c", "-F", "--", grep_text(q), str(jsonl)])
        seconds.append(wall)
    return seconds


# ---------------------------------------------------------------- cold processes

COLD_FTS = ("import sqlite3, json, sys; con = sqlite3.connect(sys.argv[1]); "
            "rows = [json.loads(r[0]) for r in con.execute(\"SELECT d.entry FROM fts JOIN doc d ON "
            "d.rowid = fts.rowid WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 20\", ['\"' + sys.argv[2] + '\"'])]; "
            "print(len(rows))")


def compile_project() -> None:
    """Byte-compile the project's packages, as installing them does (``pip install .`` writes the .pyc
    files): an editable install run with PYTHONDONTWRITEBYTECODE=1 (this machine's setting) otherwise
    compiles every imported module of ours from source in each cold process, 25-40 ms of it."""
    import compileall
    for package in ("rulings", "ingest", "search", "corpus"):
        compileall.compile_dir(str(ROOT / package), quiet=1)


def cold_runs(index_dir: Path, db: Path, jsonl: Path, word: str) -> dict:
    """Wall seconds of whole processes: ``rulings search WORD``, a Python FTS5 query, ``grep -c -F``;
    the project byte-compiled first, as an installed tool is (compile_project)."""
    compile_project()
    env = dict(os.environ, RULINGS_INDEX=str(index_dir))
    ours, theirs, grep = [], [], []
    timed_process([rulings_cli(), "search", word, "--limit", "20"], env)  # page cache warm-up
    for _ in range(COLD_RUNS):
        wall, done = timed_process([rulings_cli(), "search", word, "--limit", "20"], env)
        if done.returncode != 0:
            raise SystemExit(f"rulings search failed: {done.stderr.strip()}")
        ours.append(wall)
        theirs.append(timed_process([sys.executable, "-c", COLD_FTS, str(db), word])[0])
        grep.append(timed_process(["grep", "-c", "-F", "--", word, str(jsonl)])[0])
    return {"ours": percentiles(ours), "fts5": percentiles(theirs), "grep": percentiles(grep),
            "word": word, "runs": COLD_RUNS}


# ---------------------------------------------------------------- the run

def ratio(ours, theirs):
    return round(ours / theirs, 1) if ours is not None and theirs else None


def run(dataset: str, work: Path, skip_grep: bool = False) -> dict:
    """Every measurement for one dataset; the figures as a dict."""
    paths, one_file = dataset_sources(dataset)
    index_dir = work / "index"
    figures: dict = {"dataset": dataset, "paths": [str(p) for p in paths], "machine": {
        "cpus": os.cpu_count(), "python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version,
        "load_before": os.getloadavg()}}

    # full ingest in a fresh process
    wall, done = timed_process([sys.executable, __file__, "--worker", str(index_dir), *map(str, paths)])
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    full = json.loads(done.stdout)
    full["process_seconds"] = wall
    full["rulings_per_second"] = {stage: full["rulings"] / s for stage, s in full["timings"].items() if s > 0}
    figures["ingest"] = full

    # incremental: unchanged, remove one file, add it back
    env = dict(os.environ, RULINGS_INDEX=str(index_dir))
    cli = rulings_cli()
    unchanged = []
    for _ in range(3):
        wall, done = timed_process([cli, "ingest", *map(str, paths), "--format", "json"], env)
        unchanged.append(wall)
    wall_remove, done = timed_process([cli, "remove", str(one_file)], env)
    wall_add, done_add = timed_process([cli, "ingest", str(one_file), "--format", "json"], env)
    added = json.loads(done_add.stdout) if done_add.returncode == 0 else {"error": done_add.stderr}
    figures["incremental"] = {"unchanged_process_seconds": statistics.median(unchanged),
                              "remove_one_process_seconds": wall_remove, "remove_output": done.stdout.strip(),
                              "add_one_file": str(one_file), "add_one_process_seconds": wall_add,
                              "add_one_rulings": added.get("rulings"), "add_one_seconds": added.get("seconds")}

    # sizes
    from rulings.search import folder

    generation = folder.live(index_dir)              # the live generation's files (search/folder.py)
    figures["size"] = {"whoosh_bytes": folder_bytes(generation / "whoosh"),
                       "state_bytes": sum((generation / name).stat().st_size
                                          for name in ("state.pkl", "corpus.pkl", "rulings.sqlite")
                                          if (generation / name).exists()),
                       "source_bytes": sum(folder_bytes(p) if p.is_dir() else p.stat().st_size for p in paths)}

    # the same entries for FTS5 and grep
    from rulings.search import index

    entries = list(index.all_entries(index_dir))
    jsonl = work / "export.jsonl"
    with open(jsonl, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"meta": {"entries": len(entries)}}) + "\n")
        for entry in entries:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
    db = work / "fts5.sqlite"
    fts_build = build_fts(db, entries)
    figures["size"].update(fts5_bytes=db.stat().st_size, jsonl_bytes=jsonl.stat().st_size)
    figures["fts5_build_seconds"] = fts_build

    queries = make_queries(entries)
    del entries
    ours_s, ours_hits, errors = run_ours(index_dir, queries)
    fts_s, fts_hits = run_fts(db, queries)
    grep_s = [] if skip_grep else run_grep(jsonl, queries)
    by_kind = {}
    for kind in ("words", "phrase", "filter", "chinese"):
        idx = [i for i, q in enumerate(queries) if q["kind"] == kind]
        by_kind[kind] = {"ours": percentiles([ours_s[i] for i in idx]),
                         "fts5": percentiles([fts_s[i] for i in idx]),
                         "ours_hits": sum(ours_hits[i] for i in idx), "fts5_hits": sum(fts_hits[i] for i in idx)}
    figures["queries"] = {"count": len(queries), "errors": errors, "ours": percentiles(ours_s),
                          "fts5": percentiles(fts_s), "grep": percentiles(grep_s), "by_kind": by_kind,
                          "with_hits": {"ours": sum(1 for h in ours_hits if h),
                                        "fts5": sum(1 for h in fts_hits if h)}}
    word = next(q["text"] for q in queries if q["kind"] == "words" and " " not in q["text"])
    figures["cold"] = cold_runs(index_dir, db, jsonl, word)
    (work / "queries.json").write_text(json.dumps(queries, ensure_ascii=False, indent=1), "utf-8")
    figures["machine"]["load_after"] = os.getloadavg()
    return figures


def table(f: dict) -> str:
    """The figures as a plain-text table: ours, theirs, ratio."""
    ing, inc, q, cold, size = f["ingest"], f["incremental"], f["queries"], f["cold"], f["size"]
    lines = [f"dataset {f['dataset']}: {ing['rulings']} rulings -> {ing['entries']} entries "
             f"(load {f['machine']['load_before'][0]:.1f} before, {f['machine']['load_after'][0]:.1f} after)",
             f"{'measure':44} {'ours':>12} {'theirs':>12} {'ratio':>7}"]

    def row(name, ours, theirs=None, unit=""):
        lines.append(f"{name:44} {_fmt(ours, unit):>12} {_fmt(theirs, unit):>12} {_fmt(ratio(ours, theirs), 'x'):>7}")

    row("full ingest, s (vs FTS5 load of the entries)", ing["seconds"], f["fts5_build_seconds"], "s")
    row("  CPU seconds", ing["cpu_seconds"], None, "s")
    for stage, seconds in ing["timings"].items():
        row(f"  {stage}: s ({ing['rulings_per_second'].get(stage, 0):,.0f} rulings/s)", seconds, None, "s")
    row("peak RSS, MB", ing["peak_rss_mb"], None, "")
    row("re-ingest unchanged (process), s", inc["unchanged_process_seconds"], None, "s")
    row("remove one file (process), s", inc["remove_one_process_seconds"], None, "s")
    row(f"add one file, {inc['add_one_rulings']} rulings (process), s", inc["add_one_process_seconds"], None, "s")
    row("index on disk, MB (vs FTS5 db)", size["whoosh_bytes"] / 2**20, size["fts5_bytes"] / 2**20, "")
    row("state (state.pkl, corpus.pkl, rulings.sqlite), MB", size["state_bytes"] / 2**20, None, "")
    for p in ("p50", "p95", "p99"):
        row(f"query {p}, ms (vs FTS5)", q["ours"][p], q["fts5"][p], "")
    for kind, k in q["by_kind"].items():
        row(f"  {kind} p50, ms (hits {k['ours_hits']} vs {k['fts5_hits']})", k["ours"]["p50"], k["fts5"]["p50"], "")
    if q["grep"]["p50"] is not None:
        row("grep -c -F over JSONL p50 (process), ms", q["ours"]["p50"], q["grep"]["p50"], "")
    row(f"cold 'rulings search {cold['word']}' p50, ms (vs py+FTS5)", cold["ours"]["p50"], cold["fts5"]["p50"], "")
    row("cold process p50, ms (vs grep -c -F)", cold["ours"]["p50"], cold["grep"]["p50"], "")
    return "\n".join(lines)


def _fmt(value, unit):
    if value is None:
        return "-"
    if unit == "x":
        return f"{value}x"
    return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        print(json.dumps(worker_ingest(Path(sys.argv[2]), [Path(p) for p in sys.argv[3:]])))
        return
    parser = argparse.ArgumentParser(description="Benchmark rulings against SQLite FTS5 and grep.")
    parser.add_argument("--dataset", choices=["real", "scryfall50k", "million"], default="real")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--work", type=Path, default=None, help="Keep the index and FTS5 db here.")
    parser.add_argument("--skip-grep", action="store_true", help="Do not time grep per query.")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix=f"rulings-bench-{args.dataset}-"))
    if work.exists() and args.work:
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    try:
        figures = run(args.dataset, work, args.skip_grep)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    args.out.mkdir(parents=True, exist_ok=True)
    text = table(figures)
    figures["table"] = text.splitlines()
    (args.out / f"{args.dataset}.json").write_text(json.dumps(figures, indent=1), "utf-8")
    print(text)


if __name__ == "__main__":
    main()
