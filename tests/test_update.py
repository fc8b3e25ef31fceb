"""``rulings update`` against a real HTTP server on 127.0.0.1 serving data built from real Scryfall and
MTGJSON responses (../shared/realdata): first download and ingest, unchanged data (updated_at, ETag,
SHA-256), a changed file ingested incrementally, a connection dropped halfway and resumed, 429 retried,
a silent server timed out, no network, the progress bar on a terminal only."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from rich.console import Console

from rulings.search import catalog, index, update
from rulings.search.cli import cli
from rulings.search.fetch import (
    Client,
    CutShort,
    Mismatch,
    NoAnswer,
    Offline,
    Progress,
    UpdateError,
)

DECODED = "realdata/scryfall-cassette-mtgjson/decoded_bodies"
JACE, ALRUND, OKAUN, ZNDRSPLT, PHELDDAGRIF = ("02d6d693-f1f3-4317-bcc0-c21fa8490d38",
                                              "5d131784-c1a3-463e-a37b-b720af67ab62",
                                              "94eea6e3-20bc-4dab-90ba-3113c120fb90",
                                              "d5dfd236-b1da-4552-b94f-ebf6bb9dafdf",
                                              "d9631cb2-d53b-4401-b53b-29d27bdefc44")
FIRST = (JACE, ALRUND, OKAUN, PHELDDAGRIF)            # 16 + 13 + 13 + 1 = 43 rulings
SECOND = FIRST + (ZNDRSPLT,)                           # + 11 = 54 rulings (SOURCES.md: 54 unique)


# --- the test server --------------------------------------------------------------------------

@dataclass
class Route:
    """One served file: body bytes (as transferred), its ETag, gzip Content-Encoding, Range support."""

    body: bytes
    etag: str = ""
    gzip: bool = False
    ranges: bool = True
    content_type: str = "application/json"


@dataclass
class Site:
    """What the server serves (routes by path), scripted misbehaviour per path, and a log of requests."""

    routes: dict[str, Route] = field(default_factory=dict)
    script: dict[str, list[str]] = field(default_factory=dict)      # path -> actions: 429, 503, drop, hang
    log: list[tuple[str, int, dict]] = field(default_factory=list)  # (path, status, request headers)
    release: threading.Event = field(default_factory=threading.Event)

    def requests(self, path: str) -> list[tuple[int, dict]]:
        return [(status, headers) for p, status, headers in self.log if p == path]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        site: Site = self.server.site
        path = self.path
        headers = {k.lower(): v for k, v in self.headers.items()}
        actions = site.script.get(path)
        action = actions.pop(0) if actions else None
        route = site.routes.get(path)
        if action == "hang":
            site.log.append((path, 0, headers))
            site.release.wait(10)
            self.close_connection = True
            return
        if action in ("429", "503"):
            return self.reply(path, headers, int(action), b"slow down", {"Retry-After": "0"})
        if route is None:
            return self.reply(path, headers, 404, b"not found")
        if route.etag and headers.get("if-none-match") == route.etag:
            return self.reply(path, headers, 304, b"", {"ETag": route.etag})
        body, status, extra = route.body, 200, {"ETag": route.etag} if route.etag else {}
        if route.ranges:
            extra["Accept-Ranges"] = "bytes"
            wanted = headers.get("range", "")
            if wanted.startswith("bytes=") and headers.get("if-range") == route.etag:
                start = int(wanted[6:].split("-")[0])
                extra["Content-Range"] = f"bytes {start}-{len(body) - 1}/{len(body)}"
                body, status = body[start:], 206
        if route.gzip:
            extra["Content-Encoding"] = "gzip"
        if action == "drop":
            site.log.append((path, status, headers))
            self.send_response(status)
            for name, value in {"Content-Type": route.content_type, "Content-Length": str(len(body)),
                                **extra}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.reply(path, headers, status, body, {"Content-Type": route.content_type, **extra})

    def reply(self, path, headers, status, body, extra=None):
        self.server.site.log.append((path, status, headers))
        self.send_response(status)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class QuietServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer that says nothing when a client hangs up on it (the tests of downloads
    that are cut short do so on purpose); any other error is printed as usual."""

    def handle_error(self, request, client_address):
        import sys
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture
def site():
    """A ThreadingHTTPServer on 127.0.0.1 (a free port) serving a Site; yields (site, base URL)."""
    server = QuietServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.site = Site()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.site, f"http://127.0.0.1:{server.server_address[1]}"
    server.site.release.set()
    server.shutdown()
    server.server_close()


# --- data built from the real Scryfall and MTGJSON responses -----------------------------------

def real_rulings(shared: Path, card_ids) -> list[dict]:
    """The ruling objects of these decoded Scryfall rulings responses, ordered by oracle_id as a bulk file."""
    rulings = []
    for card_id in card_ids:
        rulings += json.loads((shared / DECODED / f"rulings_{card_id}.json").read_text("utf-8"))["data"]
    return sorted(rulings, key=lambda r: r["oracle_id"])


def real_oracle_cards(shared: Path, leave_out: tuple[str, ...] = ()) -> list[dict]:
    """One English card object per oracle_id from the decoded ``lang:any`` searches (an oracle_cards bulk file),
    without the searches of the oracle ids in leave_out."""
    cards = {}
    for path in sorted((shared / DECODED).glob("search_langany_*.json")):
        if path.stem.removeprefix("search_langany_") in leave_out:
            continue
        for card in json.loads(path.read_text("utf-8"))["data"]:
            if card.get("lang") == "en":
                cards.setdefault(card.get("oracle_id") or card["card_faces"][0]["oracle_id"], card)
    return list(cards.values())


def serve_scryfall(site: Site, base: str, rulings: list[dict], cards: list[dict], day: str = "2025-11-01",
                   etag: str | None = None) -> None:
    """Serve a bulk-data index and gzip-encoded rulings and oracle_cards files (as Scryfall does)."""
    entries = []
    for kind, items in (("rulings", rulings), ("oracle_cards", cards)):
        plain = json.dumps(items).encode()
        path = f"/file/{kind}.json"
        site.routes[path] = Route(gzip.compress(plain, mtime=0), etag=etag or f'"{kind}-{len(items)}"', gzip=True)
        entries.append({"object": "bulk_data", "type": kind, "updated_at": f"{day}T10:00:00+00:00",
                        "download_uri": base + path, "size": len(plain), "content_encoding": "gzip"})
    site.routes["/bulk-data"] = Route(json.dumps({"object": "list", "has_more": False, "data": entries}).encode())


def client(**settings) -> Client:
    return Client(**({"timeout": 5.0, "retries": 2, "backoff": 0.01, "min_delay": 0.0} | settings))


def run_update(tmp_path, base, source="scryfall", sets=(), **settings) -> update.UpdateReport:
    with client(**settings) as http:
        return update.update(tmp_path / "ix", source, sets, base, client=http, cache_dir=tmp_path / "cache")


def variants(index_dir: Path) -> list[tuple[str, str | None]]:
    """(text, card) of every variant in the index, sorted."""
    return sorted((v["text"], v["card"]) for e in index.all_entries(index_dir) for v in e["variants"])


def written(index_dir: Path) -> dict[Path, int]:
    """Modification time of every file of the index folder but the writer's lock file."""
    return {p: p.stat().st_mtime_ns for p in index_dir.rglob("*") if p.is_file() and "lock" not in p.name}


def statuses(report) -> dict[str, str]:
    return {d["name"]: d["status"] for d in report.to_json()["downloads"]}


# --- Scryfall ---------------------------------------------------------------------------------

def test_first_update_downloads_and_ingests_with_card_names(shared, site, tmp_path):
    server, base = site
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared))
    report = run_update(tmp_path, base)
    assert statuses(report) == {"rulings.json.gz": "downloaded", "oracle_cards.json.gz": "downloaded"}
    assert report.ingest.to_json()["rulings"] == 43
    assert report.named == (4, 4)
    # the rulings split by month of published_at: Jace 2015-06 2016-04 2017-07 2017-09, Alrund 2021-01
    # 2021-02, Okaun 2018-06 2018-07, Phelddagrif 2005-11; plus the card names file
    shards = sorted(p.name for p in (tmp_path / "cache/scryfall/ingest/rulings").iterdir())
    assert shards == ["2005-11.json", "2015-06.json", "2016-04.json", "2017-07.json", "2017-09.json",
                      "2018-06.json", "2018-07.json", "2021-01.json", "2021-02.json"]
    assert (report.files_written, report.files_total) == (10, 10)
    # every ruling shows its card name, the same as ingesting the real responses and card lists directly
    direct = tmp_path / "direct"
    catalog.ingest(direct, [shared / DECODED / f"rulings_{c}.json" for c in FIRST]
                   + sorted((shared / DECODED).glob("search_langany_*.json")))
    assert variants(tmp_path / "ix") == variants(direct)
    cards = {card for _, card in variants(tmp_path / "ix")}
    assert cards == {"Jace, Vryn's Prodigy // Jace, Telepath Unbound",
                     "Alrund, God of the Cosmos // Hakka, Whispering Raven", "Okaun, Eye of Chaos", "Phelddagrif"}
    assert len(list(index.all_entries(tmp_path / "ix"))) == len(list(index.all_entries(direct)))
    # the raw files stay in the cache, as transferred (gzip), with their validators
    raw = tmp_path / "cache/scryfall/downloads/rulings.json.gz"
    assert raw.read_bytes() == server.routes["/file/rulings.json"].body
    # the client introduced itself and asked for JSON, as Scryfall's API documentation asks
    _, headers = server.requests("/bulk-data")[0]
    assert headers["user-agent"].startswith("rulings/") and headers["accept"].startswith("application/json")


def test_unchanged_updated_at_or_etag_downloads_nothing(shared, site, tmp_path):
    server, base = site
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared))
    run_update(tmp_path, base)
    before = written(tmp_path / "ix")
    server.log.clear()
    # same updated_at: the file is not even asked for
    again = run_update(tmp_path, base)
    assert [path for path, _, _ in server.log] == ["/bulk-data"]
    assert statuses(again) == {"rulings.json.gz": "unchanged"}
    assert (again.ingest.changed, again.files_written) == (False, 0)
    # a new updated_at but the same ETag: a conditional request answered 304, nothing transferred
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared), day="2025-11-02")
    server.log.clear()
    third = run_update(tmp_path, base)
    [(status, headers)] = server.requests("/file/rulings.json")
    assert status == 304 and headers["if-none-match"] == '"rulings-43"'
    assert third.to_json()["downloads"][0] == {"name": "rulings.json.gz", "url": base + "/file/rulings.json",
                                               "status": "unchanged", "bytes": 0,
                                               "seconds": third.to_json()["downloads"][0]["seconds"]}
    assert third.ingest.changed is False
    assert written(tmp_path / "ix") == before
    # the new updated_at is remembered: the next update sends no file request
    server.log.clear()
    run_update(tmp_path, base)
    assert [path for path, _, _ in server.log] == ["/bulk-data"]


def test_changed_file_adds_only_the_new_rulings(shared, site, tmp_path):
    server, base = site
    cards = real_oracle_cards(shared)
    serve_scryfall(server, base, real_rulings(shared, FIRST), cards)
    run_update(tmp_path, base)
    old = {e["id"]: e for e in index.all_entries(tmp_path / "ix")}
    serve_scryfall(server, base, real_rulings(shared, SECOND), cards, day="2025-11-02")
    server.log.clear()
    report = run_update(tmp_path, base)
    assert statuses(report) == {"rulings.json.gz": "downloaded"}     # the card names were all known
    assert [path for path, _, _ in server.log] == ["/bulk-data", "/file/rulings.json"]
    # Zndrsplt's 11 rulings are dated 2018-06 and 2018-07: only those two month files change and are read
    assert report.files_written == 2 and report.ingest.parsed == 2
    assert report.ingest.to_json()["rulings"] == 54
    new = {e["id"]: e for e in index.all_entries(tmp_path / "ix")}
    assert old.keys() <= new.keys()
    assert report.ingest.index_changes["deleted"] == 0
    added = [e for i, e in new.items() if i not in old]
    assert len(added) == report.ingest.index_changes["added"] - sum(new[i] != old[i] for i in old)
    assert {v["card"] for e in added for v in e["variants"]} <= {"Zndrsplt, Eye of Wisdom", "Okaun, Eye of Chaos"}
    zndrsplt = [v for e in new.values() for v in e["variants"] if v["card"] == "Zndrsplt, Eye of Wisdom"]
    assert len(zndrsplt) == 11
    # the same result as a fresh update of the new file
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    serve_scryfall(server, base, real_rulings(shared, SECOND), cards, day="2025-11-03")
    run_update(fresh, base)
    assert variants(tmp_path / "ix") == variants(fresh / "ix")


DEATHRITE = "realdata/scryfall-aioscryfall/single-card.json"     # 2 rulings; its card is in no card list here
ZNDRSPLT_ORACLE = "502849a6-8e65-40f3-b348-a41c4f939768"


def test_card_list_fetched_again_only_for_a_card_not_seen_yet(shared, site, tmp_path):
    server, base = site
    deathrite = json.loads((shared / DEATHRITE).read_text("utf-8"))["data"]
    first = sorted(real_rulings(shared, FIRST) + deathrite, key=lambda r: r["oracle_id"])
    serve_scryfall(server, base, first, real_oracle_cards(shared, leave_out=(ZNDRSPLT_ORACLE,)))
    report = run_update(tmp_path, base)
    assert report.named == (4, 5) and report.ingest.to_json()["rulings"] == 45
    unnamed = {v["text"][:40] for e in index.all_entries(tmp_path / "ix") for v in e["variants"] if not v["card"]}
    assert unnamed == {r["comment"][:40] for r in deathrite}
    # a changed rulings file (Phelddagrif's ruling withdrawn) naming only named or known unnamed cards:
    # the card list (rebuilt daily by Scryfall) is not asked for
    fewer = [r for r in first if r["oracle_id"] != "d0e99535-0ea0-4aa5-99f5-6c5255b27c38"]
    serve_scryfall(server, base, fewer, real_oracle_cards(shared), day="2025-11-02")
    server.log.clear()
    report = run_update(tmp_path, base)
    assert [path for path, _, _ in server.log] == ["/bulk-data", "/file/rulings.json"]
    assert report.named == (3, 4) and report.ingest.to_json()["rulings"] == 44
    # Zndrsplt's rulings name a card the cached list lacks: the new card list is fetched and names it;
    # it also names Deathrite Shaman (its card object made here: SOURCES.md names the card), so the
    # unchanged month of its rulings (2016-06) is read again and they get the name too
    second = sorted(real_rulings(shared, SECOND) + deathrite, key=lambda r: r["oracle_id"])
    deathrite_card = {"object": "card", "oracle_id": deathrite[0]["oracle_id"], "name": "Deathrite Shaman"}
    serve_scryfall(server, base, second, real_oracle_cards(shared) + [deathrite_card], day="2025-11-03")
    server.log.clear()
    report = run_update(tmp_path, base)
    assert statuses(report) == {"rulings.json.gz": "downloaded", "oracle_cards.json.gz": "downloaded"}
    assert report.named == (6, 6) and report.ingest.to_json()["rulings"] == 56
    assert [path for path, _, _ in server.log] == ["/bulk-data", "/file/rulings.json", "/file/oracle_cards.json"]
    zndrsplt = [v for e in index.all_entries(tmp_path / "ix") for v in e["variants"]
                if v["card"] == "Zndrsplt, Eye of Wisdom"]
    assert len(zndrsplt) == 11
    assert not [v for e in index.all_entries(tmp_path / "ix") for v in e["variants"] if not v["card"]]
    assert sorted(v["text"] for e in index.all_entries(tmp_path / "ix") for v in e["variants"]
                  if v["card"] == "Deathrite Shaman") == sorted(r["comment"] for r in deathrite)
    # read again: cards.json, the months of Zndrsplt (2018-06, 2018-07), of Deathrite (2016-06, newly
    # named) and of Phelddagrif (2005-11, back after its withdrawal)
    assert report.ingest.parsed == 5 and report.files_written == 5


def test_connection_dropped_halfway_keeps_the_index_then_resumes(shared, site, tmp_path, runner):
    server, base = site
    cards = real_oracle_cards(shared)
    serve_scryfall(server, base, real_rulings(shared, FIRST), cards)
    run_update(tmp_path, base)
    raw = tmp_path / "cache/scryfall/downloads/rulings.json.gz"
    kept_raw, stats_before = raw.read_bytes(), catalog.summary(tmp_path / "ix")["rulings"]
    serve_scryfall(server, base, real_rulings(shared, SECOND), cards, day="2025-11-02")
    body = server.routes["/file/rulings.json"].body
    server.script["/file/rulings.json"] = ["drop", "drop", "drop"]       # the first try and both retries
    server.log.clear()
    with pytest.raises(CutShort, match=r"cut short after \d+ of \d+ bytes.*run 'rulings update' again"):
        run_update(tmp_path, base, retries=2)
    assert [s for s, _ in server.requests("/file/rulings.json")] == [200, 206, 206]
    assert raw.read_bytes() == kept_raw
    assert catalog.summary(tmp_path / "ix")["rulings"] == stats_before == 43
    hits = runner.invoke(cli, ["search", "Zndrsplt", "--index", str(tmp_path / "ix"), "--format", "json"])
    assert hits.exit_code == 0 and json.loads(hits.stdout) == []
    hits = runner.invoke(cli, ["search", "Okaun", "--index", str(tmp_path / "ix"), "--format", "json"])
    assert hits.exit_code == 0 and json.loads(hits.stdout)
    part = tmp_path / "cache/scryfall/downloads/.rulings.json.gz.part"
    # each retry asked for the rest of what the previous attempts delivered
    offsets = [int(h["range"][6:-1]) for s, h in server.requests("/file/rulings.json")[1:]]
    held = part.stat().st_size
    assert 0 < offsets[0] < offsets[1] < held < len(body)
    # the next update asks only for the rest and finishes the file
    server.log.clear()
    report = run_update(tmp_path, base)
    [(status, headers)] = server.requests("/file/rulings.json")
    assert status == 206 and headers["range"] == f"bytes={held}-"
    assert report.to_json()["downloads"][0]["status"] == "resumed"
    assert report.to_json()["downloads"][0]["bytes"] == len(body) - held
    assert raw.read_bytes() == body and not part.exists()
    assert report.ingest.to_json()["rulings"] == 54


def test_resume_restarts_when_the_file_changed_meanwhile(shared, site, tmp_path):
    server, base = site
    cards = real_oracle_cards(shared)
    serve_scryfall(server, base, real_rulings(shared, FIRST), cards)
    server.script["/file/rulings.json"] = ["drop"]
    with pytest.raises(CutShort):
        run_update(tmp_path, base, retries=0)
    serve_scryfall(server, base, real_rulings(shared, SECOND), cards, day="2025-11-02")
    server.log.clear()
    report = run_update(tmp_path, base)
    [(status, headers)] = server.requests("/file/rulings.json")
    assert status == 200 and "range" in headers             # If-Range no longer matched: the whole file
    assert report.to_json()["downloads"][0]["status"] == "downloaded"
    assert report.ingest.to_json()["rulings"] == 54


def test_429_then_200_is_retried(shared, site, tmp_path):
    server, base = site
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared))
    server.script["/bulk-data"] = ["429"]
    server.script["/file/rulings.json"] = ["503", "429"]
    report = run_update(tmp_path, base)
    assert [s for s, _ in server.requests("/bulk-data")] == [429, 200]
    assert [s for s, _ in server.requests("/file/rulings.json")] == [503, 429, 200]
    assert report.ingest.to_json()["rulings"] == 43


def test_429_beyond_the_retries_is_an_error_and_changes_nothing(shared, site, tmp_path, runner):
    server, base = site
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared))
    server.script["/bulk-data"] = ["429"] * 3
    with pytest.raises(UpdateError, match=r"/bulk-data: HTTP 429 Too Many Requests after 3 attempts"):
        run_update(tmp_path, base, retries=2)
    assert not (tmp_path / "ix").exists()


def test_retry_after_header_sets_the_wait():
    import httpx

    with client(backoff=0.5) as http:
        assert http.retry_wait(httpx.Response(429, headers={"Retry-After": "7"}), 0) == 7.0
        assert http.retry_wait(httpx.Response(503), 2) == 2.0
        assert http.retry_wait(httpx.Response(429, headers={"Retry-After": "86400"}), 0) == 60.0


def test_a_server_that_never_answers_times_out_with_a_clear_message(shared, site, tmp_path, runner):
    server, base = site
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared))
    server.script["/bulk-data"] = ["hang"]
    with pytest.raises(NoAnswer, match=r"/bulk-data: no answer within 0.3 s \(timeout\)"):
        run_update(tmp_path, base, timeout=0.3)
    server.script["/bulk-data"] = ["hang"]
    result = runner.invoke(cli, ["update", "--base-url", base, "--timeout", "0.3", "--index", str(tmp_path / "ix")],
                           env={"RULINGS_CACHE_DIR": str(tmp_path / "cache")})
    assert result.exit_code == 1
    assert result.stderr == (f"Error: {base}/bulk-data: no answer within 0.3 s (timeout); "
                             "search keeps working on the current index\n")


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_offline_says_so_in_one_line_and_search_keeps_working(runner, seed_index, tmp_path):
    base = f"http://127.0.0.1:{closed_port()}"
    env = {"RULINGS_CACHE_DIR": str(tmp_path / "cache"), "RULINGS_SCRYFALL_URL": base}
    result = runner.invoke(cli, ["update", "--index", str(seed_index)], env=env)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot reach {base}: ")
    assert result.stderr.endswith("; search keeps working on the current index\n")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    hits = runner.invoke(cli, ["search", "proliferate", "--index", str(seed_index), "--format", "json"])
    assert hits.exit_code == 0 and len(json.loads(hits.stdout)) > 0
    with pytest.raises(Offline), client() as http:
        update.update(tmp_path / "ix", "mtgjson", (), base, client=http, cache_dir=tmp_path / "cache")


def test_size_mismatch_keeps_the_previous_data(shared, site, tmp_path):
    server, base = site
    cards = real_oracle_cards(shared)
    serve_scryfall(server, base, real_rulings(shared, FIRST), cards)
    run_update(tmp_path, base)
    serve_scryfall(server, base, real_rulings(shared, SECOND), cards, day="2025-11-02")
    listing = json.loads(server.routes["/bulk-data"].body)
    listing["data"][0]["size"] += 1
    server.routes["/bulk-data"].body = json.dumps(listing).encode()
    with pytest.raises(Mismatch, match=r"downloaded file is wrong: \d+ bytes \(\d+ unpacked\), the source "
                                       r"announces \d+; kept the previous data"):
        run_update(tmp_path, base)
    assert catalog.summary(tmp_path / "ix")["rulings"] == 43
    assert not (tmp_path / "cache/scryfall/downloads/.rulings.json.gz.part").exists()


def test_damaged_new_file_keeps_the_previous_data_and_is_fetched_again(shared, site, tmp_path):
    server, base = site
    cards = real_oracle_cards(shared)
    serve_scryfall(server, base, real_rulings(shared, FIRST), cards)
    run_update(tmp_path, base)
    raw = tmp_path / "cache/scryfall/downloads/rulings.json.gz"
    kept = raw.read_bytes()
    cut = json.dumps(real_rulings(shared, SECOND)).encode()[:-300]          # a JSON array cut short
    server.routes["/file/rulings.json"] = Route(gzip.compress(cut, mtime=0), etag='"cut"', gzip=True)
    listing = json.loads(server.routes["/bulk-data"].body)
    listing["data"][0]["updated_at"], listing["data"][0]["size"] = "2025-11-02T10:00:00+00:00", len(cut)
    server.routes["/bulk-data"].body = json.dumps(listing).encode()
    with pytest.raises(UpdateError, match=r"rulings.json.gz.part: not a readable Scryfall rulings array"):
        run_update(tmp_path, base)
    assert raw.read_bytes() == kept and catalog.summary(tmp_path / "ix")["rulings"] == 43
    assert not (tmp_path / "cache/scryfall/downloads/.rulings.json.gz.part").exists()
    serve_scryfall(server, base, real_rulings(shared, SECOND), cards, day="2025-11-03")
    server.log.clear()
    report = run_update(tmp_path, base)
    [(status, headers)] = server.requests("/file/rulings.json")
    assert status == 200 and "range" not in headers
    assert report.ingest.to_json()["rulings"] == 54


def test_a_part_that_cannot_be_resumed_is_fetched_whole(shared, site, tmp_path):
    server, base = site
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared))
    body = server.routes["/file/rulings.json"].body
    part = tmp_path / "cache/scryfall/downloads/.rulings.json.gz.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(body + b"stale")                     # longer than the file: the server answers 416
    part.with_name(part.name + ".json").write_text(json.dumps({"url": base + "/file/rulings.json",
                                                               "etag": '"rulings-43"'}))
    original = Handler.do_GET

    def range_not_satisfiable(handler):
        wanted = handler.headers.get("Range", "")
        if wanted and int(wanted[6:-1]) >= len(body):
            return handler.reply(handler.path, {"range": wanted}, 416, b"")
        return original(handler)

    Handler.do_GET = range_not_satisfiable
    try:
        report = run_update(tmp_path, base)
    finally:
        Handler.do_GET = original
    assert [s for s, _ in server.requests("/file/rulings.json")] == [416, 200]
    assert statuses(report)["rulings.json.gz"] == "downloaded"
    assert report.ingest.to_json()["rulings"] == 43


def test_cli_update_text_and_json_output(shared, site, tmp_path, runner):
    server, base = site
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared))
    env = {"RULINGS_CACHE_DIR": str(tmp_path / "cache"), "RULINGS_MIN_DELAY": "0"}
    args = ["update", "--base-url", base, "--index", str(tmp_path / "ix")]
    result = runner.invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("rulings.json.gz: downloaded ")
    assert lines[1].startswith("oracle_cards.json.gz: downloaded ")
    assert lines[2:4] == ["card names: 4 of 4 oracle ids named", "ingest files: 10 of 10 written"]
    assert lines[4].startswith("ingested: 10 files read, 43 rulings, ")
    # piped (not a terminal): no progress bar anywhere
    assert result.stderr == ""
    again = runner.invoke(cli, [*args, "--format", "json"], env=env)
    shape = json.loads(again.stdout)
    assert shape["downloads"] == [{"name": "rulings.json.gz", "url": base + "/file/rulings.json",
                                   "status": "unchanged", "bytes": 0, "seconds": 0.0}]
    assert shape["ingest"]["rulings"] == 43 and shape["ingest"]["changed"] is False
    assert shape["card_names"] == {"named": 4, "oracle_ids": 4}
    stats = json.loads(runner.invoke(cli, ["stats", "--index", str(tmp_path / "ix"), "--format", "json"]).stdout)
    assert stats["rulings"] == 43 and stats["formats"] == {"scryfall": {"files": 9, "rulings": 43}}
    wrong = runner.invoke(cli, [*args, "--set", "TSP"], env=env)
    assert wrong.exit_code == 1 and wrong.stderr.startswith("Error: --set applies to --source mtgjson")


def test_progress_bar_shows_bytes_and_rate_on_a_terminal(shared, site, tmp_path):
    server, base = site
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared))
    screen = io.StringIO()
    with client() as http:
        update.update(tmp_path / "ix", "scryfall", (), base, client=http, cache_dir=tmp_path / "cache",
                      progress=Progress(Console(file=screen, force_terminal=True, width=120)))
    shown = screen.getvalue()
    size = len(server.routes["/file/rulings.json"].body)
    assert "Scryfall rulings" in shown and "Scryfall oracle_cards" in shown
    assert f"{size / 1000:.1f}/{size / 1000:.1f} kB" in shown        # rich's DownloadColumn
    assert "/s" in shown                                             # TransferSpeedColumn
    piped = io.StringIO()
    assert Progress(Console(file=piped)).shown is False


def test_progress_bar_appears_on_a_pseudo_terminal(shared, site, tmp_path):
    import pty

    server, base = site
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared))
    controller, terminal = pty.openpty()
    env = os.environ | {"RULINGS_CACHE_DIR": str(tmp_path / "cache"), "RULINGS_MIN_DELAY": "0", "TERM": "xterm",
                        "COLUMNS": "120"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen([sys.executable, "-c", "from rulings.search.cli import main; main()", "update",
                                "--base-url", base, "--index", str(tmp_path / "ix")],
                               stdout=subprocess.PIPE, stderr=terminal, env=env)
    os.close(terminal)
    out, _ = process.communicate(timeout=120)
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    assert process.returncode == 0, out
    assert b"Scryfall rulings" in shown and b"kB" in shown and b"/s" in shown
    assert b"Scryfall rulings" not in out and out.startswith(b"rulings.json.gz: downloaded")


# --- MTGJSON ----------------------------------------------------------------------------------

def serve_mtgjson(site: Site, shared: Path, date: str = "2025-08-25", etag: str = '"v1"',
                  bad_hash: bool = False, built: str | None = None) -> dict[str, dict]:
    """Serve Meta.json (build ``date``), AllPrintings.json.gz and per-set TSP/BRO .json.gz (made by the
    build ``built``, default ``date``) with their .sha256 files."""
    tsp = json.loads((shared / "realdata/mtgjson5-TSP/TSP.json").read_text("utf-8"))["data"]
    bro = json.loads((shared / "realdata/mightstone-samples/mtgjson/set.json").read_text("utf-8"))
    meta = {"date": date, "version": f"5.2.2+{date.replace('-', '')}"}
    files = {"AllPrintings": {"BRO": bro, "TSP": tsp}, "TSP": tsp, "BRO": bro}
    site.routes["/api/v5/Meta.json"] = Route(json.dumps({"meta": meta, "data": meta}).encode())
    built = built or date
    made = {"date": built, "version": f"5.2.2+{built.replace('-', '')}"}
    for name, data in files.items():
        body = gzip.compress(json.dumps({"meta": made, "data": data}).encode(), mtime=0)
        digest = hashlib.sha256(body + (b"x" if bad_hash else b"")).hexdigest()
        site.routes[f"/api/v5/{name}.json.gz"] = Route(body, etag=etag, content_type="application/gzip")
        site.routes[f"/api/v5/{name}.json.gz.sha256"] = Route(f"{digest}  {name}.json.gz\n".encode(),
                                                              content_type="text/plain")
    return files


def test_mtgjson_allprintings_update(shared, site, tmp_path):
    server, base = site
    serve_mtgjson(server, shared)
    report = run_update(tmp_path, base, "mtgjson")
    assert statuses(report) == {"AllPrintings.json.gz": "downloaded"}
    assert sorted(p.name for p in (tmp_path / "cache/mtgjson/ingest/sets").iterdir()) == ["BRO.json", "TSP.json"]
    # the same rulings as ingesting the two real set files directly (BRO 874, TSP 921)
    direct = tmp_path / "direct"
    catalog.ingest(direct, [shared / "realdata/mtgjson5-TSP/TSP.json",
                            shared / "realdata/mightstone-samples/mtgjson/set.json"])
    assert report.ingest.to_json()["rulings"] == 874 + 921 == catalog.summary(direct)["rulings"]
    assert sorted((t, c) for t, c in variants(tmp_path / "ix")) == variants(direct)
    assert {s for e in index.all_entries(tmp_path / "ix") for s in e["sets"]} == {"BRO", "TSP"}
    # the same Meta date: only Meta.json is asked for
    server.log.clear()
    again = run_update(tmp_path, base, "mtgjson")
    assert [path for path, _, _ in server.log] == ["/api/v5/Meta.json"]
    assert again.ingest.changed is False
    # a new build whose file has the published SHA-256 of the cached one: not downloaded
    serve_mtgjson(server, shared, date="2025-08-26", built="2025-08-25")
    server.log.clear()
    third = run_update(tmp_path, base, "mtgjson")
    assert [path for path, _, _ in server.log] == ["/api/v5/Meta.json", "/api/v5/AllPrintings.json.gz.sha256"]
    assert statuses(third) == {"AllPrintings.json.gz": "unchanged"}


def test_mtgjson_set_files_and_unknown_set(shared, site, tmp_path):
    server, base = site
    serve_mtgjson(server, shared)
    report = run_update(tmp_path, base, "mtgjson", sets=("tsp",))
    assert statuses(report) == {"TSP.json.gz": "downloaded"}
    assert "/api/v5/AllPrintings.json.gz" not in {path for path, _, _ in server.log}
    assert report.ingest.to_json()["rulings"] == 921
    report = run_update(tmp_path, base, "mtgjson", sets=("TSP", "BRO"))
    assert statuses(report) == {"TSP.json.gz": "unchanged", "BRO.json.gz": "downloaded"}
    assert report.ingest.to_json()["rulings"] == 921 + 874 and report.ingest.parsed == 1
    with pytest.raises(UpdateError, match=r"MTGJSON has no set 'XYZ' \(.*/api/v5/XYZ.json.gz: HTTP 404"):
        run_update(tmp_path, base, "mtgjson", sets=("XYZ",))


def test_mtgjson_hash_mismatch_keeps_the_previous_data(shared, site, tmp_path):
    server, base = site
    serve_mtgjson(server, shared, bad_hash=True)
    with pytest.raises(Mismatch, match=r"AllPrintings.json.gz: downloaded file is wrong: SHA-256 is [0-9a-f]{64}"):
        run_update(tmp_path, base, "mtgjson")
    assert not (tmp_path / "ix").exists()
    assert not (tmp_path / "cache/mtgjson/downloads/AllPrintings.json.gz").exists()


# --- hostile data (issue 21, items 3 and 5) ----------------------------------------------------

# published_at values of real rulings replaced by odd ones: each ruling must reach the index (undated
# where it names no real date, with the invalid-date warning) and no value may become a path.
ODD_DATES = ["../../../../X", ".2015-06-22", "2019/05/03", "2019-13-45", "soon", 20190503, None, "\x00bad",
             "2017-07-14T00:00:00+00:00", "2018-06-0", "~/../../etc", "2018-06/../../../Y"]


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_odd_scryfall_dates_reach_no_path_and_no_ruling_vanishes(shared, site, tmp_path):
    from rulings.ingest.dates import INVALID_DATE

    server, base = site
    rulings = real_rulings(shared, FIRST)
    for ruling, odd in zip(rulings, ODD_DATES):
        ruling["published_at"] = odd
    serve_scryfall(server, base, rulings, real_oracle_cards(shared))
    report = run_update(tmp_path, base)
    assert report.ingest.to_json()["rulings"] == 43 == len(variants(tmp_path / "ix"))
    assert sorted(text for text, _ in variants(tmp_path / "ix")) == sorted(r["comment"] for r in rulings)
    # the month files are real months or undated.json; nothing lies outside the cache's two folders
    shards = files_under(tmp_path / "cache/scryfall/ingest/rulings")
    assert "undated.json" in shards
    assert all(update.MONTH.fullmatch(name[:-5]) or name == "undated.json" for name in shards)
    outside = [name for name in files_under(tmp_path) if not name.startswith(("ix/", "cache/scryfall/downloads/",
                                                                             "cache/scryfall/ingest/"))]
    assert outside == []
    ingested = files_under(tmp_path / "cache/scryfall/ingest")
    assert [n for n in ingested if "/" in n and not n.startswith("rulings/")] == []
    # the rulings with no real date are kept undated and counted: ../../../../X, 2019-13-45, soon, the
    # number, \x00bad, 2018-06-0, ~/../../etc, 2018-06/../../../Y (".2015-06-22", "2019/05/03" are dates)
    assert report.ingest.to_json()["warnings"] == {INVALID_DATE: 8}
    undated = [e for e in index.all_entries(tmp_path / "ix") if not e["dates"]]
    assert sum(len(e["variants"]) for e in undated) == 9              # the 8 and the one without published_at


def hostile_allprintings(shared: Path) -> dict:
    """AllPrintings holding the real TSP set under the code ../../../../X, the real BRO set, and BRO again
    under the key BRO2 with the code "bro" (two sets, one file name)."""
    tsp = json.loads((shared / "realdata/mtgjson5-TSP/TSP.json").read_text("utf-8"))["data"]
    bro = json.loads((shared / "realdata/mightstone-samples/mtgjson/set.json").read_text("utf-8"))
    return {"../../../../X": tsp | {"code": "../../../../X"}, "BRO": bro, "BRO2": bro | {"code": "bro"}}


def test_hostile_mtgjson_set_codes_write_nothing_outside_and_keep_every_ruling(shared, site, tmp_path, runner):
    server, base = site
    serve_mtgjson(server, shared)
    body = gzip.compress(json.dumps({"meta": {"date": "2025-08-25"}, "data": hostile_allprintings(shared)}).encode(),
                         mtime=0)
    server.routes["/api/v5/AllPrintings.json.gz"] = Route(body, etag='"hostile"')
    server.routes["/api/v5/AllPrintings.json.gz.sha256"] = Route(hashlib.sha256(body).hexdigest().encode())
    report = run_update(tmp_path, base, "mtgjson")
    hashed = "set-" + hashlib.sha1(b"../../../../X").hexdigest()[:12] + ".json"
    assert files_under(tmp_path / "cache/mtgjson/ingest/sets") == sorted(["BRO.json", "BRO-2.json", hashed])
    assert not (tmp_path / "X.json").exists() and not list(tmp_path.parent.glob("X.json"))
    assert [n for n in files_under(tmp_path) if not n.startswith(("ix/", "cache/mtgjson/"))] == []
    assert report.notes == [f"MTGJSON set code '../../../../X' is not 1 to 16 letters and digits: its rulings "
                            f"are kept in {hashed}",
                            "MTGJSON set code 'bro' is given twice: this set's rulings are kept in BRO-2.json"]
    assert report.ingest.to_json()["rulings"] == 921 + 874 + 874
    assert {s for e in index.all_entries(tmp_path / "ix") for s in e["sets"]} == {"../../../../X", "BRO"}
    # the notes are in the text report too
    env = {"RULINGS_CACHE_DIR": str(tmp_path / "cache"), "RULINGS_MIN_DELAY": "0"}
    shown = runner.invoke(cli, ["update", "--source", "mtgjson", "--base-url", base, "--index", str(tmp_path / "ix")],
                          env=env)
    assert shown.exit_code == 0, shown.output
    assert f"note: MTGJSON set code '../../../../X' is not 1 to 16 letters and digits: its rulings are kept in " \
           f"{hashed}" in shown.stdout.splitlines()


@pytest.mark.parametrize("code", ["../../x", "TSP/../../x", "", "a b", "ÉTÉ", "X" * 17, "TSP\x00"])
def test_set_codes_typed_by_the_user_are_checked_before_any_request(site, tmp_path, runner, code):
    server, base = site
    env = {"RULINGS_CACHE_DIR": str(tmp_path / "cache"), "RULINGS_MIN_DELAY": "0"}
    result = runner.invoke(cli, ["update", "--source", "mtgjson", "--set", code, "--base-url", base,
                                 "--index", str(tmp_path / "ix")], env=env)
    assert result.exit_code == 1
    assert result.stderr == f"Error: --set {code!r}: a set code is 1 to 16 letters and digits (like MKM)\n" \
        .replace("\x00", "")
    assert server.log == [] and not (tmp_path / "cache").exists() and not (tmp_path / "ix").exists()


def test_a_file_name_must_lie_in_its_folder(tmp_path):
    folder = tmp_path / "sets"
    folder.mkdir()
    (tmp_path / "elsewhere.json").write_text("{}")
    (folder / "TSP.json").symlink_to(tmp_path / "elsewhere.json")      # a link planted in the cache
    for name in ("../X.json", ".hidden.json", "a/b.json", "TSP.json", "..json", ""):
        with pytest.raises(UpdateError, match="is no file name inside|lies outside"):
            update.sync_folder(folder, {"BRO.json": b"{}", name: b"{}"})
        assert files_under(folder) == ["TSP.json"] and (tmp_path / "elsewhere.json").read_text() == "{}"
    assert update.set_file_name("CON", set()) == ("CON_.json", None)
    assert update.set_file_name("tsp", set()) == ("TSP.json", None)
    assert update.month_of("2019-05-03") == "2019-05" and update.month_of("2019/05/03") == "undated"
def test_full_disk_during_a_download_is_one_line_then_resumes(shared, site, tmp_path, runner, monkeypatch):
    """A download written to a full disk (an injected OSError(ENOSPC) after 1,000 bytes) stops with one
    line naming the part file; the next update resumes from what was written (issue 21, item 11)."""
    import builtins
    import errno

    from rulings.search import fetch

    server, base = site
    serve_scryfall(server, base, real_rulings(shared, FIRST), real_oracle_cards(shared))
    part = tmp_path / "cache/scryfall/downloads/.rulings.json.gz.part"

    class FullDisk(io.FileIO):
        def write(self, data):
            room = 1000 - self.tell()
            if len(data) > room:
                super().write(data[:room])
                raise OSError(errno.ENOSPC, "No space left on device")
            return super().write(data)

    def full_open(path, mode="r", *args, **kwargs):
        if Path(path) == part:
            return FullDisk(path, mode.replace("b", ""))
        return builtins.open(path, mode, *args, **kwargs)

    monkeypatch.setattr(fetch, "open", full_open, raising=False)
    monkeypatch.setenv("RULINGS_CACHE_DIR", str(tmp_path / "cache"))
    result = runner.invoke(cli, ["update", "--base-url", base, "--index", str(tmp_path / "ix")])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (f"Error: {part}: cannot be written (No space left on device); "
                             "free some space and run 'rulings update' again to resume; "
                             "search keeps working on the current index\n")
    assert part.stat().st_size == 1000 and not (tmp_path / "ix").exists()
    monkeypatch.undo()
    server.log.clear()
    report = run_update(tmp_path, base)
    assert server.requests("/file/rulings.json")[0][1]["range"] == "bytes=1000-"
    assert report.ingest.to_json()["rulings"] == 43


def test_full_disk_writing_a_cache_file_is_one_line(tmp_path, monkeypatch):
    import errno

    from rulings.search import fetch

    target = tmp_path / "records.json"
    target.write_bytes(b"{}")

    from rulings.search import output

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output.os, "write", full)
    with pytest.raises(UpdateError) as raised:
        fetch.write_atomic(target, b'{"a": 1}')
    monkeypatch.undo()
    assert str(raised.value) == (f"{target}: cannot be written (No space left on device); "
                                 "search keeps working on the current index")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.json"] and target.read_bytes() == b"{}"
