"""The ``rulings remove`` command."""

from __future__ import annotations

from pathlib import Path

import click

from search import catalog
from search.commands.options import index_option, ready_index


@click.command()
@click.argument("source", type=click.Path(path_type=Path))
@index_option
def remove(source, index_dir):
    """Drop an ingested SOURCE (file or folder) and every variant only it contributed."""
    dropped, entries = catalog.remove(ready_index(index_dir), source)
    rulings = sum(len(record.result.rulings) for record in dropped)
    click.echo(f"removed {len(dropped)} source{'s' if len(dropped) != 1 else ''} "
               f"({rulings} rulings); {entries} entries in the index")
