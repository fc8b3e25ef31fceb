"""Load ``rulings serve``: concurrent clients against /api/search on loopback while ingests run.

Usage::

    python bench/serve_load.py [--index DIR] [--clients 50] [--seconds 30] [--workers 2] [--no-ingest]

Without ``--index`` it builds the real corpus (``../shared/realdata`` and ``../shared/seeds``, about
27,000 rulings) into a temporary folder first. It then starts ``rulings serve --port 0`` on 127.0.0.1
(``--workers`` processes), and for ``--seconds`` runs ``--clients`` concurrent clients (asyncio, one
keep-alive connection each), each sending the next of run.py's 200 benchmark queries (words, phrases,
filtered, Chinese; drawn from the index's own entries) to /api/search as fast as it is answered.
Meanwhile, unless ``--no-ingest``, it ingests a folder of extra rulings into the same index and removes
it again, in turn, until the time is up (each a new generation, switched while requests run).

Prints requests, requests per second, p50/p95/p99/max latency, errors (any answer but 200, or a failed
request), and the generations switched; writes them to ``bench/out/serve_load.json``. Bounded: it stops
at the deadline, and only ever talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
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

    def __init__(self, index_dir: Path, extra: Path, deadline: float):
        super().__init__(daemon=True)
        self.index_dir, self.extra, self.deadline = index_dir, extra, deadline
        self.runs, self.failures = 0, []

    def run(self) -> None:
        while time.monotonic() < self.deadline and self.runs < 100:
            for verb in ("ingest", "remove"):
                done = subprocess.run(rulings(verb, str(self.extra), "--index", str(self.index_dir)),
                                      capture_output=True, text=True)
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


async def load(url: str, queries: list[dict], clients: int, seconds: float) -> dict:
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
            started = time.perf_counter()
            try:
                status, body = await connection.get(target)
                if status != 200 and not (status == 400 and body.startswith(b'{"error"')):
                    errors.append(f"{status} {body[:120]!r}")
            except (OSError, asyncio.IncompleteReadError, ValueError) as err:
                errors.append(f"{type(err).__name__}: {err}")
                await connection.close()
            latencies.append(time.perf_counter() - started)
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
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="serve-load-") as work:
        work = Path(work)
        index_dir = args.index or build_real(work)
        queries = query_pool(list(index.all_entries(index_dir)), args.pool)
        extra = extra_rulings(work / "extra")
        server = Server(index_dir, args.workers)
        try:
            for query in queries[:20]:                          # warm each worker's searcher
                httpx.get(server.url + "/api/search", params=params_of(query), timeout=30)
            ingests = None if args.no_ingest else Ingests(index_dir, extra, time.monotonic() + args.seconds)
            if ingests is not None:
                ingests.start()
            result = asyncio.run(load(server.url, queries, args.clients, args.seconds))
            if ingests is not None:
                ingests.join()
                result.update(ingest_runs=ingests.runs, ingest_failures=ingests.failures)
        finally:
            server.stop()
            if args.index and not args.no_ingest:
                subprocess.run(rulings("remove", str(extra), "--index", str(index_dir)), capture_output=True)
    result.update(clients=args.clients, workers=args.workers, ingest=not args.no_ingest, pool=len(queries),
                  load_average=os.getloadavg()[0], cores=os.cpu_count())
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / "serve_load.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    print(json.dumps(result, indent=1))
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
