"""States of an index folder a user can reach (issue 21): an empty index is a normal state, a damaged or
incomplete one gives one ``Error:`` line naming ``rulings ingest --rebuild``, and nothing a user built is
ever replaced by the bundled demo corpus."""

from __future__ import annotations

import errno
import json
import pickle
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rulings.corpus import corpus_files
from rulings.ingest.errors import DamagedIndex, OtherVersion
from rulings.search import catalog, folder, index
from rulings.search.cli import cli

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


TENTH = "realdata/mtgjson3-sets/10E.json"          # SOURCES.md: 283 rulings


@pytest.fixture(scope="module")
def tenth_index(shared, tmp_path_factory):
    """An index of the real MTGJSON v3 Tenth Edition file (283 rulings, 259 entries)."""
    index_dir = tmp_path_factory.mktemp("tenth") / "ix"
    report = catalog.ingest(index_dir, [shared / TENTH])
    assert (sum(len(f.rulings) for f in report.files), report.entries) == (283, 259)
    return index_dir


@pytest.fixture
def tenth_copy(tenth_index, tmp_path):
    copy = tmp_path / "ix"
    shutil.copytree(tenth_index, copy)
    return copy


def one_error_line(result, line):
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    assert result.stderr == f"Error: {line}\n"
    assert result.exception is None or isinstance(result.exception, SystemExit)


def still_holds_tenth(index_dir):
    """Every generation folder that held the user's index still holds its 283 rulings, and no demo was built."""
    summaries = [json.loads((g / "summary.json").read_text("utf-8")) for _, g in folder.generations(index_dir)]
    assert [s["rulings"] for s in summaries] == [283]


COMMANDS = [["search", "flying"], ["card", "Ancestor's Chosen"], ["export"], ["mechanics"], ["stats"],
            ["sources"], ["show", "r-x"], ["remove", "x.json"], ["ingest"]]


def test_an_index_exists_when_its_table_of_contents_is_there_whatever_it_holds(tenth_copy, tmp_path):
    """index.exists reads no file: the real index is there; a garbled table of contents is still an index
    (searching it is a one-line DamagedIndex); no table of contents, a missing folder: no index."""
    assert index.exists(tenth_copy)
    whoosh_dir = folder.live(tenth_copy) / index.WHOOSH_DIR
    (toc,) = whoosh_dir.glob("_MAIN_*.toc")
    toc.write_bytes(b"not a table of contents")
    assert index.exists(tenth_copy)
    with pytest.raises(DamagedIndex):
        index.open_index(tenth_copy)
    toc.unlink()
    assert not index.exists(tenth_copy)
    assert not index.exists(tmp_path / "nowhere")


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_missing_current_is_a_damaged_index_never_the_demo(runner, tenth_copy, command):
    (tenth_copy / "CURRENT").unlink()
    result = runner.invoke(cli, [*command, "--index", str(tenth_copy)])
    one_error_line(result, f"{tenth_copy}: the index is damaged (CURRENT is missing beside 1 generation folder); "
                           "run 'rulings ingest --rebuild' with your sources")
    still_holds_tenth(tenth_copy)


def test_backup_restored_without_current(runner, shared, tenth_index, tmp_path, monkeypatch):
    restored = tmp_path / "restored"
    restored.mkdir()
    for _, generation in folder.generations(tenth_index):
        shutil.copytree(generation, restored / generation.name)
    monkeypatch.setenv("RULINGS_INDEX", str(restored))            # the default location: still no demo
    result = runner.invoke(cli, ["ingest", str(shared / "realdata/scryfall-aioscryfall/single-card.json")])
    one_error_line(result, f"{restored}: the index is damaged (CURRENT is missing beside 1 generation folder); "
                           "run 'rulings ingest --rebuild' with your sources")
    still_holds_tenth(restored)
    rebuilt = runner.invoke(cli, ["ingest", "--rebuild", str(shared / TENTH), "--format", "json"])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert (json.loads(rebuilt.stdout)["entries"], (restored / "CURRENT").read_text()) == (259, "gen-000002\n")
    assert [g.name for _, g in folder.generations(restored)] == ["gen-000001", "gen-000002"]  # the old one kept


def test_empty_live_generation_is_a_damaged_index(runner, tenth_copy):
    live = folder.live(tenth_copy)
    shutil.rmtree(live)
    live.mkdir()
    for command in (["search", "flying"], ["ingest"], ["stats"]):
        result = runner.invoke(cli, [*command, "--index", str(tenth_copy)])
        one_error_line(result, f"{tenth_copy}: the index is damaged (its live generation {live.name} holds no "
                               "index files); run 'rulings ingest --rebuild' with your sources")


def test_missing_rulings_store_is_a_damaged_index(runner, shared, tenth_copy):
    """Without rulings.sqlite the remembered sources' rulings are gone: an ingest must not go on as if they
    were there (a later re-formed entry loses its variants), and rewriting lost Whoosh files from the state
    stopped with a KeyError traceback."""
    live = folder.live(tenth_copy)
    (live / "rulings.sqlite").unlink()
    single = shared / "realdata/scryfall-aioscryfall/single-card.json"
    expected = (f"{live / 'rulings.sqlite'}: missing, so the rulings of the remembered sources are gone; "
                "run 'rulings ingest --rebuild' with your sources")
    one_error_line(runner.invoke(cli, ["ingest", str(single), "--index", str(tenth_copy)]), expected)
    shutil.rmtree(live / "whoosh")
    one_error_line(runner.invoke(cli, ["search", "flying", "--index", str(tenth_copy)]), expected)
    assert catalog.summary(tenth_copy)["entries"] == 259


def test_mistyped_index_folder_is_not_filled_with_the_demo(runner, tenth_index, tmp_path):
    typo = tmp_path / "ixx"
    for command in (["search", "flying"], ["card", "Ancestor's Chosen"], ["stats"], ["mechanics"]):
        result = runner.invoke(cli, [*command, "--index", str(typo)])
        one_error_line(result, f"{typo}: no rulings index here; make one with 'rulings ingest SOURCE... --index "
                               f"{typo}' (or 'rulings update --index {typo}' for every official ruling)")
    assert not typo.exists()


def test_default_location_builds_the_demo_and_says_so_once(runner, tmp_path, monkeypatch):
    home = tmp_path / "data" / "index"
    monkeypatch.setenv("RULINGS_INDEX", str(home))
    first = runner.invoke(cli, ["search", "proliferate", "--format", "json"])
    assert first.exit_code == 0, first.output
    assert first.stderr == (f"{home}: no index yet, so it was built from the bundled demo corpus (54 rulings); "
                            "'rulings update' brings every official ruling, 'rulings ingest PATH' your own files\n")
    assert len(json.loads(first.stdout)) == 7                       # the seeds' 7 proliferate entries
    again = runner.invoke(cli, ["search", "proliferate", "--format", "json", "--index", str(home)])
    assert (again.exit_code, again.stderr, again.stdout) == (0, "", first.stdout)


def as_if_another_version_made(index_dir: Path, monkeypatch) -> None:
    """Make index_dir what an earlier version left: its table of contents names an entry column class this
    version lacks, and its state names the modules as they were before the one import package
    (``search.catalog.State``)."""
    live = folder.live(index_dir)
    toc = next((live / index.WHOOSH_DIR).glob("_MAIN_*.toc"))
    toc.write_bytes(toc.read_bytes().replace(b"EntryColumn", b"EntryColumX"))       # same length: still a pickle
    state = catalog.load_state(index_dir, corpus=False)
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "search.catalog", catalog)
        patch.setattr(catalog.State, "__module__", "search.catalog")
        (live / catalog.STATE).write_bytes(pickle.dumps(state))
    assert b"\x0esearch.catalog\x94\x8c\x05State" in (live / catalog.STATE).read_bytes()
    index.release(index_dir)


def test_demo_made_by_another_version_at_the_default_location_is_built_again(runner, tmp_path, monkeypatch):
    """After an upgrade, README's first command finds the demo an earlier version built at the default location:
    it is built again from the bundled corpus and said once, not refused (the demo is nobody's data)."""
    home = tmp_path / "data" / "index"
    monkeypatch.setenv("RULINGS_INDEX", str(home))
    catalog.ingest(home, corpus_files())
    as_if_another_version_made(home, monkeypatch)
    with pytest.raises(OtherVersion), index.searcher(home):
        pass
    first = runner.invoke(cli, ["search", "proliferate", "--format", "json"])
    assert first.exit_code == 0, first.output
    assert first.stderr == (f"{home}: the bundled demo index was made by another version of rulings, so it was "
                            "built again (54 rulings)\n")
    assert len(json.loads(first.stdout)) == 7                       # the seeds' 7 proliferate entries
    again = runner.invoke(cli, ["search", "proliferate", "--format", "json"])
    assert (again.exit_code, again.stderr, again.stdout) == (0, "", first.stdout)


@pytest.mark.parametrize("where", ["default", "given"])
def test_own_index_made_by_another_version_is_never_replaced(runner, tenth_copy, monkeypatch, where):
    """An index of the user's own sources made by another version is one error line naming the rebuild with
    its sources, at the default location too: it is never replaced by the demo."""
    if where == "default":
        monkeypatch.setenv("RULINGS_INDEX", str(tenth_copy))
    as_if_another_version_made(tenth_copy, monkeypatch)
    before = sorted((p.name, p.stat().st_size) for p in folder.live(tenth_copy).rglob("*"))
    result = runner.invoke(cli, ["search", "flying"] + (["--index", str(tenth_copy)] if where == "given" else []))
    one_error_line(result, f"{folder.live(tenth_copy)}: made by another version; run 'rulings ingest --rebuild "
                           "SOURCE...' with the files it was made from")
    assert sorted((p.name, p.stat().st_size) for p in folder.live(tenth_copy).rglob("*")) == before


def test_rulings_store_missing_rows_is_a_damaged_index(runner, tenth_copy):
    import sqlite3

    live = folder.live(tenth_copy)
    db = sqlite3.connect(live / "rulings.sqlite")
    db.execute("DELETE FROM rulings WHERE idx >= 200")
    db.commit()
    db.close()
    shutil.rmtree(live / "whoosh")
    result = runner.invoke(cli, ["stats", "--index", str(tenth_copy)])
    one_error_line(result, f"{live / 'rulings.sqlite'}: holds 200 of the 283 rulings of the remembered sources; "
                           "run 'rulings ingest --rebuild' with your sources")


# A full disk while an ingest writes the next generation (issue 21, item 11): one Error line, the live
# index as it was. The write is refused by an injected OSError(ENOSPC) in the layer that writes.
FULL = OSError(errno.ENOSPC, "No space left on device")


def refuse(*args, **kwargs):
    raise FULL


def unchanged(index_dir, generations):
    assert [g.name for _, g in folder.generations(index_dir)] == generations
    assert catalog.summary(index_dir)["rulings"] == 283
    assert len(list(index.all_entries(index_dir))) == 259


@pytest.mark.parametrize("where", ["state-pickle", "whoosh-segment", "summary", "rulings-store", "current"])
def test_full_disk_during_an_ingest_is_one_error_line(runner, shared, tenth_copy, monkeypatch, where):
    from whoosh.filedb.structfile import StructFile

    before = [g.name for _, g in folder.generations(tenth_copy)]
    if where == "state-pickle":
        monkeypatch.setattr(catalog.pickle, "dump", refuse)
    elif where == "whoosh-segment":
        monkeypatch.setattr(StructFile, "write", refuse)
    elif where == "summary":
        monkeypatch.setattr(Path, "write_text", refuse)
    elif where == "rulings-store":
        def full_database(self):
            raise sqlite3.OperationalError("database or disk is full")
        monkeypatch.setattr(catalog.RulingStore, "commit", full_database)
    else:
        monkeypatch.setattr(folder.os, "fsync", refuse)
    reason = "database or disk is full" if where == "rulings-store" else "No space left on device"
    result = runner.invoke(cli, ["ingest", str(shared / "realdata/mtgjson3-sets/AER.json"), "--index", str(tenth_copy)])
    one_error_line(result, f"{tenth_copy}: cannot write the index ({reason}); nothing was changed")
    monkeypatch.undo()
    unchanged(tenth_copy, before)


WORKERS = """
import errno, os, signal, sys
from whoosh.filedb import structfile
from rulings.search.cli import main
os.cpu_count = lambda: 2                      # a full build writes through 2 worker processes
feeder, write, how = os.getpid(), structfile.StructFile.write, sys.argv.pop(1)
def refused(self, *args):
    if os.getpid() != feeder:
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        raise OSError(errno.ENOSPC, "No space left on device")
    return write(self, *args)
structfile.StructFile.write = refused
main()
"""


@pytest.mark.parametrize("how,reason", [
    ("full", "No space left on device"),
    ("kill", "the index worker processes ended before the index was written"),
])
def test_index_workers_that_fail_stop_the_ingest_with_one_line(shared, tmp_path, how, reason):
    """Whoosh's parallel writer (a full build) printed each worker's traceback and then waited for ever
    on its job queue; a worker that ended without its segment would have been committed without it."""
    index_dir = tmp_path / "ix"
    sets = [str(shared / f"realdata/mtgjson3-sets/{code}.json") for code in ("AER", "A25")]
    done = subprocess.run([sys.executable, "-c", WORKERS, how, "ingest", *sets, "--index", str(index_dir)],
                          capture_output=True, text=True, timeout=240, check=False)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"Error: {index_dir}: cannot write the index ({reason}); nothing was changed\n"
    assert sorted(p.name for p in index_dir.iterdir()) == ["lock"]


def test_ingest_into_a_demo_whose_state_another_version_wrote_rebuilds_the_demo_first(runner, shared, tmp_path,
                                                                                      monkeypatch):
    """An upgrade that changes what the index holds (catalog.STATE_VERSION: the terms of session 28's
    irregular forms) leaves the demo's Whoosh files readable but its state another version's: the first
    ``rulings ingest FILE`` at the default location builds the demo again and adds the file to it. An index
    of the user's own sources still gets the one-line rebuild advice."""
    home = tmp_path / "data" / "index"
    monkeypatch.setenv("RULINGS_INDEX", str(home))
    catalog.ingest(home, corpus_files())
    state = catalog.load_state(home, corpus=False)
    state.version = catalog.STATE_VERSION - 1
    (folder.live(home) / catalog.STATE).write_bytes(pickle.dumps(state))
    with pytest.raises(OtherVersion):
        catalog.load_state(home, corpus=False)
    mine = shared / "realdata" / "mtgjson3-sets" / "AKH.json"
    result = runner.invoke(cli, ["ingest", str(mine)])
    assert result.exit_code == 0, result.output
    sources = catalog.load_state(home, corpus=False).sources
    assert len(sources) == len(corpus_files()) + 1 and any(key.endswith("AKH.json") for key in sources)
    # the user's own index: refused with the advice, nothing replaced
    own = tmp_path / "own"
    catalog.ingest(own, [mine])
    state = catalog.load_state(own, corpus=False)
    state.version = catalog.STATE_VERSION - 1
    (folder.live(own) / catalog.STATE).write_bytes(pickle.dumps(state))
    monkeypatch.setenv("RULINGS_INDEX", str(own))
    refused = runner.invoke(cli, ["ingest", str(shared / "seeds")])
    assert refused.exit_code != 0 and "made by another version" in refused.output
