"""The ``rulings export`` command."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rulings.search.commands.options import filter_options, index_option, open_index, warn_if_reversed
from rulings.search.export import FORMATS, GROUPS, SPLIT_INDEX, Selection


@click.command()
@filter_options
@click.option("--any-mechanic", is_flag=True, help="With several --mechanic: any one of them suffices.")
@click.option("--query", "query_text",
              help="Words read as `rulings search` reads them; selects the entries holding every word "
                   "that matters (any form or meaning), with phrases, +word, -word and filters as in search.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Default: the -o FILE's extension (.jsonl .json .csv .md .html), else jsonl.")
@click.option("--group-by", type=click.Choice(GROUPS), help="md and html: group under headings.")
@click.option("--variants", is_flag=True, help="csv: one row per variant instead of one per entry.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write to FILE, never inside an index folder ('-' or none: standard output).")
@click.option("--split", "split_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="html with --group-by: one page per group and an index.html linking them, in DIR.")
@index_option
def export(mechanic, card, set_code, lang, since, until, any_mechanic, query_text, fmt, group_by, variants,
           output, split_dir, index_dir):
    """Export a deduplicated ruling set (selectors combine; none exports everything).

    \b
    Order: oldest date first (undated last), then id. --group-by puts each
    entry under every mechanic, card or set it has (headings A-Z, "(none)"
    last), each group in the same order; with --set or --card, card and set
    headings come only from variants in that set or of that card.
    The same index gives byte-identical files: "created" is the index's last
    ingest time. Files are UTF-8 whatever the locale.
    jsonl: a {"meta": ...} line, then one entry per line (ingestible again);
    json: an array of entries; csv: one row per entry, or per variant.
    -o FILE is written whole or not at all (a failed export leaves no
    truncated file); write a file named '-' as ./-.
    html: one page with a filter box and the group headings as links;
    --split DIR writes a large export as one page per group instead
    (NNN-name.html, each written whole) and DIR/index.html listing them.
    """
    if fmt is None:
        fmt = "html" if split_dir is not None else format_of(output)
    if split_dir is not None and (fmt != "html" or not group_by or output is not None):
        raise click.UsageError("--split DIR goes with --format html and --group-by, without -o")
    if group_by and fmt not in ("md", "html"):
        click.echo(f"note: --group-by applies to the md and html formats; {fmt} is written ungrouped", err=True)
    if query_text is not None and not query_text.strip():
        raise click.ClickException("--query is empty: give words to search for, or leave --query out "
                                   "to export everything the other selectors pick")
    index = open_index(index_dir)
    mechanics = [index.mechanic_id(m) for m in mechanic]      # an unknown mechanic: before anything is built
    warn_if_reversed(since, until)
    index.ready(on_note=lambda line: click.echo(line, err=True))
    selection = Selection(mechanics, any_mechanic, card, set_code, lang, since, until,
                          (query_text or "").strip() or None)
    if split_dir is not None:
        pages = index.export_pages(selection, split_dir, group_by)
        click.echo(f"{len(pages)} pages written to {Path(split_dir)} (open {Path(split_dir) / SPLIT_INDEX})",
                   err=True)
        return
    if output in (None, "-"):
        index.export(selection, fmt, sys.stdout.buffer, group_by=group_by, variants=variants)
        return
    index.export(selection, fmt, output, group_by=group_by, variants=variants)


_SUFFIXES = {".jsonl": "jsonl", ".json": "json", ".csv": "csv", ".md": "md", ".html": "html", ".htm": "html"}


def format_of(output: str | None) -> str:
    """The export format an -o file's extension names (``crew.csv``: csv; case ignored), else jsonl: an
    export to crew.csv without --format wrote JSON lines (a new user's finding)."""
    if output in (None, "-"):
        return "jsonl"
    return _SUFFIXES.get(Path(output).suffix.lower(), "jsonl")
