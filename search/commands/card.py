"""The ``rulings card`` command."""

from __future__ import annotations

import click

from search import query
from search.commands.options import entry_block, index_option, json_text, printable, ready_index


@click.command()
@click.argument("name")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def card(name, fmt, index_dir):
    """Every entry that applies to the card NAME, oldest first.

    NAME is the full name or either face of a split, adventure or double-faced
    card, in any case, with or without accents; 'Fire // Ice' may be written
    'Fire/Ice' or 'Fire / Ice'. When NAME is one card's name and another card's
    face, the card of that exact name comes first and the other is named.
    """
    index_dir = ready_index(index_dir)
    matches = query.card_matches(index_dir, name)
    if fmt == "json":
        click.echo(json_text(query.entries_for_card(index_dir, name)))
        if len(matches) > 1:
            click.echo(printable(f"{name!r} matches: " + "; ".join(m.card for m in matches)), err=True)
        return
    if not matches:
        close = query.card_suggestions(index_dir, name)
        click.echo(printable(f"No rulings for {name!r}." + (f" Did you mean: {', '.join(close)}?" if close else "")))
        return
    shown: set[str] = set()
    for number, match in enumerate(matches):
        entries = [e for e in match.entries if e["id"] not in shown]
        shown.update(e["id"] for e in entries)
        how = "" if match.exact else f" (face {name!r})"
        prefix = "Also matches " if number else ""
        click.echo(printable(f"{prefix}{match.card}{how}: {len(entries)} entries\n"))
        for entry in entries:
            click.echo(entry_block(entry) + "\n")
