"""The ``rulings export`` command."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from search import index, query
from search.commands.options import filter_options, filters_from, index_option, ready_index
from search.export import FORMATS, GROUPS, render

@click.command()
@filter_options
@click.option("--query", "query_text", help="Words in the search language.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="jsonl", show_default=True)
@click.option("--group-by", type=click.Choice(GROUPS), help="Group md and html output under headings.")
@click.option("--variants", is_flag=True, help="CSV: one row per variant.")
@click.option("-o", "output", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE (default stdout).")
@index_option
def export(mechanic, card, set_code, lang, since, until, query_text, fmt, group_by, variants, output, index_dir):
    """Export a deduplicated ruling set, oldest date first, then id."""
    filters = filters_from(mechanic, card, set_code, lang, since, until)
    index_dir = ready_index(index_dir)
    if query_text or filters.any():
        entries = query.search(index_dir, query_text, filters, limit=10_000_000)
    else:
        entries = list(index.all_entries(index_dir))
    for entry in entries:
        entry.pop("score", None)
        entry.pop("snippet", None)
    selected = {k: v for k, v in {"mechanic": list(mechanic), "card": card, "set": set_code, "lang": lang,
                                  "since": since, "until": until, "query": query_text}.items() if v}
    text = render(entries, fmt, selected, group_by, variants)
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.flush()
