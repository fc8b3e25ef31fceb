"""Read stage: sniff each file's format from its content and run its reader.

``read_sources(paths)`` walks directories recursively and returns a ReadReport:
the rulings read plus, per file, whether it was read, skipped (holds no rulings)
or rejected (cannot be read). Nothing is silently dropped. A file that starts like
JSON but that no reader claims is checked to the end: valid JSON of another kind
is skipped, damaged or truncated JSON is rejected with the reason.

Hostile input (docs: README "Trust"): no file may crash the reader, exhaust the
machine or take forever. Each reader bounds what it holds in memory (its own
size limits: ``MAX_BYTES`` of text, jsonl lines, Gatherer pages and JSON read
whole, the inflated parts of a docx, PDFs); read_file() adds a time limit per file
(READ_SECONDS) and turns nesting too deep for Python's recursion limit into a
rejection. That time limit is a SIGALRM timer, and Python runs a signal handler only
between bytecodes or when a C function checks for signals: a reader inside one long C
call that never checks (a builtin loop, a C parser's inner loop) runs on past the limit,
which fires only when the call returns, and a library that swallows the timeout (a
finaliser, a bare ``except``) leaves it to the end of the block; so one file ran 121 s
against a limit of 60 s. ``read_files`` therefore reads in worker processes and kills
one still reading a file KILL_GRACE seconds after the limit: no file takes longer than
READ_SECONDS + KILL_GRACE, whatever its reader does.

``walk`` never follows a symbolic link to a folder, so a link loop cannot make it run
forever; each such link is reported, not silently passed over, and so is a folder it
cannot read.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator
from xml.etree import ElementTree

from rulings.ingest.controls import without_controls
from rulings.ingest.errors import NoRulings, ReadError
from rulings.ingest.model import Ruling, Source
from rulings.ingest.readers import docx, encoding, gatherer, jsonl, jsontext, mtgjson, pdf, scryfall, text

# Order matters: the first reader whose looks_like() accepts the head wins. jsonl (our own
# export) goes first: its entries hold card and set keys the JSON readers would claim.
READERS = [jsonl, scryfall, mtgjson, gatherer, docx, pdf, text]
HEAD_BYTES = 65536
# Time limit of reading one file, in seconds. The slowest real file (a 1.1 MB release-notes
# PDF) takes about 6 s; a file that takes ten times that is hostile or broken.
READ_SECONDS = 60.0
# Seconds after READ_SECONDS at which read_files() kills a worker still reading one file (the timer of
# read_file() did not stop it: the reader is inside one long C call).
KILL_GRACE = 1.0
READ_WORKERS = 4          # worker processes of read_files(), at most (one per core)
# A JSON or XML file that no reader claims is checked to its end only up to this size.
MAX_CHECKED_BYTES = 64 << 20


class ReadTimeout(BaseException):
    """Raised inside read_file() by the SIGALRM handler when a file takes longer than READ_SECONDS.

    A BaseException, like KeyboardInterrupt, so that a library's ``except Exception`` cannot swallow it."""


# Seconds after which the timer fires again when its ReadTimeout was swallowed (raised inside a
# garbage-collector callback or a finaliser, where Python ignores exceptions).
RETRY_SECONDS = 0.01


@dataclass
class _Limit:
    """The state of one time_limit() block: armed until the block ends; expired once the time is up."""

    armed: bool = True
    expired: bool = False


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ReadTimeout in the block after ``seconds`` of wall time.

    Uses SIGALRM (POSIX), so it acts only in a process's main thread (pool workers
    and the CLI); elsewhere (Windows, a thread) the block runs without a limit. The
    signal is handled between Python bytecodes: one long C call (a regex, one lxml
    parse) finishes before it fires.

    The handler may run inside a garbage-collector callback (hypothesis installs one),
    a ``__del__`` or a weakref callback, where Python swallows the exception and hands
    it to ``sys.unraisablehook``. So, for the block, a hook takes our ReadTimeout (it is
    not reported as an unraisable exception) and fires the timer again after
    RETRY_SECONDS; the timer also repeats every ``seconds`` (at most 1 s) for a
    ReadTimeout a library caught and dropped. And a block that ends after its time is
    up raises ReadTimeout at its end: once the limit expired, the block always ends with
    ReadTimeout, wherever the signal landed. The previous handler and hook are restored.
    """
    if seconds <= 0 or not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return
    state = _Limit()
    interval = min(seconds, 1.0)

    def expired(signum, frame):
        if not state.armed:
            return
        state.expired = True
        if not _runs(swallowed.__code__, frame):     # inside the hook itself: it fires the timer again
            raise ReadTimeout()

    def swallowed(unraisable):
        if not isinstance(unraisable.exc_value, ReadTimeout):
            previous_hook(unraisable)
        elif state.armed:
            signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS, interval)

    previous_hook = sys.unraisablehook
    sys.unraisablehook = swallowed
    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds, interval)
    try:
        yield
    finally:
        try:
            state.armed = False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if sys.unraisablehook is swallowed:
                sys.unraisablehook = previous_hook
    if state.expired:
        raise ReadTimeout()      # the time was up, but its ReadTimeout was swallowed on the way


def _runs(code, frame) -> bool:
    """True when ``code`` is running in frame or one of its callers."""
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


@dataclass
class FileResult:
    """What reading one file gave: format and rulings, or a skip/reject reason."""

    path: str
    format: str | None = None
    rulings: list[Ruling] = field(default_factory=list)
    skipped: str | None = None
    rejected: str | None = None
    card_names: dict[str, str] = field(default_factory=dict)  # oracle_id -> card name


def sniff(path: Path, head: bytes | None = None):
    """Return the reader module for a file, chosen by content (first 64 KiB).

    The suffix is passed to readers as a hint. Returns None when no reader claims it.
    When no content test passes, a reader may still claim the file by its suffix
    (``claims_by_suffix``: a ``.jsonl`` file starting with ``{``).
    """
    if head is None:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    suffix = path.suffix.lower()
    for reader in READERS:
        if reader.looks_like(head, suffix):
            return reader
    for reader in READERS:
        claims = getattr(reader, "claims_by_suffix", None)
        if claims is not None and claims(head, suffix):
            return reader
    return None


def looks_binary(head: bytes) -> bool:
    """True when the first bytes hold NULs outside a UTF-16 BOM text, or are not UTF-8 and mostly control bytes."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head[:4096] if b < 9 or 13 < b < 32)
    return controls > len(head[:4096]) // 10


def unclaimed(path: Path, head: bytes) -> tuple[str | None, str | None]:
    """(skip reason, reject reason) of a file no reader claims; exactly one is set.

    Binary content is rejected. JSON and markup are checked to the end, so that a
    damaged or truncated file is rejected with the reason rather than skipped: JSON
    with ijson (jsontext.check), HTML by its closing ``</html>``, XML with the
    stdlib parser. Whole files of another kind (the CR's JSON, wiki XML) are skipped.
    """
    if looks_binary(head):
        return None, "binary file, not a ruling document"
    too_big = path.stat().st_size > MAX_CHECKED_BYTES
    if jsontext.looks_like_json(head):
        if too_big:
            return (f"JSON that is not a ruling document (no Scryfall, MTGJSON or export shape in its "
                    f"first bytes; not checked further: larger than {MAX_CHECKED_BYTES >> 20} MiB)"), None
        try:
            jsontext.check(path)
        except ReadError as err:
            return None, err.reason
        return "JSON that is not a ruling document (no Scryfall, MTGJSON or export shape)", None
    text = jsontext.head_text(head).lstrip().lower()
    if text.startswith("<"):
        if "<html" in text[:4096] or "<!doctype html" in text[:4096]:
            with open(path, "rb") as handle:
                handle.seek(max(0, path.stat().st_size - 4096))
                if b"</html>" not in handle.read().lower():
                    return None, "HTML page cut short (no closing </html>)"
            return "HTML page that is not a Gatherer card page", None
        if text.startswith("<?xml") or re.match(r"<[a-z_][\w:.-]*[\s>/]", text):
            if too_big:
                return ("XML that is not a ruling document "
                        f"(not checked: larger than {MAX_CHECKED_BYTES >> 20} MiB)"), None
            try:
                for _ in ElementTree.iterparse(path):
                    pass
            except ElementTree.ParseError as err:
                return None, f"damaged or truncated XML ({err})"[:200]
            except LookupError as err:          # an XML declaration naming an unknown encoding
                return None, f"damaged XML ({err})"[:200]
            return "XML that is not a ruling document", None
    return "not a ruling document (unknown format)", None


def read_file(path: Path) -> FileResult:
    """Read one file into a FileResult; never raises for bad content.

    A file is rejected (with the reason) when it takes longer than READ_SECONDS to read, when it is
    nested deeper than Python's
    recursion limit allows, or when reading it runs out of memory. An empty file
    is skipped. Every text field of every ruling, and the card names, lose their control
    characters (ingest/controls.py) and lone surrogates; the warnings a reader notes
    (ingest/readers/encoding.py: bad bytes replaced, naming their offsets) are added to every
    ruling of the file. Raises OSError only when the file cannot be opened at all.
    """
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES)
    result = FileResult(str(path))
    if not head:
        result.skipped = "empty file (0 bytes)"
        return result
    limit = READ_SECONDS
    try:
        with time_limit(limit), encoding.collecting() as notes:
            _read_into(result, path, head)
            if notes and result.rulings:
                for ruling in result.rulings:
                    ruling.warnings += tuple(notes)
    except ReadTimeout:
        result.rulings, result.rejected = [], f"took longer than {limit:g} s to read (the limit per file)"
    except RecursionError:
        result.rulings, result.rejected = [], f"nested deeper than {sys.getrecursionlimit()} levels (too deep to read)"
    except MemoryError:
        result.rulings, result.rejected = [], "needs more memory than the machine gives (too large to read)"
    return result


def read_or_reject(path: Path) -> FileResult:
    """read_file(), with a file that cannot be opened (OSError) as a rejected FileResult."""
    try:
        return read_file(path)
    except OSError as err:
        return FileResult(str(path), rejected=f"cannot be read ({err.strerror or err})")


def read_files(paths: list[Path], workers: int | None = None) -> list[FileResult]:
    """read_or_reject() of every path, in the same order, in worker processes whose time per file is enforced.

    workers: processes (default: one per core, at most READ_WORKERS, at most one per file); the
    largest files are handed out first, so that none is left to one worker at the end. A worker
    still reading one file READ_SECONDS + KILL_GRACE seconds after it began (a reader inside one
    long C call, which read_file()'s timer cannot interrupt) is killed, and the file rejected as
    one that took longer than READ_SECONDS; a worker that dies (a crash in a C library, the
    kernel's out-of-memory killer) rejects its file with the signal or exit code. A new worker
    takes the next file either way. Where processes cannot be forked (Windows), the files are
    read in this process, with read_file()'s own limit only.
    """
    if not paths:
        return []
    if "fork" not in multiprocessing.get_all_start_methods():
        return [read_or_reject(path) for path in paths]
    count = max(1, min(workers or min(os.cpu_count() or 1, READ_WORKERS), len(paths)))
    order = sorted(range(len(paths)), key=lambda i: -_size(paths[i]))
    results: list[FileResult | None] = [None] * len(paths)
    with _Readers(count, READ_SECONDS + KILL_GRACE) as readers:
        for index in order:
            for done, result in readers.next_free():
                results[done] = result
            readers.give(index, paths[index])
        for done, result in readers.drain():
            results[done] = result
    return results


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _reader(conn, parent: int) -> None:
    """A worker of read_files(): reads each (index, path) it is sent; sends b"read" the moment reading
    ends (the parent's clock for the file stops), then (index, FileResult). Ends at None or EOF, and
    (Linux) when the parent process dies, so that a worker stuck in a file never outlives a killed ingest."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)           # ^C is the parent's to handle: it ends us
    _die_with_parent()
    if os.getppid() != parent:                              # the parent died before the line above
        return
    try:
        while (task := conn.recv()) is not None:
            index, path = task
            result = read_or_reject(path)
            conn.send_bytes(b"read")
            conn.send((index, result))
    except (EOFError, OSError):
        pass


def _die_with_parent() -> None:
    """Ask Linux to send this process SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG); elsewhere nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)    # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


class _Readers:
    """The worker processes of read_files(): gives files out, collects results, kills one past deadline.

    Each worker is (process, connection, task): task is None when idle, else [index, path, started,
    reading] (reading: the b"read" mark not yet received).
    """

    def __init__(self, count: int, deadline: float) -> None:
        self.context = multiprocessing.get_context("fork")
        self.count, self.deadline = count, deadline
        self.workers: list[list] = []

    def __enter__(self) -> _Readers:
        return self

    def __exit__(self, *exc) -> None:
        for _process, conn, _ in self.workers:
            try:
                conn.send(None)
            except OSError:
                pass
        for process, conn, _ in self.workers:
            process.join(1.0)
            if process.is_alive():
                process.kill()
                process.join(5.0)
            conn.close()
        self.workers = []

    def _start(self) -> list:
        parent, child = self.context.Pipe()
        process = self.context.Process(target=_reader, args=(child, os.getpid()), daemon=True)
        process.start()
        child.close()
        worker = [process, parent, None]
        self.workers.append(worker)
        return worker

    def give(self, index: int, path: Path) -> None:
        """Hand the file to an idle worker (a new one while fewer than count run)."""
        idle = next((w for w in self.workers if w[2] is None), None) or self._start()
        idle[2] = [index, path, time.monotonic(), True]
        idle[1].send((index, path))

    def next_free(self):
        """Yield (index, FileResult) of files finished, until a worker is free for another file."""
        while len(self.workers) >= self.count and all(w[2] is not None for w in self.workers):
            yield from self._collect()

    def drain(self):
        """Yield (index, FileResult) of every file still given out, until all are done."""
        while any(w[2] is not None for w in self.workers):
            yield from self._collect()

    def _collect(self):
        """Wait for the next message or deadline; yield the results it completes."""
        from multiprocessing.connection import wait

        busy = [w for w in self.workers if w[2] is not None]
        now = time.monotonic()
        soonest = min((w[2][2] + self.deadline for w in busy if w[2][3]), default=now + 3600.0)
        ready = wait([w[1] for w in busy], timeout=max(0.0, soonest - now))
        for worker in busy:
            process, conn, task = worker
            if conn in ready:
                try:
                    if task[3]:
                        conn.recv_bytes()
                        task[3] = False                    # read: the result is on its way
                        continue
                    index, result = conn.recv()
                except (EOFError, OSError):
                    yield task[0], self._lost(worker, "the reader process stopped")
                    continue
                worker[2] = None
                yield index, result
            elif task[3] and time.monotonic() - task[2] > self.deadline and not conn.poll():
                process.kill()
                yield task[0], self._lost(worker, f"took longer than {READ_SECONDS:g} s to read (the limit per file)")

    def _lost(self, worker: list, reason: str) -> FileResult:
        """The rejected FileResult of a worker's file after the worker was killed or died; the worker goes."""
        process, conn, task = worker
        process.join(5.0)        # a process stuck in the kernel (a hung disk) is not waited for
        conn.close()
        self.workers.remove(worker)
        if reason == "the reader process stopped":
            code = process.exitcode
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            reason = f"the reader process stopped while reading it ({how})"
        return FileResult(str(task[1]), rejected=reason)


def _read_into(result: FileResult, path: Path, head: bytes) -> None:
    """Sniff the file and run its reader, filling result's format, rulings and skip/reject reason."""
    reader = sniff(path, head)
    if reader is None:
        result.skipped, result.rejected = unclaimed(path, head)
        return
    result.format = reader.FORMAT
    try:
        if hasattr(reader, "read_with_names"):
            rulings, result.card_names = reader.read_with_names(path)
            result.rulings = list(rulings)
        else:
            result.rulings = list(reader.read(path))
    except NoRulings as err:
        result.skipped = err.reason
        result.card_names = err.card_names
    except ReadError as err:
        result.rejected = err.reason
    for ruling in result.rulings:
        _clean_text_fields(ruling)
    if any(_UNCLEAN.search(key + name) for key, name in result.card_names.items()):
        result.card_names = {clean_text(key): clean_text(name) for key, name in result.card_names.items()}
    if not result.rulings and not (result.skipped or result.rejected):
        result.skipped = "holds no rulings"


# A UTF-16 surrogate: in a str only from a JSON source's "\ud800" escape (decoding UTF-8 never makes one).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# What clean_text() changes: a surrogate, or a control character other than newline and tab.
_UNCLEAN = re.compile("[\ud800-\udfff\x00-\x08\x0b-\x1f\x7f-\x9f]")


def without_lone_surrogates(text: str) -> str:
    """text with a pair of surrogates as the character they encode (JSON writes a character beyond
    U+FFFF as two escapes) and a lone one as U+FFFD, the replacement character: a lone surrogate is no
    character (RFC 8259 section 8.2), and UTF-8, lingua and SQLite refuse it."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def clean_text(text: str) -> str:
    """text without lone surrogates (without_lone_surrogates) and control characters (but newline and
    tab; ingest/controls.py without_controls)."""
    if _LONE_SURROGATE.search(text):
        text = without_lone_surrogates(text)
    return without_controls(text)


def _clean_text_fields(ruling: Ruling) -> None:
    """clean_text() on every text field of a ruling and on its source's path, in place (a file name
    that is not UTF-8 holds lone surrogates, which no index, export or terminal can hold: each is shown
    as U+FFFD; the catalog still knows the file by its real name)."""
    for name in _TEXT_FIELDS:
        value = getattr(ruling, name)
        if value and isinstance(value, str) and _UNCLEAN.search(value):
            setattr(ruling, name, clean_text(value))
    if _UNCLEAN.search(ruling.source.path):
        ruling.source = Source(clean_text(ruling.source.path), ruling.source.format)


_TEXT_FIELDS = ("text", "card", "set_code", "oracle_id", "publisher", "date", "declared_lang", "entry_id",
                "card_text")


def walk(path: Path, on_skip: Callable[[Path, str], None] | None = None,
         on_error: Callable[[Path, str], None] | None = None) -> Iterable[Path]:
    """Yield the files under path (or path itself), sorted, skipping hidden entries.

    A symbolic link to a folder is never followed (so a link loop such as ``loop -> ..``
    cannot make the walk endless, and a link cannot pull in files from elsewhere); each
    one, and each link that loops (``a -> b``, ``b -> a``), is passed to
    ``on_skip(link, reason)`` instead of being yielded. Other links to files are yielded
    like files (one that dangles then fails to open and is rejected by the caller).
    A folder that cannot be listed (no permission to read it; path itself included) and
    an entry whose kind cannot be told (no permission to look it up) are passed to
    ``on_error(folder, reason)``, reason ``cannot be read (Permission denied)``; without
    on_error they raise ReadError, so that no folder is passed over in silence.
    """
    def unreadable(where: Path, err: OSError) -> None:
        reason = f"cannot be read ({err.strerror or err})"
        if on_error is None:
            raise ReadError(str(where), reason)
        on_error(where, reason)

    if not path.is_dir():
        yield path               # a file, or something else named directly (the caller rejects a FIFO, a device)
        return
    for root, dirs, files in os.walk(path, onerror=lambda err: unreadable(Path(err.filename or path), err)):
        links: set[str] = set()
        for name in sorted(d for d in dirs if not d.startswith(".")):
            link = Path(root) / name
            try:
                is_link = link.is_symlink()
            except OSError as err:
                unreadable(link, err)
                links.add(name)           # not entered: its kind is unknown
                continue
            if is_link:
                links.add(name)
                if on_skip is not None:
                    on_skip(link, link_reason(link))
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in links)
        for name in sorted(files):
            if name.startswith("."):
                continue
            file = Path(root) / name
            try:
                loops = file.is_symlink() and _loops(file)
            except OSError as err:
                unreadable(file, err)
                continue
            if loops:
                if on_skip is not None:
                    on_skip(file, "symbolic link loop (the link never reaches a file)")
                continue
            yield file


def _loops(link: Path) -> bool:
    """True when resolving the symbolic link runs in a circle."""
    try:
        link.resolve(strict=True)
    except RuntimeError:                  # Python < 3.13: "Symlink loop from ..."
        return True
    except OSError as err:
        return err.errno == errno.ELOOP
    return False


def link_reason(link: Path) -> str:
    """Why a symbolic link to a folder is skipped: a loop when it leads back to a folder that contains it."""
    target = link.resolve()
    if link.parent.resolve().is_relative_to(target):
        return f"symbolic link loop (leads back to {target}); links to folders are not followed"
    return f"symbolic link to the folder {target}; links to folders are not followed"
