"""Output never fails on the terminal's encoding (issue 10): a C locale, PYTHONIOENCODING=ascii or latin-1,
output piped. Each run is a real ``rulings`` process over an index of a real Chinese release-notes docx."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rulings.search.cli import escape_unencodable

DOCX = "realdata/zh-cn-release-notes-athenacykes/release_notes/faq_war.docx"
MAIN = "from rulings.search.cli import main; main()"


def run(args: list, **env: str) -> subprocess.CompletedProcess:
    """``rulings ARGS`` in a fresh process with these environment variables, stdout and stderr piped (bytes)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONIO", "PYTHONUTF8"))}
    return subprocess.run([sys.executable, "-c", MAIN, *map(str, args)], capture_output=True,
                          env=environ | env, timeout=300)


@pytest.fixture(scope="module")
def index(shared, tmp_path_factory):
    folder = tmp_path_factory.mktemp("zh-ix")
    done = run(["ingest", shared / DOCX, "--index", folder], LANG="C", LC_ALL="C", PYTHONIOENCODING="ascii")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"513 rulings read")
    return folder


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "utf-8"])
def test_search_json_is_valid_json_in_any_encoding(index, encoding):
    done = run(["search", "增殖", "--lang", "zh", "--format", "json", "--index", index],
               LANG="C", LC_ALL="C", PYTHONIOENCODING=encoding)
    assert done.returncode == 0 and done.stderr == b""
    hits = json.loads(done.stdout.decode("utf-8"))    # escapes are ASCII, so latin-1 output is UTF-8 too
    reference = json.loads(run(["search", "增殖", "--lang", "zh", "--format", "json", "--index", index],
                               PYTHONIOENCODING="utf-8").stdout)
    assert hits == reference
    assert hits[0]["cards"] == ["无上综源罗列茨"] and "proliferate" in hits[0]["mechanics"]


def test_search_text_in_latin1_is_escaped_not_a_crash(index):
    done = run(["search", "增殖", "--lang", "zh", "--limit", "1", "--index", index], PYTHONIOENCODING="latin-1")
    assert done.returncode == 0 and done.stderr == b""
    assert b"cards: \\u65e0\\u4e0a\\u7efc\\u6e90\\u7f57\\u5217\\u8328" in done.stdout    # 无上综源罗列茨


def test_error_line_in_latin1(index):
    done = run(["show", "r-生物", "--index", index], PYTHONIOENCODING="latin-1")
    assert done.returncode == 1
    assert done.stderr == b"Error: no entry has the id 'r-\\u751f\\u7269'\n"


def test_argument_that_is_not_utf8_is_one_line(index):
    done = run(["show", "r-\udcff", "--index", index])          # the bytes r-\xff: not UTF-8
    assert done.returncode == 1
    assert done.stderr == (b"Error: an argument holds bytes that are not UTF-8 text; "
                           b"retype it or set a UTF-8 locale (LANG=C.UTF-8)\n")


def test_export_file_is_utf8_in_a_c_locale(index, tmp_path):
    out = tmp_path / "war.md"
    done = run(["export", "--query", "增殖", "--format", "md", "-o", out, "--index", index],
               LANG="C", LC_ALL="C", PYTHONIOENCODING="ascii")
    assert done.returncode == 0
    assert "无上综源罗列茨" in out.read_text(encoding="utf-8")


def test_escape_handler_pairs_beyond_the_bmp():
    assert "a😀生".encode("ascii", errors="rulings-escape") == b"a\\ud83d\\ude00\\u751f"
    assert json.loads('"' + "😀生".encode("latin-1", errors="rulings-escape").decode() + '"') == "😀生"
    with pytest.raises(UnicodeDecodeError):
        escape_unencodable(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"))
