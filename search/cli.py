"""The ``rulings`` command line (click). Commands render; computation lives in the library.

Every command accepts ``--index DIR`` (default: $RULINGS_INDEX, else the user data
folder from platformdirs). The first command that needs an index when none
exists builds it from the bundled corpus. Each command is a module of
``search/commands/``.
"""

from __future__ import annotations

import codecs
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
        except UnicodeEncodeError as err:
            # an argument holding bytes that are not text in the locale's encoding (surrogateescape)
            if "surrogates not allowed" not in str(err):
                raise
            raise click.ClickException("an argument holds bytes that are not UTF-8 text; "
                                       "retype it or set a UTF-8 locale (LANG=C.UTF-8)") from None


@click.group(cls=RulingsGroup)
@click.version_option(__version__, prog_name="rulings")
def cli():
    """Search, browse and export deduplicated Magic: The Gathering rulings."""


for module in (ingest, update, search, card, mechanics, show, export, sources, remove, stats):
    cli.add_command(getattr(module, module.__name__.rsplit(".", 1)[-1]))


ESCAPE = "rulings-escape"


def escape_unencodable(err: UnicodeError) -> tuple[str, int]:
    """Codec error handler: a character the stream's encoding lacks becomes ``\\uXXXX``
    (a surrogate pair beyond U+FFFF), which keeps JSON output valid JSON and text readable."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    escaped = []
    for char in err.object[err.start:err.end]:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            escaped.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            escaped.append(f"\\u{code:04x}")
    return "".join(escaped), err.end


codecs.register_error(ESCAPE, escape_unencodable)


def never_fail_output() -> None:
    """Let stdout and stderr write any text whatever their encoding (a C locale, PYTHONIOENCODING,
    a redirected stream): characters the encoding lacks are escaped by escape_unencodable.
    Files the tool writes (export -o, the index) are UTF-8 whatever the locale."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=ESCAPE)


def main():
    """Console-script entry point."""
    never_fail_output()
    cli()
