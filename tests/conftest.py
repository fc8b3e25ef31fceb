"""Shared fixtures: the real data folder, a CLI runner, and a session index of the bundled corpus."""

from __future__ import annotations

import os
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
    folder = tmp_path_factory.mktemp("real") / "ix"
    catalog.ingest(folder, [shared / "realdata"])
    return folder


@pytest.fixture(scope="session")
def ixalan_index(shared, tmp_path_factory) -> Path:
    """An index of the real MTGJSON v3 Ixalan and Shadows over Innistrad files (1,229 rulings, 589 entries):
    three Jace planeswalkers, Hijack, rulings dated 2016-04 and 2017-09."""
    folder = tmp_path_factory.mktemp("ixalan") / "ix"
    catalog.ingest(folder, [shared / "realdata/mtgjson3-sets/XLN.json", shared / "realdata/mtgjson3-sets/SOI.json"])
    return folder


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

    folder = tmp_path_factory.mktemp("small") / "ix"
    build_small(folder)
    return folder


@pytest.fixture(scope="session")
def small_updated_index(tmp_path_factory) -> tuple[Path, set[str]]:
    """A small index updated twice with a sixth of its entries deleted: (folder, the deleted ids)."""
    from engine_indexes import build_updated

    folder = tmp_path_factory.mktemp("small-updated") / "ix"
    _, gone = build_updated(folder)
    return folder, gone
