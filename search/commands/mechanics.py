"""The ``rulings mechanics`` command: mechanics grouped by kind with entry counts, or one mechanic's entries."""

from __future__ import annotations

import click

from rulings.search import query
from rulings.search.commands.options import entry_block, index_option, json_text, ready_index

# Display order and headings of the kinds (PRODUCT.md, "rulings mechanics").
KIND_HEADINGS = {"keyword ability": "keyword abilities", "keyword action": "keyword actions",
                 "counters": "counters", "mana": "mana", "other": "other", "ability word": "ability words"}


@click.command()
@click.argument("name", required=False)
@click.option("--lang", help="Only entries in this language.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def mechanics(name, lang, fmt, index_dir):
    """List mechanics with their entry counts, or the entries tagged NAME (id, name, any form, Chinese name)."""
    index_dir = ready_index(index_dir)
    if name is not None:
        from rulings.ingest.tag import resolve_mechanic  # imported here: every command loads this module

        show_mechanic(index_dir, resolve_mechanic(name), lang, fmt)
        return
    rows = mechanic_rows(query.mechanic_counts(index_dir, lang))
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


def mechanic_rows(counts: dict[str, int]) -> list[dict]:
    """``[{"id", "name", "kind", "count"}]`` grouped by kind (KIND_HEADINGS order), most entries first."""
    from rulings.ingest.tag import vocabulary  # imported here: every command loads this module

    vocab = {m.id: m for m in vocabulary()}
    order = list(KIND_HEADINGS)
    rows = [{"id": m, "name": vocab[m].name if m in vocab else m,
             "kind": vocab[m].kind if m in vocab else "other", "count": n} for m, n in counts.items()]
    rows.sort(key=lambda r: (order.index(r["kind"]) if r["kind"] in order else len(order), -r["count"], r["id"]))
    return rows


def mechanic_entries(index_dir, mechanic_id: str, lang: str | None = None) -> list[dict]:
    """The entries tagged mechanic_id (in lang when given), oldest first, then by id."""
    hits = query.search(index_dir, None, query.Filters(mechanics=[mechanic_id], lang=lang), limit=100000)
    hits.sort(key=lambda e: (min(e["dates"]) if e["dates"] else "9999", e["id"]))
    return hits


def show_mechanic(index_dir, mechanic_id: str, lang: str | None, fmt: str) -> None:
    """Print the entries tagged mechanic_id, oldest first."""
    hits = mechanic_entries(index_dir, mechanic_id, lang)
    if fmt == "json":
        click.echo(json_text(hits))
        return
    click.echo(f"{mechanic_id}: {len(hits)} entries\n")
    for hit in hits:
        click.echo(entry_block(hit) + "\n")
