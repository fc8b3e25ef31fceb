"""The ``rulings mechanics`` command: mechanics grouped by kind with entry counts, or one mechanic's entries."""

from __future__ import annotations

import click

from rulings.search.commands.options import entries_count, entry_block, index_option, json_text, ready_index

# Headings of the kinds, in the order rulings.Index.mechanics() lists them (rulings/api.py KINDS; PRODUCT.md).
KIND_HEADINGS = {"keyword ability": "keyword abilities", "keyword action": "keyword actions",
                 "counters": "counters", "mana": "mana", "other": "other", "ability word": "ability words"}


@click.command()
@click.argument("name", required=False)
@click.option("--lang", help="Only entries in this language.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def mechanics(name, lang, fmt, index_dir):
    """List mechanics with their entry counts, or the entries tagged NAME (id, name, any form, Chinese name)."""
    index = ready_index(index_dir)
    if name is not None:
        show_mechanic(index.mechanic(name, lang), fmt)      # raises UnknownMechanic naming the closest ids
        return
    rows = index.mechanics(lang)
    if fmt == "json":
        click.echo(json_text(rows))
        return
    if not rows:
        click.echo("No mechanics: the index holds no entries." if lang is None else
                   f"No mechanics: the index holds no entries in {lang!r}.")
        return
    kind = None
    for row in rows:
        if row["kind"] != kind:
            kind = row["kind"]
            click.echo(f"{KIND_HEADINGS.get(kind, kind)}:")
        click.echo(f"  {row['id']:30} {row['count']:6}")


def show_mechanic(found, fmt: str) -> None:
    """Print a rulings.MechanicRulings: its entries, oldest first."""
    if fmt == "json":
        click.echo(json_text(found.entries))
        return
    click.echo(f"{found.id}: {entries_count(len(found.entries))}\n")
    for hit in found.entries:
        click.echo(entry_block(hit) + "\n")
