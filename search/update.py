"""``rulings update``: fetch the official rulings data (Scryfall bulk data or MTGJSON) and ingest it.

Cache layout (``cache_root()``: $RULINGS_CACHE_DIR, else the user cache folder from platformdirs)::

    scryfall/downloads/   rulings.json.gz, oracle_cards.json.gz as transferred, cache.json (their records)
    scryfall/ingest/      cards.json (oracle_id -> name as a compact Scryfall card list) and
                          rulings/<YYYY-MM>.json (the bulk rulings array split by month of
                          published_at, each ruling with its ``card_name``; a ruling whose
                          published_at starts with no real YYYY-MM goes to undated.json)
    mtgjson/downloads/    AllPrintings.json.gz or <SET>.json.gz, cache.json
    mtgjson/ingest/sets/  <SET>.json: each set's code, name, release date and the cards that have rulings

No value from a downloaded document becomes a path unchecked: a month is used only when it is a real
``YYYY-MM``, a set code only when it is 1-16 letters and digits (``set_file_name``; any other code is
kept under a name made from its hash, with a note in the report), and every file written is checked to
lie directly in its folder (``file_in``). ``--set`` values are checked the same way (``check_set_code``).

Scryfall (https://scryfall.com/docs/api/bulk-data): ``GET {base}/bulk-data`` lists the bulk
files; the object of ``type`` ``rulings`` gives ``download_uri``, ``updated_at``, ``size`` and
``content_encoding``. The file is not requested at all when its ``updated_at`` is the one
cached, and otherwise requested conditionally (ETag, Last-Modified). Scryfall rulings carry
only an ``oracle_id``, so the ``oracle_cards`` bulk file (~160 MB, rebuilt daily) is fetched the
same way, but only when a ruling names an oracle_id that has no card name yet and that the last
card list read did not lack already (``unnamed_oracle_ids.json``); it is streamed with ijson and
only the names are kept.

MTGJSON (https://mtgjson.com/downloads/all-files/): ``GET {base}/api/v5/Meta.json`` gives the
build date; AllPrintings (or each ``--set`` file) is fetched as ``.json.gz`` and checked
against the published ``.sha256`` beside it, which also tells an unchanged file without
downloading it.

The ingest folders are written from the downloads (a file only when its bytes change), then
ingested with search/catalog.py ``ingest``; since the catalog re-reads only changed files, a new
day's rulings re-read only the months (or sets) that changed. Ingesting never needs the network,
and each ``rulings update`` ingests the cached data again, so an update stopped after its
download finishes its work the next time.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import ijson
import platformdirs

from rulings.search import catalog
from rulings.search.fetch import (
    Cache,
    Client,
    Download,
    HttpStatus,
    Progress,
    UpdateError,
    download,
    open_data,
    write_atomic,
)

SOURCES = ("scryfall", "mtgjson")
DEFAULT_BASE_URLS = {"scryfall": "https://api.scryfall.com", "mtgjson": "https://mtgjson.com"}
BASE_URL_ENV = {"scryfall": "RULINGS_SCRYFALL_URL", "mtgjson": "RULINGS_MTGJSON_URL"}
UNDATED = "undated"
UNNAMED = "unnamed_oracle_ids.json"   # oracle ids of rulings that the last card list read did not name
MONTH = re.compile(r"\d{4}-(?:0[1-9]|1[0-2])")        # a published_at's first 7 characters, as a file name
SET_CODE = re.compile(r"[A-Z0-9]{1,16}")               # an MTGJSON set code (upper case), as a file name
# Names Windows keeps for devices (MTGJSON itself writes Conflux, CON, as CON_.json).
RESERVED_NAMES = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)),
                            *(f"LPT{i}" for i in range(10))})
PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
# MTGJSON card fields kept in the ingest files: what ingest/readers/mtgjson.py reads
_MTGJSON_CARD_FIELDS = ("name", "faceName", "layout", "names", "setCode", "identifiers", "rulings")


def cache_root() -> Path:
    """$RULINGS_CACHE_DIR, else ``<user cache dir>/rulings`` (platformdirs)."""
    env = os.environ.get("RULINGS_CACHE_DIR")
    return Path(env) if env else Path(platformdirs.user_cache_dir("rulings"))


def base_url(source: str, given: str | None = None) -> str:
    """The base URL of a source: given, else $RULINGS_SCRYFALL_URL / $RULINGS_MTGJSON_URL, else the real one.

    Raises UpdateError when the chosen value is not an http(s) URL with a host.
    """
    url = (given or os.environ.get(BASE_URL_ENV[source]) or DEFAULT_BASE_URLS[source]).rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        origin = "--base-url" if given else f"${BASE_URL_ENV[source]}"
        raise UpdateError(f"{origin} {url!r} is not an http(s) URL (like {DEFAULT_BASE_URLS[source]})")
    return url


@dataclass
class UpdateReport:
    """What one update did: the downloads (fetched or found unchanged), the ingest report, card-name figures.

    named: oracle ids of the rulings that have a card name / all oracle ids
    (Scryfall); files_written: ingest files written now (new or changed bytes).
    """

    source: str
    downloads: list[Download] = field(default_factory=list)
    ingest: catalog.IngestReport | None = None
    files_written: int = 0
    files_total: int = 0
    named: tuple[int, int] | None = None
    notes: list[str] = field(default_factory=list)      # data kept under another name than it gave

    def to_json(self) -> dict:
        """{"source", "downloads": [...], "files_written", "files", "notes", "card_names": {...},
        "ingest": {...}}."""
        shape = {"source": self.source, "downloads": [d.to_json() for d in self.downloads],
                 "files_written": self.files_written, "files": self.files_total, "notes": self.notes}
        if self.named is not None:
            shape["card_names"] = {"named": self.named[0], "oracle_ids": self.named[1]}
        if self.ingest is not None:
            shape["ingest"] = self.ingest.to_json() | {"parsed": self.ingest.parsed,
                                                       "changed": self.ingest.changed,
                                                       "index_changes": self.ingest.index_changes}
        return shape


def update(index_dir: Path, source: str = "scryfall", sets: tuple[str, ...] = (), base: str | None = None,
           client: Client | None = None, progress: Progress | None = None,
           cache_dir: Path | None = None) -> UpdateReport:
    """Fetch what changed at the source into the cache, rewrite the ingest files, ingest them into index_dir.

    source: ``scryfall`` or ``mtgjson``; sets: MTGJSON set codes (default: AllPrintings);
    base: the source's base URL (default: base_url()). Raises UpdateError (Offline,
    NoAnswer, CutShort, HttpStatus, Mismatch) before anything in the cache or index
    changes when a download fails.
    """
    if source not in SOURCES:
        raise UpdateError(f"unknown source {source!r} (choose scryfall or mtgjson)")
    if sets and source != "mtgjson":
        raise UpdateError("--set applies to --source mtgjson (Scryfall publishes one rulings file)")
    for code in sets:
        check_set_code(code)
    root = (cache_dir or cache_root()) / source
    own_client = client is None
    client = client or Client()
    try:
        if source == "scryfall":
            report, folder = update_scryfall(client, root, base_url(source, base), progress)
        else:
            report, folder = update_mtgjson(client, root, base_url(source, base), sets, progress)
    finally:
        if own_client:
            client.close()
    report.ingest = catalog.ingest(index_dir, [folder])
    return report


# --- Scryfall ---------------------------------------------------------------------------------

def check_set_code(code: str) -> str:
    """The upper-case set code of a ``--set`` value; raises UpdateError unless it is 1-16 letters and
    digits (it becomes a URL and a file name)."""
    upper = code.upper() if isinstance(code, str) else ""
    if not SET_CODE.fullmatch(upper) or not upper.isascii():
        raise UpdateError(f"--set {code!r}: a set code is 1 to 16 letters and digits (like MKM)")
    return upper


def file_in(folder: Path, name: str) -> Path:
    """folder / name, when name is a plain file name (letters, digits, ``_ . -``, not starting with a dot)
    and the path lies directly in folder once links are resolved; raises UpdateError otherwise."""
    path = folder / name
    if not PLAIN_NAME.fullmatch(name) or ".." in name \
            or Path(os.path.realpath(path)).parent != Path(os.path.realpath(folder)):
        raise UpdateError(f"{name!r} is no file name inside {folder}; nothing was written there")
    return path


def month_of(published) -> str:
    """The ``YYYY-MM`` file name stem of a Scryfall ``published_at`` (``2019-05-03`` -> ``2019-05``), or
    UNDATED for anything else (missing, a number, ``2019/05/03``, ``2019-13-45``, ``../../x``)."""
    month = published[:7] if isinstance(published, str) else ""
    return month if MONTH.fullmatch(month) else UNDATED


def set_file_name(code: str, taken) -> tuple[str, str | None]:
    """The ingest file name of an MTGJSON set and, when it is not ``<CODE>.json``, a note saying why.

    A code of 1-16 letters and digits gives ``<CODE>.json`` (``CON_.json`` for a Windows device name);
    any other code (``../../X``, a name with spaces) gives ``set-<12 hex digits of its SHA-1>.json``,
    so that its rulings are kept; a name already taken (two sets with one code) gets ``-2``, ``-3``.
    """
    upper = code.upper()
    note = None
    if SET_CODE.fullmatch(upper) and upper.isascii():
        stem = upper + ("_" if upper in RESERVED_NAMES else "")
    else:
        stem = "set-" + hashlib.sha1(code.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        note = f"MTGJSON set code {code!r} is not 1 to 16 letters and digits: its rulings are kept in {stem}.json"
    name, number = f"{stem}.json", 1
    while name in taken:
        number += 1
        name = f"{stem}-{number}.json"
    if number > 1:
        note = f"MTGJSON set code {code!r} is given twice: this set's rulings are kept in {name}"
    return name, note


def bulk_entries(client: Client, base: str) -> dict[str, dict]:
    """The bulk-data objects by ``type``. Raises UpdateError when the list has no ``rulings`` object."""
    url = f"{base}/bulk-data"
    listing = client.get_json(url)
    items = listing.get("data") if isinstance(listing, dict) else None
    entries = {item["type"]: item for item in items or []
               if isinstance(item, dict) and isinstance(item.get("type"), str)
               and isinstance(item.get("download_uri"), str)}
    if "rulings" not in entries:
        raise UpdateError(f"{url}: the bulk-data list has no 'rulings' file")
    return entries


def fetch_bulk(client: Client, cache: Cache, entry: dict, name: str, progress: Progress | None) -> Download:
    """Download one bulk file unless the cached copy has the same ``updated_at`` (then no request is sent)."""
    known = cache.get(name)
    url, updated = entry["download_uri"], entry.get("updated_at")
    if known is not None and updated and known.version == updated:
        return Download(name, url, changed=False)
    size = entry.get("size") if isinstance(entry.get("size"), int) else None
    got = download(client, cache, name, url, version=updated, size=size, progress=progress,
                   label=f"Scryfall {entry['type']}")
    if not got.changed and known is not None and updated:
        known.version = updated                  # same bytes under a new updated_at
        cache.put(name, known)
    return got


def scryfall_months(path: Path) -> tuple[dict[str, list[dict]], set[str]]:
    """The ruling objects of a Scryfall rulings array (streamed with ijson) by month of ``published_at``
    (``YYYY-MM``, else ``undated``), in file order, and the oracle ids they name.

    Raises UpdateError when the file is not a JSON array of ruling objects.
    """
    months: dict[str, list[dict]] = defaultdict(list)
    oracle_ids: set[str] = set()
    try:
        with open_data(path) as stream:
            for position, item in enumerate(ijson.items(stream, "item", use_float=True)):
                if not isinstance(item, dict) or item.get("object", "ruling") != "ruling":
                    raise UpdateError(f"{path}: item {position} is not a Scryfall ruling object")
                months[month_of(item.get("published_at"))].append(item)
                if isinstance(item.get("oracle_id"), str):
                    oracle_ids.add(item["oracle_id"])
    except (ijson.JSONError, OSError, EOFError, UnicodeDecodeError) as err:
        raise UpdateError(f"{path}: not a readable Scryfall rulings array ({err})") from None
    return dict(months), oracle_ids


def scryfall_card_names(path: Path) -> dict[str, str]:
    """oracle_id -> card name of a Scryfall card array (the oracle_cards bulk file), streamed card by card.

    Names follow ingest/readers/scryfall.py card_names (``Face A // Face B``).
    Raises UpdateError when the file is not a JSON array.
    """
    from rulings.ingest.readers.scryfall import card_names

    names: dict[str, str] = {}
    try:
        with open_data(path) as stream:
            for card in ijson.items(stream, "item", use_float=True):
                if isinstance(card, dict):
                    for oracle_id, name in card_names([card]).items():
                        names.setdefault(oracle_id, name)
    except (ijson.JSONError, OSError, EOFError, UnicodeDecodeError) as err:
        raise UpdateError(f"{path}: not a readable Scryfall card array ({err})") from None
    return names


def named(ruling: dict, names: dict[str, str]) -> dict:
    """The ruling object with ``card_name`` (the name its oracle_id has, when known) added.

    The Scryfall reader does not read the key (the catalog names the card from cards.json), but a
    month file whose rulings gain or change a card name changes too, so ingest reads it again and
    the rulings get the name."""
    name = names.get(ruling.get("oracle_id"))
    return ruling | {"card_name": name} if name else ruling


def cards_document(names: dict[str, str]) -> bytes:
    """A compact Scryfall card list ``{"object": "list", "data": [{"object": "card", "oracle_id", "name"}]}``
    that the Scryfall reader skips as a card list while keeping its names for the rulings."""
    cards = [{"object": "card", "oracle_id": oracle_id, "name": names[oracle_id]} for oracle_id in sorted(names)]
    return _dump({"object": "list", "data": cards})


def read_cards_document(path: Path) -> dict[str, str]:
    """oracle_id -> name of a cards_document file; empty when missing or unreadable."""
    try:
        data = json.loads(path.read_text("utf-8"))
        return {card["oracle_id"]: card["name"] for card in data["data"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _read_json(path: Path, default):
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return default


def _dump(data) -> bytes:
    """JSON bytes, one array item per line for the top-level ``data`` list or array (readable, diffable)."""
    if isinstance(data, list):
        return ("[\n" + ",\n".join(json.dumps(item, ensure_ascii=False) for item in data) + "\n]\n").encode()
    return (json.dumps(data, ensure_ascii=False) + "\n").encode()


def sync_folder(folder: Path, files: dict[str, bytes], prune: bool = True) -> int:
    """Make folder hold these files: write those whose bytes differ (atomically), and with prune
    delete the ``.json`` files not listed. Returns the number of files written. Raises UpdateError,
    before anything is written, when a name is not a plain file name inside folder (file_in)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {name: file_in(folder, name) for name in files}
    written = 0
    for name, data in files.items():
        path = paths[name]
        if not path.is_file() or path.stat().st_size != len(data) or path.read_bytes() != data:
            write_atomic(path, data)
            written += 1
    if prune:
        for path in folder.glob("*.json"):
            if path.name not in files:
                path.unlink()
    return written


def update_scryfall(client: Client, root: Path, base: str, progress: Progress | None
                    ) -> tuple[UpdateReport, Path]:
    """Fetch the Scryfall rulings (and card names when needed) and rewrite ``root/ingest``.

    Returns the report (no ingest yet) and the folder to ingest.
    """
    cache = Cache(root / "downloads")
    report = UpdateReport("scryfall")
    entries = bulk_entries(client, base)
    rulings = fetch_bulk(client, cache, entries["rulings"], "rulings.json.gz", progress)
    report.downloads.append(rulings)
    raw = rulings.part if rulings.changed else cache.path("rulings.json.gz")
    months, oracle_ids = _checked(scryfall_months, raw, rulings)   # before the cached file is replaced
    folder = root / "ingest"
    cards_path = folder / "cards.json"
    names = read_cards_document(cards_path)
    unnamed_path = cache.path(UNNAMED)
    known_unnamed = set(_read_json(unnamed_path, []))
    oracle = None
    if (oracle_ids - names.keys() - known_unnamed or not cards_path.exists()) and "oracle_cards" in entries:
        # a ruling names a card not seen yet: the card list is fetched (when it changed) and read again
        oracle = fetch_bulk(client, cache, entries["oracle_cards"], "oracle_cards.json.gz", progress)
        report.downloads.append(oracle)
        if oracle.changed or not cards_path.exists():
            fresh = _checked(scryfall_card_names,
                             oracle.part if oracle.changed else cache.path("oracle_cards.json.gz"), oracle)
            names = {**names, **fresh}
    rulings.commit(cache)
    if oracle is not None:
        oracle.commit(cache)
    unnamed = sorted(oracle_ids - names.keys())
    if unnamed != sorted(known_unnamed):
        write_atomic(unnamed_path, json.dumps(unnamed).encode())
    report.named = (len(oracle_ids) - len(unnamed), len(oracle_ids))
    report.files_written = sync_folder(folder, {"cards.json": cards_document(names)}, prune=False)
    shards = {f"{month}.json": _dump([named(item, names) for item in items]) for month, items in sorted(months.items())}
    report.files_written += sync_folder(folder / "rulings", shards)
    report.files_total = len(shards) + 1
    return report, folder


# --- MTGJSON ----------------------------------------------------------------------------------

def mtgjson_sets(path: Path, keyed: bool):
    """Yield (set code, set object) of an MTGJSON file, streamed with ijson one set at a time.

    keyed: AllPrintings (``data`` keyed by set code); otherwise a set file (``data`` is one set).
    Raises UpdateError when the file is not such MTGJSON JSON.
    """
    try:
        with open_data(path) as stream:
            if keyed:
                for code, data in ijson.kvitems(stream, "data", use_float=True):
                    if isinstance(data, dict):
                        yield str(data.get("code") or code), data
            else:
                for data in ijson.items(stream, "data", use_float=True):
                    if isinstance(data, dict) and isinstance(data.get("code"), str):
                        yield data["code"], data
    except (ijson.JSONError, OSError, EOFError, UnicodeDecodeError) as err:
        raise UpdateError(f"{path}: not a readable MTGJSON file ({err})") from None


def set_document(data: dict) -> bytes:
    """An MTGJSON set file holding only what rulings need: ``code``, ``name``, ``releaseDate`` and the
    cards with rulings (name, faces, layout, set code, identifiers, rulings). Daily-changing card
    fields (prices, ranks, legalities) are left out, so the file changes only when its rulings do."""
    cards = [{key: card[key] for key in _MTGJSON_CARD_FIELDS if key in card}
             for card in data.get("cards") or [] if isinstance(card, dict) and card.get("rulings")]
    for card in cards:
        if isinstance(card.get("identifiers"), dict):
            card["identifiers"] = {k: v for k, v in card["identifiers"].items() if k == "scryfallOracleId"}
    shape = {"code": data.get("code"), "name": data.get("name"), "releaseDate": data.get("releaseDate"),
             "cards": cards}
    return _dump({"data": shape})


def set_documents(path: Path, keyed: bool, url: str, notes: list[str] | None = None,
                  taken=()) -> dict[str, bytes]:
    """The ingest files (set_file_name -> set_document bytes) of the sets in an MTGJSON file that have
    rulings; notes receives why a set is kept under another name than ``<CODE>.json``; taken: names
    already given (by the other files of one update). Raises UpdateError when the file holds no set."""
    documents: dict[str, bytes] = {}
    found = 0
    for code, data in mtgjson_sets(path, keyed):
        found += 1
        if any(isinstance(card, dict) and card.get("rulings") for card in data.get("cards") or []):
            name, note = set_file_name(code, documents.keys() | set(taken))
            documents[name] = set_document(data)
            if note and notes is not None:
                notes.append(note)
    if not found:
        raise UpdateError(f"{url}: holds no MTGJSON set")
    return documents


def _checked(read, path: Path, got: Download, *args):
    """read(path, *args); when the content is refused (UpdateError) a new download is discarded, so that the
    next update fetches it again rather than resuming it, and the previous cached file stays."""
    try:
        return read(path, *args)
    except UpdateError:
        if got.changed:
            got.discard()
        raise


def mtgjson_meta(client: Client, base: str) -> str:
    """The build date (or version) of the MTGJSON files from ``{base}/api/v5/Meta.json``."""
    url = f"{base}/api/v5/Meta.json"
    meta = client.get_json(url)
    inner = meta.get("data") or meta.get("meta") if isinstance(meta, dict) else None
    if not isinstance(inner, dict) or not (inner.get("date") or inner.get("version")):
        raise UpdateError(f"{url}: not an MTGJSON Meta file (no date or version)")
    return f"{inner.get('date')} {inner.get('version')}"


def fetch_mtgjson_file(client: Client, cache: Cache, base: str, name: str, version: str,
                       progress: Progress | None) -> Download:
    """Download one MTGJSON file unless the cached copy is of the same build or has the published SHA-256."""
    url = f"{base}/api/v5/{name}"
    known = cache.get(name)
    if known is not None and known.version == version:
        return Download(name, url, changed=False)
    try:
        published = client.get_text(url + ".sha256")
    except HttpStatus:
        published = None
    digest = published.split()[0].lower() if published and published.split() else None
    if known is not None and digest and known.sha256 == digest:
        known.version = version
        cache.put(name, known)
        return Download(name, url, changed=False)
    try:
        return download(client, cache, name, url, version=version, sha256=digest, progress=progress,
                        label=f"MTGJSON {name}")
    except HttpStatus as err:
        if err.status == 404 and name != "AllPrintings.json.gz":
            raise UpdateError(f"MTGJSON has no set {name.split('.')[0]!r} ({err})") from None
        raise


def update_mtgjson(client: Client, root: Path, base: str, sets: tuple[str, ...], progress: Progress | None
                   ) -> tuple[UpdateReport, Path]:
    """Fetch AllPrintings (or the given sets) from MTGJSON and rewrite ``root/ingest/sets``."""
    cache = Cache(root / "downloads")
    report = UpdateReport("mtgjson")
    version = mtgjson_meta(client, base)
    names = [f"{check_set_code(code)}.json.gz" for code in dict.fromkeys(sets)] or ["AllPrintings.json.gz"]
    names = list(dict.fromkeys(names))
    got = [fetch_mtgjson_file(client, cache, base, name, version, progress) for name in names]
    report.downloads.extend(got)
    documents: dict[str, bytes] = {}
    for item in got:
        raw = item.part if item.changed else cache.path(item.name)
        documents.update(_checked(set_documents, raw, item, item.name == "AllPrintings.json.gz", item.url,
                                  report.notes, documents.keys()))
    for item in got:
        item.commit(cache)
    folder = root / "ingest" / "sets"
    report.files_written = sync_folder(folder, documents, prune=not sets)
    report.files_total = len(documents)
    return report, folder
