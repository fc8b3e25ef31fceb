"""The ``rulings`` command line (click). Commands render; computation lives in the library.

Every command accepts ``--index DIR`` (default: $RULINGS_INDEX, else the user data
folder from platformdirs). The first command that needs an index when none
exists builds it from the bundled corpus. Each command is a module of
``search/commands/``.
"""

from __future__ import annotations

import sys

import click

from ingest import __version__
from ingest.errors import RulingsError
from search.commands import card, export, ingest, mechanics, remove, search, show, sources, stats, update


class RulingsGroup(click.Group):
    """Turns every RulingsError, and an OSError naming a file, into ``Error: <one line>`` on stderr and exit 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except RulingsError as err:
            raise click.ClickException(str(err)) from None
        except BrokenPipeError:
            # the reader of our output went away (``rulings export | head``): not an error of ours
            sys.stderr.close()
            ctx.exit(0)
        except OSError as err:
            # the machine refused a file operation (permissions, missing folder, full disk)
            if err.filename is None:
                raise
            raise click.ClickException(f"{err.filename}: {err.strerror or err}") from None


@click.group(cls=RulingsGroup)
@click.version_option(__version__, prog_name="rulings")
def cli():
    """Search, browse and export deduplicated Magic: The Gathering rulings."""


for module in (ingest, update, search, card, mechanics, show, export, sources, remove, stats):
    cli.add_command(getattr(module, module.__name__.rsplit(".", 1)[-1]))


def main():
    """Console-script entry point."""
    cli()
