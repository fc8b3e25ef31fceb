"""The ``rulings card`` command."""

from __future__ import annotations

import click

from rulings.search.commands.options import (
    entries_count,
    entry_block,
    index_option,
    json_text,
    printable,
    ready_index,
)


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
    A name's first words find the cards that begin with them ('Jace': every
    Jace card); the cards are listed when there are several.
    """
    found = ready_index(index_dir).card(name)
    matches, started, close = found.cards, found.begins, found.close
    if fmt == "json":
        click.echo(json_text(found.entries))
        if len(matches) > 1:
            click.echo(printable(f"{name!r} matches: " + "; ".join(m.card for m in matches)), err=True)
        return
    if not matches:
        click.echo(printable(f"No rulings for {name!r}." + (f" Did you mean: {'; '.join(close)}?" if close else "")))
        return
    if started and len(matches) > 1:
        click.echo(printable(f"No card is named {name!r}; {len(matches)} cards begin with it (give one):"))
        for match in matches:
            click.echo(printable(f"  {match.card}: {entries_count(len(match.entries))}"))
        return
    shown: set[str] = set()
    for number, match in enumerate(matches):
        entries = [e for e in match.entries if e["id"] not in shown]
        shown.update(e["id"] for e in entries)
        how = f" (begins with {name!r})" if started else "" if match.exact else f" (face {name!r})"
        prefix = "Also matches " if number else ""
        click.echo(printable(f"{prefix}{match.card}{how}: {entries_count(len(entries))}\n"))
        for entry in entries:
            click.echo(entry_block(entry) + "\n")
