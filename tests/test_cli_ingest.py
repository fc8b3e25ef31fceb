"""``rulings ingest`` never lets a path it was given vanish (issue 21, items 3 and 13): a folder that
cannot be read is rejected with its reason (named directly: exit 1), what was ingested from it before
stays, and every path named that cannot be read is named in the error line."""

from __future__ import annotations

import errno
import json
import os
from contextlib import contextmanager
from pathlib import Path

import pytest

from rulings.ingest.errors import ReadError
from rulings.ingest.read import walk
from rulings.search import index
from rulings.search.cli import cli

SEEDS = ("000_4791008fab4c9afc.txt", "002_cb6211493364d1de.txt")       # 17 and 11 rulings


@contextmanager
def unreadable(folder: Path, monkeypatch):
    """Make folder unreadable: mode 000, and (for root, whom modes do not stop) the EACCES the kernel
    gives anyone else when os.walk lists it."""
    real = os.scandir

    def scandir(path="."):
        if Path(path) == folder:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real(path)

    folder.chmod(0)
    if os.geteuid() == 0:
        monkeypatch.setattr(os, "scandir", scandir)
    try:
        yield
    finally:
        monkeypatch.setattr(os, "scandir", real)
        folder.chmod(0o755)


@pytest.fixture
def docs(shared, tmp_path) -> Path:
    """docs/a.txt and docs/sub/b.txt: two real seed pages."""
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_bytes((shared / "seeds" / SEEDS[0]).read_bytes())
    (folder / "sub" / "b.txt").write_bytes((shared / "seeds" / SEEDS[1]).read_bytes())
    return folder


def ingest(runner, index_dir, *paths):
    return runner.invoke(cli, ["ingest", *map(str, paths), "--format", "json", "--index", str(index_dir)])


def test_unreadable_folder_named_directly_is_an_error(runner, docs, tmp_path, monkeypatch):
    with unreadable(docs / "sub", monkeypatch):
        result = ingest(runner, tmp_path / "ix", docs / "sub")
    assert result.exit_code == 1
    assert result.stderr == f"Error: {docs / 'sub'}: cannot be read (Permission denied)\n"
    assert json.loads(result.stdout)["rejected"] == [{"path": str(docs / "sub"),
                                                      "reason": "cannot be read (Permission denied)"}]


def test_unreadable_subfolder_is_rejected_and_keeps_what_it_gave(runner, docs, tmp_path, monkeypatch):
    index_dir = tmp_path / "ix"
    (docs / "subway.txt").write_bytes((docs / "a.txt").read_bytes())      # beside sub, not in it
    first = ingest(runner, index_dir, docs)
    assert first.exit_code == 0 and json.loads(first.stdout)["rulings"] == 45
    (docs / "subway.txt").unlink()                                          # gone: its rulings go
    with unreadable(docs / "sub", monkeypatch):
        again = ingest(runner, index_dir, docs)
        text = runner.invoke(cli, ["ingest", str(docs), "--index", str(index_dir)])
    assert again.exit_code == 0, again.output                      # found by walking: reported, exit 0
    report = json.loads(again.stdout)
    assert report["rejected"] == [{"path": str(docs / "sub"), "reason": "cannot be read (Permission denied)"}]
    assert f"  {docs / 'sub'}: cannot be read (Permission denied)" in text.stdout.splitlines()
    # the rulings ingested from the folder before are kept: 17 + 11 variants
    variants = sorted(Path(v["source"]["path"]).name for e in index.all_entries(index_dir) for v in e["variants"])
    assert variants == ["a.txt"] * 17 + ["b.txt"] * 11
    stats = json.loads(runner.invoke(cli, ["stats", "--format", "json", "--index", str(index_dir)]).stdout)
    assert stats["rulings"] == 28


def test_walk_without_a_handler_raises_for_an_unreadable_folder(docs, monkeypatch):
    with unreadable(docs / "sub", monkeypatch):
        with pytest.raises(ReadError, match=r"sub: cannot be read \(Permission denied\)"):
            list(walk(docs))
        found = []
        assert list(walk(docs, on_error=lambda where, why: found.append((where, why)))) == [docs / "a.txt"]
    assert found == [(docs / "sub", "cannot be read (Permission denied)")]


def test_every_path_named_that_cannot_be_read_is_in_the_error(runner, docs, tmp_path):
    """The error line named only the first of several rejected files."""
    bad = []
    for number in range(7):
        path = tmp_path / f"cut{number}.json"
        path.write_text('{"object": "list", "data": [{"object": "ruling", "comment": "cut', "utf-8")
        bad.append(path)
    result = ingest(runner, tmp_path / "ix", docs / "a.txt", bad[0], bad[1])
    assert result.exit_code == 1
    reason = json.loads(result.stdout)["rejected"][0]["reason"]
    assert reason.startswith("truncated JSON")
    assert result.stderr == f"Error: 2 paths named cannot be read: {bad[0]}: {reason}; {bad[1]}: {reason}\n"
    assert json.loads(result.stdout)["rulings"] == 17                # the good file is ingested all the same
    many = ingest(runner, tmp_path / "ix", *bad)
    shown = "; ".join(f"{path}: {reason}" for path in bad[:5])
    assert many.stderr == f"Error: 7 paths named cannot be read: {shown}; and 2 more (all in the report above)\n"
    one = ingest(runner, tmp_path / "ix", bad[0])
    assert one.stderr == f"Error: {bad[0]}: {reason}\n"


def test_a_file_name_that_is_not_utf8_loses_nothing(shared, tmp_path):
    """Found looking for siblings: a file whose name is not UTF-8 (its str holds lone surrogates) failed
    the whole ingest with 'an argument holds bytes that are not UTF-8 text' (the index could not hold the
    path). The file is read; the path its rulings show has U+FFFD for the bad byte."""
    import subprocess
    import sys

    docs = tmp_path / "docs"
    docs.mkdir()
    name = os.fsdecode(b"\xffseed.txt")
    (docs / name).write_bytes((shared / "seeds" / SEEDS[0]).read_bytes())
    (docs / "b.txt").write_bytes((shared / "seeds" / SEEDS[1]).read_bytes())
    main = [sys.executable, "-c", "from rulings.search.cli import main; main()"]
    env = {**os.environ, "RULINGS_INDEX": str(tmp_path / "ix")}
    done = subprocess.run([*main, "ingest", str(docs), "--format", "json"], capture_output=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rulings"] == 28
    exported = subprocess.run([*main, "export"], capture_output=True, env=env, timeout=300, check=True).stdout
    paths = {v["source"]["path"] for line in exported.decode("utf-8").splitlines()[1:]
             for v in json.loads(line)["variants"]}
    assert paths == {str(docs / "\ufffdseed.txt"), str(docs / "b.txt")}


def test_a_file_damaged_since_it_was_ingested_keeps_its_rulings(runner, docs, tmp_path):
    """A file that gave rulings and cannot be read now (cut short since) is rejected with its reason, and
    what it gave stays, whether its folder or the file itself is named; the reason says so."""
    index_dir = tmp_path / "ix"
    scryfall = docs / "sub" / "rulings.json"
    scryfall.write_text(json.dumps([{"object": "ruling", "oracle_id": "0000579f-7b35-4ed3-b44c-db2a538066fe",
                                     "source": "wotc", "published_at": "2021-01-01", "comment": text}
                                    for text in ("Proliferate can add a poison counter to a player.",
                                                 "Shield counters prevent damage.")]), "utf-8")
    assert json.loads(ingest(runner, index_dir, docs).stdout)["rulings"] == 30
    scryfall.write_bytes(scryfall.read_bytes()[:100])                      # cut short
    again = ingest(runner, index_dir, docs)
    assert again.exit_code == 0, again.output
    [rejected] = json.loads(again.stdout)["rejected"]
    assert rejected["path"] == str(scryfall) and rejected["reason"].startswith("truncated JSON")
    assert rejected["reason"].endswith("; the 2 rulings it gave before are kept")
    named = ingest(runner, index_dir, scryfall)
    assert named.exit_code == 1 and "the 2 rulings it gave before are kept" in named.stderr
    variants = sorted(Path(v["source"]["path"]).name for e in index.all_entries(index_dir) for v in e["variants"])
    assert variants == ["a.txt"] * 17 + ["b.txt"] * 11 + ["rulings.json"] * 2


def test_a_rebuild_with_a_path_that_cannot_be_read_leaves_the_index(runner, docs, tmp_path):
    """--rebuild starts from nothing; given a file that cannot be read it failed and still replaced the index
    with what it could read (nothing): now it stops with one line and the index is as it was."""
    index_dir = tmp_path / "ix"
    assert ingest(runner, index_dir, docs).exit_code == 0
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01\x02binary" * 50)
    result = runner.invoke(cli, ["ingest", "--rebuild", str(junk), "--index", str(index_dir)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {junk}: ") and result.stderr.endswith(
        ": not rebuilt, the index is left as it was\n")
    stats = json.loads(runner.invoke(cli, ["stats", "--format", "json", "--index", str(index_dir)]).stdout)
    assert stats["rulings"] == 28


def test_summary_counts_files_in_the_singular_and_plural(runner, tmp_path):
    """The text summary says "1 file skipped", "2 files skipped" (it said "1 files")."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.txt").write_text("Thrummingbird\n\n04/02/2023\n\nProliferate once.\n", encoding="utf-8")
    (docs / "a.json").write_text('{"object": "nothing"}', encoding="utf-8")
    one = runner.invoke(cli, ["ingest", str(docs), "--index", str(tmp_path / "ix")])
    assert one.exit_code == 0, one.output
    assert "1 file skipped:" in one.stdout.splitlines()
    (docs / "b.json").write_text('{"object": "nothing"}', encoding="utf-8")
    two = runner.invoke(cli, ["ingest", str(docs), "--index", str(tmp_path / "ix2")])
    assert "2 files skipped:" in two.stdout.splitlines()


def test_ingest_without_sources_never_puts_the_demo_over_your_own(runner, docs, tmp_path):
    """``ingest`` with no SOURCE builds the bundled demo only into an empty index or beside the demo: over an
    index of the user's own sources it would mix the 54 demo rulings in, and ``--rebuild`` would replace them."""
    index_dir = tmp_path / "ix"
    own = json.loads(ingest(runner, index_dir, docs).stdout)
    assert own["rulings"] == 28
    for args, word in ((["ingest"], "mixed into"), (["ingest", "--rebuild"], "replace")):
        result = runner.invoke(cli, [*args, "--index", str(index_dir)])
        assert result.exit_code == 1
        assert word in result.output and "SOURCE..." in result.output and len(result.output.splitlines()) == 1
    stats = json.loads(runner.invoke(cli, ["stats", "--format", "json", "--index", str(index_dir)]).stdout)
    assert stats["rulings"] == 28                        # nothing was added or lost
    demo = tmp_path / "demo"
    assert json.loads(ingest(runner, demo).stdout)["rulings"] == 54
    assert json.loads(ingest(runner, demo, docs).stdout)["rulings"] == 28
    assert ingest(runner, demo).exit_code == 0           # the demo already beside them is only refreshed
    assert runner.invoke(cli, ["ingest", "--rebuild", "--index", str(demo)]).exit_code == 1


def test_ingest_rebuild_without_sources_refuses_a_damaged_index_elsewhere(runner, docs, tmp_path):
    """A damaged index outside the default location held unknown sources: the demo does not replace them."""
    index_dir = tmp_path / "ix"
    ingest(runner, index_dir, docs)
    for state in index_dir.rglob("state.pkl"):
        state.write_bytes(b"damaged")
    result = runner.invoke(cli, ["ingest", "--rebuild", "--index", str(index_dir)])
    assert result.exit_code == 1 and "with your sources" in result.output and len(result.output.splitlines()) == 1
    rebuilt = runner.invoke(cli, ["ingest", "--rebuild", str(docs), "--format", "json", "--index", str(index_dir)])
    assert json.loads(rebuilt.stdout)["rulings"] == 28       # naming them rebuilds it
