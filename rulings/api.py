"""The front door: ``rulings.Index``, the Python API over one index folder, which every ``rulings`` command uses.

    with rulings.Index.open("my-index") as index:      # builds nothing unless asked
        index.ingest(["rulings/"])                       # -> IngestReport (``rulings ingest --format json``)
        hits = index.search("respond proliferate", lang="en", limit=5)
        hits[0]["id"], hits[0]["score"], hits[0]["snippet"]

Every answer is the JSON shape of PRODUCT.md (an entry is a dict: id, text, lang, mechanics, cards, sets,
date, dates, variants, related, translations; a search hit adds score and snippet), the very values the
CLI prints with ``--format json``. Every problem a caller can fix is a RulingsError (ingest/errors.py) whose
str() is the CLI's one line; any other exception is a bug.

Threads: an Index may be shared by threads, and several Index objects may be open at once (on one folder or
several); their methods run one at a time in a process, under one process-wide lock (_LOCK). The kept
Whoosh searchers and tables of search/index.py are process-wide and a Whoosh searcher must not be used by
two threads at once; a search is CPU-bound, so threads would not run two at once anyway (the GIL). A long
ingest() or update() holds the others up until it finishes: run it in another process (``rulings ingest``),
and the searches here pick up its new generation at their next call (search/folder.py). For more
throughput, use more processes (``rulings serve --workers N`` does).

Caches: what a read keeps (the opened Whoosh searcher of the live generation, the Chinese word table) is
kept per folder in the process and reused while the folder's files are unchanged; close() releases this
folder's. Importing this module imports nothing but the error classes: the search and ingest code is
imported by the methods that need it, so a search never loads the readers or the pipeline, and
importing ``rulings`` imports no Whoosh and changes nothing of any other module.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from rulings.ingest.errors import NoIndex, OtherVersion, QueryError, RulingsError, UnknownEntry

if TYPE_CHECKING:
    from rulings.search.catalog import IngestReport, SourceRecord
    from rulings.search.export import Selection
    from rulings.search.query import CardMatch
    from rulings.search.update import UpdateReport

_LOCK = threading.RLock()     # every Index method, for the whole process (see the module's docstring)

# The kinds of mechanic in the order ``rulings mechanics`` lists them (PRODUCT.md).
KINDS = ("keyword ability", "keyword action", "counters", "mana", "other", "ability word")

MECHANIC_LIMIT = 100_000      # entries of one mechanic (``rulings mechanics NAME``): all of them


def default_index() -> Path:
    """The default index folder: $RULINGS_INDEX, else ``<user data dir>/rulings/index`` (platformdirs)."""
    env = os.environ.get("RULINGS_INDEX")
    if env:
        return Path(env)
    import platformdirs  # only without $RULINGS_INDEX (a search imports only what it uses)
    return Path(platformdirs.user_data_dir("rulings")) / "index"


@dataclass(frozen=True)
class CardRulings:
    """What Index.card() finds for a name.

    cards: each card the name resolved to (query.CardMatch: card, exact, entries oldest first), the card
    of that exact full name first, then those with a face of that name; when no card has the name or a
    face of it, the cards whose name or a face begins with its words (begins=True), sorted by name.
    close: when nothing matched, up to 3 card names spelled most like it ("Did you mean"), else [].
    """

    name: str
    cards: list[CardMatch]
    begins: bool
    close: list[str]

    @property
    def entries(self) -> list[dict]:
        """Every entry of the cards, each once, in the order of cards and then of each card's entries."""
        return list({entry["id"]: entry for match in self.cards for entry in match.entries}.values())


@dataclass(frozen=True)
class MechanicRulings:
    """One mechanic (ingest/data/mechanics.json) and its entries, oldest first (undated last), then by id.

    id: ``proliferate``; name: the printed name (``Proliferate``); kind: one of KINDS; zh: Chinese names;
    rule: the CR rule number (``701.34``), "" when none; a mechanic no longer in the vocabulary has its id
    as name, kind ``other``.
    """

    id: str
    name: str
    kind: str
    zh: tuple[str, ...]
    rule: str
    entries: list[dict]


@dataclass(frozen=True)
class Removal:
    """What Index.remove() dropped: the sources (search/catalog.py SourceRecord), their rulings, and the
    entries left in the index."""

    sources: list[SourceRecord]
    rulings: int
    entries: int


def _empty_path(paths: Iterable) -> bool:
    return any(not os.fspath(path).strip() for path in paths)


def _positive(limit) -> None:
    """Raise QueryError unless limit is a whole number >= 1 (the CLI's --limit: click.IntRange(min=1))."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise QueryError(f"limit must be a whole number of 1 or more (got {limit!r})")


class Index:
    """One rulings index folder: search, browse, export, and ingest or remove sources.

    Open with Index.open(path) (a context manager; close() releases what reads keep open). Methods raise
    RulingsError subclasses with the CLI's one-line messages: QueryError (a query or filter it cannot
    answer; UnknownMechanic naming the closest ids), UnknownEntry, NoIndex, DamagedIndex, IndexBusy,
    IndexWriteError, ReadError. Threads: an Index may be shared by threads; its methods, and those of every
    other Index in the process, run one at a time (one process-wide lock; the module's docstring says why).
    """

    def __init__(self, path: Path, given: bool):
        self._path = path
        self._given = given

    # ------------------------------------------------------------ opening and closing

    @classmethod
    def open(cls, path: str | os.PathLike | None = None) -> Index:
        """The index in folder path (None: default_index()). Opens nothing yet and builds nothing: reads
        open the live generation when first called; a folder without an index is filled by ingest(), and
        ready() does what the CLI's reading commands do first (the demo corpus at the default location)."""
        if path is not None and not os.fspath(path):
            raise RulingsError("'': an empty path names no folder")
        return cls(Path(path) if path is not None else default_index(), path is not None)

    @property
    def path(self) -> Path:
        """The index folder (as given, or default_index())."""
        return self._path

    def ready(self, on_note: Callable[[str], None] | None = None) -> Index:
        """Make the folder ready to answer, as every reading command of the CLI does first; returns self.

        A folder that holds an index is left as it is. One whose Whoosh files are gone but whose remembered
        sources are intact is rewritten from them; a folder with no index is built from the bundled demo
        corpus, but only at the default location (opened with no path, or the path default_index() names):
        each is said once through on_note (a line of text). Raises NoIndex for another folder without an
        index (a mistyped folder is never filled with the demo), DamagedIndex for a damaged or incomplete
        index and for a folder that holds other files (search/catalog.py repairable()).
        """
        from rulings.search import index

        with _LOCK:
            note = on_note or (lambda line: None)
            if index.exists(self._path):
                if self._at_default():
                    self._renew_demo(note)
                return self
            from rulings.search import catalog  # building an index: the catalog and the bundled corpus
            if catalog.repairable(self._path):
                note(f"{self._path}: index files missing; rebuilding them from the remembered sources")
                catalog.rebuild_entries(self._path)
                return self
            if not self._at_default():
                if catalog.built_meanwhile(self._path):
                    return self
                raise self._no_index()
            from rulings.corpus import corpus_files
            report = catalog.ingest_if_missing(self._path, corpus_files())
            if report is not None:
                note(f"{self._path}: no index yet, so it was built from the bundled demo corpus "
                     f"({sum(len(f.rulings) for f in report.files)} rulings); 'rulings update' brings every "
                     "official ruling, 'rulings ingest PATH' your own files")
            return self

    def _at_default(self) -> bool:
        """True when this is the default location (opened with no path, or the path default_index() names)."""
        return not self._given or os.path.abspath(self._path) == os.path.abspath(default_index())

    def _renew_demo(self, note: Callable[[str], None]) -> None:
        """Rebuild the bundled demo at the default location when another version of rulings made it (the
        demo a reading command built before an upgrade); said once through note. An index of the user's
        own sources made by another version is left as it is: reading it raises OtherVersion, which says
        how to rebuild it from them."""
        from rulings.search import index

        try:
            with index.searcher(self._path):     # opened and kept for the command that follows
                return
        except OtherVersion:
            from rulings.search import catalog
            if not catalog.demo_only(self._path):
                raise
            from rulings.corpus import corpus_files
            report = catalog.ingest(self._path, corpus_files(), rebuild=True)
        note(f"{self._path}: the bundled demo index was made by another version of rulings, so it was "
             f"built again ({sum(len(f.rulings) for f in report.files)} rulings)")

    def close(self) -> None:
        """Release what reads of this folder keep open in the process (search/index.py release(): the kept
        Whoosh searchers of its generations, its Chinese word table). The Index stays usable: the next read
        opens them again."""
        from rulings.search import index

        with _LOCK:
            index.release(self._path)

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Hold the process lock for a read; a folder that holds no index and never held one (missing, empty,
        or another program's files) raises NoIndex rather than the DamagedIndex that opening it raised."""
        from rulings.ingest.errors import DamagedIndex

        with _LOCK:
            try:
                yield
            except DamagedIndex:
                if self._holds_no_index():
                    raise self._no_index() from None
                raise

    def _no_index(self) -> NoIndex:
        """The one NoIndex of a folder without an index: ready() and every read raise it."""
        return NoIndex(f"{self._path}: no rulings index here; make one with 'rulings ingest SOURCE... "
                       f"--index {self._path}' (or 'rulings update --index {self._path}' for every "
                       "official ruling)")

    def _holds_no_index(self) -> bool:
        from rulings.search import catalog, index
        from rulings.search import folder as index_folder

        try:
            live = index_folder.live(self._path)
        except RulingsError:
            return False            # a damaged CURRENT: that is damage, said as such
        return not index.exists(self._path) and not catalog.was_index(live) and not catalog.repairable(self._path)

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Index({os.fspath(self._path)!r})"

    # ------------------------------------------------------------ questions

    def mechanic_id(self, name: str) -> str:
        """The id of the mechanic a person means by name: an id, a printed name, any of its forms, a Chinese
        name or a CR glossary name (``Proliferated``, ``double strike``, ``增殖``, ``totem armor``).
        The one resolver (ingest/tag.py resolve_mechanic) behind every mechanic filter, query and command.
        Raises UnknownMechanic (a QueryError) naming the closest ids."""
        from rulings.ingest.tag import resolve_mechanic

        return resolve_mechanic(name)

    def search(self, query: str | None = None, *, mechanics: Sequence[str] | str = (), card: str | None = None,
               set_code: str | None = None, lang: str | None = None, since: str | None = None,
               until: str | None = None, limit: int = 20, every_word: bool = False) -> list[dict]:
        """The best-matching entries for query, best first: at most limit (>= 1) entry dicts of PRODUCT.md,
        each with ``score`` (float, as shown) and ``snippet`` (the text with ``**word**`` marks). [] when
        nothing matches.

        query: the search language of ``rulings search`` (a plain query is best match; quotes, +/-, AND,
        NOT, field:value); None or "" with at least one filter lists the filtered entries. Filters select,
        never reorder: mechanics (ids or names, every one required), card (a full name, a face, or the
        first words of exactly one card), set_code, lang (``zh`` is zh-Hans and zh-Hant), since and until
        (ISO dates, or a year or month: every day in it). every_word: only entries holding every word.
        Raises QueryError (a query of no searchable words, an unknown mechanic, several cards beginning
        with card's words, a limit that is not a whole number >= 1), NoIndex, DamagedIndex.
        """
        from rulings.search import query as queries

        wanted = [mechanics] if isinstance(mechanics, str) else list(mechanics)
        _positive(limit)
        with self._reading():
            if card:
                from rulings.search.cards import card_selector  # a card's first words select it too
                card = card_selector(self._path, card)
            filters = queries.Filters(wanted, card, set_code, lang, since, until)
            return queries.search(self._path, query, filters, limit, every_word=every_word)

    def suggestions(self, query: str, limit: int = 3) -> list[str]:
        """Indexed words spelled like the query's words that match nothing ("Did you mean"), closest first;
        [] when every word matches something. Filter values and operators are not looked at."""
        from rulings.search import query as queries

        _positive(limit)
        with self._reading():
            return queries.suggestions(self._path, query, limit)

    def entry(self, entry_id: str) -> dict:
        """The entry with this id or one of its aliases (any case, surrounding space ignored), in full:
        variants with sources and similarity, related entries, translations. Raises UnknownEntry."""
        from rulings.search import query as queries

        with self._reading():
            found = queries.entry_by_id(self._path, entry_id)
        if found is None:
            raise UnknownEntry(f"no entry has the id {entry_id!r}")
        return found

    def card(self, name: str) -> CardRulings:
        """Every entry that applies to the card name, oldest first (CardRulings, see there): name is the
        full name or a face of a split, adventure or double-faced card, in any case, with or without
        accents (``Fire/Ice`` is ``Fire // Ice``), or the first words of card names (``Jace``). Never
        raises for a name that matches nothing: cards is [] and close names the closest cards."""
        from rulings.search import cards
        from rulings.search import query as queries

        with self._reading():
            matches = queries.card_matches(self._path, name)
            begins = not matches                     # no card has the name: the cards that begin with it
            if begins:
                matches = cards.cards_starting_with(self._path, name)
            close = cards.close_cards(self._path, name) if not matches else []
        return CardRulings(name, matches, begins, close)

    def mechanics(self, lang: str | None = None) -> list[dict]:
        """Every mechanic with entries, ``[{"id", "name", "kind", "count"}]`` (``rulings mechanics --format
        json``): grouped by kind in KINDS order, then most entries first, then by id; count: entries
        tagged with it (in lang when given; ``zh`` is zh-Hans and zh-Hant). [] for an empty index."""
        from rulings.ingest.tag import vocabulary
        from rulings.search import query as queries

        with self._reading():
            counts = queries.mechanic_counts(self._path, lang)
        vocab = {m.id: m for m in vocabulary()}
        rows = [{"id": m, "name": vocab[m].name if m in vocab else m,
                 "kind": vocab[m].kind if m in vocab else "other", "count": n} for m, n in counts.items()]
        rows.sort(key=lambda r: (KINDS.index(r["kind"]) if r["kind"] in KINDS else len(KINDS), -r["count"], r["id"]))
        return rows

    def mechanic(self, name: str, lang: str | None = None) -> MechanicRulings:
        """The mechanic name means (mechanic_id(): raises UnknownMechanic) and every entry tagged with it
        (in lang when given), oldest first (undated last), then by id."""
        from rulings.ingest.tag import vocabulary
        from rulings.search import query as queries

        mechanic_id = self.mechanic_id(name)
        with self._reading():
            entries = queries.search(self._path, None, queries.Filters(mechanics=[mechanic_id], lang=lang),
                                     limit=MECHANIC_LIMIT)
        entries.sort(key=lambda e: (min(e["dates"]) if e["dates"] else "9999", e["id"]))
        known = next((m for m in vocabulary() if m.id == mechanic_id), None)
        if known is None:
            return MechanicRulings(mechanic_id, mechanic_id, "other", (), "", entries)
        return MechanicRulings(mechanic_id, known.name, known.kind, tuple(known.zh), known.rule, entries)

    def sources(self) -> list[SourceRecord]:
        """The ingested sources (search/catalog.py SourceRecord: path as remembered, absolute or
        ``rulings:corpus/NAME``; result with format, rulings, skipped and rejected; entries), by path.
        Raises NoIndex for a folder that holds no index."""
        from rulings.search import catalog

        with self._reading():
            found = catalog.sources(self._path)
            if not found and self._holds_no_index():
                raise self._no_index()
            return found

    def stats(self) -> dict:
        """``rulings stats --format json`` (PRODUCT.md): rulings, entries, rejected_rulings, languages,
        formats, mechanics, sources, warnings. Raises DamagedIndex when the figures cannot be read."""
        figures = self.summary()
        shown = {k: figures[k] for k in ("rulings", "entries", "rejected_rulings", "languages",
                                         "formats", "mechanics", "sources")}
        shown["warnings"] = figures.get("warnings", {})
        return shown

    def summary(self) -> dict:
        """Every figure the last ingest wrote (search/catalog.py write_summary(): stats() and variants,
        rejected_reasons, language_mismatches), with ``ingested``: its time (ISO, UTC)."""
        from rulings.search import catalog

        with self._reading():
            return catalog.summary(self._path) | {"ingested": catalog.ingested_at(self._path)}

    # ------------------------------------------------------------ exports

    def export(self, selection: Selection | None = None, fmt: str = "jsonl",
               out: str | os.PathLike | IO[bytes] | None = None, *, group_by: str | None = None,
               variants: bool = False) -> bytes:
        """The bytes of ``rulings export`` (UTF-8) for the selection, in export order (oldest date first,
        undated last, then id); written to out when given, and returned.

        selection: search/export.py Selection (None: every entry); its mechanics may be names and its card
        a card's first words (resolved as search() does; the metadata records what they resolved to).
        fmt: jsonl (a ``{"meta": ...}`` line, then one entry per line), json, csv, md, html; group_by
        (md, html): mechanic, card or set; variants (csv): one row per variant. out: a file path (written
        whole or not at all; refused inside an index folder), or a binary stream. The same index gives the
        same bytes: ``created`` is its last ingest time. Raises QueryError, RulingsError (out refused or
        not writable).
        """
        from rulings.search import catalog
        from rulings.search import export as exporter

        if fmt not in exporter.FORMATS:
            raise RulingsError(f"format must be one of {', '.join(exporter.FORMATS)} (got {fmt!r})")
        if group_by is not None and group_by not in exporter.GROUPS:
            raise RulingsError(f"group_by must be one of {', '.join(exporter.GROUPS)} (got {group_by!r})")
        target = None if out is None or hasattr(out, "write") else Path(out)
        if target is not None:
            self._refuse_inside_index(os.fspath(out), target)
        with self._reading():
            selection = self._resolved(selection)
            entries = exporter.select(self._path, selection)
            data = exporter.render(entries, fmt, selection, catalog.ingested_at(self._path), group_by,
                                   variants).encode("utf-8")
        if target is not None:
            from rulings.search.output import write_atomic
            try:
                write_atomic(target, data, durable=True)
            except OSError as err:
                raise RulingsError(f"{os.fspath(out)}: cannot be written ({err.strerror or err})") from None
        elif out is not None:
            out.write(data)
            out.flush()
        return data

    def export_pages(self, selection: Selection | None, folder: str | os.PathLike, group_by: str) -> list[str]:
        """A large HTML export as one page per group of group_by (mechanic, card or set) and an
        ``index.html`` linking them, written into folder (made when missing), each page whole or not at
        all; returns the file names written, in the order written. Refused inside an index folder."""
        from rulings.search import catalog
        from rulings.search import export as exporter
        from rulings.search.output import write_atomic

        folder = Path(folder)
        self._refuse_inside_index(os.fspath(folder), folder / exporter.SPLIT_INDEX)
        with self._reading():
            selection = self._resolved(selection)
            entries = exporter.select(self._path, selection)
            pages = exporter.split_html(entries, selection, catalog.ingested_at(self._path), group_by)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for name, page in pages.items():
                write_atomic(folder / name, page.encode("utf-8"), durable=True)
        except OSError as err:
            raise RulingsError(f"{err.filename or folder}: cannot be written ({err.strerror or err})") from None
        return list(pages)

    def _refuse_inside_index(self, shown: str, target: Path) -> None:
        from rulings.search.output import index_folder_holding

        holder = index_folder_holding(target, self._path)
        if holder is not None:
            raise RulingsError(f"{shown}: lies inside the index folder {holder}; an export would overwrite "
                               "the index's files, write it elsewhere")

    def _resolved(self, selection: Selection | None) -> Selection:
        """selection with mechanic names as ids and a card's first words as its name (search/cards.py
        card_selector()); a new Selection() for None."""
        from dataclasses import replace

        from rulings.search import export as exporter

        if selection is None:
            return exporter.Selection()
        card = selection.card
        if card:
            from rulings.search.cards import card_selector
            card = card_selector(self._path, card)
        return replace(selection, mechanics=[self.mechanic_id(m) for m in selection.mechanics], card=card)

    # ------------------------------------------------------------ changing the index

    def ingest(self, paths: Sequence[str | os.PathLike] | None = None, rebuild: bool = False) -> IngestReport:
        """Add the files and folders to the index (``rulings ingest``; None or []: the bundled corpus).

        A source ingested before under the same path is replaced by its current content; a folder
        ingested again also drops the sources under it that are gone; rebuild starts from an empty index.
        Files that hold no rulings or cannot be read are listed in the report (skipped, rejected), never
        raised; report.named_failures lists the paths given that cannot be read (the CLI exits 1 for
        them). Returns search/catalog.py IngestReport (to_json(): the ``ingest --format json`` shape).
        Raises RulingsError for an empty path, or for no paths where the bundled demo would go into an
        index of the user's own sources (``_refuse_demo_over_own_sources``); IndexBusy, IndexWriteError,
        DamagedIndex.
        """
        from rulings.search import catalog

        paths = list(paths or ())
        if _empty_path(paths):
            raise RulingsError("'': an empty path names no file or folder")
        if not paths:
            from rulings.corpus import corpus_files
            self._refuse_demo_over_own_sources(rebuild)
            paths = corpus_files()
        with _LOCK:
            if not rebuild and self._at_default():
                self._renew_demo_state()
            return catalog.ingest(self._path, [Path(p) for p in paths], rebuild=rebuild)

    def _refuse_demo_over_own_sources(self, rebuild: bool) -> None:
        """Raise RulingsError when ``ingest`` without paths would put the bundled demo into an index of the
        user's own sources: mixed in beside them, or (``rebuild``) in their place. An absent or empty index,
        or one holding only the bundled corpus, takes the demo. An index whose remembered sources cannot be
        read takes it only at the default location (where the demo lives); elsewhere its DamagedIndex or
        OtherVersion is raised (naming the sources is the way out), since what the folder held is unknown."""
        from rulings.corpus import bundled_name, former_copy
        from rulings.ingest.errors import DamagedIndex
        from rulings.search import catalog

        try:
            paths = [r.path for r in catalog.sources(self._path)]
        except (DamagedIndex, OtherVersion):
            if self._at_default():
                return
            raise                       # its message asks for 'rulings ingest --rebuild' with the sources
        own = [path for path in paths if not (bundled_name(path) or former_copy(path))]
        if own and (rebuild or len(own) == len(paths)):     # the demo already beside them is only refreshed
            doing = "replace" if rebuild else "be mixed into"
            count = f"{len(own)} source{'' if len(own) == 1 else 's'}"
            raise RulingsError(f"{self._path}: holds {count} of your own, which the bundled demo would {doing}; "
                               f"name what to ingest: 'rulings ingest {'--rebuild ' if rebuild else ''}SOURCE...' "
                               "('rulings sources' lists them)")

    def _renew_demo_state(self) -> None:
        """Rebuild the bundled demo at the default location when another version of rulings wrote its
        remembered state (an upgrade that changed what the index holds: search/catalog.py STATE_VERSION),
        so that the first ``rulings ingest`` after an upgrade adds to a current demo instead of asking for a
        rebuild of sources the user never gave. An index of the user's own sources is left as it is."""
        from rulings.search import catalog, index

        if not index.exists(self._path):
            return
        try:
            catalog.load_state(self._path, corpus=False)
        except OtherVersion:
            if not catalog.demo_only(self._path):
                raise
            from rulings.corpus import corpus_files
            catalog.ingest(self._path, corpus_files(), rebuild=True)

    def remove(self, path: str | os.PathLike) -> Removal:
        """Drop an ingested source (a file, or a folder: every source under it) and every variant only it
        contributed (``rulings remove``). Raises RulingsError when no source has that path."""
        from rulings.search import catalog

        if _empty_path([path]):
            raise RulingsError("'': an empty path names no file or folder")
        with _LOCK:
            dropped, entries = catalog.remove(self._path, Path(path))
        return Removal(dropped, sum(len(record.result.rulings) for record in dropped), entries)

    def update(self, source: str = "scryfall", sets: Sequence[str] = (), base_url: str | None = None, *,
               timeout: float = 30.0, retries: int = 3, backoff: float = 1.0, min_delay: float = 0.1,
               progress: bool = False) -> UpdateReport:
        """Fetch the official rulings data (only what changed: search/update.py), then ingest it.

        source: ``scryfall`` or ``mtgjson`` (sets: MTGJSON set codes, default AllPrintings); base_url: the
        source's server (default $RULINGS_SCRYFALL_URL / $RULINGS_MTGJSON_URL, else the official one).
        timeout: seconds without an answer; retries and backoff (seconds) for 429 and 5xx answers;
        min_delay: seconds between requests. progress: a progress bar on stderr when it is a terminal.
        Raises UpdateError (Offline, NoAnswer, CutShort, HttpStatus, Mismatch) before anything changes.
        """
        from rulings.search import update as updater
        from rulings.search.fetch import Client, Progress

        client = Client(timeout=timeout, retries=retries, backoff=backoff, min_delay=min_delay)
        with client, _LOCK:
            return updater.update(self._path, source, tuple(sets), base_url, client=client,
                                  progress=Progress() if progress else None)
