"""Options and helpers shared by several commands: the index folder, dates, filters, text rendering."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sys
from pathlib import Path

import click

from ingest.controls import escape_json_controls, single_line, without_controls
from search import index, query


def default_index() -> Path:
    """$RULINGS_INDEX, else ``<user data dir>/rulings/index``."""
    env = os.environ.get("RULINGS_INDEX")
    if env:
        return Path(env)
    import platformdirs          # only without $RULINGS_INDEX (a search pays for what it uses: issue 9)
    return Path(platformdirs.user_data_dir("rulings")) / "index"


class IndexFolder(click.ParamType):
    """An index folder path: not empty, and not an existing file or device (usage error, exit 2)."""

    name = "folder"

    def convert(self, value, param, ctx):
        if isinstance(value, Path):
            return value
        if not value:
            self.fail("an empty path names no folder", param, ctx)
        path = Path(value)
        if path.exists() and not path.is_dir():
            self.fail(f"{value!r} is not a folder", param, ctx)
        return path


def index_option(fn):
    """The ``--index DIR`` option every command accepts (parameter ``index_dir``)."""
    return click.option("--index", "index_dir", type=IndexFolder(), default=None,
                        help="Index folder (default: $RULINGS_INDEX or the user data folder).")(fn)


def ready_index(index_dir: Path | None) -> Path:
    """The index folder, built from the bundled corpus when it holds no index yet.

    Raises DamagedIndex for a folder that holds other files but no index (search/catalog.py refuse_foreign).
    """
    index_dir = index_dir or default_index()
    if index.exists(index_dir):
        return index_dir
    from corpus import corpus_files          # building an index: the catalog and the bundled corpus
    from search import catalog, folder
    catalog.refuse_foreign(index_dir)
    if (folder.live(index_dir) / catalog.STATE).exists():
        # the Whoosh files are gone but the remembered sources are not: rewrite the index from them
        click.echo(f"{index_dir}: index files missing; rebuilding them from the remembered sources", err=True)
        catalog.rebuild_entries(index_dir)
    else:
        catalog.ingest_if_missing(index_dir, corpus_files())
    return index_dir


class IsoDate(click.ParamType):
    """A YYYY-MM-DD date, kept as its ISO string; anything else is a usage error (exit 2)."""

    name = "date"

    def convert(self, value, param, ctx):
        try:
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value or ""):
                raise ValueError
            dt.date.fromisoformat(value)
        except ValueError:
            self.fail(f"{value!r} is not a date (YYYY-MM-DD)", param, ctx)
        return value


def filter_options(fn):
    """The selectors shared by search and export: --mechanic (repeatable), --card, --set, --lang, --since, --until."""
    for option in reversed([
        click.option("--mechanic", multiple=True, help="Mechanic id or name; repeat to require all."),
        click.option("--card", help="Card name (either face of a split or double-faced card)."),
        click.option("--set", "set_code", help="Set code."),
        click.option("--lang", help="Language code (zh matches zh-Hans and zh-Hant)."),
        click.option("--since", type=IsoDate(), help="Oldest date, YYYY-MM-DD."),
        click.option("--until", type=IsoDate(), help="Newest date, YYYY-MM-DD."),
    ]):
        fn = option(fn)
    return fn


def filters_from(mechanic, card, set_code, lang, since, until) -> query.Filters:
    """A query.Filters from the shared selector options."""
    return query.Filters(list(mechanic), card, set_code, lang, since, until)


def json_text(value, indent: int | None = 1) -> str:
    """The JSON text a command prints: json.dumps without ASCII escapes, but with DEL and the C1
    control characters escaped as ``\\u00XX`` (json escapes the C0 ones), so that no control
    character from a document reaches the terminal raw; the value is the same JSON."""
    return escape_json_controls(json.dumps(value, ensure_ascii=False, indent=indent))


def printable(text: str) -> str:
    """Text for the terminal: every control character removed but newline and tab (ingest/controls.py),
    so that a document cannot send the terminal an escape sequence (an OSC title, a CSI colour)."""
    return without_controls(text)


def emphasise(text: str) -> str:
    """``**word**`` marks as terminal bold on a terminal; kept as-is when piped."""
    if sys.stdout.isatty():
        return re.sub(r"\*\*(.+?)\*\*", lambda m: click.style(m.group(1), bold=True, fg="yellow"), text)
    return text


def entry_block(entry: dict, text: str | None = None) -> str:
    """The text rendering of one entry: text or snippet, then mechanics, cards, sets, date, id, sources.

    Control characters of the document are removed (printable) before the terminal styling is added;
    the one-line fields (cards, sets, sources) lose newlines and tabs too."""
    cards = [single_line(card) for card in entry["cards"]]
    shown = ", ".join(cards[:5]) + (f" +{len(cards) - 5} more" if len(cards) > 5 else "")
    lines = [emphasise(printable(text or entry["text"]))]
    if entry["mechanics"]:
        lines.append("  mechanics: " + ", ".join(entry["mechanics"]))
    if cards:
        lines.append("  cards: " + shown)
    if entry["sets"]:
        lines.append("  sets: " + single_line(", ".join(entry["sets"])))
    sources = sorted({v["source"]["path"] for v in entry["variants"]})
    lines.append(f"  date: {single_line(entry['date'] or 'undated')}   id: {single_line(entry['id'])}   "
                 f"variants: {len(entry['variants'])}")
    lines.append("  sources: " + single_line(", ".join(Path(s).name for s in sources)))
    return "\n".join(lines)
