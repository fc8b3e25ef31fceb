"""The ``rulings search`` command."""

from __future__ import annotations

import json

import click

from search import query
from search.commands.options import entry_block, filter_options, filters_from, index_option, ready_index

@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("words", nargs=-1, type=click.UNPROCESSED)
@filter_options
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl"]), default="text")
@index_option
def search(words, mechanic, card, set_code, lang, since, until, limit, fmt, index_dir):
    """Search rulings text. QUERY is optional when a filter is given.

    Words that start with '-' are part of the query (rulings search -1/-1);
    put '--' before the query if it would clash with an option name.
    """
    text = " ".join(words)
    filters = filters_from(mechanic, card, set_code, lang, since, until)
    hits = query.search(ready_index(index_dir), text, filters, limit)
    if fmt == "json":
        click.echo(json.dumps(hits, ensure_ascii=False, indent=1))
    elif fmt == "jsonl":
        for hit in hits:
            click.echo(json.dumps(hit, ensure_ascii=False))
    else:
        if not hits:
            click.echo("No rulings found.")
        for hit in hits:
            click.echo(entry_block(hit, hit["snippet"]) + "\n")
