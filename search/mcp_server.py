"""``rulings mcp``: an MCP server over stdio (the official MCP Python SDK) with the index's answers as tools.

Tools, each a thin call into search/web/service.py (the CLI's own functions and messages):

  search_rulings   a query and the filters of ``rulings search`` -> the best-matching entries
  get_entry        an entry by id or alias -> the entry with its variants, related entries, translations
  card_rulings     a card's name, face or first words -> its entries, oldest first
  list_mechanics   the mechanics with their counts of entries, grouped by kind
  mechanic_rulings a mechanic's id, name or Chinese name -> its entries, oldest first

Each answers with the JSON (PRODUCT.md shapes, as ``structuredContent`` and as a text block of JSON) and,
first, a short text rendering for a person or a model to read (``rulings search``'s text blocks).
A problem with the input (an unknown id, an unreadable query) is a tool error (``isError``) whose text is
the CLI's one line. The server only reads the index; an ingest running meanwhile is picked up when it
finishes. Nothing but the protocol is written to standard output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from rulings.ingest import __version__
from rulings.ingest.errors import RulingsError
from rulings.search.web.service import LIMIT, LIST_LIMIT, MAX_LIMIT, MAX_LIST, Rulings, SearchArgs, entry_text

SHOWN = 10           # entries rendered as text in one answer (the JSON holds them all)

INSTRUCTIONS = (
    "Magic: The Gathering rulings, deduplicated: one entry per ruling with every card, set, date and source "
    "that printed it, tagged by mechanic. search_rulings searches ruling text (best match: plain words, "
    "any form; +word requires, -word excludes, \"a phrase\"); get_entry gives one entry in full; "
    "card_rulings lists a card's rulings; list_mechanics and mechanic_rulings browse by mechanic. "
    "Quote a ruling's text as given and cite its id.")


def _answer(value, text: str):
    """A tool result: the text rendering, then the JSON as text and as structured content."""
    structured = value if isinstance(value, dict) else {"results": value}
    return CallToolResult(content=[TextContent(type="text", text=text),
                                   TextContent(type="text", text=json.dumps(value, ensure_ascii=False))],
                          structured_content=structured)


def _failure(err: RulingsError):
    return CallToolResult(content=[TextContent(type="text", text=f"Error: {err}")], is_error=True)


def _entries_text(heading: str, entries: list[dict], snippets: bool = False) -> str:
    blocks = [heading]
    for entry in entries[:SHOWN]:
        blocks.append(entry_text(entry, entry.get("snippet") if snippets else None))
    if len(entries) > SHOWN:
        blocks.append(f"(and {len(entries) - SHOWN} more in the JSON)")
    return "\n\n".join(blocks)


def build_server(index_dir: Path):
    """The MCP server (mcp.server.mcpserver.MCPServer) answering from index_dir."""
    rulings = Rulings(index_dir)
    server = MCPServer("rulings", version=__version__, instructions=INSTRUCTIONS)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)

    @server.tool(annotations=read_only)
    def search_rulings(
            query: Annotated[str, Field(description="Words to search ruling text for (may be empty when a "
                                                    "filter is given).")] = "",
            mechanic: Annotated[list[str], Field(description="Mechanic ids or names; every one required.")] = [],
            card: Annotated[str | None, Field(description="A card's name, a face, or its first words.")] = None,
            set: Annotated[str | None, Field(description="A set code, e.g. ONE.")] = None,
            lang: Annotated[str | None, Field(description="A language code: en, zh, de, fr, ja, ...")] = None,
            since: Annotated[str | None, Field(description="Oldest date: YYYY, YYYY-MM or YYYY-MM-DD.")] = None,
            until: Annotated[str | None, Field(description="Newest date: YYYY, YYYY-MM or YYYY-MM-DD.")] = None,
            limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Most entries to return.")] = LIMIT,
    ) -> CallToolResult:
        """Search Magic: The Gathering rulings by their text, best matches first; each entry is one ruling
        with every card, set and date that shares it. Returns {query, total, more, results, suggestions}."""
        try:
            found = rulings.search(SearchArgs(query, list(mechanic), card, set, lang, since, until), limit)
        except RulingsError as err:
            return _failure(err)
        if not found["results"]:
            hint = f" Did you mean: {', '.join(found['suggestions'])}?" if found["suggestions"] else ""
            return _answer(found, "No rulings found." + hint)
        more = " (more in the index: raise limit)" if found["more"] else ""
        return _answer(found, _entries_text(f"{found['total']} rulings{more}:", found["results"], snippets=True))

    @server.tool(annotations=read_only)
    def get_entry(id: Annotated[str, Field(description="An entry id such as r-4f8432cc25 (an alias too).")]
                  ) -> CallToolResult:
        """One ruling entry in full: its text, every variant with card, set, date, source and similarity,
        the related entries with the reason they were kept apart, and its translations."""
        try:
            entry = rulings.entry(id)
            related = rulings.related(entry)
        except RulingsError as err:
            return _failure(err)
        lines = [entry_text(entry), "", f"variants ({len(entry['variants'])}):"]
        for v in entry["variants"][:SHOWN]:
            lines.append(f"  [{v['similarity']:.2f}] {v['date'] or 'undated'} {v['card'] or v['oracle_id'] or '-'} "
                         f"({v['set'] or '-'}) {v['source']['format']}")
        if len(entry["variants"]) > SHOWN:
            lines.append(f"  and {len(entry['variants']) - SHOWN} more in the JSON")
        for r in related:
            lines.append(f"related {r['id']}: {r['reason']}")
        for t in entry["translations"]:
            lines.append(f"translation {t['id']} [{t['lang']}]: {t['text']}")
        return _answer(entry, "\n".join(lines))

    @server.tool(annotations=read_only)
    def card_rulings(
            name: Annotated[str, Field(description="A card's full name, a face ('Fire // Ice' or 'Fire'), or "
                                                   "its first words.")],
            limit: Annotated[int, Field(ge=1, le=MAX_LIST, description="Most entries to return.")] = LIST_LIMIT,
            offset: Annotated[int, Field(ge=0, description="Entries to skip.")] = 0,
    ) -> CallToolResult:
        """Every ruling that applies to a card, oldest first. Returns {card, cards, begins, total, offset,
        results}; cards lists the cards the name matched."""
        try:
            found = rulings.card(name, limit, offset)
        except RulingsError as err:
            return _failure(err)
        names = "; ".join(c["name"] for c in found["cards"])
        return _answer(found, _entries_text(f"{names}: {found['total']} rulings", found["results"]))

    @server.tool(annotations=read_only)
    def list_mechanics(lang: Annotated[str | None, Field(description="Count only entries in this "
                                                                     "language.")] = None) -> CallToolResult:
        """The mechanics (keyword abilities, keyword actions, counters, mana, other) with the number of
        ruling entries tagged each, and their Chinese names."""
        try:
            rows = rulings.mechanics(lang)
        except RulingsError as err:
            return _failure(err)
        text = "\n".join(f"{row['id']} ({row['kind']}): {row['count']}" for row in rows) or "No mechanics."
        return _answer(rows, text)

    @server.tool(annotations=read_only)
    def mechanic_rulings(
            name: Annotated[str, Field(description="A mechanic id, printed name, any form or Chinese name "
                                                   "(proliferate, 增殖).")],
            lang: Annotated[str | None, Field(description="Only entries in this language.")] = None,
            limit: Annotated[int, Field(ge=1, le=MAX_LIST, description="Most entries to return.")] = LIST_LIMIT,
            offset: Annotated[int, Field(ge=0, description="Entries to skip.")] = 0,
    ) -> CallToolResult:
        """The ruling entries tagged a mechanic, oldest first. Returns {mechanic, total, offset, results}."""
        try:
            found = rulings.mechanic(name, lang, limit, offset)
        except RulingsError as err:
            return _failure(err)
        about = found["mechanic"]
        return _answer(found, _entries_text(f"{about['name']} ({about['id']}): {found['total']} rulings",
                                            found["results"]))

    return server


def run(index_dir: Path) -> None:
    """Serve MCP over standard input and output until the client closes it."""
    build_server(index_dir).run("stdio")
