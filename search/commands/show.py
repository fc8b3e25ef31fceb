"""The ``rulings show`` command."""

from __future__ import annotations

import click

from rulings.ingest.controls import single_line
from rulings.ingest.errors import UnknownEntry
from rulings.search.commands.options import entry_block, index_option, json_text, printable, ready_index, shown_path


def _short(text: str, width: int = 100) -> str:
    return text if len(text) <= width else text[:width - 1] + "\u2026"


@click.command()
@click.argument("entry_id")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def show(entry_id, fmt, index_dir):
    """One entry: its variants with sources and similarity, related entries, translations."""
    index = ready_index(index_dir)
    entry = index.entry(entry_id)                 # raises UnknownEntry
    if fmt == "json":
        click.echo(json_text(entry))
        return
    click.echo(entry_block(entry))
    if entry.get("repairs"):
        click.echo(printable("  repaired for matching: " + "; ".join(entry["repairs"])))
    click.echo(f"\nvariants ({len(entry['variants'])}), with similarity to the canonical text:")
    for v in entry["variants"]:
        click.echo(single_line(f"  [{v['similarity']:.2f}] {v['date'] or 'undated'} "
                               f"{v['card'] or v['oracle_id'] or '-'} ({v['set'] or '-'}) "
                               f"{shown_path(v['source']['path'])} [{v['source']['format']}]"))
        if v["text"] != entry["text"]:
            click.echo(printable(f"         {v['text']}"))
    if entry["related"]:
        click.echo("\nrelated (close but different; the guard that kept them apart):")
        for r in entry["related"]:
            try:
                other = index.entry(r["id"])
            except UnknownEntry:                  # the other entry is gone
                other = None
            click.echo(printable(f"  {r['id']}: {r['reason']}"))
            if other is not None:
                click.echo(printable(f"         {_short(other['text'])}"))
    if entry["translations"]:
        click.echo("\ntranslations:")
        for t in entry["translations"]:
            click.echo(printable(f"  {t['id']} [{t['lang']}] {t['text']}"))
