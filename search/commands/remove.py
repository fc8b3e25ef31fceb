"""The ``rulings remove`` command."""

from __future__ import annotations

from pathlib import Path

import click

from rulings.ingest.errors import RulingsError
from rulings.search import catalog
from rulings.search.commands.options import index_option, ready_index


@click.command()
@click.argument("source", type=click.Path())
@index_option
def remove(source, index_dir):
    """Drop an ingested SOURCE (file or folder) and every variant only it contributed."""
    if not source.strip():
        raise RulingsError("'': an empty path names no file or folder")
    dropped, entries = catalog.remove(ready_index(index_dir), Path(source))
    rulings = sum(len(record.result.rulings) for record in dropped)
    click.echo(f"removed {len(dropped)} source{'s' if len(dropped) != 1 else ''} "
               f"({rulings} rulings); {entries} entries in the index")
