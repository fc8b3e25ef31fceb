"""HTTP downloads for ``rulings update``: a polite client, conditional and resumable downloads, progress.

The client (httpx) sends a descriptive User-Agent and an ``Accept`` header, as
Scryfall's API documentation asks of every application
(https://scryfall.com/docs/api: "Required Headers"), keeps at least
``min_delay`` seconds between requests (Scryfall asks for 50-100 ms), gives up
on a request after ``timeout`` seconds without an answer, and retries HTTP 429
and 5xx answers up to ``retries`` times, waiting the server's ``Retry-After``
seconds or else ``backoff * 2**attempt`` seconds.

A download is conditional (``If-None-Match`` with the remembered ETag,
``If-Modified-Since`` with the remembered Last-Modified) and streamed as the
bytes travel (a gzip ``Content-Encoding`` is kept, not decoded) into a hidden
``.<name>.part`` file beside its target. A download cut short keeps its part
file and the validators of the answer it came from; the next attempt asks for
the rest (``Range`` with ``If-Range``) and starts again from zero when the
server answers with the whole file. The finished part is verified (the
``Content-Length`` it announced, a size and a SHA-256 when the source publishes
them) and only then may the caller move it over the target (``Download.commit``).

Network failures raise UpdateError subclasses, one line each: Offline (no
connection), NoAnswer (timeout), CutShort (connection lost mid-file),
HttpStatus, Mismatch (verification).
"""

from __future__ import annotations

import email.utils
import gzip
import json
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

import httpx

from rulings.ingest import __version__
from rulings.ingest.errors import RulingsError
from rulings.search import output
from rulings.search.catalog import file_digest

USER_AGENT = f"rulings/{__version__} (Magic: The Gathering rulings search; python-httpx/{httpx.__version__})"
ACCEPT = "application/json;q=0.9,*/*;q=0.8"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_WAIT = 60.0           # seconds: a longer Retry-After is cut to this
KEEP_WORKING = "search keeps working on the current index"
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")     # a cached file's name


class UpdateError(RulingsError):
    """``rulings update`` could not fetch or verify the data; the previous data and index are untouched."""


class Offline(UpdateError):
    """The server cannot be reached at all (no network, name not resolved, connection refused)."""

    def __init__(self, url: str, reason: str) -> None:
        parts = urlsplit(url)
        super().__init__(f"cannot reach {parts.scheme}://{parts.netloc}: {reason}; {KEEP_WORKING}")


class NoAnswer(UpdateError):
    """The server accepted the connection but sent nothing within the timeout."""

    def __init__(self, url: str, timeout: float) -> None:
        super().__init__(f"{url}: no answer within {timeout:g} s (timeout); {KEEP_WORKING}")


class CutShort(UpdateError):
    """The connection was lost in the middle of a file; the part kept is resumed next time."""


class HttpStatus(UpdateError):
    """The server answered with an HTTP error status (after the retries for 429 and 5xx)."""

    def __init__(self, url: str, response: httpx.Response, attempts: int = 1) -> None:
        tried = f" after {attempts} attempts" if attempts > 1 else ""
        super().__init__(f"{url}: HTTP {response.status_code} {response.reason_phrase}{tried}")
        self.status = response.status_code


class Mismatch(UpdateError):
    """A downloaded file is not what the source announced (size or SHA-256)."""


def _reason(err: Exception) -> str:
    """A short human reason for a transport error (the innermost OS message when there is one)."""
    cause = err
    while cause.__cause__ is not None or cause.__context__ is not None:
        cause = cause.__cause__ or cause.__context__
    text = str(cause) or str(err) or type(err).__name__
    return text.splitlines()[0][:200]


@dataclass
class Client:
    """An httpx client with timeouts, retries with backoff on 429/5xx, a minimum delay between requests.

    timeout: seconds without an answer (connect, read) before giving up;
    retries: extra attempts for 429/5xx answers and for a file cut short;
    backoff: seconds before the first retry, doubled each time; min_delay:
    seconds between the starts of two requests.
    """

    timeout: float = 30.0
    retries: int = 3
    backoff: float = 1.0
    min_delay: float = 0.1
    http: httpx.Client = field(init=False, repr=False)
    requests: int = field(default=0, init=False)
    _last: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self) -> None:
        self.http = httpx.Client(timeout=httpx.Timeout(self.timeout), follow_redirects=True,
                                 headers={"User-Agent": USER_AGENT, "Accept": ACCEPT})

    def close(self) -> None:
        """Close the connections."""
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _wait_turn(self) -> None:
        gap = time.monotonic() - self._last
        if self._last and gap < self.min_delay:
            time.sleep(self.min_delay - gap)
        self._last = time.monotonic()

    def open(self, url: str, headers: dict[str, str] | None = None) -> httpx.Response:
        """Send a GET and return the streamed response (the caller closes it).

        Retries 429 and 5xx answers; returns the last answer when retries run out,
        whatever its status. Raises Offline when the server cannot be reached,
        NoAnswer on a timeout.
        """
        for attempt in range(self.retries + 1):
            self._wait_turn()
            self.requests += 1
            try:
                response = self.http.send(self.http.build_request("GET", url, headers=headers), stream=True)
            except httpx.TimeoutException:
                raise NoAnswer(url, self.timeout) from None
            except httpx.TransportError as err:
                raise Offline(url, _reason(err)) from None
            if response.status_code not in RETRY_STATUSES or attempt == self.retries:
                response.attempts = attempt + 1
                return response
            response.close()
            time.sleep(self.retry_wait(response, attempt))
        raise AssertionError("unreachable")

    def retry_wait(self, response: httpx.Response, attempt: int) -> float:
        """Seconds before retrying: the answer's Retry-After (seconds or HTTP date), else the backoff."""
        value = response.headers.get("Retry-After", "").strip()
        wait = None
        if value.isdigit():
            wait = float(value)
        elif value:
            when = email.utils.parsedate_to_datetime(value) if _is_http_date(value) else None
            if when is not None:
                wait = max(0.0, when.timestamp() - time.time())
        if wait is None:
            wait = self.backoff * 2 ** attempt
        return min(wait, MAX_RETRY_WAIT)

    def get_json(self, url: str):
        """The JSON body of a GET (small documents: an index, a meta file). Raises HttpStatus, UpdateError."""
        response = self.open(url)
        try:
            body = self._body(url, response)
        finally:
            response.close()
        try:
            return json.loads(body)
        except ValueError:
            raise UpdateError(f"{url}: the answer is not JSON") from None

    def get_text(self, url: str) -> str | None:
        """The text body of a GET, or None when the server answers 404. Raises HttpStatus otherwise."""
        response = self.open(url)
        try:
            if response.status_code == 404:
                return None
            return self._body(url, response).decode("utf-8", "replace")
        finally:
            response.close()

    def _body(self, url: str, response: httpx.Response) -> bytes:
        if response.status_code != 200:
            raise HttpStatus(url, response, getattr(response, "attempts", 1))
        try:
            return response.read()
        except httpx.TimeoutException:
            raise NoAnswer(url, self.timeout) from None
        except httpx.TransportError as err:
            raise CutShort(f"{url}: connection lost ({_reason(err)}); {KEEP_WORKING}") from None


def _is_http_date(value: str) -> bool:
    try:
        return email.utils.parsedate_to_datetime(value) is not None
    except (TypeError, ValueError):
        return False


class Progress:
    """Download progress: a rich progress bar (bytes, total, rate, time left) on a terminal, nothing otherwise.

    console: a rich Console (default: standard error); the bar shows only when
    ``console.is_terminal`` (a Console made with ``force_terminal=True`` shows it too).
    """

    def __init__(self, console=None) -> None:
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self.shown = self.console.is_terminal

    @contextmanager
    def transfer(self, label: str, total: int | None, done: int = 0) -> Iterator:
        """A bar for one file (total bytes, or None when unknown): yields ``advance(n_bytes)``."""
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )
        from rich.progress import Progress as RichProgress

        class RateColumn(TransferSpeedColumn):
            """Rich's transfer speed, else the average since the start (a file sent in one chunk)."""

            def render(self, task):
                elapsed = task.elapsed or 0.0
                if task.finished_speed or task.speed or elapsed <= 0:
                    return super().render(task)
                task.finished_speed = max(task.completed - done, 1) / elapsed
                return super().render(task)

        bar = RichProgress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                           RateColumn(), TimeRemainingColumn(), console=self.console,
                           disable=not self.shown)
        with bar:
            task = bar.add_task(label, total=total, completed=done)
            yield lambda n: bar.advance(task, n)


@dataclass
class Cached:
    """What is remembered about a cached file: where it came from and how to ask whether it changed.

    url, etag, last_modified (validators of the answer it came from), version
    (the source index's ``updated_at`` or MTGJSON Meta date when fetched),
    size (bytes on disk), sha256 (hex of the bytes on disk).
    """

    url: str = ""
    etag: str | None = None
    last_modified: str | None = None
    version: str | None = None
    size: int = 0
    sha256: str = ""


class Cache:
    """A folder of downloaded files with their Cached records (``cache.json`` beside them)."""

    RECORDS = "cache.json"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _records(self) -> dict[str, dict]:
        try:
            return json.loads((self.folder / self.RECORDS).read_text("utf-8"))
        except (OSError, ValueError):
            return {}

    def get(self, name: str) -> Cached | None:
        """The record of a cached file, None when the file or its record is missing."""
        record = self._records().get(name)
        if not record or not self.path(name).is_file():
            return None
        return Cached(**{k: v for k, v in record.items() if k in Cached.__dataclass_fields__})

    def put(self, name: str, record: Cached) -> None:
        """Remember a cached file's record (written atomically)."""
        records = self._records()
        records[name] = record.__dict__
        write_atomic(self.folder / self.RECORDS, json.dumps(records, indent=1, sort_keys=True).encode())

    def path(self, name: str, hidden: str = "") -> Path:
        """Where the cached file of this name lives (``hidden``: the name of a hidden file made from it,
        ``.{name}.part``). Raises UpdateError when name is not a plain file name lying directly in the
        cache folder (it never is: names are ours or checked set codes)."""
        if not _PLAIN_NAME.fullmatch(name) or ".." in name:
            raise UpdateError(f"{name!r} is no file name inside {self.folder}; nothing was written there")
        path = self.folder / (hidden.format(name=name) if hidden else name)
        if Path(os.path.realpath(path)).parent != Path(os.path.realpath(self.folder)):
            raise UpdateError(f"{path} lies outside {self.folder}; nothing was written there")
        return path


def write_atomic(path: Path, data: bytes) -> None:
    """Write bytes to a hidden temporary file beside path, then rename it over path (search/output.py
    write_atomic): a failed write leaves path as it was and no temporary file.

    Raises UpdateError naming path when the machine refuses the write (a full disk): path is unchanged.
    """
    try:
        output.write_atomic(path, data)
    except OSError as err:
        raise UpdateError(f"{path}: cannot be written ({err.strerror or err}); {KEEP_WORKING}") from None


def open_data(path: Path) -> IO[bytes]:
    """A binary stream of a file's content, decompressed on the fly when it is gzip (magic bytes 1f 8b)."""
    with open(path, "rb") as handle:
        magic = handle.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def data_size(path: Path) -> int:
    """Bytes of a file's content once decompressed (the file's size when it is not gzip)."""
    total = 0
    with open_data(path) as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            total += len(block)
    return total


@dataclass
class Download:
    """The outcome of one conditional download.

    changed: False when the server said 304 Not Modified (nothing was
    transferred); part: the verified new file (move it with commit());
    transferred: bytes received now; resumed_from: bytes kept from an earlier
    attempt; seconds: wall time of the transfer.
    """

    name: str
    url: str
    changed: bool
    part: Path | None = None
    record: Cached | None = None
    transferred: int = 0
    resumed_from: int = 0
    seconds: float = 0.0

    def commit(self, cache: Cache) -> None:
        """Move the verified part over the cached file and remember its record."""
        if self.part is not None and self.record is not None:
            self.part.replace(cache.path(self.name))
            cache.put(self.name, self.record)
            _part_record(self.part).unlink(missing_ok=True)

    def discard(self) -> None:
        """Delete the new file (its content was refused): the next update downloads it again."""
        if self.part is not None:
            discard(self.part)

    def to_json(self) -> dict:
        """{"name", "url", "status": downloaded|resumed|unchanged, "bytes", "seconds"}."""
        status = "unchanged" if not self.changed else "resumed" if self.resumed_from else "downloaded"
        return {"name": self.name, "url": self.url, "status": status, "bytes": self.transferred,
                "seconds": round(self.seconds, 3)}


def discard(part: Path) -> None:
    """Delete a part file and the record of where it came from (it will not be resumed)."""
    part.unlink(missing_ok=True)
    _part_record(part).unlink(missing_ok=True)


def _part_record(part: Path) -> Path:
    return part.with_name(part.name + ".json")


def download(client: Client, cache: Cache, name: str, url: str, *, version: str | None = None,
             size: int | None = None, sha256: str | None = None, progress: Progress | None = None,
             label: str | None = None) -> Download:
    """Fetch url into the cache under name when it changed; the new file is left as a verified part.

    The request carries If-None-Match / If-Modified-Since from the cached
    record (a 304 returns ``changed=False``) and resumes a part kept from an
    earlier attempt. size: the announced size in bytes, of the file or of its
    decompressed content (Scryfall's bulk-data ``size``); sha256: the published
    hex digest of the file's bytes. A connection lost mid-file is retried from
    where it stopped (``client.retries`` times). Raises Offline, NoAnswer,
    HttpStatus, CutShort (the part is kept for next time), Mismatch (the part is
    deleted). Nothing in the cache changes until the caller commits.
    """
    part = cache.path(name, ".{name}.part")
    attempts = 0
    first_size = part.stat().st_size if part.exists() else 0
    started = time.perf_counter()
    while True:
        try:
            result = _attempt(client, cache, name, url, part, progress, label or name)
        except (CutShort, _Restart) as err:
            attempts += 1
            if attempts > client.retries:
                raise CutShort(str(err)) from None
            if isinstance(err, CutShort):
                time.sleep(client.backoff * 2 ** (attempts - 1))
            continue
        if result is None:
            return Download(name, url, changed=False, seconds=time.perf_counter() - started)
        record, from_zero = result
        if from_zero:
            first_size = 0
        break
    record.version = version
    _verify(url, part, record, size, sha256)
    return Download(name, url, changed=True, part=part, record=record, transferred=record.size - first_size,
                    resumed_from=first_size, seconds=time.perf_counter() - started)


class _Restart(Exception):
    """The kept part cannot be resumed (416 Range Not Satisfiable); it was deleted, start again."""


def _attempt(client: Client, cache: Cache, name: str, url: str, part: Path, progress: Progress | None,
             label: str):
    """One request; None for 304, else (record, started from zero). Raises CutShort, _Restart."""
    headers = {"Accept-Encoding": "gzip"}
    known = cache.get(name)
    if known is not None and known.url == url:
        if known.etag:
            headers["If-None-Match"] = known.etag
        if known.last_modified:
            headers["If-Modified-Since"] = known.last_modified
    have = part.stat().st_size if part.exists() else 0
    kept = _load_part_record(part) if have else {}
    validator = kept.get("etag") or kept.get("last_modified")
    if have and kept.get("url") == url and validator:
        headers["Range"] = f"bytes={have}-"
        headers["If-Range"] = validator
    response = client.open(url, headers)
    try:
        if response.status_code == 304:
            return None
        if response.status_code == 416 and have:
            discard(part)
            raise _Restart(f"{url}: the kept part of {have} bytes cannot be resumed; starting again")
        if response.status_code not in (200, 206):
            raise HttpStatus(url, response, getattr(response, "attempts", 1))
        encoding = response.headers.get("Content-Encoding", "identity").lower()
        if encoding not in ("identity", "gzip"):
            raise UpdateError(f"{url}: unsupported Content-Encoding {encoding!r}")
        start = _resume_offset(response, have)
        length = response.headers.get("Content-Length")
        expected = start + int(length) if length and length.isdigit() else None
        etag, modified = response.headers.get("ETag"), response.headers.get("Last-Modified")
        _save_part_record(part, {"url": url, "etag": etag, "last_modified": modified})
        received = 0
        with open(part, "r+b" if start else "wb") as out, \
                (progress or _NO_PROGRESS).transfer(label, expected, start) as advance:
            out.seek(start)
            out.truncate()
            try:
                for chunk in response.iter_raw():
                    out.write(chunk)
                    received += len(chunk)
                    advance(len(chunk))
            except httpx.TransportError as err:
                raise _cut_short(url, start + received, expected, _reason(err)) from None
            except OSError as err:            # a full disk: what was written is kept, to be resumed
                raise UpdateError(f"{part}: cannot be written ({err.strerror or err}); free some space and "
                                  f"run 'rulings update' again to resume; {KEEP_WORKING}") from None
        total = start + received
        if expected is not None and total != expected:
            raise _cut_short(url, total, expected, "connection closed early")
    finally:
        response.close()
    return Cached(url=url, etag=etag, last_modified=modified, size=total), start == 0


def _cut_short(url: str, got: int, expected: int | None, reason: str) -> CutShort:
    of = f" of {expected}" if expected is not None else ""
    return CutShort(f"download of {url} cut short after {got}{of} bytes ({reason}); "
                    f"run 'rulings update' again to resume; {KEEP_WORKING}")


def _resume_offset(response: httpx.Response, have: int) -> int:
    """Where the body starts: ``have`` for a 206 whose Content-Range starts there, else 0."""
    if response.status_code != 206:
        return 0
    content_range = response.headers.get("Content-Range", "")
    try:
        start = int(content_range.split()[1].split("-")[0])
    except (IndexError, ValueError):
        raise UpdateError(f"{response.url}: partial answer without a usable Content-Range") from None
    if start != have:
        raise UpdateError(f"{response.url}: partial answer starts at byte {start}, not {have}")
    return start


def _load_part_record(part: Path) -> dict:
    try:
        return json.loads(_part_record(part).read_text("utf-8"))
    except (OSError, ValueError):
        return {}


def _save_part_record(part: Path, record: dict) -> None:
    write_atomic(_part_record(part), json.dumps(record).encode())


def _verify(url: str, part: Path, record: Cached, size: int | None, sha256: str | None) -> None:
    """Check the finished part against the announced size and SHA-256; delete it and raise Mismatch if wrong."""
    record.sha256 = file_digest(part, "sha256")
    problem = None
    if sha256 and record.sha256 != sha256.lower():
        problem = f"SHA-256 is {record.sha256}, the source publishes {sha256.lower()}"
    elif size is not None and size != record.size:
        try:
            unpacked = data_size(part)
        except (OSError, EOFError, gzip.BadGzipFile) as err:
            unpacked, problem = None, f"damaged gzip data ({err})"
        if unpacked is not None and unpacked != size:
            problem = f"{record.size} bytes ({unpacked} unpacked), the source announces {size}"
    if problem:
        discard(part)
        raise Mismatch(f"{url}: downloaded file is wrong: {problem}; kept the previous data")


class _Silent:
    @contextmanager
    def transfer(self, label, total, done=0):
        yield lambda n: None


_NO_PROGRESS = _Silent()
