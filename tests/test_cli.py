import json

import pytest

from rulings.search.cli import cli


def run(runner, seed_index, *args):
    return runner.invoke(cli, [*args, "--index", str(seed_index)])


def test_stats_counts_seeds(runner, seed_index):
    result = run(runner, seed_index, "stats", "--format", "json")
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["rulings"] == 54
    assert stats["entries"] == 43
    assert stats["rejected_rulings"] == 0
    assert stats["formats"] == {"text": {"files": 4, "rulings": 54}}


def test_search_proliferate_lists_each_entry_once(runner, seed_index):
    result = run(runner, seed_index, "search", "proliferate", "--format", "json")
    hits = json.loads(result.stdout)
    ids = [h["id"] for h in hits]
    assert len(ids) == len(set(ids))
    texts = {h["text"][:30]: len(h["variants"]) for h in hits}
    assert texts["When you proliferate, you can "] == 4
    assert texts["Players can respond to a spell"] == 3
    choose = next(h for h in hits if h["text"].startswith("When you proliferate"))
    assert sorted({v["source"]["path"].rsplit("/", 1)[-1][:3] for v in choose["variants"]}) == \
        ["000", "002", "003", "004"]


def test_index_before_the_command_is_every_commands_index(runner, seed_index, tmp_path):
    """``rulings --index DIR search ...`` was "No such option '--index'" (a new user's finding)."""
    before = runner.invoke(cli, ["--index", str(seed_index), "search", "proliferate", "--format", "json"])
    after = run(runner, seed_index, "search", "proliferate", "--format", "json")
    assert before.exit_code == 0, before.output
    assert json.loads(before.stdout) == json.loads(after.stdout) != []
    stats = runner.invoke(cli, ["--index", str(seed_index), "stats", "--format", "json"])
    assert json.loads(stats.stdout)["entries"] == 43
    # the command's own --index wins
    empty = tmp_path / "no-index"
    own = runner.invoke(cli, ["--index", str(empty), "stats", "--format", "json", "--index", str(seed_index)])
    assert json.loads(own.stdout)["entries"] == 43
    missing = runner.invoke(cli, ["--index", str(empty), "stats"])
    assert missing.exit_code == 1 and "no rulings index here" in missing.output


def test_shield_counter_phrase_finds_six(runner, seed_index):
    hits = json.loads(run(runner, seed_index, "search", '"shield counter"', "--format", "json").stdout)
    assert len(hits) == 6
    assert any(h["text"].startswith("hield counters") for h in hits)


def test_mechanics_lists_seed_mechanics(runner, seed_index):
    rows = json.loads(run(runner, seed_index, "mechanics", "--format", "json").stdout)
    counts = {r["id"]: r["count"] for r in rows}
    assert counts["evolve"] == 7
    for mechanic in ("proliferate", "shield-counters", "phyrexian-mana", "crime", "mana-abilities"):
        assert counts[mechanic] > 0


def test_mechanics_evolve_shows_seven(runner, seed_index):
    entries = json.loads(run(runner, seed_index, "mechanics", "evolve", "--format", "json").stdout)
    assert len(entries) == 7
    assert all("evolve" in e["mechanics"] for e in entries)


def test_export_jsonl_shape(runner, seed_index):
    result = run(runner, seed_index, "export", "--mechanic", "proliferate", "--format", "jsonl")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["meta"]["entries"] == len(lines) - 1
    for entry in lines[1:]:
        assert set(entry) >= {"id", "text", "lang", "mechanics", "cards", "sets", "date", "dates",
                              "variants", "related", "translations"}
        assert "proliferate" in entry["mechanics"]
        for variant in entry["variants"]:
            assert set(variant) >= {"text", "card", "set", "date", "date_ambiguous", "lang", "oracle_id",
                                    "publisher", "similarity", "source"}


def test_reingest_keeps_ids(runner, tmp_path):
    folder = tmp_path / "ix"
    runner.invoke(cli, ["ingest", "--index", str(folder)])
    first = json.loads(runner.invoke(cli, ["export", "--format", "json", "--index", str(folder)]).stdout)
    assert runner.invoke(cli, ["ingest", "--index", str(folder)]).exit_code == 0
    again = json.loads(runner.invoke(cli, ["export", "--format", "json", "--index", str(folder)]).stdout)
    assert [e["id"] for e in first] == [e["id"] for e in again]
    assert len(first) == 43


def test_missing_path_is_one_line_exit_1(runner, tmp_path):
    missing = tmp_path / "nope"
    result = runner.invoke(cli, ["ingest", str(missing), "--index", str(tmp_path / "ix")])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {missing}: no such file or directory\n"


def test_every_missing_path_is_named_and_nothing_is_ingested(runner, tmp_path, shared):
    first, second = tmp_path / "nope1", tmp_path / "nope2"
    result = runner.invoke(cli, ["ingest", str(shared / "seeds"), str(first), str(second),
                                 "--index", str(tmp_path / "ix")])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {first}, {second}: no such file or directory\n"
    assert not (tmp_path / "ix").exists()


def test_unreadable_named_file_exit_1(runner, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01\x02binary")
    result = runner.invoke(cli, ["ingest", str(bad), "--index", str(tmp_path / "ix")])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {bad}: ")
    assert result.stderr.count("\n") == 1


def test_empty_query_exit_1(runner, seed_index):
    result = run(runner, seed_index, "search", "")
    assert result.exit_code == 1
    assert result.stderr == "Error: empty query: give words to search for or a filter\n"


def test_unknown_id_and_mechanic(runner, seed_index):
    result = run(runner, seed_index, "show", "r-nothing")
    assert (result.exit_code, result.stderr) == (1, "Error: no entry has the id 'r-nothing'\n")
    result = run(runner, seed_index, "mechanics", "prolifrate")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: unknown mechanic 'prolifrate'; closest: proliferate")


def test_version(runner):
    result = runner.invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.startswith("rulings, version ")


def test_show_accepts_id_in_any_case(runner, seed_index):
    entry = json.loads(run(runner, seed_index, "search", "evolve", "--format", "json", "--limit", "1").stdout)[0]
    shown = json.loads(run(runner, seed_index, "show", " " + entry["id"].upper(), "--format", "json").stdout)
    assert shown["id"] == entry["id"]


# One mechanic resolver for every command (issue 21, item 15), on real MTGJSON v3 sets: Commander 2018
# prints totem armor (now umbra armor), Aether Revolt has Vehicles (crew).
@pytest.fixture(scope="module")
def mechanic_index(shared, tmp_path_factory):
    from rulings.search import catalog

    folder = tmp_path_factory.mktemp("mechanics") / "ix"
    catalog.ingest(folder, [shared / "realdata/mtgjson3-sets/C18.json", shared / "realdata/mtgjson3-sets/AER.json"])
    return folder


def ids_of(result) -> set[str]:
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    return {entry["id"] for entry in json.loads(result.stdout)}


@pytest.mark.parametrize("name,mechanic,count", [
    # 17: the "not regeneration" ruling with Putrefy and with Vendetta as its example is one entry (issue 22)
    ("umbra-armor", "umbra-armor", 17), ("totem-armor", "umbra-armor", 17), ("Totem Armor", "umbra-armor", 17),
    ("crew", "crew", 17), ("Crewed", "crew", 17), ("vehicle", "crew", 17),
])
def test_every_command_resolves_a_mechanic_the_same_way(runner, mechanic_index, name, mechanic, count):
    shown = run(runner, mechanic_index, "mechanics", name)
    assert shown.stdout.startswith(f"{mechanic}: {count} entries\n")
    listed = ids_of(run(runner, mechanic_index, "mechanics", name, "--format", "json"))
    assert len(listed) == count
    assert ids_of(run(runner, mechanic_index, "search", "--mechanic", name, "--format", "json", "--limit", "100")) \
        == listed
    assert ids_of(run(runner, mechanic_index, "search", f'mechanic:"{name}"', "--format", "json", "--limit", "100")) \
        == listed
    assert ids_of(run(runner, mechanic_index, "export", "--mechanic", name, "--format", "json")) == listed
    tagged = {e["id"] for e in json.loads(run(runner, mechanic_index, "export", "--format", "json").stdout)
              if mechanic in e["mechanics"]}
    assert tagged == listed


@pytest.mark.parametrize("command", [["mechanics", "prolifrate"], ["search", "--mechanic", "prolifrate"],
                                     ["search", "mechanic:prolifrate"], ["export", "--mechanic", "prolifrate"]])
def test_every_command_suggests_the_same_mechanics(runner, mechanic_index, command):
    result = run(runner, mechanic_index, *command)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "Error: unknown mechanic 'prolifrate'; closest: proliferate, populate, replicate\n"
