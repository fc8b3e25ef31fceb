"""Load ``rulings serve``: concurrent clients against /api/search on loopback while ingests run.

Usage::

    python bench/serve_load.py [--index DIR] [--clients 50] [--seconds 30] [--workers 2] [--no-ingest] [--trace]
                               [--pool N] [--nice-ingest N]

Without ``--index`` it builds the real corpus (``../shared/realdata`` and ``../shared/seeds``, about
27,000 rulings) into a temporary folder first. It then starts ``rulings serve --port 0`` on 127.0.0.1
(``--workers`` processes), and for ``--seconds`` runs ``--clients`` concurrent clients (asyncio, one
keep-alive connection each), each sending the next of run.py's 200 benchmark queries (words, phrases,
filtered, Chinese; drawn from the index's own entries) to /api/search as fast as it is answered.
Meanwhile, unless ``--no-ingest``, it ingests a folder of extra rulings into the same index and removes
it again, in turn, until the time is up (each a new generation, switched while requests run).

Prints requests, requests per second, p50/p95/p99/max latency, errors (any answer but 200, or a failed
request), the generations switched, the CPU seconds of the server (all its processes), of the load client
(this process) and of the ingests, and the load average before and after; writes them to
``bench/out/serve_load.json``. ``--trace`` also prints where the slow requests are: latency per second of
the run with the generation switches marked, how many requests took over 100 ms and how many of those
came within 3 s of the start or of a switch, and the spread of the clients' mean latencies; and writes
every request to ``bench/out/serve_load_trace.json``. Bounded: it stops at the deadline, and only ever
talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import httpx  # noqa: E402
from run import make_queries, percentiles  # noqa: E402

from rulings.search import index  # noqa: E402

SHARED = ROOT.parent / "shared"
MAX_REQUESTS = 2_000_000          # a bound on the whole run, far above what 30 s can send


def rulings(*args: str) -> list[str]:
    return [sys.executable, "-c", "from rulings.search.cli import main; main()", *args]


def build_real(folder: Path) -> Path:
    target = folder / "real"
    sources = [str(SHARED / "realdata"), str(SHARED / "seeds")]
    print(f"building the real corpus index in {target} ...", flush=True)
    subprocess.run(rulings("ingest", *sources, "--index", str(target), "--format", "json"), check=True,
                   stdout=subprocess.DEVNULL)
    return target


def extra_rulings(folder: Path, count: int = 300) -> Path:
    """A folder of `count` new rulings (seed text layout) for the ingests that run during the load."""
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(count // 10):
        lines = ["Rulings", ""]
        for k in range(10):
            day = (number * 10 + k) % 28 + 1
            lines += [f"• 2026-01-{day:02d}", f"  Load test ruling {number}-{k}: when a creature with "
                                              f"proliferate number {number * 10 + k} enters, counters grow.", ""]
        (folder / f"extra-{number:03d}.txt").write_text("\n".join(lines), encoding="utf-8")
    return folder


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by process pid and its living descendants (Linux /proc)."""
    stats: dict[int, tuple[int, float]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # after the command: state, ppid, ... utime is field 14 and stime 15 of the whole line
        stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
    total, wanted = 0.0, [pid]
    while wanted:
        current = wanted.pop()
        total += stats.get(current, (0, 0.0))[1]
        wanted += [child for child, (parent, _) in stats.items() if parent == current]
    return total


def children_cpu() -> float:
    """CPU seconds of this process's finished children (the ingest and remove commands and their workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def switched_at(index_dir: Path) -> float | None:
    """When CURRENT was last written (the switch), on the time.monotonic() clock."""
    try:
        written = (index_dir / "CURRENT").stat().st_mtime
    except OSError:
        return None
    return written - time.time() + time.monotonic()


def params_of(query: dict) -> list[tuple[str, str]]:
    filters = query["filters"]
    pairs = [("q", query["text"])] if query["text"] else []
    pairs += [("mechanic", m) for m in filters.get("mechanics", [])]
    for key, name in (("card", "card"), ("set_code", "set"), ("lang", "lang")):
        if filters.get(key):
            pairs.append((name, filters[key]))
    return pairs


def query_pool(entries: list[dict], size: int) -> list[dict]:
    """size distinct queries: run.py's 200 (seed 9) first, then those of further seeds, interleaved by kind."""
    pool, seen, seed = [], set(), 9
    while len(pool) < size and seed < 9 + 10_000:
        for query in make_queries(entries, seed=seed):
            key = json.dumps(query, sort_keys=True)
            if key not in seen and len(pool) < size:
                seen.add(key)
                pool.append(query)
        seed += 1
    if size > 200:
        import random
        random.Random(1).shuffle(pool)
    return pool


class Server:
    def __init__(self, index_dir: Path, workers: int):
        self.process = subprocess.Popen(rulings("serve", "--index", str(index_dir), "--port", "0",
                                                "--workers", str(workers)),
                                        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        line = self.process.stderr.readline()
        if " at http://127.0.0.1:" not in line:
            self.stop()
            raise SystemExit(f"rulings serve did not start: {line!r}")
        self.url = line.split(" at ", 1)[1].split(" ", 1)[0].rstrip("/")
        threading.Thread(target=self.process.stderr.read, daemon=True).start()      # never let the pipe fill
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/api/stats", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise SystemExit("rulings serve did not answer")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Ingests(threading.Thread):
    """Ingest the extra folder into the index, then remove it, in turn, until the deadline (at most 100
    runs); each run makes a new generation, switched while the requests run."""

    def __init__(self, index_dir: Path, extra: Path, deadline: float, nice: int = 0):
        super().__init__(daemon=True)
        self.index_dir, self.extra, self.deadline, self.nice = index_dir, extra, deadline, nice
        self.runs, self.failures = 0, []
        # (verb, started, switched, ended): time.monotonic() seconds; switched: when CURRENT was written
        self.spans: list[tuple[str, float, float | None, float]] = []

    def run(self) -> None:
        while time.monotonic() < self.deadline and self.runs < 100:
            for verb in ("ingest", "remove"):
                started = time.monotonic()
                done = subprocess.run(rulings(verb, str(self.extra), "--index", str(self.index_dir)),
                                      capture_output=True, text=True,
                                      preexec_fn=(lambda: os.nice(self.nice)) if self.nice else None)
                self.spans.append((verb, started, switched_at(self.index_dir), time.monotonic()))
                if done.returncode:
                    self.failures.append(done.stderr.strip()[-200:])
                self.runs += 1


class Connection:
    """One keep-alive HTTP/1.1 connection to the server, as plain asyncio streams: a load client much lighter
    than httpx (whose own CPU per request, on the same two cores, was more than the server's)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def get(self, target: str) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(f"GET {target} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n\r\n".encode("ascii"))
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = dict(line.split(":", 1) for line in lines[1:] if ":" in line)
        headers = {key.strip().lower(): value.strip() for key, value in headers.items()}
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        else:                                   # chunked: not sent for /api/search, read it anyway
            body = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
                body += await self.reader.readexactly(size + 2)
                if size == 0:
                    break
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, body

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


async def load(url: str, queries: list[dict], clients: int, seconds: float, trace: list | None = None) -> dict:
    """Run the clients until seconds have passed; the figures as main() prints them. trace, when given,
    gets one (client number, time.monotonic() when sent, latency in seconds) per request."""
    assert url.startswith("http://127.0.0.1:"), url          # loopback only
    from urllib.parse import urlencode

    host, port = "127.0.0.1", int(url.rsplit(":", 1)[1])
    targets = ["/api/search?" + urlencode(params_of(query)) for query in queries]
    latencies: list[float] = []
    errors: list[str] = []
    generations: set[str] = set()
    deadline = time.monotonic() + seconds
    counter = iter(range(MAX_REQUESTS))

    async def client(number: int) -> None:
        connection = Connection(host, port)
        position = number * 7
        while time.monotonic() < deadline and next(counter, None) is not None:
            target = targets[position % len(targets)]
            position += 1
            sent = time.monotonic()
            started = time.perf_counter()
            try:
                status, body = await connection.get(target)
                if status != 200 and not (status == 400 and body.startswith(b'{"error"')):
                    errors.append(f"{status} {body[:120]!r}")
            except (OSError, asyncio.IncompleteReadError, ValueError) as err:
                errors.append(f"{type(err).__name__}: {err}")
                await connection.close()
            latencies.append(time.perf_counter() - started)
            if trace is not None:
                trace.append((number, sent, latencies[-1]))
        await connection.close()

    async def watch() -> None:
        connection = Connection(host, port)
        while time.monotonic() < deadline:
            try:
                status, body = await connection.get("/api/stats")
                generations.add(json.loads(body)["ingested"])
            except (OSError, asyncio.IncompleteReadError, ValueError) as err:
                errors.append(f"stats {type(err).__name__}")
                await connection.close()
            await asyncio.sleep(0.5)
        await connection.close()

    started = time.monotonic()
    await asyncio.gather(watch(), *(client(n) for n in range(clients)))
    elapsed = time.monotonic() - started
    figures = percentiles(latencies)
    return {"requests": len(latencies), "seconds": round(elapsed, 1),
            "requests_per_second": round(len(latencies) / elapsed, 1),
            "p50_ms": round(figures["p50"], 1), "p95_ms": round(figures["p95"], 1),
            "p99_ms": round(figures["p99"], 1), "max_ms": round(max(latencies) * 1000, 1),
            "errors": len(errors), "first_errors": errors[:5], "index_versions_seen": len(generations)}


def breakdown(trace: list[tuple[int, float, float]], switches: list[float], start: float,
              slow: float = 0.100, after: float = 3.0) -> dict:
    """Where the slow requests are. trace: (client, sent, latency s); switches: time.monotonic() of each
    generation switch (an ingest or remove ending); start: when the clients started. Returns the
    per-second timeline (requests sent that second, their p50/p95 in ms, switches in it), how many requests
    took more than slow seconds, how many of those were sent within after seconds of a switch or of the
    start, and each client's mean latency (ms, lowest and highest: connections unevenly spread over the
    workers show as a wide range)."""
    seconds: dict[int, list[float]] = {}
    for _, sent, latency in trace:
        seconds.setdefault(int(sent - start), []).append(latency)
    timeline = []
    for second in sorted(seconds):
        figures = percentiles(seconds[second])
        timeline.append({"second": second, "requests": len(seconds[second]), "p50_ms": round(figures["p50"], 1),
                         "p95_ms": round(figures["p95"], 1),
                         "switches": sum(1 for at in switches if second <= at - start < second + 1)})
    marks = [start, *switches]
    slow_ones = [(sent, latency) for _, sent, latency in trace if latency > slow]
    near = sum(1 for sent, latency in slow_ones if any(0 <= sent + latency - mark <= after + latency
                                                       for mark in marks))
    clients: dict[int, list[float]] = {}
    for client, _, latency in trace:
        clients.setdefault(client, []).append(latency)
    means = sorted(sum(v) / len(v) * 1000 for v in clients.values())
    return {"timeline": timeline, "slow_ms": slow * 1000, "slow": len(slow_ones),
            f"slow_within_{after:g}s_of_start_or_switch": near,
            "client_mean_ms": [round(means[0], 1), round(means[len(means) // 2], 1), round(means[-1], 1)]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, help="an index folder (default: build the real corpus)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=2, help="server worker processes")
    parser.add_argument("--no-ingest", action="store_true", help="no ingest while the load runs")
    parser.add_argument("--pool", type=int, default=200,
                        help="distinct queries sent in turn (run.py's 200; more are drawn with further seeds: "
                             "a pool larger than the requests sent means every query is new to the server)")
    parser.add_argument("--nice-ingest", type=int, default=0, metavar="N",
                        help="run the ingests at niceness N (a variant to report beside the figure, not instead)")
    parser.add_argument("--trace", action="store_true",
                        help="also print where the slow requests are (per second, near switches, per client) "
                             "and write every request to bench/out/serve_load_trace.json")
    args = parser.parse_args(argv)
    trace: list | None = [] if args.trace else None
    with tempfile.TemporaryDirectory(prefix="serve-load-") as work:
        work = Path(work)
        index_dir = args.index or build_real(work)
        queries = query_pool(list(index.all_entries(index_dir)), args.pool)
        extra = extra_rulings(work / "extra")
        server = Server(index_dir, args.workers)
        try:
            for query in queries[:20]:                          # warm each worker's searcher
                httpx.get(server.url + "/api/search", params=params_of(query), timeout=30)
            ingests = None if args.no_ingest else Ingests(index_dir, extra, time.monotonic() + args.seconds,
                                                          args.nice_ingest)
            if ingests is not None:
                ingests.start()
            load_before = os.getloadavg()[0]
            cpu_before = (tree_cpu(server.process.pid), time.process_time(), children_cpu())
            start = time.monotonic()
            result = asyncio.run(load(server.url, queries, args.clients, args.seconds, trace))
            if ingests is not None:
                ingests.join()
                result.update(ingest_runs=ingests.runs, ingest_failures=ingests.failures)
            cpu_after = (tree_cpu(server.process.pid), time.process_time(), children_cpu())
            result["cpu_seconds"] = {name: round(after - before, 1) for name, before, after
                                     in zip(("server", "client", "ingest"), cpu_before, cpu_after)}
            spans = ingests.spans if ingests is not None else []
        finally:
            server.stop()
            if args.index and not args.no_ingest:
                subprocess.run(rulings("remove", str(extra), "--index", str(index_dir)), capture_output=True)
    result.update(clients=args.clients, workers=args.workers, ingest=not args.no_ingest, pool=len(queries),
                  nice_ingest=args.nice_ingest,
                  load_average_before=load_before, load_average=os.getloadavg()[0], cores=os.cpu_count())
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / "serve_load.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    if trace is not None:
        found = breakdown(trace, [switched for _, _, switched, _ in spans if switched], start)
        (out / "serve_load_trace.json").write_text(json.dumps(
            {"start": start, "ingests": spans, "requests": trace, "breakdown": found}) + "\n", "utf-8")
        for row in found.pop("timeline"):
            print(f"  {row['second']:3d} s  {row['requests']:5d} req  p50 {row['p50_ms']:7.1f}  "
                  f"p95 {row['p95_ms']:7.1f} ms" + ("  <- switch" * row["switches"]))
        print(json.dumps(found))
    print(json.dumps(result, indent=1))
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
