"""The ``rulings mcp`` command: an MCP server over stdio (search/mcp_server.py)."""

from __future__ import annotations

import click

from rulings.search.commands.options import index_option, ready_index


@click.command()
@index_option
def mcp(index_dir):
    """An MCP server over standard input and output, for an LLM assistant (read-only).

    \b
    Tools: search_rulings (a query and the filters of 'rulings search'),
    get_entry (an id), card_rulings (a card's name), list_mechanics,
    mechanic_rulings (a mechanic). Each answers with the entries' JSON and a
    short text rendering. Configure a client to run: rulings mcp [--index DIR]
    """
    from rulings.search.mcp_server import run

    run(ready_index(index_dir).path.absolute())            # its tools answer through rulings.Index too
