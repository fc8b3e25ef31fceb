"""Atomic index updates and concurrent use (search/folder.py): a killed ingest, a second writer,
parallel searches during an ingest, damaged pointers and foreign folders."""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rulings.ingest.errors import DamagedIndex
from rulings.search import catalog, folder, index, query
from rulings.search.cli import cli

RULINGS = [sys.executable, "-c", "from rulings.search.cli import main; main()"]


def run(args, **kwargs):
    """Start ``rulings ARGS`` as its own process group (so a kill reaches its worker processes too)."""
    return subprocess.Popen([*RULINGS, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, **kwargs)


# A process that imports the command line and the ingest's modules once, then for each command it reads (a
# JSON line: the arguments, a file for stderr) forks a child that runs ``rulings ARGS`` in a session of its
# own (its process group: a kill reaches its worker processes too); the child answers its pid once its
# group exists, and the forker, when the child has ended, its exit code (negative: the signal that ended it).
FORKER = """
import atexit, json, os, sys, traceback
from rulings.search.cli import main
import rulings.search.commands.ingest, rulings.search.commands.remove, rulings.ingest.pipeline  # noqa
out = sys.stdout.buffer
out.write(b"ready\\n"); out.flush()
for line in sys.stdin.buffer:
    args, err = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setsid()
            out.write(b"%d\\n" % os.getpid()); out.flush()       # its group exists: it can be killed
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0); os.dup2(null, 1)
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
            sys.argv = ["rulings", *args]
            main()
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                atexit._run_exitfuncs(); sys.stdout.flush(); sys.stderr.flush()
            finally:
                os._exit(code)
    out.write(b"%d\\n" % os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])); out.flush()
"""


class Forker:
    """``rulings`` commands run as real processes without each paying Python's and the tool's start-up
    (imports, about half of a small ingest's CPU): forked from FORKER, one command at a time."""

    def __init__(self, stderr: Path):
        self.stderr = stderr
        self.process = subprocess.Popen([sys.executable, "-c", FORKER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, bufsize=0)
        self.pending = b""
        assert self._line(120) == b"ready"

    def _line(self, timeout: float | None) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self.process.stdout], [], [], left)[0]:
                raise subprocess.TimeoutExpired("rulings", timeout)
            chunk = os.read(self.process.stdout.fileno(), 4096)
            assert chunk, "the forker ended"
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line

    def start(self, args: list[str]) -> int:
        """The pid (and process group) of a new process running ``rulings ARGS``."""
        self.process.stdin.write((json.dumps([args, str(self.stderr)]) + "\n").encode())
        self.process.stdin.flush()
        return int(self._line(60))

    def wait(self, timeout: float | None = None) -> int:
        """The exit code of the last process started; subprocess.TimeoutExpired if it runs past timeout."""
        return int(self._line(timeout))

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


@pytest.fixture
def forker(tmp_path):
    started = Forker(tmp_path / "stderr.txt")
    yield started
    started.close()


def complete(index_dir) -> int:
    """Entries of the live index, after checking that every part of it agrees and a search answers."""
    entries = catalog.summary(index_dir)["entries"]
    assert len(list(index.all_entries(index_dir))) == entries
    state = catalog.load_state(index_dir)
    assert len(state.corpus.info) == entries
    assert query.search(index_dir, "proliferate", limit=100)          # the seeds' proliferate rulings
    return entries


@pytest.fixture
def base(seed_index, tmp_path):
    folder_ = tmp_path / "ix"
    shutil.copytree(seed_index, folder_)
    return folder_


def test_kill_at_random_moments_leaves_a_complete_index(base, shared, forker, tmp_path):
    """20 ingests (or removals) of a real MTGJSON file killed with SIGKILL at random moments: after each,
    the index answers from a complete generation holding either the old or the new entries, and the
    next run recovers without manual steps. Each is a process of its own, forked from one that has
    imported the tool (Forker), so the moments fall in the ingest's work rather than in the imports."""
    source = shared / "realdata" / "mtgjson5-TSP" / "TSP.json"
    before = complete(base)
    started = time.monotonic()
    forker.start(["ingest", str(source), "--index", str(base)])
    assert forker.wait(timeout=300) == 0, forker.stderr.read_text()
    duration = time.monotonic() - started
    after = complete(base)
    assert after > before
    rng = random.Random(20261130)
    outcomes = set()
    for _ in range(20):
        holds = catalog.summary(base)["entries"] == after
        args = ["remove", str(source)] if holds else ["ingest", str(source)]
        pid = forker.start([*args, "--index", str(base)])
        # a moment from start-up to past the end; a run that ends before it is not waited out (the kill
        # then only reaches what may be left of its group, as a kill past the end did)
        try:
            forker.wait(timeout=rng.uniform(0, 1.5 * duration))
            ended = True
        except subprocess.TimeoutExpired:
            ended = False
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:                     # it ended, and its whole group with it
            pass
        if not ended:
            forker.wait(timeout=60)
        entries = complete(base)
        assert entries in (before, after)
        outcomes.add((holds, entries == after))
        assert len(folder.generations(base)) <= 3              # live, previous, one left by the kill
    assert len(outcomes) >= 2                                  # kills landed both before and after switches
    report = catalog.ingest(base, [source])
    assert report.entries == after
    assert complete(base) == after
    assert len(folder.generations(base)) == 2                  # leftovers tidied: the live one and the one before


def test_parallel_searches_during_an_ingest_all_succeed(base, shared):
    """8 search processes in a loop while an ingest of real MTGJSON sets runs: every one exits 0 with hits."""
    sources = sorted((shared / "realdata" / "mtgjson3-sets").glob("*.json"))[:3]
    ingest = run(["ingest", *map(str, sources), "--index", str(base)])

    def searches() -> list[int]:
        counts = []
        while ingest.poll() is None or not counts:
            done = subprocess.run([*RULINGS, "search", "proliferate", "--format", "json", "--index", str(base)],
                                  capture_output=True, text=True, timeout=120, check=False)
            assert done.returncode == 0, done.stderr
            counts.append(len(json.loads(done.stdout)))
        return counts

    with ThreadPoolExecutor(8) as pool:
        runs = [pool.submit(searches) for _ in range(8)]
        counts = [n for job in runs for n in job.result()]
    assert ingest.wait(timeout=300) == 0, ingest.stderr.read()
    assert len(counts) >= 8 and min(counts) >= 6                 # the seeds alone have 6+ proliferate entries


def test_second_writer_waits_then_stops_with_a_clear_message(base, runner, tmp_path, monkeypatch):
    hold = ("import sys, time; from pathlib import Path; from rulings.search import folder\n"
            "with folder.locked(Path(sys.argv[1])):\n"
            "    print('held', flush=True); time.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", hold, str(base)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        doc = tmp_path / "one.txt"
        doc.write_text("Rulings\n\n• 2020-01-01\n  Trample lets excess damage through.\n", encoding="utf-8")
        monkeypatch.setenv("RULINGS_LOCK_TIMEOUT", "0.5")
        started = time.monotonic()
        result = runner.invoke(cli, ["ingest", str(doc), "--index", str(base)])
        waited = time.monotonic() - started
        assert result.exit_code == 1
        assert result.stderr == (f"Error: {base}: another process (pid {holder.pid}) is updating this index; "
                                 "waited 0.5 s, try again when it has finished\n")
        assert waited >= 0.5
        assert catalog.summary(base)["entries"] == 43              # nothing changed
    finally:
        holder.kill()
        holder.wait()
    result = runner.invoke(cli, ["ingest", str(doc), "--index", str(base)])    # the lock died with its holder
    assert result.exit_code == 0, result.output
    assert catalog.summary(base)["entries"] == 44


def test_a_search_keeps_answering_from_the_generation_it_opened(base, tmp_path):
    """The generation before the live one stays on disk until the next update."""
    first = folder.live(base)
    doc = tmp_path / "one.txt"
    doc.write_text("Rulings\n\n• 2020-01-01\n  Trample lets excess damage through.\n", encoding="utf-8")
    catalog.ingest(base, [doc])
    second = folder.live(base)
    assert second != first and first.is_dir()
    assert len(list(index.all_entries(first))) == 43 and len(list(index.all_entries(second))) == 44
    doc.write_text("Rulings\n\n• 2020-01-01\n  Deathtouch works with any amount of damage.\n", encoding="utf-8")
    catalog.ingest(base, [doc])
    assert not first.exists() and second.is_dir()


@pytest.mark.parametrize("pointer", ["gen-999999\n", "../elsewhere\n", b"\xff\xfe"])
def test_a_broken_pointer_is_a_damaged_index(base, runner, pointer):
    target = base / folder.CURRENT
    target.write_bytes(pointer if isinstance(pointer, bytes) else pointer.encode())
    result = runner.invoke(cli, ["search", "proliferate", "--index", str(base)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {base}") and "rulings ingest --rebuild" in result.stderr
    assert result.stderr.count("\n") == 1
    with pytest.raises(DamagedIndex):
        folder.live(base)


def test_rebuild_recovers_a_broken_pointer(base, runner):
    (base / folder.CURRENT).write_text("gen-999999\n")
    refused = runner.invoke(cli, ["ingest", "--rebuild", "--index", str(base)])
    assert refused.exit_code == 1 and "with your sources" in refused.output     # never the demo over unknown sources
    from rulings.corpus import corpus_files
    result = runner.invoke(cli, ["ingest", "--rebuild", *map(str, corpus_files()), "--index", str(base)])
    assert result.exit_code == 0, result.output
    assert complete(base) == 43


@pytest.mark.parametrize("command", [["search", "proliferate"], ["ingest"], ["stats"], ["sources"]])
def test_a_foreign_folder_is_not_taken_for_an_index(runner, tmp_path, command):
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "holiday.jpg").write_bytes(b"\xff\xd8\xff\xe0 not an index")
    result = runner.invoke(cli, [*command, "--index", str(foreign)])
    assert result.exit_code == 1
    assert result.stderr == (f"Error: {foreign}: the index is damaged or not a rulings index (it holds other "
                             "files); 'rulings ingest --rebuild' makes a new one there\n")
    assert sorted(p.name for p in foreign.iterdir()) == ["holiday.jpg"]        # nothing written there
    result = runner.invoke(cli, ["ingest", "--rebuild", "--index", str(foreign)])
    assert result.exit_code == 0
    assert complete(foreign) == 43 and (foreign / "holiday.jpg").exists()


def test_an_index_of_the_layout_before_generations_says_so_and_is_rebuilt(runner, base, tmp_path, monkeypatch):
    """A folder with state.pkl and whoosh/ directly inside, made before generations by a version whose
    modules were ``search.*`` (so this version cannot read its state): an update says so in one line
    and changes nothing; ``ingest --rebuild`` builds a generation beside the old files."""
    import pickle
    import types

    legacy = tmp_path / "legacy"
    shutil.copytree(folder.live(base) / index.WHOOSH_DIR, legacy / index.WHOOSH_DIR)
    old = types.ModuleType("search.catalog")
    old.State = type("State", (), {"__module__": "search.catalog"})
    monkeypatch.setitem(sys.modules, "search.catalog", old)
    (legacy / catalog.STATE).write_bytes(pickle.dumps(old.State()))
    monkeypatch.delitem(sys.modules, "search.catalog")
    before = sorted(p.name for p in legacy.iterdir())
    doc = tmp_path / "one.txt"
    doc.write_text("Rulings\n\n• 2020-01-01\n  Trample lets excess damage through.\n", encoding="utf-8")
    result = runner.invoke(cli, ["ingest", str(doc), "--index", str(legacy)])
    assert result.exit_code == 1
    assert result.output == (f"Error: {legacy / catalog.STATE}: made by another version; run 'rulings ingest "
                             "--rebuild SOURCE...' with the files it was made from\n")
    assert sorted(p.name for p in legacy.iterdir()) == sorted([*before, folder.LOCK])     # only the lock made
    result = runner.invoke(cli, ["ingest", "--rebuild", str(doc), "--index", str(legacy)])
    assert result.exit_code == 0, result.output
    assert folder.live(legacy) == legacy / "gen-000001" and catalog.summary(legacy)["entries"] == 1
    assert [h["text"] for h in query.search(legacy, "trample")] == ["Trample lets excess damage through."]


def test_a_first_build_killed_midway_is_redone_by_the_next_command(runner, tmp_path, monkeypatch):
    """What a killed first ingest leaves (the lock file and a half-written generation, no CURRENT) is the
    tool's own: the next command builds the index (at the default location) instead of calling the
    folder foreign."""
    root = tmp_path / "ix"
    (root / "gen-000001" / "whoosh").mkdir(parents=True)
    (root / "gen-000001" / "rulings.sqlite").write_bytes(b"SQLite format 3\x00")
    (root / folder.LOCK).write_text("12345")
    monkeypatch.setenv("RULINGS_INDEX", str(root))
    result = runner.invoke(cli, ["search", "proliferate", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)) == 7
    assert complete(root) == 43
    assert sorted(p.name for p in root.iterdir()) == [folder.CURRENT, "gen-000001", folder.LOCK]   # made anew


def test_a_command_during_a_first_build_waits_for_it(runner, tmp_path, monkeypatch):
    root = tmp_path / "ix"
    (root / "gen-000001").mkdir(parents=True)            # a first build running: no CURRENT yet
    hold = ("import sys, time; from pathlib import Path; from rulings.search import folder\n"
            "with folder.locked(Path(sys.argv[1])):\n"
            "    print('held', flush=True); time.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", hold, str(root)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setenv("RULINGS_LOCK_TIMEOUT", "0.5")
        result = runner.invoke(cli, ["search", "proliferate", "--index", str(root)])
        assert result.exit_code == 1
        assert result.stderr == (f"Error: {root}: another process (pid {holder.pid}) is updating this index; "
                                 "waited 0.5 s, try again when it has finished\n")
    finally:
        holder.kill()
        holder.wait()


def test_current_rewritten_in_place_is_read_again(base, monkeypatch):
    """live() remembers what a settled CURRENT names; CURRENT rewritten in place (same inode and size,
    maybe the same file time) names the new generation at once, and once settled from memory."""
    first = folder.live(base)
    other = base / "gen-999998"
    shutil.copytree(first, other)
    (base / folder.CURRENT).write_text("gen-999998\n")
    assert folder.live(base) == other
    monkeypatch.setattr(folder, "SETTLED_NS", -10**12)       # as if written long ago: from memory
    assert folder.live(base) == other
    monkeypatch.setattr(folder, "_LIVE", {str(base / folder.CURRENT): (folder._LIVE[str(base / folder.CURRENT)][0],
                                                                      first.name)})
    assert folder.live(base) == first                        # the remembered name, not the file's
    monkeypatch.setattr(folder, "SETTLED_NS", 2_000_000_000)
    assert folder.live(base) == other                        # written just now: read again


def test_a_search_reads_the_index_a_link_or_relative_path_names_now(base, tmp_path, monkeypatch):
    """The searcher kept per index folder is keyed by the folder's absolute path, links as they are: a
    link pointed at another index, or the same relative path from another working folder, reads that
    index (a key resolved once kept answering from the first one when both indexes had the same
    generation names)."""
    other = tmp_path / "other" / "ix"
    shutil.copytree(base, other)
    for folder_, text in ((base, "Deathtouch works with any amount of damage."),
                          (other, "Trample lets excess damage through.")):
        doc = tmp_path / "one.txt"
        doc.write_text(f"Rulings\n\n• 2020-01-01\n  {text}\n", encoding="utf-8")
        catalog.ingest(folder_, [doc])
    assert folder.live(base).name == folder.live(other).name
    link = tmp_path / "live"
    link.symlink_to(base)
    assert [hit["text"] for hit in query.search(link, "damage", limit=100) if "through" in hit["text"]] == []
    swap = tmp_path / "swap"
    swap.symlink_to(other)
    os.replace(swap, link)
    assert [hit["text"] for hit in query.search(link, "trample", limit=100)] == ["Trample lets excess damage through."]
    monkeypatch.chdir(base.parent)
    assert [e["text"] for e in index.all_entries(Path("ix")) if e["text"].startswith("Trample")] == []
    monkeypatch.chdir(other.parent)
    assert [e["text"] for e in index.all_entries(Path("ix")) if e["text"].startswith("Trample")] == \
        ["Trample lets excess damage through."]
