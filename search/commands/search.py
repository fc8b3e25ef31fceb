"""The ``rulings search`` command."""

from __future__ import annotations

import difflib
import re

import click

from rulings.search.commands.options import (
    entry_block,
    filter_options,
    index_option,
    json_text,
    printable,
    ready_index,
    warn_if_reversed,
)

# A word that looks like an option: '-' or '--', a letter, then letters, digits, '_' or '-' (and '=value' after
# a long name). '-1/-1', '-set:ONE' and a quoted "-1/-1 counters" do not: they are query words.
LOOKS_LIKE_OPTION = re.compile(r"--?[^\W\d_][\w-]*(=.*)?", re.DOTALL)


class QueryCommand(click.Command):
    """A command whose arguments are query words, some of which start with '-' (``-1/-1``).

    click is told to pass unknown options through as words (ignore_unknown_options), so a mistyped
    option (``--lmit 3``) would become part of the query: parse_args() makes any word before ``--``
    that looks like an option (LOOKS_LIKE_OPTION) and is none of the command's a usage error (exit 2),
    naming the closest option. Words after ``--`` are query words whatever they look like.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        names, valued = set(), set()
        for param in self.get_params(ctx):
            if isinstance(param, click.Option):
                names.update(param.opts + param.secondary_opts)
                if not param.is_flag and not param.count:
                    valued.update(param.opts)
        words = iter(args)
        for word in words:
            if word == "--":
                break
            if word in valued:
                next(words, None)                 # its value, whatever it looks like
            elif word not in names and word.split("=", 1)[0] not in valued and LOOKS_LIKE_OPTION.fullmatch(word):
                close = difflib.get_close_matches(word.split("=", 1)[0], sorted(names), n=1, cutoff=0.6)
                hint = f"Did you mean {close[0]}?" if close else \
                    f"A query word that looks like an option goes after '--': rulings search -- {word}"
                raise click.UsageError(f"No such option: {word}. {hint}", ctx)
        return super().parse_args(ctx, args)


@click.command(cls=QueryCommand, context_settings={"ignore_unknown_options": True})
@click.argument("words", nargs=-1, type=click.UNPROCESSED, metavar="[QUERY]...")
@filter_options
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True,
              help="Most entries to show (best first).")
@click.option("--every-word", is_flag=True, help="Require every word of the query (no best match).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl"]), default="text")
@index_option
def search(words, mechanic, card, set_code, lang, since, until, limit, every_word, fmt, index_dir):
    """Search rulings text, best matches first. QUERY is optional when a filter is given.

    \b
    QUERY language:
      respond proliferate  best match: entries holding every word first, then
                           those holding most of them (any order, any form:
                           sacrifice = sacrificed = sacrificing); question and
                           function words (can, I, what, if, 的, 吗) are never
                           required; player words (ETB, fizzle, CMC, 进场) also
                           find what rulings say instead, with less weight
      +word  or  a AND b   required words (the other words rank what they
                           select: +deathtouch trample); symbols and P/T
                           ({T}, +1/+1) are required in a query of up to 5
                           words (in a longer one, a question, they weigh
                           most); --every-word requires every word
      "can't be blocked"   a phrase (required)
      prolif*              words starting with prolif
      flying OR reach      either word;  NOT word  or  -word  excludes it
                           (from what other words or a filter find)
      card:"Fire // Ice"   set:ONE  mechanic:proliferate  lang:en
      date:>=2019-01-01    filters (date also takes > < <= and 2019 or 2019-06);
                           -set:ONE excludes; filters select, never reorder;
                           after other words, 'card:' with no value is a word

    \b
    A word that starts with '-' and a digit, or a -field:value, is part of
    the query, so these work:
      rulings search -1/-1
      rulings search "-1/-1 counters"
      rulings search flying -set:ONE
    Any other word that looks like an option and is not one is an error
    (a mistyped --limit is never searched for); put '--' before a query
    that holds one: rulings search -- flying -reach
                    rulings search --format json -- --limit
    """
    text = " ".join(words)
    warn_if_reversed(since, until)
    index = ready_index(index_dir)
    hits = index.search(text, mechanics=mechanic, card=card, set_code=set_code, lang=lang, since=since, until=until,
                        limit=limit, every_word=every_word)      # a card's first words select it too (--card Okaun)
    hint = ""
    if not hits and text.strip():
        close = index.suggestions(text)
        hint = f"Did you mean: {', '.join(close)}?" if close else ""
    if fmt == "json":
        click.echo(json_text(hits))
    elif fmt == "jsonl":
        for hit in hits:
            click.echo(json_text(hit, indent=None))
    else:
        if not hits:
            click.echo("No rulings found.")
        for hit in hits:
            click.echo(entry_block(hit, hit["snippet"]) + "\n")
    if hint:
        click.echo(printable(hint), err=fmt != "text")
