"""``rulings sources`` and ``rulings remove``."""

import json
import shutil

from corpus import corpus_files
from search.cli import cli


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
