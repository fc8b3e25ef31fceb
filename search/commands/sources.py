"""The ``rulings sources`` command."""

from __future__ import annotations

import click

from rulings.ingest.controls import single_line
from rulings.search.commands.options import index_option, json_text, ready_index, shown_path


def source_row(record) -> dict:
    """One source (a search/catalog.py SourceRecord) in the ``sources --format json`` shape: path, format,
    rulings, entries, skipped, rejected."""
    result = record.result
    return {"path": result.path, "format": result.format, "rulings": len(result.rulings),
            "entries": record.entries, "skipped": result.skipped, "rejected": result.rejected}


@click.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def sources(fmt, index_dir):
    """The ingested sources with format, rulings read and entries they contribute to.

    Paths are remembered absolute (a bundled document as rulings:corpus/NAME); the text output shows
    those inside the working folder relative to it.
    """
    rows = [source_row(record) for record in ready_index(index_dir).sources()]
    if fmt == "json":
        click.echo(json_text(rows))
        return
    for row in rows:
        if row["skipped"] or row["rejected"]:
            kind = "skipped" if row["skipped"] else "rejected"
            reason = single_line(row["skipped"] or row["rejected"])
            click.echo(f"{single_line(shown_path(row['path']))}\n  {kind}: {reason}")
        else:
            click.echo(f"{single_line(shown_path(row['path']))}\n  {row['format']}: {row['rulings']} rulings, "
                       f"{row['entries']} entries")
    read = sum(1 for row in rows if row["rulings"])
    click.echo(f"{len(rows)} sources, {read} with rulings, {sum(r['rulings'] for r in rows)} rulings")
