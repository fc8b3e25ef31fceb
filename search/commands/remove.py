"""The ``rulings remove`` command."""

from __future__ import annotations

import click

from rulings.ingest.errors import RulingsError
from rulings.search.commands.options import index_option, ready_index


@click.command()
@click.argument("source", type=click.Path())
@index_option
def remove(source, index_dir):
    """Drop an ingested SOURCE (file or folder) and every variant only it contributed."""
    if not source.strip():                        # before the index is made ready
        raise RulingsError("'': an empty path names no file or folder")
    removed = ready_index(index_dir).remove(source)
    count = len(removed.sources)
    click.echo(f"removed {count} source{'s' if count != 1 else ''} "
               f"({removed.rulings} rulings); {removed.entries} entries in the index")
