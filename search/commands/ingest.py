"""The ``rulings ingest`` command."""

from __future__ import annotations

import click

from rulings.ingest.controls import single_line
from rulings.ingest.errors import RulingsError
from rulings.search.commands.options import index_option, json_text, open_index, shown_path


def format_table(files) -> list[str]:
    """Lines of a table per sniffed format: files that yielded rulings, rulings read, files skipped,
    files rejected (``files`` counts as ``formats`` does in the JSON output).

    Files no reader claimed are counted under ``(none)``.
    """
    rows: dict[str, list[int]] = {}
    for result in files:
        row = rows.setdefault(result.format or "(none)", [0, 0, 0, 0])
        row[0] += bool(result.rulings)
        row[1] += len(result.rulings)
        row[2] += bool(result.skipped)
        row[3] += bool(result.rejected)
    lines = [f"  {'format':10} {'files':>6} {'rulings':>8} {'skipped':>8} {'rejected':>9}"]
    for name in sorted(rows, key=lambda n: (n == "(none)", n)):
        files_n, rulings, skipped, rejected = rows[name]
        lines.append(f"  {name:10} {files_n:6} {rulings:8} {skipped:8} {rejected:9}")
    if len(rows) > 1:
        total = [sum(row[i] for row in rows.values()) for i in range(4)]
        lines.append(f"  {'total':10} {total[0]:6} {total[1]:8} {total[2]:8} {total[3]:9}")
    return lines


@click.command()
@click.argument("sources", nargs=-1, type=click.Path(readable=False))
@click.option("--rebuild", is_flag=True, help="Start from an empty index.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@index_option
def ingest(sources, rebuild, fmt, index_dir):
    """Add ruling documents (files or folders) to the index; none means the bundled corpus."""
    report = open_index(index_dir).ingest(sources, rebuild=rebuild)     # no SOURCE: the bundled corpus
    summary = report.to_json()
    if fmt == "json":
        click.echo(json_text(summary))
    else:
        click.echo(f"{summary['rulings']} rulings read, {summary['entries']} entries in the index "
                   f"({summary['seconds']:.1f} s)")
        for line in format_table(report.files):
            click.echo(line)
        for kind in ("skipped", "rejected"):
            if summary[kind]:
                count = len(summary[kind])
                click.echo(f"{count} {'file' if count == 1 else 'files'} {kind}:")
                for item in summary[kind]:
                    click.echo(single_line(f"  {shown_path(item['path'])}: {item['reason']}"))
        for reason, count in summary["rejected_rulings"].items():
            click.echo(f"rejected rulings: {count} ({reason})")
        for reason, count in summary["warnings"].items():
            click.echo(single_line(f"warnings: {count} rulings ({reason})"))
        if summary["language_mismatches"]:
            click.echo(f"language mismatches: {len(summary['language_mismatches'])} "
                       "(declared language differs from the text's; detected language used)")
    if report.named_failures:
        raise RulingsError(named_failures_line(report.named_failures))


NAMED_SHOWN = 5     # failures named in the error line; the report above lists them all


def named_failures_line(failures: list[str]) -> str:
    """The one error line for the paths named on the command line that cannot be read: the failure
    itself when there is one, else their count and the first NAMED_SHOWN ("path: reason") joined by "; "."""
    if len(failures) == 1:
        return failures[0]
    shown = "; ".join(failures[:NAMED_SHOWN])
    more = f"; and {len(failures) - NAMED_SHOWN} more (all in the report above)" if len(failures) > NAMED_SHOWN else ""
    return f"{len(failures)} paths named cannot be read: {shown}{more}"
