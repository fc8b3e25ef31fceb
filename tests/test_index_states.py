"""States of an index folder a user can reach (issue 21): an empty index is a normal state, a damaged or
incomplete one gives one ``Error:`` line naming ``rulings ingest --rebuild``, and nothing a user built is
ever replaced by the bundled demo corpus."""

from __future__ import annotations

import json

import pytest

from search import catalog, folder
from search.cli import cli

EMPTY_LIST = "realdata/scryfall-cassette-mtgjson/decoded_bodies/rulings_b443504e-1b25-4565-bad7-2575826c7bb9.json"


@pytest.fixture
def empty_index(shared, tmp_path):
    """An index whose first ingest gave 0 entries: a real Scryfall rulings list with ``"data": []``."""
    index_dir = tmp_path / "ix"
    report = catalog.ingest(index_dir, [shared / EMPTY_LIST])
    assert (report.entries, report.to_json()["skipped"][0]["reason"]) == (0, "Scryfall rulings list with no rulings")
    return index_dir


@pytest.mark.parametrize("command,stdout", [
    pytest.param(["search", "flying"], "No rulings found.\n", id="search"),
    pytest.param(["search", "flying", "--format", "json"], "[]\n", id="search-json"),
    pytest.param(["search", "--mechanic", "flying", "--format", "jsonl"], "", id="search-filter"),
    pytest.param(["export", "--format", "csv"], "id,text,lang,date,dates,mechanics,cards,sets,variants\n",
                 id="export-csv"),
    pytest.param(["export", "--format", "json"], "[]\n", id="export-json"),
    pytest.param(["mechanics", "--format", "json"], "[]\n", id="mechanics"),
    pytest.param(["mechanics"], "No mechanics: the index holds no entries.\n", id="mechanics-text"),
    pytest.param(["mechanics", "flying"], "flying: 0 entries\n\n", id="mechanic"),
    pytest.param(["card", "Jace, Vryn's Prodigy", "--format", "json"], "[]\n", id="card"),
    pytest.param(["card", "Jace"], "No rulings for 'Jace'.\n", id="card-text"),
])
def test_empty_index_answers_every_command(runner, empty_index, command, stdout):
    result = runner.invoke(cli, [*command, "--index", str(empty_index)])
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    assert result.stdout == stdout


def test_empty_index_export_jsonl_meta(runner, empty_index):
    result = runner.invoke(cli, ["export", "--index", str(empty_index)])
    assert result.exit_code == 0, result.output
    meta = json.loads(result.stdout)["meta"]
    assert (meta["entries"], meta["variants"], meta["sources"]) == (0, 0, [])


def test_rebuild_to_nothing_and_removing_the_last_source_leave_a_usable_index(runner, shared, tmp_path):
    index_dir = tmp_path / "ix"
    single = shared / "realdata/scryfall-aioscryfall/single-card.json"
    assert catalog.ingest(index_dir, [single]).entries == 2                 # Deathrite Shaman's 2 rulings
    assert catalog.ingest(index_dir, [shared / EMPTY_LIST], rebuild=True).entries == 0
    assert runner.invoke(cli, ["search", "Deathrite", "--index", str(index_dir)]).stdout == "No rulings found.\n"
    assert catalog.ingest(index_dir, [single]).entries == 2
    removed = runner.invoke(cli, ["remove", str(single), "--index", str(index_dir)])
    assert removed.stdout == "removed 1 source (2 rulings); 0 entries in the index\n"
    result = runner.invoke(cli, ["export", "--format", "json", "--index", str(index_dir)])
    assert (result.exit_code, result.stdout) == (0, "[]\n")
    assert folder.live(index_dir).name == "gen-000004"
