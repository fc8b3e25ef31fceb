"""``rulings sources`` and ``rulings remove``."""

import json
import shutil

import pytest

from rulings.corpus import corpus_files
from rulings.search.cli import cli


def ingest_seeds(runner, tmp_path):
    folder = tmp_path / "seeds"
    folder.mkdir()
    for path in corpus_files():
        shutil.copy(path, folder / path.name)
    (folder / "notes.txt").write_text("Just a note, not rulings.\n", "utf-8")
    ix = tmp_path / "ix"
    assert runner.invoke(cli, ["ingest", str(folder), "--index", str(ix)]).exit_code == 0
    return folder, ix


def entries_by_file(runner, ix):
    exported = json.loads(runner.invoke(cli, ["export", "--format", "json", "--index", str(ix)]).stdout)
    counts = {}
    for entry in exported:
        for name in {v["source"]["path"].rsplit("/", 1)[-1] for v in entry["variants"]}:
            counts[name] = counts.get(name, 0) + 1
    return counts


def test_sources_json_lists_counts_and_skips(runner, tmp_path):
    folder, ix = ingest_seeds(runner, tmp_path)
    result = runner.invoke(cli, ["sources", "--format", "json", "--index", str(ix)])
    assert result.exit_code == 0, result.output
    rows = {row["path"].rsplit("/", 1)[-1]: row for row in json.loads(result.stdout)}
    assert {name: row["rulings"] for name, row in rows.items()} == {
        "000_4791008fab4c9afc.txt": 17, "002_cb6211493364d1de.txt": 11,
        "003_14c4c19089e5e67c.txt": 9, "004_d033d17d83505c11.txt": 17, "notes.txt": 0}
    assert rows["notes.txt"]["skipped"] and rows["notes.txt"]["format"] == "text"
    counted = entries_by_file(runner, ix)
    for name, row in rows.items():
        assert row["entries"] == counted.get(name, 0)
        assert row["rejected"] is None


def test_sources_text(runner, tmp_path):
    folder, ix = ingest_seeds(runner, tmp_path)
    out = runner.invoke(cli, ["sources", "--index", str(ix)]).stdout
    assert "text: 17 rulings" in out
    assert "skipped:" in out
    assert out.splitlines()[-1] == "5 sources, 4 with rulings, 54 rulings"


def test_remove_file_then_stats(runner, tmp_path):
    folder, ix = ingest_seeds(runner, tmp_path)
    before = entries_by_file(runner, ix)
    result = runner.invoke(cli, ["remove", str(folder / "003_14c4c19089e5e67c.txt"), "--index", str(ix)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("removed 1 source (9 rulings)")
    stats = json.loads(runner.invoke(cli, ["stats", "--format", "json", "--index", str(ix)]).stdout)
    assert stats["rulings"] == 54 - 9
    after = entries_by_file(runner, ix)
    assert "003_14c4c19089e5e67c.txt" not in after
    assert after["000_4791008fab4c9afc.txt"] == before["000_4791008fab4c9afc.txt"]


def test_remove_folder_empties_the_index(runner, tmp_path):
    folder, ix = ingest_seeds(runner, tmp_path)
    result = runner.invoke(cli, ["remove", str(folder), "--index", str(ix)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("removed 5 sources (54 rulings); 0 entries")


def test_remove_unknown_is_one_line_exit_1(runner, tmp_path):
    folder, ix = ingest_seeds(runner, tmp_path)
    result = runner.invoke(cli, ["remove", str(tmp_path / "other.txt"), "--index", str(ix)])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {tmp_path / 'other.txt'}: not an ingested source (see 'rulings sources')\n"


# The bundled corpus has a stable identity, and sources are remembered resolved (issue 21, item 4).
def install_copy(tmp_path, where):
    """A copy of the corpus package as another install puts it (``.../site-packages/corpus``)."""
    from rulings import corpus

    package = tmp_path / where / "corpus"
    package.mkdir(parents=True)
    shutil.copy(corpus.__file__, package / "__init__.py")
    for path in corpus_files():
        shutil.copy(path, package / path.name)
    return package


def stats(runner, ix):
    return json.loads(runner.invoke(cli, ["stats", "--format", "json", "--index", str(ix)]).stdout)


def test_bundled_corpus_is_the_same_source_after_a_reinstall(runner, tmp_path, monkeypatch):
    """pip install . then pip install -e .: the bundled documents move; the next 'rulings ingest' doubled
    them (108 rulings, 45 entries)."""
    from rulings import corpus

    ix = tmp_path / "ix"
    site = install_copy(tmp_path, "venv/lib/python3/site-packages")
    monkeypatch.setattr(corpus, "corpus_path", lambda: site)
    assert runner.invoke(cli, ["ingest", "--index", str(ix)]).exit_code == 0
    monkeypatch.undo()                                         # reinstalled elsewhere, the old copy removed
    shutil.rmtree(site)
    assert runner.invoke(cli, ["ingest", "--index", str(ix)]).exit_code == 0
    assert (stats(runner, ix)["rulings"], stats(runner, ix)["entries"]) == (54, 43)
    rows = json.loads(runner.invoke(cli, ["sources", "--format", "json", "--index", str(ix)]).stdout)
    assert [row["path"] for row in rows] == [f"rulings:corpus/{path.name}" for path in corpus_files()]
    variants = {v["source"]["path"] for e in json.loads(runner.invoke(
        cli, ["export", "--format", "json", "--index", str(ix)]).stdout) for v in e["variants"]}
    assert variants == {f"rulings:corpus/{path.name}" for path in corpus_files()}
    result = runner.invoke(cli, ["remove", "rulings:corpus", "--index", str(ix)])
    assert result.stdout == "removed 4 sources (54 rulings); 0 entries in the index\n"


@pytest.mark.parametrize("old_copy_kept", [False, True], ids=["uninstalled", "still-installed"])
def test_an_index_that_remembered_the_bundled_corpus_by_path_is_mended(runner, tmp_path, monkeypatch,
                                                                       old_copy_kept):
    """An index made before the stable name remembered the bundled documents by their install path:
    ingesting the bundled corpus replaces them instead of adding them again."""
    from rulings import corpus
    from rulings.search import catalog

    ix = tmp_path / "ix"
    site = install_copy(tmp_path, "old-venv/site-packages")
    monkeypatch.setattr(catalog, "bundled_name", lambda path: None)       # what an earlier version did
    catalog.ingest(ix, sorted(site.glob("*.txt")))
    monkeypatch.undo()
    assert [r.path for r in catalog.sources(ix)] == [str(p) for p in sorted(site.glob("*.txt"))]
    if not old_copy_kept:
        shutil.rmtree(site)
    assert runner.invoke(cli, ["ingest", "--index", str(ix)]).exit_code == 0
    assert (stats(runner, ix)["rulings"], stats(runner, ix)["entries"]) == (54, 43)
    assert [r.path for r in catalog.sources(ix)] == [f"rulings:corpus/{p.name}" for p in corpus_files()]
    assert corpus.corpus_path() != site


def test_relative_sources_are_remembered_resolved(runner, shared, tmp_path, monkeypatch):
    """A source typed relative was stored as typed: 'sources' and 'show' named a file that was not
    there from any other folder, and 'remove' from another folder missed it."""
    realdata = shared / "realdata"
    ix = tmp_path / "ix"
    monkeypatch.chdir(realdata)
    result = runner.invoke(cli, ["ingest", "mtgjson3-sets/10E.json", "scryfall-aioscryfall", "--index", str(ix)])
    assert result.exit_code == 0, result.output
    text = runner.invoke(cli, ["sources", "--index", str(ix)]).stdout
    assert text.splitlines()[0::2] == ["mtgjson3-sets/10E.json", "scryfall-aioscryfall/single-card.json",
                                       "2 sources, 2 with rulings, 285 rulings"]
    monkeypatch.chdir(tmp_path)
    rows = json.loads(runner.invoke(cli, ["sources", "--format", "json", "--index", str(ix)]).stdout)
    assert [row["path"] for row in rows] == [str(realdata / "mtgjson3-sets/10E.json"),
                                             str(realdata / "scryfall-aioscryfall/single-card.json")]
    assert runner.invoke(cli, ["sources", "--index", str(ix)]).stdout.splitlines()[0] == \
        str(realdata / "mtgjson3-sets/10E.json")
    hit = json.loads(runner.invoke(cli, ["search", "Deathrite", "--format", "json", "--index", str(ix)]).stdout)[0]
    assert {v["source"]["path"] for v in hit["variants"]} == {str(realdata / "scryfall-aioscryfall/single-card.json")}
    shown = runner.invoke(cli, ["show", hit["id"], "--index", str(ix)]).stdout
    assert f" {realdata / 'scryfall-aioscryfall/single-card.json'} [scryfall]" in shown
    removed = runner.invoke(cli, ["remove", str(realdata / "scryfall-aioscryfall"), "--index", str(ix)])
    assert removed.stdout == "removed 1 source (2 rulings); 259 entries in the index\n"
