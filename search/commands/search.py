"""The ``rulings search`` command."""

from __future__ import annotations

import click

from search import query
from search.commands.options import (
    entry_block,
    filter_options,
    filters_from,
    index_option,
    json_text,
    printable,
    ready_index,
)


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("words", nargs=-1, type=click.UNPROCESSED, metavar="[QUERY]...")
@filter_options
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--every-word", is_flag=True, help="Require every word of the query (no best match).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl"]), default="text")
@index_option
def search(words, mechanic, card, set_code, lang, since, until, limit, every_word, fmt, index_dir):
    """Search rulings text, best matches first. QUERY is optional when a filter is given.

    \b
    QUERY language:
      respond proliferate  best match: entries holding every word first, then
                           those holding most of them (any order, any form:
                           sacrifice = sacrificed = sacrificing); question and
                           function words (can, I, what, if, 的, 吗) are never
                           required; player words (ETB, fizzle, CMC, 进场) also
                           find what rulings say instead, with less weight
      +word  or  a AND b   required words; symbols and P/T ({T}, +1/+1) are
                           always required; --every-word requires every word
      "can't be blocked"   a phrase (required)
      prolif*              words starting with prolif
      flying OR reach      either word;  NOT word  or  -word  excludes it
      card:"Fire // Ice"   set:ONE  mechanic:proliferate  lang:en
      date:>=2019-01-01    filters (date also takes > < <= and 2019 or 2019-06);
                           -set:ONE excludes; filters select, never reorder

    \b
    Words that start with '-' are part of the query, so these work:
      rulings search -1/-1
      rulings search "-1/-1 counters"
    If a query word is also an option name (say --limit), put '--' before
    the query: rulings search --format json -- --limit
    """
    text = " ".join(words)
    filters = filters_from(mechanic, card, set_code, lang, since, until)
    index_dir = ready_index(index_dir)
    hits = query.search(index_dir, text, filters, limit, every_word=every_word)
    hint = ""
    if not hits and text.strip():
        close = query.suggestions(index_dir, text)
        hint = f"Did you mean: {', '.join(close)}?" if close else ""
    if fmt == "json":
        click.echo(json_text(hits))
    elif fmt == "jsonl":
        for hit in hits:
            click.echo(json_text(hit, indent=None))
    else:
        if not hits:
            click.echo("No rulings found.")
        for hit in hits:
            click.echo(entry_block(hit, hit["snippet"]) + "\n")
    if hint:
        click.echo(printable(hint), err=fmt != "text")
