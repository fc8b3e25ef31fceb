"""The ``rulings card`` command."""

from __future__ import annotations

import json

import click

from search import query
from search.commands.options import entry_block, index_option, ready_index

@click.command()
@click.argument("name")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def card(name, fmt, index_dir):
    """Every entry that applies to the card NAME, oldest first."""
    entries = query.entries_for_card(ready_index(index_dir), name)
    if fmt == "json":
        click.echo(json.dumps(entries, ensure_ascii=False, indent=1))
        return
    if not entries:
        click.echo(f"No rulings for {name!r}.")
    for entry in entries:
        click.echo(entry_block(entry) + "\n")
