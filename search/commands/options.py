"""Options and helpers shared by several commands: the index (a rulings.Index), dates, filters, text rendering."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sys
from pathlib import Path

import click

from rulings.api import Index
from rulings.ingest.controls import escape_json_controls, single_line, without_controls


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


def open_index(index_dir: Path | None) -> Index:
    """The Index of the --index folder (None: the default one), not made ready: for the commands that
    change or fill an index (ingest, update)."""
    return Index.open(index_dir)


def ready_index(index_dir: Path | None) -> Index:
    """The Index of the --index folder (None: the default one), ready to answer (rulings.Index.ready(): a
    missing index is built from the bundled demo corpus only at the default location, and said on stderr
    once; another folder without one is a NoIndex error)."""
    return Index.open(index_dir).ready(on_note=lambda line: click.echo(line, err=True))


# full-width digits and hyphen (U+FF10-FF19, U+FF0D) as ASCII; other scripts' digits (٢٠١٩) stay and are refused
_FULL_WIDTH_DATE = {0xFF10 + n: 0x30 + n for n in range(10)} | {0xFF0D: 0x2D}


class IsoDate(click.ParamType):
    """A date as a year, a month or a day (YYYY, YYYY-MM, YYYY-MM-DD, as the query's ``date:`` takes), kept
    as its ISO string; anything else is a usage error (exit 2). A year or a month means every day in it:
    ``--since 2019`` from 2019-01-01, ``--until 2019-06`` to 2019-06-30 (query.Filters compares prefixes).
    """

    name = "date"

    def convert(self, value, param, ctx):
        value = (value or "").translate(_FULL_WIDTH_DATE)      # ２０１９ typed in a Chinese keyboard's wide mode
        match = re.fullmatch(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?", value)
        try:
            if not match:
                raise ValueError
            dt.date(int(match.group(1)), int(match.group(2) or 1), int(match.group(3) or 1))
        except ValueError:
            self.fail(f"{value!r} is not a date (YYYY-MM-DD, or a month YYYY-MM, or a year YYYY)", param, ctx)
        return value


def warn_if_reversed(since: str | None, until: str | None) -> None:
    """One line on stderr when --since is after --until: no date lies between them, so nothing matches.

    The range is every date from since to the last day of until (a year or a month is all its days), so
    it is empty exactly when since's first len(until) characters sort after until.
    """
    if since and until and since[:len(until)] > until:
        click.echo(f"warning: --since {since} is after --until {until}, so nothing can match", err=True)


def filter_options(fn):
    """The selectors shared by search and export: --mechanic (repeatable), --card, --set, --lang, --since, --until."""
    for option in reversed([
        click.option("--mechanic", multiple=True, help="Mechanic id or name; repeat to require all."),
        click.option("--card", help="Card name (either face of a split or double-faced card)."),
        click.option("--set", "set_code", help="Set code."),
        click.option("--lang", help="Language code (zh matches zh-Hans and zh-Hant)."),
        click.option("--since", type=IsoDate(), help="Oldest date: YYYY-MM-DD, a month YYYY-MM or a year YYYY."),
        click.option("--until", type=IsoDate(), help="Newest date: YYYY-MM-DD, a month YYYY-MM or a year YYYY."),
    ]):
        fn = option(fn)
    return fn


def json_text(value, indent: int | None = 1) -> str:
    """The JSON text a command prints: json.dumps without ASCII escapes, but with DEL and the C1
    control characters escaped as ``\\u00XX`` (json escapes the C0 ones), so that no control
    character from a document reaches the terminal raw; the value is the same JSON."""
    return escape_json_controls(json.dumps(value, ensure_ascii=False, indent=indent))


def printable(text: str) -> str:
    """Text for the terminal: every control character removed but newline and tab (ingest/controls.py),
    so that a document cannot send the terminal an escape sequence (an OSC title, a CSI colour)."""
    return without_controls(text)
def shown_path(path: str) -> str:
    """A remembered source path as text output shows it: relative to the working folder when it lies
    inside it (``mtgjson/MKM.json``), else as remembered (absolute, or a bundled document's
    ``rulings:corpus/NAME``). JSON output always gives the remembered path."""
    if not os.path.isabs(path):
        return path
    try:
        relative = os.path.relpath(path)
    except (OSError, ValueError):       # no working folder (removed meanwhile)
        return path
    return path if relative == ".." or relative.startswith(".." + os.sep) else relative


def emphasise(text: str) -> str:
    """``**word**`` marks as terminal bold on a terminal; kept as-is when piped."""
    if sys.stdout is not None and sys.stdout.isatty():
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


def entries_count(count: int) -> str:
    """``1 entry``, ``5 entries``."""
    return f"{count} entry" if count == 1 else f"{count} entries"
