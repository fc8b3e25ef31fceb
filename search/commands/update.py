"""The ``rulings update`` command: fetch the official rulings data, then ingest it (search/update.py)."""

from __future__ import annotations

import os

import click

from rulings.ingest.controls import single_line
from rulings.ingest.errors import RulingsError
from rulings.search.commands.options import index_option, json_text, open_index

# The download code (httpx, rich) is imported by Index.update() when it runs, so that other commands never pay for it.
SOURCES = ("scryfall", "mtgjson")           # search/update.py SOURCES


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return float(value)
    except ValueError:
        raise RulingsError(f"${name}: {value!r} is not a number") from None


@click.command()
@click.option("--source", type=click.Choice(SOURCES), default="scryfall", show_default=True,
              help="Scryfall bulk data (every ruling) or MTGJSON (AllPrintings, or the --set files).")
@click.option("--set", "sets", multiple=True, metavar="CODE", help="MTGJSON set code; repeat for more sets.")
@click.option("--base-url", metavar="URL",
              help="Base URL of the source (default: $RULINGS_SCRYFALL_URL / $RULINGS_MTGJSON_URL, "
                   "else https://api.scryfall.com / https://mtgjson.com).")
@click.option("--timeout", type=click.FloatRange(min=0.001), default=None, metavar="SECONDS",
              help="Give up on a request after this long without an answer (default: $RULINGS_TIMEOUT, else 30).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def update(source, sets, base_url, timeout, fmt, index_dir):
    """Fetch the official rulings data (only what changed), then ingest it.

    The downloads are kept in the user cache folder ($RULINGS_CACHE_DIR to choose another).
    """
    report = open_index(index_dir).update(source, sets, base_url,
                                          timeout=timeout or _env_float("RULINGS_TIMEOUT", 30.0),
                                          retries=int(_env_float("RULINGS_RETRIES", 3)),
                                          backoff=_env_float("RULINGS_RETRY_BACKOFF", 1.0),
                                          min_delay=_env_float("RULINGS_MIN_DELAY", 0.1), progress=True)
    if fmt == "json":
        click.echo(json_text(report.to_json()))
        return
    for line in report_lines(report):
        click.echo(line)


def report_lines(report) -> list[str]:
    """The text report of a search/update.py UpdateReport: one line per download, the card names, the
    files written and the notes on them, the ingest figures."""
    from rich.filesize import decimal

    lines = []
    for item in report.downloads:
        shown = item.to_json()
        if shown["status"] == "unchanged":
            lines.append(f"{item.name}: unchanged, nothing downloaded")
        else:
            rate = f", {decimal(int(item.transferred / item.seconds))}/s" if item.seconds > 0 else ""
            resumed = f" (resumed after {decimal(item.resumed_from)})" if item.resumed_from else ""
            lines.append(f"{item.name}: {shown['status']} {decimal(item.transferred)} in {item.seconds:.1f} s"
                         f"{rate}{resumed}")
    if report.named is not None:
        lines.append(f"card names: {report.named[0]} of {report.named[1]} oracle ids named")
    lines.append(f"ingest files: {report.files_written} of {report.files_total} written")
    lines.extend(single_line(f"note: {note}") for note in report.notes)
    ingest = report.ingest
    if ingest is not None:
        figures = ingest.to_json()
        if ingest.changed:
            changes = ingest.index_changes
            lines.append(f"ingested: {ingest.parsed} files read, {figures['rulings']} rulings, "
                         f"{ingest.entries} entries in the index ({changes.get('added', 0)} written, "
                         f"{changes.get('deleted', 0)} deleted) in {figures['seconds']:.1f} s")
        else:
            lines.append(f"index unchanged: {figures['rulings']} rulings, {ingest.entries} entries")
        for item in figures["rejected"]:
            lines.append(single_line(f"rejected: {item['path']}: {item['reason']}"))
    return lines
