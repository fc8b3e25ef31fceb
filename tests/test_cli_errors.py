"""Bad input and damaged index folders end with one ``Error:`` line and exit 1, never a traceback."""

import json
import shutil

import pytest

from rulings.search import folder
from rulings.search.cli import cli


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


@pytest.mark.parametrize("damage", ["delete-segments", "overwrite-segments", "truncate-segments", "overwrite-toc",
                                    "entry-not-utf8", "entry-not-json"])
@pytest.mark.parametrize("command", [["search", "proliferate"], ["card", "Ice"], ["show", "r-x"],
                                     ["export"], ["mechanics"]])
def test_damaged_index(runner, index_copy, damage, command):
    whoosh = folder.live(index_copy) / "whoosh"
    if damage == "delete-segments":
        for seg in whoosh.glob("*.seg"):
            seg.unlink()
    elif damage == "overwrite-segments":
        for seg in whoosh.glob("*.seg"):
            seg.write_bytes(b"\x13\x37" * 500)
    elif damage == "truncate-segments":
        for seg in whoosh.glob("*.seg"):
            with open(seg, "r+b") as handle:
                handle.truncate(seg.stat().st_size // 2)
    elif damage == "overwrite-toc":
        for toc in whoosh.glob("*.toc"):
            toc.write_bytes(b"junk" * 10)
    else:                                   # one byte of every entry's JSON text in the entry column
        key, byte = (b'"text": "', b"\xff") if damage == "entry-not-utf8" else (b'"lang"', b";")
        for seg in whoosh.glob("*.seg"):
            data = seg.read_bytes()
            assert data.count(key) > 10
            seg.write_bytes(data.replace(key, key[:-1] + byte))
    result = runner.invoke(cli, [*command, "--index", str(index_copy)])
    one_error_line(result, f"{index_copy}: the index ")


def test_missing_state_is_not_silently_replaced(runner, index_copy, tmp_path):
    (folder.live(index_copy) / "state.pkl").unlink()
    doc = tmp_path / "one.txt"
    doc.write_text("Rulings\n\n• 2020-01-01\n  Trample lets excess damage through.\n", encoding="utf-8")
    result = runner.invoke(cli, ["ingest", str(doc), "--index", str(index_copy)])
    one_error_line(result, f"{folder.live(index_copy) / 'state.pkl'}: missing beside an existing index")
    stats = json.loads((folder.live(index_copy) / "summary.json").read_text("utf-8"))
    assert stats["rulings"] == 54                       # nothing already ingested was lost


def test_missing_whoosh_files_are_rebuilt_from_remembered_sources(runner, index_copy):
    shutil.rmtree(folder.live(index_copy) / "whoosh")
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


def test_remove_empty_path_is_an_error(runner, index_copy, monkeypatch):
    monkeypatch.chdir(index_copy.parent)
    result = runner.invoke(cli, ["remove", "", "--index", str(index_copy)])
    one_error_line(result, "'': an empty path names no file or folder")
    assert json.loads((folder.live(index_copy) / "summary.json").read_text("utf-8"))["rulings"] == 54


def test_ingest_reports_figures_of_this_run_only(runner, tmp_path):
    null = tmp_path / "null.json"
    null.write_text(json.dumps({"object": "list", "data": [
        {"object": "ruling", "oracle_id": "o1", "source": "wotc", "published_at": "2019-01-01", "comment": None},
        {"object": "ruling", "oracle_id": "o1", "source": "wotc", "published_at": "2019-01-01",
         "comment": "It can attack."}]}), encoding="utf-8")
    text = tmp_path / "w.txt"
    text.write_text("Rulings\n\n• 2020-01-01\n  Trample lets excess damage through.\n", encoding="utf-8")
    ix = tmp_path / "ix"
    first = json.loads(runner.invoke(cli, ["ingest", str(null), "--format", "json", "--index", str(ix)]).stdout)
    assert first["rejected_rulings"] == {"empty text": 1}
    second = json.loads(runner.invoke(cli, ["ingest", str(text), "--format", "json", "--index", str(ix)]).stdout)
    assert (second["rulings"], second["rejected_rulings"]) == (1, {})
    stats = json.loads(runner.invoke(cli, ["stats", "--format", "json", "--index", str(ix)]).stdout)
    assert (stats["rulings"], stats["rejected_rulings"]) == (3, 1)


def test_index_folders_inside_a_walked_folder_are_not_read(runner, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "w.txt").write_text("Rulings\n\n• 2020-01-01\n  Trample lets excess damage through.\n", encoding="utf-8")
    ix = docs / "ix"
    runner.invoke(cli, ["ingest", str(docs / "w.txt"), "--index", str(ix)])
    result = runner.invoke(cli, ["ingest", str(docs), "--format", "json", "--index", str(ix)])
    report = json.loads(result.stdout)
    assert result.exit_code == 0
    assert report["rejected"] == [] and report["skipped"] == []
    assert report["rulings"] == 1


@pytest.mark.parametrize("value,reason", [("", "an empty path names no folder"),
                                          ("/dev/null", "'/dev/null' is not a folder")])
def test_index_option_that_names_no_folder_is_a_usage_error(runner, value, reason):
    result = runner.invoke(cli, ["search", "proliferate", "--index", value])
    assert result.exit_code == 2
    assert f"Invalid value for '--index': {reason}" in result.stderr


def test_lock_timeout_that_is_not_seconds(runner, tmp_path, monkeypatch):
    monkeypatch.setenv("RULINGS_LOCK_TIMEOUT", "abc")
    result = runner.invoke(cli, ["ingest", "--index", str(tmp_path / "ix")])
    one_error_line(result, "$RULINGS_LOCK_TIMEOUT: 'abc' is not a number of seconds (0 or more)")


@pytest.mark.parametrize("args,env,message", [
    (["--base-url", "notaurl"], {}, "--base-url 'notaurl' is not an http(s) URL (like https://api.scryfall.com)"),
    ([], {"RULINGS_SCRYFALL_URL": "garbage"},
     "$RULINGS_SCRYFALL_URL 'garbage' is not an http(s) URL (like https://api.scryfall.com)"),
])
def test_update_base_url_that_is_not_a_url(runner, tmp_path, monkeypatch, args, env, message):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("RULINGS_CACHE_DIR", str(tmp_path / "cache"))
    result = runner.invoke(cli, ["update", *args, "--index", str(tmp_path / "ix")])
    one_error_line(result, message)


def test_same_folder_given_twice_is_listed_once(runner, shared, tmp_path, monkeypatch):
    gatherer = shared / "realdata" / "gatherer-tutor"
    monkeypatch.chdir(gatherer.parent)
    result = runner.invoke(cli, ["ingest", "gatherer-tutor", str(gatherer), "--format", "json",
                                 "--index", str(tmp_path / "ix")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["formats"]["gatherer"] == {"files": 11, "rulings": 31}
    assert len(report["skipped"]) == len({item["path"] for item in report["skipped"]})


def test_fifo_and_device_are_rejected_unread(runner, tmp_path):
    import os

    folder_ = tmp_path / "docs"
    folder_.mkdir()
    os.mkfifo(folder_ / "pipe.json")
    (folder_ / "zero.json").symlink_to("/dev/zero")
    (folder_ / "one.txt").write_text("Rulings\n\n• 2020-01-01\n  Trample lets excess damage through.\n",
                                     encoding="utf-8")
    result = runner.invoke(cli, ["ingest", str(folder_), "--format", "json", "--index", str(tmp_path / "ix")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    reason = "not a regular file (a FIFO, socket or device)"
    assert sorted((item["path"].rsplit("/", 1)[-1], item["reason"]) for item in report["rejected"]) == \
        [("pipe.json", reason), ("zero.json", reason)]
    assert report["rulings"] == 1
    named = runner.invoke(cli, ["ingest", str(folder_ / "pipe.json"), "--index", str(tmp_path / "ix")])
    one_error_line(named, f"{folder_ / 'pipe.json'}: {reason}")


def test_group_by_with_a_format_that_has_no_headings_says_so(runner, seed_index):
    result = runner.invoke(cli, ["export", "--format", "jsonl", "--group-by", "set", "--index", str(seed_index)])
    plain = runner.invoke(cli, ["export", "--format", "jsonl", "--index", str(seed_index)])
    assert result.exit_code == 0 and result.stdout == plain.stdout
    assert result.stderr == "note: --group-by applies to the md and html formats; jsonl is written ungrouped\n"
