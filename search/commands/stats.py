"""The ``rulings stats`` command."""

from __future__ import annotations

import click

from rulings.search.commands.options import index_option, json_text, ready_index


@click.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def stats(fmt, index_dir):
    """Counts: rulings read, entries, rejected rulings, languages, formats, mechanics, sources."""
    index = ready_index(index_dir)
    if fmt == "json":
        click.echo(json_text(index.stats()))
        return
    figures = index.summary()
    click.echo(f"rulings read:      {figures['rulings']}")
    click.echo(f"entries:           {figures['entries']}")
    click.echo(f"variants kept:     {figures['variants']}")
    click.echo(f"rejected rulings:  {figures['rejected_rulings']}")
    for reason, n in figures.get("rejected_reasons", {}).items():
        click.echo(f"  {reason}: {n}")
    click.echo("languages:         " + ", ".join(f"{k} {v}" for k, v in figures["languages"].items()))
    click.echo("formats:           " + ", ".join(f"{k} {v['files']} files / {v['rulings']} rulings"
                                                for k, v in figures["formats"].items()))
    for reason, n in figures.get("warnings", {}).items():
        click.echo(f"warnings:          {n} rulings ({reason})")
    click.echo(f"mechanics:         {figures['mechanics']}")
    click.echo(f"sources:           {figures['sources']}")
