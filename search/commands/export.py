"""The ``rulings export`` command."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rulings.ingest.errors import RulingsError
from rulings.search import catalog
from rulings.search import export as exporter
from rulings.search.commands.options import filter_options, index_option, ready_index, warn_if_reversed
from rulings.search.output import index_folder_holding, write_atomic


@click.command()
@filter_options
@click.option("--any-mechanic", is_flag=True, help="With several --mechanic: any one of them suffices.")
@click.option("--query", "query_text", help="Words in the search language.")
@click.option("--format", "fmt", type=click.Choice(exporter.FORMATS), default="jsonl", show_default=True)
@click.option("--group-by", type=click.Choice(exporter.GROUPS), help="md and html: group under headings.")
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
    if split_dir is not None and (fmt != "html" or not group_by or output is not None):
        raise click.UsageError("--split DIR goes with --format html and --group-by, without -o")
    if group_by and fmt not in ("md", "html"):
        click.echo(f"note: --group-by applies to the md and html formats; {fmt} is written ungrouped", err=True)
    from rulings.ingest.tag import resolve_mechanic  # the one resolver (ingest/tag.py), as search and mechanics use
    from rulings.search.cards import card_selector

    mechanics = [resolve_mechanic(m) for m in mechanic]
    warn_if_reversed(since, until)
    index_dir = ready_index(index_dir)
    target = None if output in (None, "-") else Path(output)
    if target is not None:
        holder = index_folder_holding(target, index_dir)
        if holder is not None:
            raise RulingsError(f"{output}: lies inside the index folder {holder}; an export would overwrite "
                               "the index's files, write it elsewhere")
    selection = exporter.Selection(mechanics, any_mechanic, card_selector(index_dir, card) if card else card,
                                   set_code, lang, since, until, (query_text or "").strip() or None)
    entries = exporter.select(index_dir, selection)
    if split_dir is not None:
        write_split(Path(split_dir), index_dir, exporter.split_html(entries, selection, catalog.ingested_at(index_dir),
                                                                    group_by))
        return
    text = exporter.render(entries, fmt, selection, catalog.ingested_at(index_dir), group_by, variants)
    data = text.encode("utf-8")
    if target is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        write_atomic(target, data, durable=True)
    except OSError as err:
        raise RulingsError(f"{output}: cannot be written ({err.strerror or err})") from None


def write_split(folder: Path, index_dir: Path, pages: dict[str, str]) -> None:
    """Write the pages of a split HTML export into folder (made when missing), each whole or not at all;
    refused inside an index folder. Says on stderr how many pages went where."""
    holder = index_folder_holding(folder / exporter.SPLIT_INDEX, index_dir)
    if holder is not None:
        raise RulingsError(f"{folder}: lies inside the index folder {holder}; an export would overwrite "
                           "the index's files, write it elsewhere")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, page in pages.items():
            write_atomic(folder / name, page.encode("utf-8"), durable=True)
    except OSError as err:
        raise RulingsError(f"{err.filename or folder}: cannot be written ({err.strerror or err})") from None
    click.echo(f"{len(pages)} pages written to {folder} (open {folder / exporter.SPLIT_INDEX})", err=True)
