"""The index folder as a whole: remembered sources, the pipeline's memory, and the ingest operation.

Files of an index generation (search/folder.py: an index folder holds
generations, and an update builds the next one beside the live one)::

    state.pkl       sources by path (content hash, size and mtime, format,
                    rulings read, skip/reject reason, entries contributed to,
                    number of its rulings in rulings.sqlite) and the hash of
                    every indexed entry's JSON
    corpus.pkl      the pipeline's memory (ingest/pipeline.py Corpus): corpus
                    word counts, dedup leaders with MinHash signatures, members,
                    Related links, and what each formed entry is (id, sets, ...)
    rulings.sqlite  every source's rulings, one row each, loaded only when an
                    entry they are variants of is rewritten
    summary.json    the figures of ``rulings stats``
    whoosh/         the Whoosh index of entries (search/index.py)

Ingest is incremental. A file whose size and mtime are unchanged, or whose
content hash (SHA-1) is unchanged, is not parsed again. When no source was
added, changed or dropped, ingest writes nothing at all. Otherwise only what
the changed sources touch is re-processed (ingest/pipeline.py update_corpus):
new rulings are normalised and matched against the existing leaders only,
entries that lost their leader are re-formed, and only touched entries are
re-tagged, re-linked and rewritten in the Whoosh index (compared by id and
SHA-1 of the JSON). Where the result may differ from a full rebuild
(``--rebuild``) is described in ingest/dedup.py Grouper and docs/scaling.md.

The pipeline and the readers are imported inside the functions that need them,
so that a query (which only opens the Whoosh index) never pays for them.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import pickle
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING

from rulings.corpus import BUNDLED, bundled_name, former_copy
from rulings.ingest.errors import DamagedIndex, IndexWriteError, OtherVersion, ReadError, RulingsError
from rulings.search import folder, index

if TYPE_CHECKING:
    from rulings.ingest.model import Entry, Ruling
    from rulings.ingest.pipeline import Corpus
    from rulings.ingest.read import FileResult

STATE = folder.STATE           # "state.pkl"
SUMMARY = "summary.json"
RULINGS_DB = "rulings.sqlite"
CORPUS = "corpus.pkl"
STATE_VERSION = 7
# How an update carries the live generation's files into the next (search/folder.py next_generation):
# these are only ever replaced (pickles and summary by rename, Whoosh segments by new files) ...
LINKED = (STATE, CORPUS, SUMMARY, index.WHOOSH_DIR, index.SPELLING, index.ZH_WORDS)
# ... and SQLite writes its file in place.
COPIED = (RULINGS_DB,)


class StoredRulings(Sequence):
    """The rulings read from one source, kept on disk (RULINGS_DB) and loaded only when iterated.

    len() needs no disk access. Rulings come back normalised (``match``,
    detected ``lang``, repairs filled) with card names resolved.
    """

    def __init__(self, db: str, number: int, count: int):
        self.db, self.number, self.count = db, number, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index):
        return self._load()[index]

    def __iter__(self):
        return iter(self._load())

    def _load(self) -> list[Ruling]:
        return RulingStore(Path(self.db)).rulings(self.number) if self.count else []


class RulingStore:
    """Every source's rulings in one SQLite table (standard library), one row per ruling.

    Rows are (source number, index in the reader's list, pickled field tuple);
    loading an entry's variants reads only their rows.
    """

    FIELDS = ("text", "position", "lang", "date", "date_ambiguous", "card", "set_code", "oracle_id",
              "publisher", "declared_lang", "entry_id", "match", "repairs", "repaired_text", "card_text")

    def __init__(self, path: Path):
        import sqlite3

        if path.is_dir():
            path = path / RULINGS_DB
        self.path = path
        self.db = sqlite3.connect(str(path))
        self.db.execute("CREATE TABLE IF NOT EXISTS rulings (source INTEGER, idx INTEGER, data BLOB, "
                        "PRIMARY KEY (source, idx)) WITHOUT ROWID")

    @classmethod
    def _pack(cls, ruling: Ruling) -> bytes:
        return pickle.dumps((ruling.source.path, ruling.source.format)
                            + tuple(getattr(ruling, name) for name in cls.FIELDS), protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def _unpack(cls, data: bytes) -> Ruling:
        from rulings.ingest.model import Ruling, Source

        path, fmt, *values = pickle.loads(data)
        return Ruling(source=Source(path, fmt), **dict(zip(cls.FIELDS, values)))

    def put(self, number: int, rulings: list[Ruling]) -> None:
        """Store a source's rulings under its number (not committed yet)."""
        self.db.executemany("INSERT OR REPLACE INTO rulings VALUES (?, ?, ?)",
                            ((number, i, self._pack(r)) for i, r in enumerate(rulings)))

    def drop(self, numbers: list[int]) -> None:
        """Forget the rulings of these source numbers (not committed yet)."""
        self.db.executemany("DELETE FROM rulings WHERE source = ?", ((n,) for n in numbers))

    def commit(self) -> None:
        """Make the stored changes durable."""
        self.db.commit()

    def rulings(self, number: int) -> list[Ruling]:
        """The rulings of one source number, in reader order."""
        rows = self.db.execute("SELECT data FROM rulings WHERE source = ? ORDER BY idx", (number,))
        return [self._unpack(data) for data, in rows]

    def get(self, refs: list[tuple[int, int]]) -> dict[tuple[int, int], Ruling]:
        """Rulings by (source number, index)."""
        found = {}
        by_source: dict[int, list[int]] = {}
        for number, idx in refs:
            by_source.setdefault(number, []).append(idx)
        for number, wanted in by_source.items():
            wanted = sorted(set(wanted))
            for start in range(0, len(wanted), 900):
                chunk = wanted[start:start + 900]
                rows = self.db.execute(f"SELECT idx, data FROM rulings WHERE source = ? AND idx IN "
                                       f"({','.join('?' * len(chunk))})", (number, *chunk))
                for idx, data in rows:
                    found[(number, idx)] = self._unpack(data)
        return found


@dataclass
class SourceRecord:
    """One remembered source file: content hash (SHA-1 hex) and what reading it gave.

    size (bytes) and mtime_ns let an unchanged file be recognised without hashing;
    entries is the number of entries its rulings are variants of after the last ingest;
    number: the key of its rulings in RULINGS_DB (a changed file gets a new one);
    rejected: rulings normalisation dropped, per reason; mismatches: rulings whose
    declared language disagrees with the detected one (mismatch_json shape);
    warnings: rulings kept with a reader warning (an invalid date), per reason.
    """

    path: str
    sha1: str
    result: FileResult
    size: int = -1
    mtime_ns: int = -1
    entries: int = 0
    number: int = -1
    rejected: dict[str, int] = field(default_factory=dict)
    mismatches: list[dict] = field(default_factory=list)
    warnings: dict[str, int] = field(default_factory=dict)       # reader warnings per reason


@dataclass
class State:
    """What the index folder remembers between commands.

    sources: SourceRecord by source key (absolute path); corpus: the pipeline's
    memory (ingest/pipeline.py Corpus: word counts, dedup leaders, signatures,
    links, formed entries); entry_hashes: SHA-1 of each indexed entry's JSON by
    entry id (what the Whoosh index holds); next_source: the next source number.
    """

    sources: dict[str, SourceRecord] = field(default_factory=dict)
    corpus: Corpus = field(default_factory=lambda: _new_corpus())
    entry_hashes: dict[str, str] = field(default_factory=dict)
    next_source: int = 0
    version: int = STATE_VERSION


def _new_corpus() -> Corpus:
    from rulings.ingest.pipeline import Corpus

    return Corpus()


@dataclass
class IngestReport:
    """The outcome of one ingest, in the ``rulings ingest --format json`` shape (to_json).

    changed: False when nothing was added, changed or dropped (nothing was written);
    parsed: files read by a reader now; index_changes: Whoosh documents
    {"added", "deleted", "kept"}; timings: wall seconds per stage (read,
    normalise, dedup, ids, tag, index, save).
    """

    files: list[FileResult]
    entries: int
    rejected_rulings: dict[str, int]
    seconds: float
    named_failures: list[str] = field(default_factory=list)
    changed: bool = True
    parsed: int = 0
    index_changes: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    language_mismatches: list[dict] = field(default_factory=list)
    warnings: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        """PRODUCT.md "Other JSON shapes": rulings, entries, formats, skipped, rejected, rejected_rulings, seconds."""
        formats: dict[str, dict[str, int]] = {}
        for result in self.files:
            if result.rulings:
                slot = formats.setdefault(result.format, {"files": 0, "rulings": 0})
                slot["files"] += 1
                slot["rulings"] += len(result.rulings)
        return {
            "rulings": sum(len(r.rulings) for r in self.files),
            "entries": self.entries,
            "formats": dict(sorted(formats.items())),
            "skipped": [{"path": r.path, "reason": r.skipped} for r in self.files if r.skipped],
            "rejected": [{"path": r.path, "reason": r.rejected} for r in self.files if r.rejected],
            "rejected_rulings": self.rejected_rulings,
            "seconds": round(self.seconds, 3),
            "language_mismatches": self.language_mismatches,
            "warnings": self.warnings,
        }


def reader_warnings(rulings) -> dict[str, int]:
    """Rulings kept with a reader warning (``Ruling.warnings``, e.g. an invalid date), per reason."""
    counts = Counter(reason for ruling in rulings for reason in getattr(ruling, "warnings", ()))
    return dict(sorted(counts.items()))


def load_state(index_dir: Path, corpus: bool = True) -> State:
    """The remembered state, or an empty one for a new folder. Raises DamagedIndex if unreadable.

    corpus: also load the pipeline's memory (CORPUS); without it ``state.corpus`` is empty
    (enough for listing sources). index_dir: an index folder or one of its
    generation folders (search/folder.py live()).
    """
    index_dir = folder.live(index_dir)
    path = index_dir / STATE
    if not path.exists():
        if not any((index_dir / name).exists() for name in (*LINKED, *COPIED)) and was_index(index_dir):
            raise DamagedIndex(f"{index_dir.parent}: the index is damaged (its live generation {index_dir.name} "
                               "holds no index files); run 'rulings ingest --rebuild' with your sources")
        if was_index(index_dir):
            raise DamagedIndex(f"{path}: missing beside an existing index, so the sources it held are "
                               "unknown; run 'rulings ingest --rebuild SOURCE...'")
        return State()
    state = _unpickle(path)
    if not isinstance(state, State) or getattr(state, "version", None) != STATE_VERSION:
        raise OtherVersion.at(path)
    _check_store(index_dir, state)
    if corpus:
        state.corpus = _unpickle(index_dir / CORPUS)
    _repoint(state, index_dir)
    return state


def _check_store(generation: Path, state: State) -> None:
    """Raise DamagedIndex unless RULINGS_DB holds a row for every ruling of the remembered sources.

    Their rulings live only there: an entry re-formed without them would lose its variants (and
    rewriting lost Whoosh files failed on the first missing one with a KeyError).
    """
    expected = sum(len(record.result.rulings) for record in state.sources.values()
                   if isinstance(record.result.rulings, StoredRulings))
    if not expected:
        return
    import sqlite3

    path = generation / RULINGS_DB
    if not path.is_file():
        raise DamagedIndex(f"{path}: missing, so the rulings of the remembered sources are gone; "
                           "run 'rulings ingest --rebuild' with your sources")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            found = db.execute("SELECT count(*) FROM rulings").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error as err:
        raise DamagedIndex(f"{path}: cannot be read ({err}); run 'rulings ingest --rebuild' with your sources") \
            from None
    if found != expected:
        raise DamagedIndex(f"{path}: holds {found} of the {expected} rulings of the remembered sources; "
                           "run 'rulings ingest --rebuild' with your sources")


def was_index(generation: Path) -> bool:
    """True when a live folder (search/folder.py live()) holds or held a complete index: any of an index's
    files is there (LINKED, COPIED), or it is the generation folder that CURRENT names (a switch happens only
    once a generation is complete). False for a new or empty folder, or what a killed first build left."""
    generation = Path(generation)
    if any((generation / name).exists() for name in (*LINKED, *COPIED)):
        return True
    pointer = generation.parent / folder.CURRENT
    return folder.GENERATION.fullmatch(generation.name) is not None and pointer.is_file()


def repairable(index_dir: Path) -> bool:
    """For an index folder whose live generation holds no Whoosh index (search/index.py exists() is False):
    True when its remembered state can write the Whoosh files again (rebuild_entries()), False when it
    holds no index yet (a new or empty folder, or what a first build killed early left).

    Raises DamagedIndex for a folder that holds other files (refuse_foreign()) and for an index whose
    pieces are gone: CURRENT missing beside a complete generation (search/folder.py live()), a state
    missing, unreadable or made by another version, or the store of its rulings missing (load_state()).
    """
    refuse_foreign(index_dir)
    current = folder.live(index_dir)
    if not was_index(current):
        return False
    load_state(current)
    return True


def _repoint(state: State, generation: Path) -> None:
    """Make the stored rulings of every remembered source load from this generation's RULINGS_DB."""
    db = str(generation / RULINGS_DB)
    for record in state.sources.values():
        if isinstance(record.result.rulings, StoredRulings):
            record.result.rulings.db = db


def _unpickle(path: Path):
    # the collector paused meanwhile: unpickling makes hundreds of thousands of containers, none in a
    # reference cycle, and each of the collections they would trigger walks all made so far
    enabled = gc.isenabled()
    gc.disable()
    try:
        with open(path, "rb") as handle:
            return pickle.load(handle)
    except Exception as err:  # pickle raises many kinds for a damaged file
        raise DamagedIndex(f"{path}: cannot be read ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild' with your sources") from None
    finally:
        if enabled:
            gc.enable()


def demo_only(index_dir: Path) -> bool:
    """True when every source the index remembers is a bundled document (the demo that a reading command
    builds at the default location), read from its state whatever version wrote it: a state pickled
    before the one import package names the modules ``search.*``, ``ingest.*``, ``corpus.*``. False
    when the state is missing, unreadable, or names any other source."""
    try:
        with open(folder.live(index_dir) / STATE, "rb") as handle:
            sources = list(_AnyVersion(handle).load().sources)
    except Exception:  # noqa: BLE001 (pickle raises many kinds; any of them: not known to be the demo)
        return False
    return bool(sources) and all(bundled_name(key) or former_copy(key) for key in sources)


class _AnyVersion(pickle.Unpickler):
    """An unpickler that reads the classes of a state written before the modules moved into ``rulings``."""

    def find_class(self, module: str, name: str):
        if module.partition(".")[0] in ("search", "ingest", "corpus"):
            module = "rulings." + module
        return super().find_class(module, name)


def save_state(index_dir: Path, state: State) -> None:
    """Write the state (STATE) and the pipeline's memory (CORPUS) atomically (temporary files, then rename)."""
    corpus, state.corpus = state.corpus, None
    try:
        for name, value in ((CORPUS, corpus), (STATE, state)):
            tmp = index_dir / (name + ".tmp")
            with open(tmp, "wb") as handle:
                pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
            tmp.replace(index_dir / name)
    finally:
        state.corpus = corpus


def file_sha1(path: Path) -> str:
    """SHA-1 hex digest of a file's bytes (what recognises an unchanged source)."""
    return file_digest(path, "sha1")


def file_digest(path: Path, algorithm: str) -> str:
    """Hex digest of a file's bytes by a hashlib algorithm name, read in 1 MiB blocks; raises OSError."""
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_key(path: Path) -> str:
    """The remembered key of a source: its absolute path with links resolved (one file reached by two
    paths is one source), or for a bundled document its stable name (corpus/__init__.py bundled_name():
    the same after a reinstall)."""
    return bundled_name(path) or str(path.resolve())


def source_path(path: Path) -> str:
    """The path a source is recorded and shown by (FileResult.path, its rulings' Source.path): absolute,
    so that a path typed relative names the same file from any folder, links as given; for a bundled
    document its stable name."""
    return bundled_name(path) or os.path.abspath(path)


def _read_as(pending: Pending) -> Path:
    """The path to read a pending file by: its recorded path (so the reader records that), or where a
    bundled document is installed now."""
    return pending.path if pending.key.startswith(BUNDLED) else Path(source_path(pending.path))


def _recorded(result, pending: Pending):
    """The FileResult of a parsed file with its path, and the source path of every ruling read from the
    file itself (not those an export carries from elsewhere), set to source_path()."""
    read_as, shown = str(_read_as(pending)), source_path(pending.path)
    if result.path == shown:
        return result
    result.path = shown
    sources: dict = {}
    for ruling in result.rulings:
        if ruling.source.path == read_as:
            source = sources.get(ruling.source.format)
            if source is None:
                source = sources[ruling.source.format] = replace(ruling.source, path=shown)
            ruling.source = source
    return result


@dataclass
class Pending:
    """A file that must be parsed now: its key, content hash, stat and the record it replaces."""

    path: Path
    key: str
    sha1: str
    size: int
    mtime_ns: int
    known: SourceRecord | None


def check_source(path: Path, state: State):
    """The remembered FileResult of an unchanged file, a Pending for a new or changed one,
    or a rejected FileResult when the file cannot be read.

    Unchanged means the same size and mtime as remembered, or else the same content hash. A FIFO,
    socket or device (directly or through a link) is rejected unread.
    """
    from rulings.ingest.read import FileResult

    key = source_key(path)
    known = state.sources.get(key)
    try:
        stat = os.stat(path)
        if not S_ISREG(stat.st_mode):             # reading a FIFO or a device would never end
            return FileResult(source_path(path), rejected="not a regular file (a FIFO, socket or device)")
        if known is not None and (known.size, known.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
            return known.result
        sha1 = file_sha1(path)
    except OSError as err:
        return FileResult(source_path(path), rejected=f"cannot be read ({err.strerror or err})")
    if known is not None and known.sha1 == sha1:
        known.size, known.mtime_ns = stat.st_size, stat.st_mtime_ns
        return known.result
    return Pending(path, key, sha1, stat.st_size, stat.st_mtime_ns, known)


# Files to parse of at least this many bytes together make an update large enough for the pipeline's
# worker processes (ingest/runtime.py form_workers; a few thousand rulings): their fork server is
# started before reading (start_fork_server), so that its loading overlaps the reading.
EARLY_WORKERS_BYTES = 4 << 20


def parse_files(paths: list[Path]) -> list:
    """FileResults of the paths, in the same order: ingest/read.py read_files, which reads them in
    worker processes (one per core, at most 4; reading is CPU-bound Python and files are
    independent), the largest first, and enforces the time limit per file by killing a worker that
    overruns it; a file that cannot be opened is a rejected FileResult."""
    from rulings.ingest.read import read_files

    return read_files(paths)


def _kept_before(result, known: SourceRecord):
    """The rejected FileResult of a file that gave rulings before and cannot be read now (truncated or damaged
    since): its reason says that those rulings are kept, as a folder that cannot be read keeps what it held
    (README, "Nothing read or named vanishes"); the remembered record stays as it was."""
    count = len(known.result.rulings)
    return replace(result, rejected=f"{result.rejected}; the {count} ruling{'s' if count != 1 else ''} "
                                                "it gave before are kept")


def remember(pending: Pending, result, state: State) -> SourceRecord:
    """Record a freshly parsed source in state.sources under a new source number."""
    record = SourceRecord(pending.key, pending.sha1, result, pending.size, pending.mtime_ns,
                          number=state.next_source)
    state.next_source += 1
    state.sources[pending.key] = record
    return record


def ingest(index_dir: Path, paths: list[Path], rebuild: bool = False) -> IngestReport:
    """Add the given files and folders to the index and update the entries.

    A source ingested before under the same path is replaced by its current
    content; re-ingesting a folder drops remembered sources under it that no
    longer exist. Only what the added, changed and dropped files touch is
    re-processed (ingest/pipeline.py update_corpus). When nothing changed (and
    the index exists) nothing is written. Raises ReadError naming every path that
    does not exist (nothing is changed then). Files named directly that cannot be
    read, and folders named directly that cannot be listed, are listed in
    ``named_failures``; a folder that cannot be listed is rejected, and the
    sources remembered under it are kept.

    The update is atomic (search/folder.py): it holds the folder's writer lock
    (raises IndexBusy past the timeout) and builds a new generation that
    becomes live only when complete. Raises DamagedIndex when index_dir holds
    other files but no index, unless ``rebuild``.
    """
    started = time.perf_counter()
    missing = [str(path) for path in paths if not path.exists()]
    if missing:                             # every one named, so that one run shows them all
        raise ReadError(", ".join(missing), "no such file or directory")
    if not rebuild:
        refuse_foreign(index_dir)
    with folder.locked(index_dir):
        return _ingest(index_dir, paths, rebuild, started)


def ingest_if_missing(index_dir: Path, paths: list[Path]) -> IngestReport | None:
    """Build the index from paths when index_dir holds none; None when it holds one.

    Checked again holding the writer lock, so that a command started while
    another process builds the first index waits for it (IndexBusy past the
    timeout) instead of building a second one. Raises DamagedIndex for a folder
    that holds other files but no index.
    """
    refuse_foreign(index_dir)
    started = time.perf_counter()
    with folder.locked(index_dir):
        if index.exists(index_dir):
            return None
        return _ingest(index_dir, paths, False, started)


def built_meanwhile(index_dir: Path) -> bool:
    """True when index_dir holds an index once no process is updating it: a command given a folder where
    a first build is running waits for it (IndexBusy past the lock timeout). False at once for a folder
    that holds no writer lock file (nothing was ever built there)."""
    if not (Path(index_dir) / folder.LOCK).is_file():
        return False
    with folder.locked(index_dir):
        return index.exists(index_dir)


def refuse_foreign(index_dir: Path) -> None:
    """Raise DamagedIndex when index_dir holds files but no index of ours (a folder given by mistake)."""
    if folder.is_foreign(index_dir, LINKED):
        raise DamagedIndex(f"{index_dir}: the index is damaged or not a rulings index (it holds other files); "
                           "'rulings ingest --rebuild' makes a new one there")


def _ingest(index_dir: Path, paths: list[Path], rebuild: bool, started: float) -> IngestReport:
    """ingest() holding the writer lock."""
    from rulings.ingest.read import FileResult, walk

    folder.tidy(index_dir)                          # what a killed update left behind
    index.keep_segmenter_cache_in(index_dir)        # jieba's cache in the index folder, not /tmp
    current = None if rebuild else folder.live(index_dir)
    state = State() if rebuild else load_state(current, corpus=False)
    files, named_failures = [], []
    added: list[SourceRecord] = []
    removed: list[SourceRecord] = []
    timings: dict[str, float] = {}
    checked = []                                   # (file, named on the command line, result or Pending)
    listed: set[str] = set()                       # source keys already checked in this run
    for path in paths:
        seen = set()
        unlisted: list[str] = []                   # folders that cannot be read: what they held stays
        def skip_link(link: Path, reason: str) -> None:
            files.append(FileResult(str(link), skipped=reason))    # a link to a folder, a link loop

        def reject_folder(where: Path, reason: str) -> None:
            files.append(FileResult(str(where), rejected=reason))  # a folder (or entry) that cannot be read
            unlisted.append(source_key(where).rstrip("/"))  # noqa: B023 (called within this iteration)
            if where == path:  # noqa: B023
                named_failures.append(f"{where}: {reason}")

        for file in walk(path, on_skip=skip_link, on_error=reject_folder):
            if path.is_dir() and in_index_folder(file, path):
                continue                           # our own index files are not ruling documents
            key = source_key(file)
            seen.add(key)
            if key in listed:
                continue                           # reached again through another path given: listed once
            listed.add(key)
            checked.append((file, not path.is_dir(), check_source(file, state)))
        if path.is_dir():
            prefix = source_key(path).rstrip("/") + "/"
            kept = tuple(u + "/" for u in unlisted)   # what lies under a folder that cannot be read
            for key in [k for k in state.sources if k.startswith(prefix) and k not in seen
                        and k not in unlisted and not k.startswith(kept)]:
                removed.append(state.sources.pop(key))
    if any(key.startswith(BUNDLED) for key in listed):
        # the bundled documents as an index made before their stable name remembered them: by the path
        # they were installed at (a reinstall moved them); they are these documents, read again now
        for key in [k for k in state.sources if former_copy(k)]:
            removed.append(state.sources.pop(key))
    pending = [item for _, _, item in checked if isinstance(item, Pending)]
    if sum(p.size for p in pending) >= EARLY_WORKERS_BYTES:
        from rulings.ingest.runtime import start_fork_server

        start_fork_server()        # the pipeline's workers load their modules and models while this reads
    read = parse_files([_read_as(p) for p in pending])
    parsed = {p.key: _recorded(result, p) for p, result in zip(pending, read)}
    remembered: set[str] = set()                   # a file reached twice (overlapping paths) counts once
    for file, named, item in checked:
        result = item
        if isinstance(item, Pending):
            result = parsed[item.key]
            if item.key not in remembered:
                remembered.add(item.key)
                if result.rejected and item.known is not None and item.known.result.rulings:
                    result = _kept_before(result, item.known)     # damaged since: what it gave stays
                else:
                    added.append(remember(item, result, state))
                    if item.known is not None:
                        removed.append(item.known)
        files.append(result)
        if named and result.rejected:
            named_failures.append(f"{file}: {result.rejected}")
    timings["read"] = time.perf_counter() - started
    if rebuild and named_failures and index.exists(index_dir):
        # a rebuild starts from nothing: with a path given that cannot be read it would lose what the
        # index holds for a command that fails, so the index is left as it was
        raise ReadError("; ".join(named_failures), "not rebuilt, the index is left as it was")
    if not (rebuild or added or removed) and index.exists(current) and (current / SUMMARY).exists():
        figures = summary(current)
        return IngestReport(files, figures["entries"], run_rejected(state, checked),
                            time.perf_counter() - started, named_failures, changed=False, timings=timings,
                            **run_extras(state, checked))
    with next_generation(index_dir, current) as generation:
        if not rebuild and (generation / STATE).exists():
            state.corpus = _unpickle(generation / CORPUS)   # the pipeline's memory, only when there is work
        _repoint(state, generation)
        changes = update_entries(generation, state, added, removed, full=rebuild, timings=timings)
    figures = summary(index_dir)
    return IngestReport(files, figures["entries"], run_rejected(state, checked), time.perf_counter() - started,
                        named_failures, changed=True, parsed=len(added), index_changes=changes,
                        timings=timings, **run_extras(state, checked))


@contextmanager
def next_generation(index_dir: Path, current: Path | None) -> Iterator[Path]:
    """search/folder.py next_generation() of the index files (LINKED, COPIED), made live only when the
    block ends without error.

    An OSError (ENOSPC, EDQUOT, EROFS, EIO, a worker process lost, ...) or SQLite error raised while it
    is built or switched becomes one IndexWriteError naming the index folder and the reason ("...;
    nothing was changed"): the new generation is removed and the live one stays as it was.
    """
    try:
        with folder.next_generation(index_dir, current, LINKED, COPIED) as generation:
            yield generation
    except OSError as err:
        reason = err.strerror or str(err)
        if err.filename:
            reason = f"{err.filename}: {reason}"
        raise IndexWriteError(f"{index_dir}: cannot write the index ({reason}); nothing was changed") from None
    except Exception as err:
        import sqlite3

        if not isinstance(err, sqlite3.Error):
            raise
        raise IndexWriteError(f"{index_dir}: cannot write the index ({err}); nothing was changed") from None


def in_index_folder(file: Path, root: Path) -> bool:
    """True when file lies in an index folder of ours (a CURRENT pointer, or a state.pkl beside a
    whoosh folder) under root."""
    for parent in file.parents:
        if (parent / folder.CURRENT).is_file() or ((parent / STATE).is_file()
                                                   and (parent / index.WHOOSH_DIR).is_dir()):
            return True
        if parent == root:
            return False
    return False


def _run_records(state: State, checked: list) -> list[SourceRecord]:
    keys = dict.fromkeys(source_key(file) for file, _, _ in checked)
    return [state.sources[key] for key in keys if key in state.sources]


def run_rejected(state: State, checked: list) -> dict[str, int]:
    """Rejected rulings per reason of the files this ingest named or walked, not the whole index."""
    rejected: Counter = Counter()
    for record in _run_records(state, checked):
        rejected.update(record.rejected)
    return dict(sorted(rejected.items()))


def run_extras(state: State, checked: list) -> dict:
    """Language mismatches and reader warnings of the files this ingest named or walked."""
    warnings: Counter = Counter()
    mismatches = []
    for record in _run_records(state, checked):
        warnings.update(record.warnings)
        mismatches.extend(record.mismatches)
    return {"language_mismatches": mismatches, "warnings": dict(sorted(warnings.items()))}


def remove(index_dir: Path, path: Path) -> tuple[list[SourceRecord], int]:
    """Drop a remembered source (a file, or every source under a folder) and what only it contributed.

    The path need not exist any more. Entries that keep other variants keep
    their ids (PRODUCT.md "Ids"). Returns (the dropped records, entries left).
    Raises RulingsError when no remembered source is that path or under it,
    IndexBusy when another process updates the index past the lock timeout.
    Atomic like ingest().
    """
    with folder.locked(index_dir):
        current = folder.live(index_dir)
        state = load_state(current, corpus=False)
        key = source_key(path)
        prefix = key.rstrip("/") + "/"
        dropped = [state.sources[k] for k in sorted(state.sources) if k == key or k.startswith(prefix)]
        if not dropped:
            raise RulingsError(f"{path}: not an ingested source (see 'rulings sources')")
        for record in dropped:
            del state.sources[record.path]
        with next_generation(index_dir, current) as generation:
            state.corpus = _unpickle(generation / CORPUS)
            _repoint(state, generation)
            update_entries(generation, state, [], dropped)
    return dropped, len(state.corpus.info)


def sources(index_dir: Path) -> list[SourceRecord]:
    """The remembered sources, sorted by path."""
    state = load_state(index_dir, corpus=False)
    return [state.sources[key] for key in sorted(state.sources)]


def remembered_rulings(state: State) -> list[Ruling]:
    """Every ruling of every remembered source, in source-path order (as stored: normalised,
    card names resolved; see StoredRulings)."""
    return [ruling for key in sorted(state.sources) for ruling in state.sources[key].result.rulings]


def card_names(state: State) -> dict[str, str]:
    """oracle_id -> card name from every remembered source (first source in path order wins)."""
    names: dict[str, str] = {}
    for key in sorted(state.sources):
        for oracle_id, name in getattr(state.sources[key].result, "card_names", {}).items():
            names.setdefault(oracle_id, name)
    return names


def entry_hash(entry_json: str) -> str:
    """SHA-1 hex of an entry's JSON text (with its card texts, when it has any): what decides whether
    its Whoosh document is rewritten."""
    return hashlib.sha1(entry_json.encode("utf-8")).hexdigest()


def update_entries(index_dir: Path, state: State, added: list[SourceRecord], removed: list[SourceRecord],
                   full: bool = False, timings: dict[str, float] | None = None) -> dict[str, int]:
    """Apply added and removed sources to the entries, the Whoosh index, the summary and the state: the
    steps after reading, each timed in place into timings (wall seconds by step: the pipeline's remove,
    normalise, dedup, ids, tag and translate (ingest/pipeline.py update_corpus), then store, index, save).

    added: records just read (their rulings in memory; they are normalised,
    stored in RULINGS_DB and replaced by StoredRulings); removed: records
    forgotten (their stored rulings are dropped). A ruling that carries only an
    oracle_id (Scryfall) gets the card name that a remembered source maps that
    id to (a Scryfall card list, MTGJSON v5 ``identifiers.scryfallOracleId``).
    The Whoosh index is recreated when ``full`` or when it does not exist
    (then every entry is written); otherwise only the touched entries whose
    JSON hash changed are replaced, and entries that no longer form are
    deleted. Returns the index changes {"added", "deleted", "kept"}.
    """
    from rulings.ingest.pipeline import Clock, update_corpus

    store = RulingStore(index_dir)
    full = full or not index.exists(index_dir)
    fresh = _taken_from(added, card_names(state), store)
    gone = {record.number: store.rulings(record.number) for record in removed}
    result = update_corpus(state.corpus, gone, fresh, store.get, everything=full, timings=timings)
    clock = Clock(timings)
    _store(store, added, fresh, result)
    clock.lap("store")
    changes = _index(index_dir, state, result, full)
    clock.lap("index")
    _save(index_dir, state, store, removed)
    clock.lap("save")
    return changes


def _taken_from(added: list[SourceRecord], names: dict[str, str], store: RulingStore) -> dict[int, list[Ruling]]:
    """Source number -> the rulings just read of each added record, card names resolved from oracle ids
    (names: card_names()); each record keeps from here on only a reference to its rulings in the store,
    so that the rulings as read are not held beside the normalised ones while the pipeline runs."""
    fresh = {}
    for record in added:
        rulings = [replace(r, card=names[r.oracle_id]) if r.card is None and r.oracle_id in names else r
                   for r in record.result.rulings]
        fresh[record.number] = rulings
        record.warnings = reader_warnings(rulings)
        record.result.rulings = StoredRulings(str(store.path), record.number, len(rulings))
    return fresh


def _store(store: RulingStore, added: list[SourceRecord], fresh: dict[int, list[Ruling]], result) -> None:
    """Store the added sources' normalised rulings (fresh, emptied) and note on each record what the
    pipeline (its Update, result) rejected of it and where the declared language disagreed."""
    for record in added:
        store.put(record.number, fresh.pop(record.number))
        record.rejected = dict(Counter(r.reason for r in result.rejections.get(record.number, [])))
        record.mismatches = [mismatch_json(r) for r in result.mismatches.get(record.number, [])]
    store.commit()


def _index(index_dir: Path, state: State, result, full: bool) -> dict[str, int]:
    """write_index() of the pipeline's Update (result), the collector paused and free memory returned first."""
    from rulings.ingest.runtime import gc_paused, release_free_memory

    release_free_memory()           # before the Whoosh workers fork: each would count the freed pages again
    # the collector paused here (and so in the Whoosh workers forked meanwhile, which inherit its state):
    # the entries' JSON shapes and the workers' postings make no reference cycles, yet each full
    # collection would walk the whole corpus held in this process
    with gc_paused():
        return write_index(index_dir, state, result.entries, result.deleted, full)


def _save(index_dir: Path, state: State, store: RulingStore, removed: list[SourceRecord]) -> None:
    """Count each source's entries, write the summary and the state, and drop the removed sources'
    stored rulings."""
    contributed = Counter(n for info in state.corpus.info.values() for n in info.sources)
    for record in state.sources.values():
        record.entries = contributed.get(record.number, 0)
    write_summary(index_dir, state)
    save_state(index_dir, state)
    store.drop([record.number for record in removed])
    store.commit()


def write_index(index_dir: Path, state: State, entries: list[Entry], deleted: list[str],
                full: bool) -> dict[str, int]:
    """Write these entries' documents (those whose JSON hash changed) and delete the deleted ids.

    full: recreate the index with exactly these entries. Returns {"added", "deleted", "kept"}.
    entries is emptied as it is written (each entry, its variants and their rulings are released once
    their document is made), so that the state is saved after the index without them in memory.
    """
    from rulings.ingest.model import entry_to_dict
    from rulings.search.documents import card_text

    hashes = {} if full else state.entry_hashes
    for entry_id in deleted:
        hashes.pop(entry_id, None)
    added = 0

    def changed_documents():
        nonlocal added
        entries.reverse()
        while entries:
            entry = entries.pop()
            shape = entry_to_dict(entry)
            text = json.dumps(shape, ensure_ascii=False)
            texts = card_text(entry.variants)
            digest = entry_hash(f"{text}\n{texts}" if texts else text)
            if hashes.get(entry.id) != digest:
                replaced = entry.id in hashes
                hashes[entry.id] = digest
                yield shape, text, replaced, texts

    added = index.write_documents(index_dir, changed_documents(), deleted, create=full)
    state.entry_hashes = hashes
    return {"added": added, "deleted": len(deleted), "kept": len(hashes) - added}


def rebuild_entries(index_dir: Path) -> int:
    """Rewrite the whole Whoosh index from the remembered state (its files went missing), in a new
    generation (search/folder.py); returns the number of entries. Does nothing when another process
    rewrote it meanwhile. Raises DamagedIndex when the state is unreadable."""
    from rulings.ingest.pipeline import update_corpus

    with folder.locked(index_dir):
        current = folder.live(index_dir)
        if index.exists(current):
            return summary(current)["entries"]
        with next_generation(index_dir, current) as generation:
            state = load_state(generation)
            store = RulingStore(generation)
            result = update_corpus(state.corpus, {}, {}, store.get, everything=True)
            count = len(result.entries)
            write_index(generation, state, result.entries, [], full=True)
            write_summary(generation, state)
            save_state(generation, state)
    return count


def mismatch_json(ruling: Ruling) -> dict:
    """A ruling whose declared language disagrees with the detected one: path, position, declared, detected, text."""
    return {"path": ruling.source.path, "position": ruling.position, "declared": ruling.declared_lang,
            "detected": ruling.lang, "text": ruling.text[:80]}


def write_summary(index_dir: Path, state: State) -> None:
    """Write summary.json: the figures of ``rulings stats`` (PRODUCT.md "Other JSON shapes")."""
    results = [record.result for record in state.sources.values()]
    formats: dict[str, dict[str, int]] = {}
    for result in results:
        if result.rulings:
            slot = formats.setdefault(result.format, {"files": 0, "rulings": 0})
            slot["files"] += 1
            slot["rulings"] += len(result.rulings)
    infos = state.corpus.info.values()
    languages: Counter = Counter()
    for info in infos:
        languages.update(info.langs)
    rejected: Counter = Counter()
    for record in state.sources.values():
        rejected.update(record.rejected)
    mismatches = [m for key in sorted(state.sources) for m in state.sources[key].mismatches]
    warnings: Counter = Counter()
    for record in state.sources.values():
        warnings.update(record.warnings)
    summary = {
        "rulings": sum(len(r.rulings) for r in results),
        "entries": len(state.corpus.info),
        "variants": sum(info.variants for info in infos),
        "rejected_rulings": sum(rejected.values()),
        "rejected_reasons": dict(rejected),
        "languages": dict(sorted(languages.items())),
        "formats": dict(sorted(formats.items())),
        "mechanics": len({m for info in infos for m in info.mechanics}),
        "sources": sum(1 for r in results if r.rulings),     # files that yielded rulings
        "language_mismatches": mismatches,
        "warnings": dict(sorted(warnings.items())),
        "ingested": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
    }
    tmp = index_dir / (SUMMARY + ".tmp")                 # replaced, never rewritten: generations share it
    tmp.write_text(json.dumps(summary, ensure_ascii=False, indent=1), "utf-8")
    tmp.replace(index_dir / SUMMARY)


def ingested_at(index_dir: Path) -> str:
    """The index's last ingest time (ISO, UTC): ``ingested`` of summary.json, else the file's mtime.

    Exports write it as their ``created`` time so the same index gives the same bytes.
    Raises DamagedIndex when summary.json is unreadable.
    """
    figures = summary(index_dir)
    if figures.get("ingested"):
        return figures["ingested"]
    mtime = (folder.live(index_dir) / SUMMARY).stat().st_mtime
    return datetime.fromtimestamp(int(mtime), timezone.utc).isoformat()


def summary(index_dir: Path) -> dict:
    """The figures of ``rulings stats``; raises DamagedIndex when summary.json is unreadable."""
    path = folder.live(index_dir) / SUMMARY
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as err:
        raise DamagedIndex(f"{path}: cannot be read ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild'") from None
