"""The index folder as a whole: remembered sources, carried ids, and the ingest operation.

Layout of an index folder::

    state.pkl     sources by path (content hash, size and mtime, format, rulings
                  read, skip/reject reason, entries contributed to), the id of
                  every variant key, id aliases, and the hash of every indexed entry
    summary.json  the figures of ``rulings stats``
    whoosh/       the Whoosh index of entries (search/index.py)

Ingest is incremental. A file whose size and mtime are unchanged, or whose
content hash (SHA-1) is unchanged, is not parsed again: its remembered rulings
are reused. When no source was added, changed or dropped, ingest writes
nothing at all. Otherwise the pipeline (normalise -> dedup -> ids -> tag) runs
over every remembered ruling, so its decisions are exactly those of a full
rebuild, and the Whoosh index is updated, not recreated: only the entries
whose JSON changed (compared by id and SHA-1 of the JSON) are deleted and added.

The pipeline and the readers are imported inside the functions that need them,
so that a query (which only opens the Whoosh index) never pays for them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import pickle
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.errors import DamagedIndex, ReadError, RulingsError
from search import index

if TYPE_CHECKING:
    from ingest.model import Entry, Ruling
    from ingest.read import FileResult

STATE = "state.pkl"
SUMMARY = "summary.json"
STATE_VERSION = 2


@dataclass
class SourceRecord:
    """One remembered source file: content hash (SHA-1 hex) and what reading it gave.

    size (bytes) and mtime_ns let an unchanged file be recognised without hashing;
    entries is the number of entries its rulings are variants of after the last ingest.
    """

    path: str
    sha1: str
    result: FileResult
    size: int = -1
    mtime_ns: int = -1
    entries: int = 0


@dataclass
class State:
    """What the index folder remembers between commands.

    sources: SourceRecord by source key (absolute path); ids: entry id by variant
    key (Ruling.key()); aliases: merged-away ids by entry id; entry_hashes: SHA-1
    of each indexed entry's JSON by entry id (what the Whoosh index holds).
    """

    sources: dict[str, SourceRecord] = field(default_factory=dict)
    ids: dict[tuple, str] = field(default_factory=dict)
    aliases: dict[str, list[str]] = field(default_factory=dict)
    entry_hashes: dict[str, str] = field(default_factory=dict)
    version: int = STATE_VERSION


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
            "warnings": reader_warnings(r for result in self.files for r in result.rulings),
        }


def reader_warnings(rulings) -> dict[str, int]:
    """Rulings kept with a reader warning (``Ruling.warnings``, e.g. an invalid date), per reason."""
    counts = Counter(reason for ruling in rulings for reason in getattr(ruling, "warnings", ()))
    return dict(sorted(counts.items()))


def load_state(index_dir: Path) -> State:
    """The remembered state, or an empty one for a new folder. Raises DamagedIndex if unreadable."""
    path = index_dir / STATE
    if not path.exists():
        if index.exists(index_dir):
            raise DamagedIndex(f"{path}: missing beside an existing index, so the sources it held are "
                               "unknown; run 'rulings ingest --rebuild SOURCE...'")
        return State()
    try:
        with open(path, "rb") as handle:
            state = pickle.load(handle)
    except Exception as err:  # pickle raises many kinds for a damaged file
        raise DamagedIndex(f"{path}: cannot be read ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild'") from None
    if not isinstance(state, State) or getattr(state, "version", None) != STATE_VERSION:
        raise DamagedIndex(f"{path}: made by another version; run 'rulings ingest --rebuild'")
    return state


def save_state(index_dir: Path, state: State) -> None:
    """Write the state atomically (temporary file, then rename)."""
    tmp = index_dir / (STATE + ".tmp")
    with open(tmp, "wb") as handle:
        pickle.dump(state, handle, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(index_dir / STATE)


def file_sha1(path: Path) -> str:
    """SHA-1 hex digest of a file's bytes."""
    digest = hashlib.sha1()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_key(path: Path) -> str:
    """The remembered key of a source: its absolute path as a string."""
    return str(path.resolve())


def read_source(path: Path, state: State) -> tuple[FileResult, bool]:
    """Read one file, reusing the remembered result when it is unchanged.

    Unchanged means the same size and mtime as remembered, or else the same
    content hash. Returns (result, True when the file was parsed now).
    """
    from ingest.read import FileResult, read_file

    key = source_key(path)
    known = state.sources.get(key)
    try:
        stat = os.stat(path)
        if known is not None and (known.size, known.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
            return known.result, False
        sha1 = file_sha1(path)
    except OSError as err:
        return FileResult(str(path), rejected=f"cannot be read ({err.strerror or err})"), False
    if known is not None and known.sha1 == sha1:
        known.size, known.mtime_ns = stat.st_size, stat.st_mtime_ns
        return known.result, False
    try:
        result = read_file(path)
    except OSError as err:
        return FileResult(str(path), rejected=f"cannot be read ({err.strerror or err})"), False
    state.sources[key] = SourceRecord(key, sha1, result, stat.st_size, stat.st_mtime_ns)
    return result, True


def ingest(index_dir: Path, paths: list[Path], rebuild: bool = False) -> IngestReport:
    """Add the given files and folders to the index and update the entries.

    A source ingested before under the same path is replaced by its current
    content; re-ingesting a folder drops remembered sources under it that no
    longer exist. When nothing changed (and the index exists) nothing is
    written. Raises ReadError for a path that does not exist (nothing is
    changed then). Files named directly that cannot be read are listed in
    ``named_failures``.
    """
    from ingest.read import walk

    started = time.perf_counter()
    for path in paths:
        if not path.exists():
            raise ReadError(str(path), "no such file or directory")
    index_dir.mkdir(parents=True, exist_ok=True)
    state = State() if rebuild else load_state(index_dir)
    files, named_failures = [], []
    parsed, dropped = 0, 0
    timings: dict[str, float] = {}
    for path in paths:
        seen = set()
        for file in walk(path):
            seen.add(source_key(file))
            result, was_parsed = read_source(file, state)
            parsed += was_parsed
            files.append(result)
            if path.is_file() and result.rejected:
                named_failures.append(f"{file}: {result.rejected}")
        if path.is_dir():
            prefix = source_key(path).rstrip("/") + "/"
            for key in [k for k in state.sources if k.startswith(prefix) and k not in seen]:
                del state.sources[key]
                dropped += 1
    timings["read"] = time.perf_counter() - started
    if not (rebuild or parsed or dropped) and index.exists(index_dir) and (index_dir / SUMMARY).exists():
        figures = summary(index_dir)
        return IngestReport(files, figures["entries"], figures.get("rejected_reasons", {}),
                            time.perf_counter() - started, named_failures, changed=False, timings=timings,
                            language_mismatches=figures.get("language_mismatches", []))
    entries, rejected, changes = update_entries(index_dir, state, full=rebuild, timings=timings)
    mark = time.perf_counter()
    save_state(index_dir, state)
    timings["save"] = time.perf_counter() - mark
    return IngestReport(files, len(entries), rejected, time.perf_counter() - started, named_failures,
                        changed=True, parsed=parsed, index_changes=changes, timings=timings,
                        language_mismatches=summary(index_dir).get("language_mismatches", []))


def remove(index_dir: Path, path: Path) -> tuple[list[SourceRecord], int]:
    """Drop a remembered source (a file, or every source under a folder) and what only it contributed.

    The path need not exist any more. Entries that keep other variants keep
    their ids (PRODUCT.md "Ids"). Returns (the dropped records, entries left).
    Raises RulingsError when no remembered source is that path or under it.
    """
    state = load_state(index_dir)
    key = source_key(path)
    prefix = key.rstrip("/") + "/"
    dropped = [state.sources[k] for k in sorted(state.sources) if k == key or k.startswith(prefix)]
    if not dropped:
        raise RulingsError(f"{path}: not an ingested source (see 'rulings sources')")
    for record in dropped:
        del state.sources[record.path]
    entries, _, _ = update_entries(index_dir, state)
    save_state(index_dir, state)
    return dropped, len(entries)


def sources(index_dir: Path) -> list[SourceRecord]:
    """The remembered sources, sorted by path."""
    state = load_state(index_dir)
    return [state.sources[key] for key in sorted(state.sources)]


def remembered_rulings(state: State) -> list[Ruling]:
    """Every ruling of every remembered source, in source-path order.

    A ruling that carries only an oracle_id (Scryfall) gets the card name that any
    remembered source maps that id to (a Scryfall card list, MTGJSON v5
    ``identifiers.scryfallOracleId``); the remembered ruling itself is not changed.
    """
    names = card_names(state)
    rulings = []
    for key in sorted(state.sources):
        for ruling in state.sources[key].result.rulings:
            if ruling.card is None and ruling.oracle_id in names:
                ruling = replace(ruling, card=names[ruling.oracle_id])
            rulings.append(ruling)
    return rulings


def card_names(state: State) -> dict[str, str]:
    """oracle_id -> card name from every remembered source (first source in path order wins)."""
    names: dict[str, str] = {}
    for key in sorted(state.sources):
        for oracle_id, name in getattr(state.sources[key].result, "card_names", {}).items():
            names.setdefault(oracle_id, name)
    return names


def entry_hash(entry_json: str) -> str:
    """SHA-1 hex of an entry's JSON text: what decides whether its Whoosh document is rewritten."""
    return hashlib.sha1(entry_json.encode("utf-8")).hexdigest()


def update_entries(index_dir: Path, state: State, full: bool = False,
                   timings: dict[str, float] | None = None) -> tuple[list[Entry], dict[str, int], dict[str, int]]:
    """Run the pipeline over all remembered rulings and bring the index, summary and ids up to date.

    The pipeline works on copies of the remembered rulings (it fills ``match``
    and repairs), so the remembered reader output stays as read. The Whoosh
    index is recreated when ``full`` or when it does not exist; otherwise only
    entries whose JSON hash differs from the remembered one are replaced, and
    entries that no longer form are deleted. Returns (entries, rejected rulings
    per reason, index changes {"added", "deleted", "kept"}). timings, when
    given, receives the seconds of each pipeline stage and of "index".
    """
    from ingest.model import entry_to_dict
    from ingest.pipeline import build_entries

    owner: dict[int, str] = {}
    rulings = []
    for key in sorted(state.sources):
        for ruling in state.sources[key].result.rulings:
            working = copy.copy(ruling)
            owner[id(working)] = key
            rulings.append(working)
    result = build_entries(rulings, state.ids, state.aliases, timings)
    mark = time.perf_counter()
    full = full or not index.exists(index_dir)
    old = {} if full else state.entry_hashes
    new_ids = {entry.id for entry in result.entries}
    gone = [entry_id for entry_id in old if entry_id not in new_ids]
    new_hashes: dict[str, str] = {}

    def changed_documents():
        for entry in result.entries:
            shape = entry_to_dict(entry)
            text = json.dumps(shape, ensure_ascii=False)
            digest = new_hashes[entry.id] = entry_hash(text)
            if old.get(entry.id) != digest:
                yield shape, text, entry.id in old

    added = index.write_documents(index_dir, changed_documents(), gone, create=full)
    changes = {"added": added, "deleted": len(gone), "kept": len(new_hashes) - added}
    state.entry_hashes = new_hashes
    if timings is not None:
        timings["index"] = time.perf_counter() - mark
    state.ids = {v.ruling.key(): e.id for e in result.entries for v in e.variants}
    state.aliases = {e.id: e.aliases for e in result.entries if e.aliases}
    contributed: dict[str, set] = {key: set() for key in state.sources}
    for entry in result.entries:
        for variant in entry.variants:
            contributed[owner[id(variant.ruling)]].add(entry.id)
    for key, record in state.sources.items():
        record.entries = len(contributed[key])
    write_summary(index_dir, state, result.entries, result.rejected_counts(),
                  [mismatch_json(r) for r in result.language_mismatches])
    return result.entries, result.rejected_counts(), changes


def rebuild_entries(index_dir: Path, state: State) -> tuple[list[Entry], dict[str, int]]:
    """Run the pipeline over all remembered rulings and rewrite the whole index (see update_entries)."""
    entries, rejected, _ = update_entries(index_dir, state, full=True)
    return entries, rejected


def mismatch_json(ruling: Ruling) -> dict:
    """A ruling whose declared language disagrees with the detected one: path, position, declared, detected, text."""
    return {"path": ruling.source.path, "position": ruling.position, "declared": ruling.declared_lang,
            "detected": ruling.lang, "text": ruling.text[:80]}


def write_summary(index_dir: Path, state: State, entries: list[Entry], rejected: dict[str, int],
                  language_mismatches: list[dict] | None = None) -> None:
    """Write summary.json: the figures of ``rulings stats`` (PRODUCT.md "Other JSON shapes")."""
    results = [record.result for record in state.sources.values()]
    formats: dict[str, dict[str, int]] = {}
    for result in results:
        if result.rulings:
            slot = formats.setdefault(result.format, {"files": 0, "rulings": 0})
            slot["files"] += 1
            slot["rulings"] += len(result.rulings)
    languages = Counter(v.ruling.lang for e in entries for v in e.variants)
    summary = {
        "rulings": sum(len(r.rulings) for r in results),
        "entries": len(entries),
        "variants": sum(len(e.variants) for e in entries),
        "rejected_rulings": sum(rejected.values()),
        "rejected_reasons": rejected,
        "languages": dict(sorted(languages.items())),
        "formats": dict(sorted(formats.items())),
        "mechanics": len({m for e in entries for m in e.mechanics}),
        "sources": sum(1 for r in results if r.rulings),     # files that yielded rulings
        "language_mismatches": language_mismatches or [],
        "warnings": reader_warnings(r for result in results for r in result.rulings),
        "ingested": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
    }
    (index_dir / SUMMARY).write_text(json.dumps(summary, ensure_ascii=False, indent=1), "utf-8")


def ingested_at(index_dir: Path) -> str:
    """The index's last ingest time (ISO, UTC): ``ingested`` of summary.json, else the file's mtime.

    Exports write it as their ``created`` time so the same index gives the same bytes.
    Raises DamagedIndex when summary.json is unreadable.
    """
    figures = summary(index_dir)
    if figures.get("ingested"):
        return figures["ingested"]
    mtime = (index_dir / SUMMARY).stat().st_mtime
    return datetime.fromtimestamp(int(mtime), timezone.utc).isoformat()


def summary(index_dir: Path) -> dict:
    """The figures of ``rulings stats``; raises DamagedIndex when summary.json is unreadable."""
    try:
        return json.loads((index_dir / SUMMARY).read_text("utf-8"))
    except (OSError, ValueError) as err:
        raise DamagedIndex(f"{index_dir / SUMMARY}: cannot be read ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild'") from None
