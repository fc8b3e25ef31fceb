"""The ``rulings`` command line (click). Commands render; computation lives in the library.

Every command accepts ``--index DIR`` (default: $RULINGS_INDEX, else the user data
folder from platformdirs). The first command that needs an index when none
exists at the default location builds it from the bundled demo corpus and says
so; a ``--index`` folder without an index is an error (search/commands/options.py
ready_index). Each command is a module of ``search/commands/``.
"""

from __future__ import annotations

import codecs
import importlib
import sys

import click

from rulings.ingest import __version__
from rulings.ingest.controls import single_line
from rulings.ingest.errors import RulingsError
from rulings.search.commands.options import IndexFolder

# The commands: each is the function of that name in search/commands/<name>.py, imported only when the
# command runs or help lists it (a search does not import export, ingest or update code).
COMMANDS = ("card", "export", "ingest", "mcp", "mechanics", "remove", "search", "serve", "show", "sources", "stats",
            "update")


class RulingsGroup(click.Group):
    """Turns every RulingsError and OSError (naming its file when it has one) into ``Error: <one line>`` on
    stderr and exit 1.

    Commands load lazily: list_commands() names COMMANDS, get_command() imports the one asked for.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module = importlib.import_module(f"rulings.search.commands.{cmd_name}")
            self.add_command(getattr(module, cmd_name))
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and args[0] not in COMMANDS:
            # not a command name: load them all, so click's "Did you mean" chooses among every command
            for name in COMMANDS:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except RulingsError as err:
            raise click.ClickException(single_line(str(err))) from None
        except BrokenPipeError:
            # the reader of our output went away (``rulings export | head``): not an error of ours
            sys.stderr.close()
            ctx.exit(0)
        except OSError as err:
            # the machine refused a file operation (permissions, missing folder, full disk); the library
            # names the file or folder where it can (search/catalog.py IndexWriteError), this is the last net
            if err.filename is None:
                raise click.ClickException(single_line(err.strerror or str(err) or type(err).__name__)) from None
            raise click.ClickException(single_line(f"{err.filename}: {err.strerror or err}")) from None
        except UnicodeEncodeError as err:
            # an argument holding bytes that are not text in the locale's encoding (surrogateescape)
            if "surrogates not allowed" not in str(err):
                raise
            raise click.ClickException("an argument holds bytes that are not UTF-8 text; "
                                       "retype it or set a UTF-8 locale (LANG=C.UTF-8)") from None


@click.group(cls=RulingsGroup)
@click.version_option(__version__, prog_name="rulings")
@click.option("--index", "index_dir", type=IndexFolder(), default=None, metavar="FOLDER",
              help="Index folder for the command (as the command's own --index, which wins).")
@click.pass_context
def cli(ctx: click.Context, index_dir):
    """Search, browse and export deduplicated Magic: The Gathering rulings."""
    if index_dir is not None:       # ``rulings --index DIR search ...``: the default of every command's --index
        ctx.default_map = {name: {"index_dir": str(index_dir)} for name in COMMANDS}



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
