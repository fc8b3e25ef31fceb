"""The tool writes only inside the index folder and the -o target (issue 10): nothing in the
system temporary folder, the working folder or beside the sources."""

import os
import subprocess
import sys

RULINGS = [sys.executable, "-c", "from rulings.search.cli import main; main()"]
WAR = "realdata/zh-cn-release-notes-athenacykes/release_notes/faq_war.docx"


def listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_ingest_search_export_write_only_index_and_target(shared, tmp_path):
    temp, work, index_dir = tmp_path / "temp", tmp_path / "work", tmp_path / "ix"
    temp.mkdir()
    work.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), "HOME": str(tmp_path / "home"), "RULINGS_INDEX": str(index_dir)}
    before = listing(shared / "realdata")
    for args in (["ingest", str(shared / WAR)], ["search", "增殖", "--lang", "zh"], ["search", "proliferate"],
                 ["export", "--format", "md", "-o", str(work / "out.md")]):
        done = subprocess.run([*RULINGS, *args], env=env, cwd=work, capture_output=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
    assert listing(temp) == []
    assert listing(work) == ["out.md"]
    assert not (tmp_path / "home").exists()
    assert (index_dir / "jieba.cache").is_file()               # the segmenter's cache lives in the index folder
    assert listing(shared / "realdata") == before
