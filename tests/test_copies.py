"""Exact copies only add variants: the entries do not depend on how many copies a text has,
nor on the order in which the copies are ingested (issue 22)."""

import shutil

import pytest

from rulings.corpus import corpus_files
from rulings.search import catalog, index


def _copy_seeds(folder):
    folder.mkdir(parents=True)
    for path in corpus_files():
        shutil.copy(path, folder / path.name)
    return folder


def _entries(index_dir):
    """Each entry as (text, mechanics, repairs of its variants, number of variants), sorted."""
    return sorted((e["text"], tuple(e["mechanics"]), len(e["variants"])) for e in index.all_entries(index_dir))


def _shape(index_dir):
    """What the grouping decided, copies folded: (text, mechanics) of every entry."""
    return sorted((e["text"], tuple(e["mechanics"])) for e in index.all_entries(index_dir))


@pytest.fixture
def two_copies(tmp_path):
    return _copy_seeds(tmp_path / "one"), _copy_seeds(tmp_path / "two")


def test_two_copies_at_once_give_the_entries_of_one(tmp_path, two_copies):
    once, twice = tmp_path / "once", tmp_path / "twice"
    catalog.ingest(once, [two_copies[0]])
    catalog.ingest(twice, list(two_copies))
    assert len(_shape(twice)) == len(_shape(once)) == 43
    assert _shape(twice) == _shape(once)
    # every entry has twice the variants of the single ingest
    assert [n for *_, n in _entries(twice)] == [2 * n for *_, n in _entries(once)]


def test_one_copy_after_the_other_gives_the_entries_of_one(tmp_path, two_copies):
    once, steps = tmp_path / "once", tmp_path / "steps"
    catalog.ingest(once, [two_copies[0]])
    catalog.ingest(steps, [two_copies[0]])
    catalog.ingest(steps, list(two_copies))
    assert _shape(steps) == _shape(once)
    assert [n for *_, n in _entries(steps)] == [2 * n for *_, n in _entries(once)]


def test_the_damaged_copy_keeps_its_repair_and_tag(tmp_path, two_copies):
    ix = tmp_path / "ix"
    catalog.ingest(ix, list(two_copies))
    shields = [e for e in index.all_entries(ix) if "counters don't prevent players from sacrificing" in e["text"]]
    assert len(shields) == 1, [e["text"] for e in shields]
    assert "shield-counters" in shields[0]["mechanics"]
