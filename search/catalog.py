"""The index folder as a whole: remembered sources, carried ids, and the ingest operation.

Layout of an index folder::

    state.pkl     sources by path (content hash, format, rulings read, skip/reject
                  reason), the id of every variant key, and id aliases
    summary.json  the figures of ``rulings stats``
    whoosh/       the Whoosh index of entries (search/index.py)

``ingest()`` reads only files whose content hash changed, runs the pipeline over
every remembered ruling, and rewrites the index.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from ingest.errors import DamagedIndex, ReadError
from ingest.model import Entry, Ruling
from ingest.pipeline import build_entries
from ingest.read import FileResult, read_file, walk
from search import index

STATE = "state.pkl"
SUMMARY = "summary.json"
STATE_VERSION = 1


@dataclass
class SourceRecord:
    """One remembered source file: content hash (SHA-1 hex) and what reading it gave."""

    path: str
    sha1: str
    result: FileResult


@dataclass
class State:
    """What the index folder remembers between commands."""

    sources: dict[str, SourceRecord] = field(default_factory=dict)
    ids: dict[tuple, str] = field(default_factory=dict)
    aliases: dict[str, list[str]] = field(default_factory=dict)
    version: int = STATE_VERSION


@dataclass
class IngestReport:
    """The outcome of one ingest, in the ``rulings ingest --format json`` shape (to_json)."""

    files: list[FileResult]
    entries: int
    rejected_rulings: dict[str, int]
    seconds: float
    named_failures: list[str] = field(default_factory=list)
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
        return State()
    try:
        with open(path, "rb") as handle:
            state = pickle.load(handle)
    except Exception as err:  # pickle raises many kinds for a damaged file
        raise DamagedIndex(f"{path}: cannot be read ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild'") from None
    if not isinstance(state, State) or state.version != STATE_VERSION:
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


def read_source(path: Path, state: State) -> FileResult:
    """Read one file, reusing the remembered result when its content hash is unchanged."""
    key = source_key(path)
    try:
        sha1 = file_sha1(path)
    except OSError as err:
        return FileResult(str(path), rejected=f"cannot be read ({err.strerror or err})")
    known = state.sources.get(key)
    if known is not None and known.sha1 == sha1:
        return known.result
    try:
        result = read_file(path)
    except OSError as err:
        return FileResult(str(path), rejected=f"cannot be read ({err.strerror or err})")
    state.sources[key] = SourceRecord(key, sha1, result)
    return result


def ingest(index_dir: Path, paths: list[Path], rebuild: bool = False) -> IngestReport:
    """Add the given files and folders to the index and rebuild the entries.

    A source ingested before under the same path is replaced by its current
    content; re-ingesting a folder drops remembered sources under it that no
    longer exist. Raises ReadError for a path that does not exist (nothing is
    changed then). Files named directly that cannot be read are listed in
    ``named_failures``.
    """
    started = time.perf_counter()
    for path in paths:
        if not path.exists():
            raise ReadError(str(path), "no such file or directory")
    index_dir.mkdir(parents=True, exist_ok=True)
    state = State() if rebuild else load_state(index_dir)
    files, named_failures = [], []
    for path in paths:
        seen = set()
        for file in walk(path):
            seen.add(source_key(file))
            result = read_source(file, state)
            files.append(result)
            if path.is_file() and result.rejected:
                named_failures.append(f"{file}: {result.rejected}")
        if path.is_dir():
            prefix = source_key(path).rstrip("/") + "/"
            for key in [k for k in state.sources if k.startswith(prefix) and k not in seen]:
                del state.sources[key]
    entries, rejected = rebuild_entries(index_dir, state)
    save_state(index_dir, state)
    mismatches = summary(index_dir).get("language_mismatches", [])
    return IngestReport(files, len(entries), rejected, time.perf_counter() - started, named_failures,
                        mismatches)


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


def rebuild_entries(index_dir: Path, state: State) -> tuple[list[Entry], dict[str, int]]:
    """Run the pipeline over all remembered rulings, write the index and summary, update ids."""
    rulings = remembered_rulings(state)
    result = build_entries(rulings, state.ids, state.aliases)
    index.write_entries(index_dir, result.entries)
    state.ids = {v.ruling.key(): e.id for e in result.entries for v in e.variants}
    state.aliases = {e.id: e.aliases for e in result.entries if e.aliases}
    write_summary(index_dir, state, result.entries, result.rejected_counts(),
                  [mismatch_json(r) for r in result.language_mismatches])
    return result.entries, result.rejected_counts()


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
        "sources": len(results),
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
