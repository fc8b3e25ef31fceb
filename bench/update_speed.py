"""Time ``rulings update`` end to end against a local HTTP server serving a Scryfall-shaped bulk file.

Usage: ``python bench/update_speed.py RULINGS.json [--work DIR]``

RULINGS.json is a bare array of Scryfall ruling objects (the shape of the ``rulings`` bulk file), for
example ``bench/generated/scryfall50k/rulings.json`` from ``bench/generate.py --dataset scryfall50k``.
A ThreadingHTTPServer on 127.0.0.1 serves a bulk-data index and the file gzip-encoded (as Scryfall
does); no ``oracle_cards`` file is served, so card names are not fetched. Three ``rulings update``
processes are timed: the first (download, split by month, full ingest), an unchanged one (nothing
downloaded), and one after 300 rulings dated today were added to the file (the incremental case).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body, headers = self.server.files.get(self.path, (b"", None))
        if headers is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if headers.get("ETag") and self.headers.get("If-None-Match") == headers["ETag"]:
            self.send_response(304)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(server: ThreadingHTTPServer, base: str, rulings: bytes, day: str) -> None:
    """Put a bulk-data index and the gzip-encoded rulings file on the server."""
    packed = gzip.compress(rulings, compresslevel=6, mtime=0)
    entry = {"object": "bulk_data", "type": "rulings", "updated_at": f"{day}T10:00:00+00:00",
             "download_uri": f"{base}/file/rulings.json", "size": len(rulings), "content_encoding": "gzip"}
    server.files = {
        "/bulk-data": (json.dumps({"object": "list", "data": [entry]}).encode(), {}),
        "/file/rulings.json": (packed, {"Content-Encoding": "gzip", "ETag": f'"{day}"'}),
    }


def run(args: list[str], env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "from rulings.search.cli import main; main()", *args],
                          env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rulings", type=Path)
    parser.add_argument("--work", type=Path, default=None)
    options = parser.parse_args()
    work = options.work or Path(tempfile.mkdtemp(prefix="update-speed-"))
    rulings = options.rulings.read_bytes()
    items = json.loads(rulings)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = os.environ | {"RULINGS_CACHE_DIR": str(work / "cache"), "RULINGS_SCRYFALL_URL": base}
    args = ["update", "--index", str(work / "index"), "--format", "json"]
    serve(server, base, rulings, "2025-11-01")
    print(f"bulk file: {len(items):,} rulings, {len(rulings):,} bytes of JSON, "
          f"{len(server.files['/file/rulings.json'][0]):,} bytes gzip-encoded")
    for label, day in (("first update", "2025-11-01"), ("unchanged", "2025-11-01"),
                       ("+300 rulings", "2025-11-02")):
        if label == "+300 rulings":
            today = dt.date.today().isoformat()
            extra = [dict(item, published_at=today, comment=item["comment"] + " (updated)")
                     for item in items[:300]]
            serve(server, base, json.dumps(items + extra).encode(), day)
        seconds, out = run(args, env)
        report = json.loads(out)
        ingest = report.get("ingest", {})
        print(f"{label}: {seconds:.1f} s; downloads {[(d['status'], d['bytes']) for d in report['downloads']]}; "
              f"files written {report['files_written']} of {report['files']}; ingest {ingest.get('seconds')} s, "
              f"{ingest.get('parsed')} files read, {ingest.get('rulings')} rulings, {ingest.get('entries')} entries")
    server.shutdown()


if __name__ == "__main__":
    main()
