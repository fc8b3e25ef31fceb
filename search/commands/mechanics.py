"""The ``rulings mechanics`` command."""

from __future__ import annotations

import json

import click
from rapidfuzz import process

from ingest.errors import UnknownMechanic
from ingest.tag import vocabulary
from search import query
from search.commands.options import entry_block, index_option, ready_index

@click.command()
@click.argument("name", required=False)
@click.option("--lang", help="Only entries in this language.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def mechanics(name, lang, fmt, index_dir):
    """List mechanics with their entry counts, or the entries tagged NAME."""
    index_dir = ready_index(index_dir)
    counts = query.mechanic_counts(index_dir, lang)
    vocab = {m.id: m for m in vocabulary()}
    if name is None:
        rows = [{"id": m, "name": vocab[m].name if m in vocab else m,
                 "kind": vocab[m].kind if m in vocab else "other", "count": n}
                for m, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        rows.sort(key=lambda r: r["kind"])
        if fmt == "json":
            click.echo(json.dumps(rows, ensure_ascii=False, indent=1))
            return
        kind = None
        for row in rows:
            if row["kind"] != kind:
                kind = row["kind"]
                click.echo(f"{kind}:")
            click.echo(f"  {row['id']:30} {row['count']:6}")
        return
    mechanic_id = resolve_mechanic(name, vocab)
    hits = query.search(index_dir, None, query.Filters(mechanics=[mechanic_id], lang=lang), limit=100000)
    hits.sort(key=lambda e: (min(e["dates"]) if e["dates"] else "9999", e["id"]))
    if fmt == "json":
        click.echo(json.dumps(hits, ensure_ascii=False, indent=1))
        return
    click.echo(f"{mechanic_id}: {len(hits)} entries\n")
    for hit in hits:
        click.echo(entry_block(hit) + "\n")


def resolve_mechanic(name: str, vocab: dict) -> str:
    """The mechanic id for an id, printed name or Chinese name; UnknownMechanic names the closest ids."""
    wanted = name.strip().lower().replace(" ", "-")
    for mechanic in vocab.values():
        if wanted == mechanic.id or name.strip().lower() == mechanic.name.lower() or name.strip() in mechanic.zh:
            return mechanic.id
    close = [match for match, _, _ in process.extract(wanted, list(vocab), limit=3)]
    raise UnknownMechanic(f"unknown mechanic {name!r}; closest: {', '.join(close)}")
