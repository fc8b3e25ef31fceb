"""The ``rulings`` command line (click). Commands render; computation lives in the library.

Every command accepts ``--index DIR`` (default: $RULINGS_INDEX, else the user data
folder from platformdirs). The first command that needs an index when none
exists builds it from the bundled corpus.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import click
import platformdirs

from corpus import corpus_files
from ingest import __version__
from ingest.errors import QueryError, RulingsError, UnknownEntry, UnknownMechanic
from search import catalog, index, query
from search.export import FORMATS as EXPORT_FORMATS, GROUPS, render


class RulingsGroup(click.Group):
    """Turns every RulingsError into ``Error: <one line>`` and exit code 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except RulingsError as err:
            raise click.ClickException(str(err)) from None


def default_index() -> Path:
    """$RULINGS_INDEX, else ``<user data dir>/rulings/index``."""
    env = os.environ.get("RULINGS_INDEX")
    return Path(env) if env else Path(platformdirs.user_data_dir("rulings")) / "index"


def index_option(fn):
    return click.option("--index", "index_dir", type=click.Path(file_okay=False, path_type=Path),
                        default=None, help="Index folder (default: $RULINGS_INDEX or the user data folder).")(fn)


def ready_index(index_dir: Path | None) -> Path:
    """The index folder, built from the bundled corpus when it holds no index yet."""
    index_dir = index_dir or default_index()
    if not index.exists(index_dir):
        catalog.ingest(index_dir, corpus_files())
    return index_dir


class IsoDate(click.ParamType):
    """A YYYY-MM-DD date, kept as its ISO string."""

    name = "date"

    def convert(self, value, param, ctx):
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value or ""):
            self.fail(f"{value!r} is not a date (YYYY-MM-DD)", param, ctx)
        import datetime as dt
        try:
            dt.date.fromisoformat(value)
        except ValueError:
            self.fail(f"{value!r} is not a date (YYYY-MM-DD)", param, ctx)
        return value


def emphasise(text: str) -> str:
    """``**word**`` marks as terminal bold on a terminal; kept as-is when piped."""
    if sys.stdout.isatty():
        return re.sub(r"\*\*(.+?)\*\*", lambda m: click.style(m.group(1), bold=True, fg="yellow"), text)
    return text


def entry_block(entry: dict, text: str | None = None) -> str:
    """The text rendering of one entry: text or snippet, then mechanics, cards, sets, date, id, sources."""
    cards = entry["cards"]
    shown = ", ".join(cards[:5]) + (f" +{len(cards) - 5} more" if len(cards) > 5 else "")
    lines = [emphasise(text or entry["text"])]
    if entry["mechanics"]:
        lines.append("  mechanics: " + ", ".join(entry["mechanics"]))
    if cards:
        lines.append("  cards: " + shown)
    if entry["sets"]:
        lines.append("  sets: " + ", ".join(entry["sets"]))
    sources = sorted({v["source"]["path"] for v in entry["variants"]})
    lines.append(f"  date: {entry['date'] or 'undated'}   id: {entry['id']}   "
                 f"variants: {len(entry['variants'])}")
    lines.append("  sources: " + ", ".join(Path(s).name for s in sources))
    return "\n".join(lines)


@click.group(cls=RulingsGroup)
@click.version_option(__version__, prog_name="rulings")
def cli():
    """Search, browse and export deduplicated Magic: The Gathering rulings."""


@cli.command()
@click.argument("sources", nargs=-1, type=click.Path(path_type=Path))
@click.option("--rebuild", is_flag=True, help="Start from an empty index.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def ingest(sources, rebuild, fmt, index_dir):
    """Add ruling documents (files or folders) to the index; none means the bundled corpus."""
    index_dir = index_dir or default_index()
    report = catalog.ingest(index_dir, list(sources) or corpus_files(), rebuild=rebuild)
    summary = report.to_json()
    if fmt == "json":
        click.echo(json.dumps(summary, ensure_ascii=False, indent=1))
    else:
        click.echo(f"{summary['rulings']} rulings read, {summary['entries']} entries in the index "
                   f"({summary['seconds']:.1f} s)")
        for name, counts in summary["formats"].items():
            click.echo(f"  {name:10} {counts['files']:5} files {counts['rulings']:7} rulings")
        for kind in ("skipped", "rejected"):
            if summary[kind]:
                click.echo(f"{len(summary[kind])} files {kind}:")
                for item in summary[kind]:
                    click.echo(f"  {item['path']}: {item['reason']}")
        for reason, count in summary["rejected_rulings"].items():
            click.echo(f"rejected rulings: {count} ({reason})")
    if report.named_failures:
        raise RulingsError(report.named_failures[0])


def _filters(mechanic, card, set_code, lang, since, until) -> query.Filters:
    return query.Filters(list(mechanic), card, set_code, lang, since, until)


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("words", nargs=-1, type=click.UNPROCESSED)
@click.option("--mechanic", multiple=True, help="Mechanic id; repeat to require all.")
@click.option("--card", help="Card name (either face of a split or double-faced card).")
@click.option("--set", "set_code", help="Set code.")
@click.option("--lang", help="Language code (zh matches zh-Hans and zh-Hant).")
@click.option("--since", type=IsoDate(), help="Oldest date, YYYY-MM-DD.")
@click.option("--until", type=IsoDate(), help="Newest date, YYYY-MM-DD.")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl"]), default="text")
@index_option
def search(words, mechanic, card, set_code, lang, since, until, limit, fmt, index_dir):
    """Search rulings text. QUERY is optional when a filter is given.

    Words that start with '-' are part of the query (rulings search -1/-1);
    put '--' before the query if it would clash with an option name.
    """
    text = " ".join(words)
    filters = _filters(mechanic, card, set_code, lang, since, until)
    hits = query.search(ready_index(index_dir), text, filters, limit)
    if fmt == "json":
        click.echo(json.dumps(hits, ensure_ascii=False, indent=1))
    elif fmt == "jsonl":
        for hit in hits:
            click.echo(json.dumps(hit, ensure_ascii=False))
    else:
        if not hits:
            click.echo("No rulings found.")
        for hit in hits:
            click.echo(entry_block(hit, hit["snippet"]) + "\n")


@cli.command()
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


@cli.command()
@click.argument("name", required=False)
@click.option("--lang", help="Only entries in this language.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def mechanics(name, lang, fmt, index_dir):
    """List mechanics with their entry counts, or the entries tagged NAME."""
    from ingest.tag import vocabulary
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
    from rapidfuzz import process
    wanted = name.strip().lower().replace(" ", "-")
    for mechanic in vocab.values():
        if wanted == mechanic.id or name.strip().lower() == mechanic.name.lower() or name.strip() in mechanic.zh:
            return mechanic.id
    close = [match for match, _, _ in process.extract(wanted, list(vocab), limit=3)]
    raise UnknownMechanic(f"unknown mechanic {name!r}; closest: {', '.join(close)}")


@cli.command()
@click.argument("entry_id")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def show(entry_id, fmt, index_dir):
    """One entry: its variants with sources and similarity, related entries, translations."""
    entry = query.entry_by_id(ready_index(index_dir), entry_id)
    if entry is None:
        raise UnknownEntry(f"no entry has the id {entry_id!r}")
    if fmt == "json":
        click.echo(json.dumps(entry, ensure_ascii=False, indent=1))
        return
    click.echo(entry_block(entry))
    if entry.get("repairs"):
        click.echo("  repaired for matching: " + "; ".join(entry["repairs"]))
    click.echo(f"\nvariants ({len(entry['variants'])}):")
    for v in entry["variants"]:
        click.echo(f"  [{v['similarity']:.2f}] {v['date'] or 'undated'} {v['card'] or v['oracle_id'] or '-'}"
                   f" ({v['set'] or '-'}) {v['source']['path']} [{v['source']['format']}]")
        if v["text"] != entry["text"]:
            click.echo(f"         {v['text']}")
    if entry["related"]:
        click.echo("\nrelated:")
        for r in entry["related"]:
            click.echo(f"  {r['id']}: {r['reason']}")
    if entry["translations"]:
        click.echo("\ntranslations:")
        for t in entry["translations"]:
            click.echo(f"  {t['id']} [{t['lang']}] {t['text']}")


@cli.command()
@click.option("--mechanic", multiple=True)
@click.option("--card")
@click.option("--set", "set_code")
@click.option("--lang")
@click.option("--since", type=IsoDate())
@click.option("--until", type=IsoDate())
@click.option("--query", "query_text", help="Words in the search language.")
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), default="jsonl", show_default=True)
@click.option("--group-by", type=click.Choice(GROUPS), help="Group md and html output under headings.")
@click.option("--variants", is_flag=True, help="CSV: one row per variant.")
@click.option("-o", "output", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE (default stdout).")
@index_option
def export(mechanic, card, set_code, lang, since, until, query_text, fmt, group_by, variants, output, index_dir):
    """Export a deduplicated ruling set, oldest date first, then id."""
    filters = _filters(mechanic, card, set_code, lang, since, until)
    index_dir = ready_index(index_dir)
    if query_text or filters.any():
        entries = query.search(index_dir, query_text, filters, limit=10_000_000)
    else:
        entries = list(index.all_entries(index_dir))
    for entry in entries:
        entry.pop("score", None)
        entry.pop("snippet", None)
    selected = {k: v for k, v in {"mechanic": list(mechanic), "card": card, "set": set_code, "lang": lang,
                                  "since": since, "until": until, "query": query_text}.items() if v}
    text = render(entries, fmt, selected, group_by, variants)
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.flush()


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def stats(fmt, index_dir):
    """Counts: rulings read, entries, rejected rulings, languages, formats, mechanics, sources."""
    figures = catalog.summary(ready_index(index_dir))
    shown = {k: figures[k] for k in ("rulings", "entries", "rejected_rulings", "languages",
                                     "formats", "mechanics", "sources")}
    if fmt == "json":
        click.echo(json.dumps(shown, ensure_ascii=False, indent=1))
        return
    click.echo(f"rulings read:      {figures['rulings']}")
    click.echo(f"entries:           {figures['entries']}")
    click.echo(f"variants kept:     {figures['variants']}")
    click.echo(f"rejected rulings:  {figures['rejected_rulings']}")
    for reason, n in figures.get("rejected_reasons", {}).items():
        click.echo(f"  {reason}: {n}")
    click.echo("languages:         " + ", ".join(f"{k} {v}" for k, v in figures["languages"].items()))
    click.echo("formats:           " + ", ".join(f"{k} {v['files']} files / {v['rulings']} rulings"
                                                for k, v in figures["formats"].items()))
    click.echo(f"mechanics:         {figures['mechanics']}")
    click.echo(f"sources:           {figures['sources']}")


def main():
    """Console-script entry point."""
    cli()
