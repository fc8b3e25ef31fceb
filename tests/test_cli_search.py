"""``rulings search`` through click's CliRunner on a small index the tests write."""

from __future__ import annotations

import json

import pytest
from rulings_fixture import SHARED, build_index

from rulings.search.cli import cli


@pytest.fixture(scope="module")
def mtg_index(tmp_path_factory):
    return build_index(tmp_path_factory.mktemp("mtg-cli"))


def run(runner, index_dir, *args):
    return runner.invoke(cli, ["search", *args, "--index", str(index_dir)])


def test_leading_minus_is_a_query(runner, mtg_index):
    result = run(runner, mtg_index, "-1/-1", "--format", "json")
    assert result.exit_code == 0, result.output
    assert {h["text"] for h in json.loads(result.stdout)} == {
        "Put a -1/-1 counter on each creature your opponents control.",
        "A creature with -1/-1 counters on it may die to state-based actions."}
    result = run(runner, mtg_index, "-1/-1 counters", "--format", "json")
    assert len(json.loads(result.stdout)) == 2
    result = runner.invoke(cli, ["search", "--index", str(mtg_index), "--format", "json", "--", "-1/-1"])
    assert len(json.loads(result.stdout)) == 2


def test_help_explains_double_dash(runner):
    result = runner.invoke(cli, ["search", "--help"])
    assert result.exit_code == 0
    assert "'--'" in result.stdout
    assert "rulings search -1/-1" in result.stdout


def test_piped_text_marks_words_and_lists_fields(runner, mtg_index):
    result = run(runner, mtg_index, "sacrificed")
    assert result.exit_code == 0
    assert "**Sacrificed** creatures go to their owner's graveyard." in result.stdout
    assert "**Sacrificing** a permanent" in result.stdout
    blocks = result.stdout.strip().split("\n\n")
    assert len(blocks) == 3
    for block in blocks:
        assert "  date: 2020-01-01" in block and "  id: r-" in block


def test_block_shows_first_cards_then_more(runner, mtg_index):
    result = run(runner, mtg_index, "evolve", "triggers", "whenever")
    assert result.stdout.startswith("**Evolve** **triggers** **whenever**")
    assert "  cards: Cloudfin Raptor, Experiment One, Shambleshark, Gyre Sage, Elusive Krasis +1 more" \
        in result.stdout
    assert "  mechanics: evolve" in result.stdout
    assert "  date: 2019-03-03" in result.stdout


def test_json_snippet_marks_words(runner, mtg_index):
    hits = json.loads(run(runner, mtg_index, "dandan", "--format", "json").stdout)
    assert hits[0]["snippet"] == "**Dandân** attacks only if defending player controls an Island."
    assert hits[0]["text"] == "Dandân attacks only if defending player controls an Island."
    assert hits[0]["score"] > 0
    lines = run(runner, mtg_index, "dandan", "--format", "jsonl").stdout.splitlines()
    assert [json.loads(line)["id"] for line in lines] == [hits[0]["id"]]


def test_no_hits_suggests_and_exits_0(runner, mtg_index):
    result = run(runner, mtg_index, "sacrifise")
    assert result.exit_code == 0
    assert result.stdout == "No rulings found.\nDid you mean: sacrifice, sacrificed, sacrificing?\n"
    result = run(runner, mtg_index, "sacrifise", "--format", "json")
    assert (result.exit_code, result.stdout) == (0, "[]\n")
    assert result.stderr.startswith("Did you mean: sacrifice")


def test_filter_without_query(runner, mtg_index):
    result = run(runner, mtg_index, "--card", "fire/ice", "--format", "json")
    assert result.exit_code == 0
    assert len(json.loads(result.stdout)) == 2
    result = run(runner, mtg_index, "--card", "Insectile Aberration", "--format", "json")
    assert [h["cards"] for h in json.loads(result.stdout)] == [["Delver of Secrets // Insectile Aberration"]]


def test_query_errors_are_one_line(runner, mtg_index):
    result = run(runner, mtg_index, "date:soon")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: 'date:soon' is not a date")
    assert result.stderr.count("\n") == 1


def test_shared_ruling_listed_once(runner, mtg_index):
    hits = json.loads(run(runner, mtg_index, "greater", "toughness", "--every-word", "--format", "json").stdout)
    assert [h["text"] for h in hits] == [SHARED]
    assert len(hits[0]["variants"]) == 6


# Mistyped options (issue 21, item 12), on the real MTGJSON v3 Tenth Edition rulings.
@pytest.fixture(scope="module")
def tenth_index(shared, tmp_path_factory):
    from rulings.search import catalog

    folder = tmp_path_factory.mktemp("tenth-search") / "ix"
    catalog.ingest(folder, [shared / "realdata/mtgjson3-sets/10E.json"])
    return folder


def texts(result) -> list[str]:
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    return [hit["text"][:40] for hit in json.loads(result.stdout)]


@pytest.mark.parametrize("args,line", [
    pytest.param(["--lmit", "3", "flying"], "No such option: --lmit. Did you mean --limit?", id="long"),
    pytest.param(["--lmit=3", "flying"], "No such option: --lmit=3. Did you mean --limit?", id="long-value"),
    pytest.param(["flying", "--formt", "json"], "No such option: --formt. Did you mean --format?", id="after-word"),
    pytest.param(["flying", "-reach"], "No such option: -reach. A query word that looks like an option goes "
                                       "after '--': rulings search -- -reach", id="short"),
])
def test_mistyped_option_is_a_usage_error(runner, tenth_index, args, line):
    result = run(runner, tenth_index, *args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.endswith(f"\nError: {line}\n")


def test_words_that_start_with_minus_and_are_query_words(runner, tenth_index):
    flying = texts(run(runner, tenth_index, "flying", "--format", "json"))
    assert len(flying) == 4
    assert texts(runner.invoke(cli, ["search", "--index", str(tenth_index), "--format", "json", "--",
                                     "flying", "-reach"])) == \
        ["Whether or not a creature has flying is "]                      # the 3 reach entries excluded
    assert texts(run(runner, tenth_index, "flying", "-set:10E", "--format", "json")) == []
    assert texts(run(runner, tenth_index, "-1/-1", "--format", "json")) == \
        ["If Ascendant Evincar stops being black, ", "If Chimeric Staff is already an artifact"]
    assert texts(run(runner, tenth_index, "--limit=1", "flying", "--format=json")) == flying[:1]
    assert texts(run(runner, tenth_index, "--card", "-reach", "--format", "json")) == []   # an option's value


# --since and --until take a year or a month, as date: does (issue 21, item 14); real XLN and SOI rulings.
def ids(runner, index_dir, *args):
    result = runner.invoke(cli, [*args, "--format", "json", "--index", str(index_dir)])
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    return {entry["id"] for entry in json.loads(result.stdout)}


def test_since_and_until_take_a_year_or_a_month(runner, ixalan_index):
    since = ids(runner, ixalan_index, "search", "--since", "2017", "--set", "XLN", "--limit", "1000")
    assert since == ids(runner, ixalan_index, "search", "date:>=2017 set:XLN", "--limit", "1000")
    assert len(since) == 305          # Pounce and Savage Stomp: one illegal-target ruling (issue 22)
    until = ids(runner, ixalan_index, "export", "--until", "2016-04")
    assert until == ids(runner, ixalan_index, "export", "--query", "date:<=2016-04") and len(until) == 281
    assert len(ids(runner, ixalan_index, "export", "--since", "2016", "--until", "2016")) == 270
    assert ids(runner, ixalan_index, "export", "--since", "2016-04-08", "--until", "2016-04") == \
        ids(runner, ixalan_index, "export", "--since", "2016-04-08", "--until", "2016-04-30")


@pytest.mark.parametrize("value", ["2019-13", "19", "2019-1", "2019-02-30", "June", "٢٠١٩", "२०१९"])
def test_since_that_is_no_year_month_or_day_is_a_usage_error(runner, ixalan_index, value):
    result = runner.invoke(cli, ["search", "--since", value, "flying", "--index", str(ixalan_index)])
    assert result.exit_code == 2
    assert result.stderr.endswith(f"Error: Invalid value for '--since': {value!r} is not a date (YYYY-MM-DD, "
                                  "or a month YYYY-MM, or a year YYYY)\n")


def test_full_width_dates_are_the_ascii_dates(runner, ixalan_index):
    """A Chinese keyboard's wide mode types ２０１６－０４: the same filter as 2016-04 (once it found nothing and
    --until ２０１６ was ignored); other scripts' digits are refused above, never read as another date."""
    assert ids(runner, ixalan_index, "export", "--until", "２０１６－０４") == \
        ids(runner, ixalan_index, "export", "--until", "2016-04")
    assert len(ids(runner, ixalan_index, "export", "--since", "２０１６", "--until", "２０１６")) == 270


@pytest.mark.parametrize("command", [["search", "flying"], ["export"]])
def test_since_after_until_warns_in_one_line(runner, ixalan_index, command):
    result = runner.invoke(cli, [*command, "--since", "2017-10", "--until", "2017-09", "--format", "json",
                                 "--index", str(ixalan_index)])
    assert (result.exit_code, result.stdout) == (0, "[]\n")
    assert result.stderr == "warning: --since 2017-10 is after --until 2017-09, so nothing can match\n"


def test_emphasis_with_stdout_closed_is_plain_text(monkeypatch):
    """``rulings search flying >&-`` ended in a traceback: a closed stdout is None in Python, and asking it
    whether it is a terminal failed. With none, the marks stay as text (click.echo then writes nowhere)."""
    import sys

    from rulings.search.commands.options import emphasise
    monkeypatch.setattr(sys, "stdout", None)
    assert emphasise("**flying** rulings") == "**flying** rulings"
