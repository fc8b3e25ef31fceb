"""The web application of ``rulings serve`` (FastAPI): server-rendered pages and a JSON API, read-only.

Pages (HTML, usable without JavaScript):
  ``/``                   the search form; ``?q=`` and the filters (mechanic, card, set, lang, since, until)
  ``/entries/{id}``       one entry: variants, related entries, translations; an alias redirects (308)
  ``/mechanics``          the mechanics grouped by kind with their counts; ``/mechanics/{id}`` one mechanic
  ``/cards/{name}``       a card's rulings, oldest first

API (JSON, PRODUCT.md shapes; described at ``/api/openapi.json``):
  ``/api/search`` ``/api/entries/{id}`` ``/api/cards/{name}`` ``/api/mechanics`` ``/api/mechanics/{id}``
  ``/api/stats`` ``/api/export?format=`` (streamed)

Every answer comes from search/web/service.py (the CLI's functions and messages). An error is
``{"error": "one line"}`` with 400 (bad input: a query the parser refuses, an unknown filter value, a
value past its cap, a malformed parameter) or 404 (no such entry, card, mechanic or route); a page
shows the same line on an error page with the same status. Only GET and HEAD are answered (405 for the
rest): nothing changes the index.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlencode

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from rulings.ingest import __version__
from rulings.ingest.controls import single_line
from rulings.ingest.errors import QueryError, RulingsError, UnknownEntry
from rulings.search.web import pages
from rulings.search.web.service import (
    LIMIT,
    LIST_LIMIT,
    MAX_LIMIT,
    MAX_LIST,
    MAX_QUERY,
    MAX_VALUE,
    NotFound,
    Rulings,
    SearchArgs,
    json_bytes,
)

log = logging.getLogger("rulings.serve")

INDEX_ENV = "RULINGS_SERVE_INDEX"        # the index folder of a worker process (rulings serve --workers N)
HOSTS_ENV = "RULINGS_SERVE_HOSTS"        # the Host names it answers, comma-separated (empty: any)
CHUNK = 64 * 1024                        # bytes per chunk of a streamed export
EXPORT_TYPES = {"jsonl": "application/x-ndjson", "json": "application/json", "csv": "text/csv",
                "md": "text/markdown", "html": "text/html"}
ASSETS = {"style.css": "text/css", "filter.js": "text/javascript"}
LANGUAGES = ("en", "zh", "zh-Hans", "zh-Hant", "de", "fr", "it", "es", "pt", "ja", "ko", "ru")
# The pages need nothing from elsewhere: scripts and styles from this server only, no frames, forms to here.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
                               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class EntryJSON(JSONResponse):
    """JSON as the CLI prints it: UTF-8 without ASCII escapes, DEL and C1 controls escaped (json_text)."""

    media_type = "application/json"

    def render(self, content) -> bytes:
        return json_bytes(content)


class HeadAsGet:
    """ASGI middleware: a HEAD request is routed as GET (the server, which knows it was HEAD, sends no body)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "HEAD":
            scope = dict(scope, method="GET")
        await self.app(scope, receive, send)


class KeptSearch:
    """ASGI middleware: a GET of /api/search whose query string was answered before (in this generation) is
    sent its kept bytes (Rulings.kept_json) from the event loop, before the framework reads the
    parameters; anything else goes on to the application. The bytes are what the application answered to
    the same query string, so the answer is the same, without the framework's part of a request (most of
    what a repeated search costs)."""

    def __init__(self, app, rulings: Rulings):
        self.app, self.rulings = app, rulings

    @staticmethod
    def key(scope) -> tuple:
        return ("api/search", scope.get("query_string", b""))

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"] == "/api/search":
            try:
                body = self.rulings.kept_json(self.key(scope))
            except RulingsError:            # a damaged index: the application answers with its error
                body = None
            if body is not None:
                await send({"type": "http.response.start", "status": 200,
                            "headers": [(b"content-length", str(len(body)).encode("ascii")),
                                        (b"content-type", EntryJSON.media_type.encode("ascii"))]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def status_of(err: RulingsError) -> int:
    """404 for what names nothing (an entry, a card, a mechanic in the path), 400 for bad input, 500 for
    the index's own problems (a damaged index)."""
    if isinstance(err, (NotFound, UnknownEntry)):
        return 404
    if isinstance(err, QueryError):
        return 400
    return 500


def error_json(message: str, status: int) -> EntryJSON:
    return EntryJSON({"error": single_line(message)}, status_code=status)


def is_api(request: Request) -> bool:
    return request.url.path == "/api" or request.url.path.startswith("/api/")


def validation_message(err: RequestValidationError) -> str:
    """One line naming each malformed parameter (``limit: Input should be a valid integer``)."""
    parts = []
    for item in err.errors():
        where = ".".join(str(part) for part in item.get("loc", ())[1:]) or "request"
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


# Parameters shared by the search page, /api/search and /api/export.
Q = Annotated[str | None, Query(description=f"Words in the search language (at most {MAX_QUERY} characters).")]
MECHANIC = Annotated[list[str], Query(description="Mechanic id or name; repeat to require all.")]
CARD = Annotated[str | None, Query(description="A card's name, a face, or one card's first words.")]
SET = Annotated[str | None, Query(description="Set code.")]
LANG = Annotated[str | None, Query(description="Language code (zh matches zh-Hans and zh-Hant).")]
SINCE = Annotated[str | None, Query(description="Oldest date: YYYY-MM-DD, a month YYYY-MM or a year YYYY.")]
UNTIL = Annotated[str | None, Query(description="Newest date: YYYY-MM-DD, a month YYYY-MM or a year YYYY.")]


def create_app(index_dir: Path, hosts: list[str] | None = None) -> FastAPI:
    """The application answering from the index folder index_dir (which must hold an index).

    hosts: the names a request's Host header may give (others get 400), so that a web page elsewhere
    cannot reach a loopback server through a name of its own pointed at 127.0.0.1 (DNS rebinding);
    None answers any."""
    rulings = Rulings(index_dir)
    app = FastAPI(title="rulings", version=__version__, openapi_url="/api/openapi.json", docs_url=None,
                  redoc_url=None,
                  description="Magic: The Gathering rulings, deduplicated, searchable, by mechanic and card. "
                              "Read-only. Errors are {\"error\": \"…\"} with 400 or 404.")
    app.state.rulings = rulings
    app.add_middleware(KeptSearch, rulings=rulings)    # inside HeadAsGet and the Host check (added later)
    app.add_middleware(HeadAsGet)
    if hosts:
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        app.add_middleware(TrustedHostMiddleware, allowed_hosts=hosts)

    def page(template: str, status: int = 200, **values) -> HTMLResponse:
        from rulings.search.export import printable_value  # control characters out, as every output does

        values = {key: printable_value(value) for key, value in values.items()}
        html = pages.render(template, inline=False, style_version=pages.asset_hash("style.css"),
                            script_version=pages.asset_hash("filter.js"), **values)
        return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)

    def error_page(message: str, status: int) -> HTMLResponse:
        title = {400: "Bad request", 404: "Not found", 405: "Method not allowed"}.get(status, "Error")
        return page("error.html", status, title=f"{title} · rulings", heading=title, message=single_line(message))

    def failure(request: Request, message: str, status: int) -> Response:
        return error_json(message, status) if is_api(request) else error_page(message, status)

    @app.exception_handler(RulingsError)
    async def rulings_error(request: Request, err: RulingsError):
        return failure(request, str(err), status_of(err))

    @app.exception_handler(RequestValidationError)
    async def bad_parameter(request: Request, err: RequestValidationError):
        return failure(request, validation_message(err), 400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException):
        if err.status_code == 404:
            return failure(request, f"nothing at {request.url.path}", 404)
        if err.status_code == 405:
            response = failure(request, f"{request.method} is not answered here: the server is read-only "
                                        "(GET and HEAD)", 405)
            response.headers["Allow"] = "GET, HEAD"
            return response
        return failure(request, str(err.detail), err.status_code)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, err: Exception):
        log.exception("unexpected error answering %s", request.url.path)
        return failure(request, f"internal error ({type(err).__name__})", 500)

    # ------------------------------------------------------------------ API

    @app.get("/api/search", tags=["api"], summary="Search rulings text, best matches first",
             response_class=EntryJSON)
    async def api_search(request: Request, q: Q = None, mechanic: MECHANIC = [], card: CARD = None,
                         set: SET = None, lang: LANG = None, since: SINCE = None, until: UNTIL = None,
                         limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = LIMIT,
                         every_word: Annotated[bool, Query(description="Require every word (no best match).")]
                         = False):
        """``{"query", "total", "more", "results": [entry, ...], "suggestions"}``: entries in the PRODUCT.md
        shape with ``score`` and ``snippet`` (matched words as ``**word**``), best first, as ``rulings
        search --format json``. ``total`` counts the results given (at most ``limit``); ``more`` is true
        when the index holds further matches; ``suggestions`` are the "did you mean" words when nothing
        was found. The query is optional when a filter is given."""
        args = SearchArgs(q, mechanic, card, set, lang, since, until)
        # the search runs in the thread pool, as a plain def route's would; KeptSearch sends it next time
        body = await run_in_threadpool(rulings.search_json, args, limit, every_word, KeptSearch.key(request.scope))
        return Response(body, media_type=EntryJSON.media_type)

    @app.get("/api/entries/{entry_id}", tags=["api"], summary="One entry by id or alias", response_class=EntryJSON)
    def api_entry(entry_id: str):
        """The entry (PRODUCT.md shape) with this id; an alias id answers with the entry it merged into."""
        return EntryJSON(rulings.entry(entry_id))

    @app.get("/api/cards/{name:path}", tags=["api"], summary="A card's rulings, oldest first",
             response_class=EntryJSON)
    def api_card(name: str, limit: Annotated[int, Query(ge=1, le=MAX_LIST)] = LIST_LIMIT,
                 offset: Annotated[int, Query(ge=0)] = 0):
        """``{"card", "cards": [{"name", "exact", "entries"}], "begins", "total", "offset", "results"}``:
        every entry that applies to the card (full name or a face, any case; else the cards its first
        words begin, ``begins`` true), oldest first, as ``rulings card --format json``."""
        return EntryJSON(rulings.card(name, limit, offset))

    @app.get("/api/mechanics", tags=["api"], summary="Every mechanic with its count of entries",
             response_class=EntryJSON)
    def api_mechanics(lang: LANG = None):
        """``[{"id", "name", "kind", "count", "zh"}]`` grouped by kind, most entries first, as ``rulings
        mechanics --format json`` (with the Chinese names)."""
        return EntryJSON(rulings.mechanics(lang))

    @app.get("/api/mechanics/{name}", tags=["api"], summary="The entries tagged a mechanic, oldest first",
             response_class=EntryJSON)
    def api_mechanic(name: str, lang: LANG = None, limit: Annotated[int, Query(ge=1, le=MAX_LIST)] = LIST_LIMIT,
                     offset: Annotated[int, Query(ge=0)] = 0):
        """``{"mechanic": {"id", "name", "kind", "zh", "rule", "count"}, "total", "offset", "results"}``;
        name is an id, a printed name, any form or a Chinese name (``rulings mechanics NAME``)."""
        return EntryJSON(rulings.mechanic(name, lang, limit, offset))

    @app.get("/api/stats", tags=["api"], summary="Counts of the index", response_class=EntryJSON)
    def api_stats():
        """``rulings stats --format json``: rulings, entries, rejected_rulings, languages, formats,
        mechanics, sources, warnings; and ``ingested``, the last ingest time."""
        return EntryJSON(rulings.stats())

    @app.get("/api/export", tags=["api"], summary="Export a deduplicated ruling set (streamed)",
             response_class=StreamingResponse,
             responses={200: {"content": {t: {} for t in EXPORT_TYPES.values()}}})
    def api_export(format: Literal["jsonl", "json", "csv", "md", "html"] = "jsonl", query: Q = None,
                   mechanic: MECHANIC = [], any_mechanic: bool = False, card: CARD = None, set: SET = None,
                   lang: LANG = None, since: SINCE = None, until: UNTIL = None,
                   group_by: Literal["mechanic", "card", "set"] | None = None, variants: bool = False):
        """The bytes ``rulings export`` writes for the same selection (oldest first, then id; ``group_by``
        for md and html; ``variants``: one CSV row per variant), streamed in chunks."""
        data = rulings.export(format, SearchArgs(query, mechanic, card, set, lang, since, until), any_mechanic,
                              group_by, variants)
        chunks = (data[at:at + CHUNK] for at in range(0, len(data), CHUNK))
        return StreamingResponse(chunks, media_type=EXPORT_TYPES[format] + "; charset=utf-8",
                                 headers={"Content-Disposition": f'inline; filename="rulings.{format}"'})

    @app.get("/api", include_in_schema=False)
    def api_root():
        return RedirectResponse("/api/openapi.json", status_code=307)

    # ------------------------------------------------------------------ pages

    @app.get("/static/{name}", include_in_schema=False)
    def static(name: str):
        if name not in ASSETS:              # two known assets; a request value never names a file
            raise NotFound(f"nothing at /static/{name}")
        return Response(pages.asset(name), media_type=ASSETS[name] + "; charset=utf-8",
                        headers={"Cache-Control": "public, max-age=86400"} | SECURITY_HEADERS)

    @app.get("/", include_in_schema=False, response_class=HTMLResponse)
    def search_page(request: Request, q: Q = None, mechanic: MECHANIC = [], card: CARD = None, set: SET = None,
                    lang: LANG = None, since: SINCE = None, until: UNTIL = None,
                    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = LIMIT):
        args = SearchArgs(q, mechanic, card, set, lang, since, until)
        pairs = request.query_params.multi_items()
        if any(not value.strip() for _, value in pairs):
            # the form sends every field, the empty ones too: answer at the address of what was asked
            kept = [(key, value) for key, value in pairs if value.strip()]
            return RedirectResponse("/" + ("?" + urlencode(kept) if kept else ""), status_code=303)
        values = args.given()
        asked = bool((q or "").strip() or values)
        result, error, status = None, None, 200
        if asked:
            try:
                result = rulings.search(args, limit)
            except RulingsError as err:
                error, status = single_line(str(err)), status_of(err)
        return page("search.html", status, title=(f"{q} · rulings" if q else "rulings: search"), args=args,
                    result=result, error=error, limit=limit, values=values, languages=LANGUAGES,
                    mechanic_ids=mechanic_choices(rulings), warning=args.reversed_dates() if asked else None,
                    max_query=MAX_QUERY, max_value=MAX_VALUE, limits=(20, 50, 100), page_lang="en")

    @app.get("/entries/{entry_id}", include_in_schema=False, response_class=HTMLResponse)
    def entry_page(entry_id: str):
        entry = rulings.entry(entry_id)
        if entry_id != entry["id"]:
            return RedirectResponse(pages.entry_url(entry["id"]), status_code=308)
        return page("entry.html", title=f"{entry['id']} · rulings", e=entry, related=rulings.related(entry))

    @app.get("/cards/{name:path}", include_in_schema=False, response_class=HTMLResponse)
    def card_page(name: str, offset: Annotated[int, Query(ge=0)] = 0):
        found = rulings.card(name, LIST_LIMIT, offset)
        return page("card.html", title=f"{name} · rulings", name=name, found=found, offset=offset,
                    limit=LIST_LIMIT, path=pages.card_url(name))

    @app.get("/mechanics", include_in_schema=False, response_class=HTMLResponse)
    def mechanics_page(lang: LANG = None):
        rows = rulings.mechanics(lang)
        kinds: dict[str, list[dict]] = {}
        for row in rows:
            kinds.setdefault(row["kind"], []).append(row)
        return page("mechanics.html", title="Mechanics · rulings", kinds=kinds, lang=lang or "",
                    languages=LANGUAGES, total=sum(r["count"] for r in rows), filter_box=True)

    @app.get("/mechanics/{name}", include_in_schema=False, response_class=HTMLResponse)
    def mechanic_page(name: str, lang: LANG = None, offset: Annotated[int, Query(ge=0)] = 0):
        found = rulings.mechanic(name, lang, LIST_LIMIT, offset)
        canonical = found["mechanic"]["id"]
        if name != canonical:
            return RedirectResponse(pages.query_url(pages.mechanic_url(canonical), lang=lang, offset=offset or None),
                                    status_code=308)
        return page("mechanic.html", title=f"{found['mechanic']['name']} · rulings", found=found,
                    m=found["mechanic"], lang=lang or "", languages=LANGUAGES, offset=offset, limit=LIST_LIMIT,
                    path=pages.mechanic_url(canonical))

    return app


def mechanic_choices(rulings: Rulings) -> list[str]:
    """The mechanic ids the index holds, for the search form's suggestions (a datalist)."""
    try:
        return sorted(row["id"] for row in rulings.mechanics())
    except RulingsError:
        return []


def factory() -> FastAPI:
    """The application of a worker process: the index folder from $RULINGS_SERVE_INDEX (rulings serve sets it)."""
    hosts = [name for name in os.environ.get(HOSTS_ENV, "").split(",") if name]
    return create_app(Path(os.environ[INDEX_ENV]), hosts or None)


def loopback_hosts(host: str) -> list[str] | None:
    """The Host names a server listening on host answers: for a loopback address its names
    (``127.0.0.1``, ``localhost``); None (any) for another address, which a user chose to expose."""
    import ipaddress

    if host == "localhost":
        return ["localhost", "127.0.0.1"]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if address.version == 4 and address.is_loopback:
        return sorted({host, "127.0.0.1", "localhost"})
    return None
