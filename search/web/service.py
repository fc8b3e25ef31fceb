"""What ``rulings serve`` and ``rulings mcp`` answer, through rulings.Index, the front door the command line uses.

``Rulings(index_dir)`` answers a search, an entry, a card, the mechanics, one mechanic, the figures and an
export through rulings.Index (rulings/api.py, with its one mechanic resolver), as ``rulings search``,
``show``, ``card``, ``mechanics``, ``stats`` and ``export`` do, and raises their errors with their
messages: a RulingsError is the caller's problem, answered 400 (BadRequest, a QueryError: a query it
cannot read, an unknown filter value) or 404 (NotFound: no entry, card or mechanic of that name, in the
path). Request values are capped (MAX_QUERY characters for a
query, MAX_VALUE for any other value, MAX_LIMIT results) and never reach a file path: they are looked up
in the index, the index folder is the one the server was started with.

Generations: each call asks search/folder.py which generation is live, as every CLI command does (the
index functions open ``DIR/CURRENT``'s generation), so an ingest, remove or update running meanwhile is
picked up after it switched ``CURRENT``, without a restart, and a call running across the switch answers
from the generation it opened (the previous one stays until the next update). A DamagedIndex raised while
the live generation changed under a call is retried once on the new one.

Answers are kept per generation (``_Memo``: the MEMO_SIZE most recently used, holding at most MEMO_ENTRIES
entries together): they change only with the index. This matters for what scans every entry (mechanic
counts, an alias or a miss of an id, the cards a name begins: 0.2 to 0.3 s on the real corpus) and for the
searches a bot or a page sends again; /api/search keeps its JSON bytes under the request's query string
(search_json), given from the server's event loop before the request reaches the framework (kept_json).
After a switch the kept answers of the previous generation are still given while a warmer thread answers
the same questions again on the new generation, most recently asked first, one at a time; then the new
generation's answers are given, all at once. A question not kept is answered on the new generation at
once. So no call waits for a whole memo to be made again (answering a memo's searches again costs
seconds of CPU per worker, and every request would queue behind them), and each answer comes from
one complete generation. The previous answers are given for at most WARM_SECONDS after the first switch
they missed, however often the generation changes.

Threads: one lock per Rulings (``_lock``) serialises calls into the library (rulings.Index, which runs its
calls one at a time in the process anyway: its threading rule), the warmer's too; a short
second lock (``_kept``) guards the memos and is never held while computing, so a kept answer never
waits for a search. Whoosh searchers are not to be shared between threads (a kept searcher's files have
one read position) and the kept-searcher table of search/index.py is a plain dict; a search is
CPU-bound, so threads would not run two at once anyway (the GIL): more throughput comes from more
processes (``rulings serve --workers N``).
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from rulings.api import Index
from rulings.ingest.controls import escape_json_controls
from rulings.ingest.errors import DamagedIndex, QueryError, RulingsError, UnknownEntry, UnknownMechanic
from rulings.search import folder

LIMIT = 20                # results of a search when no limit is given (rulings search --limit)
MAX_LIMIT = 100           # the most results of one search
LIST_LIMIT = 100          # entries of a card or mechanic listed at once when no limit is given
MAX_LIST = 1000           # the most entries of a card or mechanic listed at once
MAX_QUERY = 500           # characters of a query (best match reads at most 64 words: search/query.py)
MAX_VALUE = 200           # characters of any other value (an id, a card name, a set, a date)
MAX_MECHANICS = 8         # mechanic filters of one search
MEMO_SIZE = 512           # answers kept per generation (_memo)
MEMO_ENTRIES = 20_000     # entries those answers may hold together (a large mechanic's list counts its entries)
WARM_SECONDS = 10.0       # the longest the previous generation's kept answers are given after a switch
_MISSING = object()       # no answer kept


class BadRequest(QueryError):
    """A request value the server refuses before searching (too long, not a date, a limit out of range)."""


class NotFound(RulingsError):
    """No entry, card or mechanic answers to the name in the path."""


@dataclass
class SearchArgs:
    """A search's query and filters as a request gives them (search and export share the filters)."""

    q: str | None = None
    mechanic: list[str] = field(default_factory=list)
    card: str | None = None
    set: str | None = None
    lang: str | None = None
    since: str | None = None
    until: str | None = None

    def checked(self) -> "SearchArgs":
        """The same values with empty ones as None, each within its cap; raises BadRequest."""
        mechanics = [m for m in (checked_value("mechanic", m) for m in self.mechanic) if m]
        if len(mechanics) > MAX_MECHANICS:
            raise BadRequest(f"mechanic: at most {MAX_MECHANICS} mechanics (got {len(mechanics)})")
        return SearchArgs(checked_value("q", self.q, MAX_QUERY), mechanics, checked_value("card", self.card),
                          checked_value("set", self.set), checked_value("lang", self.lang),
                          checked_date("since", self.since), checked_date("until", self.until))

    def given(self) -> dict:
        """The filters given, in the order of the search form (for links and the page's summary)."""
        def kept(value):
            return value.strip() if isinstance(value, str) and value.strip() else None

        raw = {"mechanic": [kept(m) for m in self.mechanic if kept(m)], "card": kept(self.card),
               "set": kept(self.set), "lang": kept(self.lang), "since": kept(self.since), "until": kept(self.until)}
        return {k: v for k, v in raw.items() if v}

    def reversed_dates(self) -> str | None:
        """The CLI's warning when since is after until (search/commands/options.py warn_if_reversed)."""
        since, until = self.since, self.until
        if since and until and since[:len(until)] > until:
            return f"since {since} is after until {until}, so nothing can match"
        return None


def checked_value(name: str, value: str | None, most: int = MAX_VALUE) -> str | None:
    """value without surrounding space, None when empty; BadRequest past most characters."""
    if value is None:
        return None
    if len(value) > most:
        raise BadRequest(f"{name} is too long ({len(value)} characters; at most {most})")
    return value.strip() or None


def checked_date(name: str, value: str | None) -> str | None:
    """A since/until value as the CLI takes it (a year, a month or a day: search/commands/options.py IsoDate),
    with the CLI's message for anything else."""
    value = checked_value(name, value)
    if value is None:
        return None
    import click

    from rulings.search.commands.options import IsoDate
    try:
        return IsoDate().convert(value, None, None)
    except click.BadParameter as err:
        raise BadRequest(f"{name}: {err.message}") from None


def checked_limit(value: int | None, default: int, most: int, name: str = "limit") -> int:
    if value is None:
        return default
    if not 1 <= value <= most:
        raise BadRequest(f"{name} must be between 1 and {most} (got {value})")
    return value


def checked_offset(value: int | None) -> int:
    if value is None:
        return 0
    if value < 0:
        raise BadRequest(f"offset must be 0 or more (got {value})")
    return value


@dataclass
class _Memo:
    """The answers kept for one generation: key -> (value, weight, make, weigh), most recently used last;
    make() answers again, weigh(value) gives the weight (the entries it holds)."""

    generation: tuple
    answers: OrderedDict = field(default_factory=OrderedDict)
    weight: int = 0
    started: float = field(default_factory=time.monotonic)     # since when it is awaited (time.monotonic() s)
    tried: set = field(default_factory=set)                    # keys the warmer answered again

    def put(self, key: tuple, kept: tuple) -> None:
        if key in self.answers:
            self.weight -= self.answers[key][1]
        self.answers[key] = kept
        self.weight += kept[1]
        self.tried.add(key)
        while len(self.answers) > MEMO_SIZE or (self.weight > MEMO_ENTRIES and len(self.answers) > 1):
            self.weight -= self.answers.popitem(last=False)[1][1]


class Rulings:
    """The answers of one index folder (see the module's docstring); every method may raise RulingsError."""

    def __init__(self, index_dir: Path):
        self.index_dir = Path(index_dir)
        self.index = Index.open(self.index_dir)
        self._lock = threading.RLock()       # held while calling into the library: one call at a time
        self._kept = threading.Lock()        # held only to read or change the memos, never while computing
        self._memo: _Memo | None = None      # the answers calls are given
        self._next: _Memo | None = None      # the live generation's, while it re-answers _memo's questions
        self._warmer: threading.Thread | None = None

    # ------------------------------------------------------------ plumbing

    def generation(self) -> tuple:
        """The live generation folder and its state's time: changes exactly when an update switched."""
        live = folder.live(self.index_dir)
        try:
            stamp = (live / folder.STATE).stat().st_mtime_ns
        except OSError:
            stamp = None
        return str(live), stamp

    def _call(self, fn: Callable, *args):
        """fn(*args) under the lock; a DamagedIndex while the live generation changed is tried once again."""
        with self._lock:
            before = self.generation()
            try:
                return fn(*args)
            except DamagedIndex:
                if self.generation() == before:
                    raise
                return fn(*args)

    def _memos(self, live: tuple) -> tuple[_Memo, ...]:
        """The memos a call looks in for the live generation: the answers given first (while the warmer
        answers their questions on the newer generation, so that every answer of one switches at the same
        moment), then the newer generation's (questions first asked since); starts the warmer when the live
        generation is newer than the answers given and some are kept. Call it holding _kept."""
        if self._memo is None or (self._memo.generation != live and not self._memo.answers):
            self._memo, self._next = _Memo(live), None
        elif self._memo.generation != live:
            if self._next is None or self._next.generation != live:
                # the deadline counts from the first switch the given answers missed, so that switches
                # coming faster than a warm-up never keep them given for longer than WARM_SECONDS
                self._next = _Memo(live, started=self._next.started if self._next else time.monotonic())
            if self._warmer is None:
                self._warmer = threading.Thread(target=self._warm, name="rulings-warm", daemon=True)
                self._warmer.start()
        return (self._memo,) if self._next is None else (self._memo, self._next)

    def _kept_value(self, key: tuple, live: tuple):
        """The answer kept under key (while the live generation warms, the previous one's, else one made on
        the live generation), else _MISSING; takes only the short lock."""
        with self._kept:
            for memo in self._memos(live):
                found = memo.answers.get(key)
                if found is not None:
                    memo.answers.move_to_end(key)
                    return found[0]
            return _MISSING

    def _keep(self, key: tuple, generation: tuple, value, make: Callable, weigh: Callable) -> None:
        """Keep value, made by make() on generation, in that generation's memo (none: not kept)."""
        with self._kept:
            for memo in (self._next, self._memo):
                if memo is not None and memo.generation == generation:
                    memo.put(key, (value, weigh(value), make, weigh))
                    return

    def _memo_get(self, key: tuple, make: Callable, weight: Callable = lambda value: 1):
        """make() kept per generation under key; weight(value): the entries it holds (see MEMO_ENTRIES)."""
        found = self._kept_value(key, self.generation())
        if found is not _MISSING:
            return found
        with self._lock:
            generation = self.generation()
            found = self._kept_value(key, generation)         # made by the call this one waited for
            if found is not _MISSING:
                return found
            value = self._call(make)
            if self.generation() == generation:               # switched meanwhile: answered, but not kept
                self._keep(key, generation, value, make, weight)
            return value

    def _warm(self) -> None:
        """The warmer thread: answer the questions kept for the previous generation again on the live one,
        most recently asked first, one at a time under the lock (a request's search waits for at most one),
        then give the live generation's answers. Gives them as they are after WARM_SECONDS; starts over
        when the live generation changes again meanwhile. Should it fail (a damaged index), the live
        generation's answers are given at once, as they are."""
        try:
            self._warming()
        finally:
            with self._kept:
                if self._warmer is threading.current_thread():     # it failed before giving them
                    if self._next is not None:
                        self._memo, self._next = self._next, None
                    self._warmer = None

    def _warming(self) -> None:
        while True:
            with self._kept:
                given, target = self._memo, self._next
                todo = [] if target is None else [(key, kept[2], kept[3]) for key, kept in
                                                  reversed(given.answers.items()) if key not in target.tried]
                if target is None or not todo or time.monotonic() - target.started > WARM_SECONDS:
                    if target is not None:
                        self._memo, self._next = target, None
                    self._warmer = None
                    return
            for key, make, weigh in todo:
                if self._next is not target or time.monotonic() - target.started > WARM_SECONDS:
                    break
                target.tried.add(key)
                with self._lock:
                    generation = self.generation()
                    if generation != target.generation:      # switched again: start over on the newest
                        with self._kept:
                            self._memos(generation)
                        break
                    try:
                        value = make()
                    except RulingsError:                     # an error now: answered when asked again
                        continue
                    if self.generation() == generation:
                        self._keep(key, generation, value, make, weigh)
                time.sleep(0)                                # a request waiting for the lock gets it

    # ------------------------------------------------------------ questions

    def search(self, args: SearchArgs, limit: int | None = None, every_word: bool = False) -> dict:
        """``{"query", "total", "more", "results", "suggestions"}``: the entries ``rulings search`` finds
        (PRODUCT.md shape, with score and snippet), best first. total counts the results given (at most
        limit), more says whether the index holds further matches; suggestions are the CLI's "Did you
        mean" words when nothing was found. A query of no words and no filter is a BadRequest."""
        args = args.checked()
        limit = checked_limit(limit, LIMIT, MAX_LIMIT)
        find = self._searching(args, limit, every_word)
        hits, close = self._memo_get(self._search_key(args, limit, every_word), find, lambda found: len(found[0]))
        return search_answer(args, limit, hits, close)

    def search_json(self, args: SearchArgs, limit: int | None = None, every_word: bool = False,
                    key: tuple | None = None) -> bytes:
        """search()'s answer as the API sends it (json_bytes()), kept per generation as bytes under key
        (default: the checked arguments), so that a question asked again costs no rendering; the server
        keeps it under its request's query string, found again by kept_json() before any parameter is
        read. Raises BadRequest as search()."""
        args = args.checked()
        limit = checked_limit(limit, LIMIT, MAX_LIMIT)
        find = self._searching(args, limit, every_word)

        def run() -> tuple[bytes, int]:
            hits, close = find()
            return json_bytes(search_answer(args, limit, hits, close)), min(len(hits), limit)

        key = key or ("json",) + self._search_key(args, limit, every_word)
        return self._memo_get(key, run, lambda made: made[1])[0]

    def kept_json(self, key: tuple) -> bytes | None:
        """The bytes search_json() keeps under key (the live generation's, else, while it warms, the previous
        one's), else None; never waits for a search running meanwhile (the server asks this on its event
        loop). Raises DamagedIndex when the index folder is damaged."""
        found = self._kept_value(key, self.generation())
        return None if found is _MISSING else found[0]

    @staticmethod
    def _search_key(args: SearchArgs, limit: int, every_word: bool) -> tuple:
        return ("search", args.q, tuple(args.mechanic), args.card, args.set, args.lang, args.since, args.until,
                limit, every_word)

    def _searching(self, args: SearchArgs, limit: int, every_word: bool) -> Callable[[], tuple[list, list]]:
        """The search of checked args as a function: () -> (at most limit + 1 hits, suggestions)."""
        def run():
            hits = self.index.search(args.q, mechanics=args.mechanic, card=args.card, set_code=args.set,
                                     lang=args.lang, since=args.since, until=args.until, limit=limit + 1,
                                     every_word=every_word)
            close = self.index.suggestions(args.q) if not hits and args.q else []
            return hits, close

        return run

    def entry(self, entry_id: str) -> dict:
        """The entry with this id or alias (``rulings show``); NotFound with the CLI's message."""
        wanted = checked_value("id", entry_id) or ""
        found = self._memo_get(("entry", wanted.lower()), lambda: self._entry_or_none(wanted))
        if found is None:
            raise NotFound(f"no entry has the id {entry_id!r}")
        return found

    def _entry_or_none(self, entry_id: str) -> dict | None:
        try:
            return self.index.entry(entry_id)
        except UnknownEntry:
            return None

    def related(self, entry: dict) -> list[dict]:
        """The entry's related entries as the page shows them: ``{"id", "reason", "text"}`` (text None when
        the other entry is gone), as ``rulings show`` lists them."""
        shown = []
        for item in entry["related"]:
            other = self._memo_get(("entry", item["id"].lower()), lambda i=item["id"]: self._entry_or_none(i))
            shown.append({"id": item["id"], "reason": item["reason"], "text": other["text"] if other else None})
        return shown

    def card(self, name: str, limit: int | None = None, offset: int | None = None) -> dict:
        """``{"card", "cards", "total", "offset", "results"}``: every entry that applies to the card
        (``rulings card``: the exact name or a face, else the cards its first words begin), oldest first;
        cards names each card matched (several when a face or first words match more than one). NotFound
        with the CLI's "No rulings for" line and its closest names when no card matches."""
        wanted = checked_value("name", name) or ""
        limit = checked_limit(limit, LIST_LIMIT, MAX_LIST)
        offset = checked_offset(offset)

        def run():
            found = self.index.card(wanted)
            return [(m.card, m.exact, m.entries) for m in found.cards], found.begins, found.close

        matches, started, close = self._memo_get(("card", wanted.casefold()), run,
                                                 lambda found: sum(len(group) for _, _, group in found[0]))
        if not matches:
            raise NotFound(f"No rulings for {wanted!r}." + (f" Did you mean: {'; '.join(close)}?" if close else ""))
        entries = list({e["id"]: e for _, _, group in matches for e in group}.values())
        return {"card": wanted, "cards": [{"name": card, "exact": exact and not started, "entries": len(group)}
                                          for card, exact, group in matches],
                "begins": started, "total": len(entries), "offset": offset,
                "results": entries[offset:offset + limit]}

    def mechanics(self, lang: str | None = None) -> list[dict]:
        """``rulings mechanics --format json`` rows (``{"id", "name", "kind", "count"}``, grouped by kind, most
        entries first), each with its Chinese names (``zh``)."""
        lang = checked_value("lang", lang)

        def run():
            from rulings.ingest.tag import vocabulary

            zh = {m.id: list(m.zh) for m in vocabulary()}
            return [row | {"zh": zh.get(row["id"], [])} for row in self.index.mechanics(lang)]

        return self._memo_get(("mechanics", lang), run)

    def mechanic(self, name: str, lang: str | None = None, limit: int | None = None,
                 offset: int | None = None) -> dict:
        """``{"mechanic": {"id", "name", "kind", "zh", "rule", "count"}, "total", "offset", "results"}``:
        the entries tagged the mechanic (``rulings mechanics NAME``: an id, a printed name, any form, a
        Chinese name), oldest first. NotFound with the resolver's message (the closest ids)."""
        wanted = checked_value("mechanic", name) or ""
        lang = checked_value("lang", lang)
        limit = checked_limit(limit, LIST_LIMIT, MAX_LIST)
        offset = checked_offset(offset)
        try:
            mechanic_id = self.index.mechanic_id(wanted)
        except UnknownMechanic as err:
            raise NotFound(str(err)) from None
        found = self._memo_get(("mechanic", mechanic_id, lang), lambda: self.index.mechanic(mechanic_id, lang),
                               lambda found: len(found.entries))
        entries = found.entries
        about = {"id": found.id, "name": found.name, "kind": found.kind, "zh": list(found.zh), "rule": found.rule,
                 "count": len(entries)}
        return {"mechanic": about, "total": len(entries), "offset": offset,
                "results": entries[offset:offset + limit]}

    def stats(self) -> dict:
        """``rulings stats --format json`` (PRODUCT.md), with the last ingest time (``ingested``)."""
        def run():
            return self.index.stats() | {"ingested": self.index.summary()["ingested"]}

        return self._memo_get(("stats",), run)

    def export(self, fmt: str, args: SearchArgs, any_mechanic: bool = False, group_by: str | None = None,
               variants: bool = False) -> bytes:
        """The bytes ``rulings export`` writes for this selection (search/export.py), UTF-8."""
        from rulings.search import export as exporter

        if fmt not in exporter.FORMATS:
            raise BadRequest(f"format must be one of {', '.join(exporter.FORMATS)} (got {fmt!r})")
        if group_by is not None and group_by not in exporter.GROUPS:
            raise BadRequest(f"group_by must be one of {', '.join(exporter.GROUPS)} (got {group_by!r})")
        args = args.checked()

        def run():
            selection = exporter.Selection(list(args.mechanic), any_mechanic, args.card, args.set, args.lang,
                                           args.since, args.until, args.q)
            return self.index.export(selection, fmt, group_by=group_by, variants=variants)

        return self._call(run)


def search_answer(args: SearchArgs, limit: int, hits: list[dict], close: list[str]) -> dict:
    """The answer of a search (Rulings.search) from at most limit + 1 hits and the suggestions."""
    return {"query": args.q or "", "total": min(len(hits), limit), "more": len(hits) > limit,
            "results": hits[:limit], "suggestions": close}


def json_bytes(value) -> bytes:
    """JSON as the CLI prints it: UTF-8 without ASCII escapes, DEL and C1 controls escaped (json_text)."""
    try:
        text = orjson.dumps(value).decode("utf-8")
    except TypeError:                  # a lone surrogate (an index may hold one): json escapes it
        text = json.dumps(value, ensure_ascii=True)
    return escape_json_controls(text).encode("utf-8")


def entry_text(entry: dict, text: str | None = None) -> str:
    """The short text rendering of an entry the MCP tools give beside its JSON: ``rulings search``'s block
    (search/commands/options.py entry_block, without terminal styling)."""
    from rulings.search.commands.options import entry_block

    return entry_block(entry, text)
