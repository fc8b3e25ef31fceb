"""Bad input and damaged index folders end with one ``Error:`` line and exit 1, never a traceback."""

import json
import shutil

import pytest

from search.cli import cli


@pytest.fixture
def index_copy(seed_index, tmp_path):
    folder = tmp_path / "ix"
    shutil.copytree(seed_index, folder)
    return folder


def one_error_line(result, starts):
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: " + starts), result.stderr
    assert result.stderr.count("\n") == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("damage", ["delete-segments", "overwrite-segments", "overwrite-toc"])
@pytest.mark.parametrize("command", [["search", "proliferate"], ["card", "Ice"], ["show", "r-x"],
                                     ["export"], ["mechanics"]])
def test_damaged_index(runner, index_copy, damage, command):
    whoosh = index_copy / "whoosh"
    if damage == "delete-segments":
        for seg in whoosh.glob("*.seg"):
            seg.unlink()
    elif damage == "overwrite-segments":
        for seg in whoosh.glob("*.seg"):
            seg.write_bytes(b"\x13\x37" * 500)
    else:
        for toc in whoosh.glob("*.toc"):
            toc.write_bytes(b"junk" * 10)
    result = runner.invoke(cli, [*command, "--index", str(index_copy)])
    one_error_line(result, f"{index_copy}: the index ")


def test_missing_state_is_not_silently_replaced(runner, index_copy, tmp_path):
    (index_copy / "state.pkl").unlink()
    doc = tmp_path / "one.txt"
    doc.write_text("Rulings\n\n• 2020-01-01\n  Trample lets excess damage through.\n", encoding="utf-8")
    result = runner.invoke(cli, ["ingest", str(doc), "--index", str(index_copy)])
    one_error_line(result, f"{index_copy / 'state.pkl'}: missing beside an existing index")
    stats = json.loads((index_copy / "summary.json").read_text("utf-8"))
    assert stats["rulings"] == 54                       # nothing already ingested was lost


def test_missing_whoosh_files_are_rebuilt_from_remembered_sources(runner, index_copy):
    shutil.rmtree(index_copy / "whoosh")
    result = runner.invoke(cli, ["stats", "--format", "json", "--index", str(index_copy)])
    assert result.exit_code == 0
    assert "rebuilding them from the remembered sources" in result.stderr
    assert json.loads(result.stdout)["entries"] == 43
    hits = json.loads(runner.invoke(cli, ["search", "evolve", "--format", "json", "--limit", "50",
                                          "--index", str(index_copy)]).stdout)
    assert len(hits) == 7


def test_export_to_missing_folder(runner, seed_index, tmp_path):
    target = tmp_path / "nope" / "out.md"
    result = runner.invoke(cli, ["export", "--format", "md", "-o", str(target), "--index", str(seed_index)])
    one_error_line(result, f"{target}: cannot be written (No such file or directory)")


def test_empty_path_is_an_error(runner, tmp_path):
    result = runner.invoke(cli, ["ingest", "", "--index", str(tmp_path / "ix")])
    one_error_line(result, "'': an empty path names no file or folder")
    assert not (tmp_path / "ix").exists()


@pytest.mark.parametrize("command", [["search", "flying", "--lang", "xx"], ["export", "--lang", "xx"],
                                     ["mechanics", "--lang", "xx"], ["search", "lang:xx flying"]])
def test_unknown_language(runner, seed_index, command):
    result = runner.invoke(cli, [*command, "--index", str(seed_index)])
    one_error_line(result, "unknown language 'xx'; use one of zh, en, de")
