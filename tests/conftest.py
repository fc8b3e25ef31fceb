"""Shared fixtures: the real data folder, a CLI runner, and a session index of the bundled corpus.

The suite runs in parallel (pytest-xdist, ``-n auto`` in pyproject.toml): the read-only indexes below that
take seconds to build (the real corpus's above all) are built once per run, by whichever worker asks
first, in the run's temporary folder that every worker shares (built_once); the others wait for it."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulings.corpus import corpus_files
from rulings.search import catalog

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="session")
def shared() -> Path:
    """../shared; a failure in CI when missing, a skip with a reason on a user's clone."""
    if not (SHARED / "realdata").is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED} is missing; in CI real-data tests never skip")
        pytest.skip("real data not present (../shared/realdata); these tests run in CI")
    return SHARED


def built_once(tmp_path_factory, name: str, build: Callable[[Path], object]) -> Path:
    """The folder <name>/ix made by build(folder) once per test run: in a worker of a parallel run, in the
    run's temporary folder all workers share, under a lock (a worker that finds it made uses it; one
    whose build failed leaves no "done" mark, so the next one builds it again); else in this session's."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        folder = tmp_path_factory.mktemp(name) / "ix"
        build(folder)
        return folder
    root = tmp_path_factory.getbasetemp().parent / f"built-once-{name}"
    root.mkdir(exist_ok=True)
    folder, done = root / "ix", root / "done"
    with open(root / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            if folder.exists():
                shutil.rmtree(folder)                   # a build that failed part way
            build(folder)
            done.touch()
    return folder


@pytest.fixture(autouse=True)
def default_index_in_tmp(tmp_path_factory, monkeypatch):
    """$RULINGS_INDEX in a temporary folder: a command given no --index (or one whose --index came after
    '--') builds its demo index there, never in the user's data folder."""
    monkeypatch.setenv("RULINGS_INDEX", str(tmp_path_factory.mktemp("default") / "index"))


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture(scope="session")
def seed_index(tmp_path_factory) -> Path:
    """An index folder built once from the bundled corpus."""
    folder = tmp_path_factory.mktemp("seed-index")
    catalog.ingest(folder, corpus_files())
    return folder


@pytest.fixture(scope="session")
def real_index(shared, tmp_path_factory) -> Path:
    """An index folder built once from ../shared/realdata (every format, every language)."""
    return built_once(tmp_path_factory, "real", lambda folder: catalog.ingest(folder, [shared / "realdata"]))


@pytest.fixture(scope="session")
def ixalan_index(shared, tmp_path_factory) -> Path:
    """An index of the real MTGJSON v3 Ixalan and Shadows over Innistrad files (1,229 rulings, 589 entries):
    three Jace planeswalkers, Hijack, rulings dated 2016-04 and 2017-09."""
    sets = shared / "realdata/mtgjson3-sets"
    return built_once(tmp_path_factory, "ixalan", lambda folder: catalog.ingest(folder, [sets / "XLN.json",
                                                                                        sets / "SOI.json"]))


@pytest.fixture
def make_ruling():
    """Factory of Ruling records with keyword overrides (one test source, English, undated)."""
    from rulings.ingest.model import Ruling, Source
    counter = iter(range(1_000_000))

    def make(text: str = "Proliferate can't add a new kind of counter.", **fields) -> Ruling:
        base = dict(card="Contentious Plan", set_code="WAR", date="2019-05-03", lang="en",
                    source=Source("test", "text"), position=next(counter), publisher="wotc")
        return Ruling(text=text, **(base | fields))
    return make


@pytest.fixture(scope="session")
def small_index(tmp_path_factory) -> Path:
    """A Whoosh index of 2,000 made-up entries (tests/engine_indexes.py), built once: English and
    Chinese, posting lists of many blocks, two segments (a full build's workers)."""
    from engine_indexes import build_small

    return built_once(tmp_path_factory, "small", build_small)


@pytest.fixture(scope="session")
def rulings_index(tmp_path_factory) -> Path:
    """A Whoosh index of the 32 made-up rulings of tests/engine_indexes.py RULINGS (English and Chinese),
    built once: the small counterpart of real_index in the query and snippet equivalence tests."""
    from engine_indexes import build_rulings

    return built_once(tmp_path_factory, "rulings", build_rulings)


@pytest.fixture(scope="session")
def small_updated_index(tmp_path_factory) -> tuple[Path, set[str]]:
    """A small index updated twice with a sixth of its entries deleted: (folder, the deleted ids)."""
    from engine_indexes import build_updated

    folder = tmp_path_factory.mktemp("small-updated") / "ix"
    _, gone = build_updated(folder)
    return folder, gone
