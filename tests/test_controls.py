"""Control characters from documents (issue 21, item 7): an OSC escape in a ruling set the terminal's
title through ``rulings search``, and a NUL went raw into CSV, HTML and Markdown. They are removed
when a document is read (newline and tab kept) and again at every output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulings.ingest.controls import escape_json_controls, single_line, without_controls
from rulings.ingest.read import read_file
from rulings.search import export as exporter
from rulings.search.cli import cli
from rulings.search.commands.options import entry_block

OKAUN = "realdata/scryfall-cassette-mtgjson/decoded_bodies/rulings_94eea6e3-20bc-4dab-90ba-3113c120fb90.json"
OSC = "\x1b]0;pwned\x07"                     # sets an xterm's window title
CSI = "\x1b[2J\x9b31m"                       # clears the screen; C1 CSI recolours
CONTROLS = {chr(c) for c in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]} - {"\n", "\t"}


@pytest.fixture
def hostile_okaun(shared, tmp_path) -> tuple[Path, list[str]]:
    """Okaun's 13 real Scryfall rulings with control characters written into three of them and into the
    card name a Scryfall card list gives; returns the file and the clean texts expected."""
    data = json.loads((shared / OKAUN).read_text("utf-8"))
    clean = [r["comment"] for r in data["data"]]
    data["data"][0]["comment"] = OSC + clean[0]
    data["data"][1]["comment"] = clean[1].replace(" ", "\x00", 1) + CSI
    data["data"][2]["comment"] = clean[2].replace(" ", "\r\n", 1).replace(" ", "\x0c", 1)
    path = tmp_path / "okaun.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    expected = [clean[0], clean[1].replace(" ", "", 1), clean[2].replace(" ", "\n", 1)] + clean[3:]
    return path, expected


def test_reading_removes_controls_keeping_newline_and_tab(hostile_okaun):
    path, expected = hostile_okaun
    result = read_file(path)
    assert [r.text for r in result.rulings] == expected
    assert len(result.rulings) == 13
    assert not {c for r in result.rulings for c in r.text} & CONTROLS


def test_search_text_and_json_carry_no_control_character(hostile_okaun, tmp_path, runner):
    path, expected = hostile_okaun
    index_dir = tmp_path / "ix"
    done = runner.invoke(cli, ["ingest", str(path), "--format", "json", "--index", str(index_dir)])
    assert done.exit_code == 0 and json.loads(done.stdout)["rulings"] == 13
    shown = runner.invoke(cli, ["search", "pwned", "--index", str(index_dir)])
    assert (shown.exit_code, shown.stdout) == (0, "No rulings found.\n")     # the escape's payload is gone
    phrase = '"' + " ".join(expected[0].split()[:8]) + '"'
    shown = runner.invoke(cli, ["search", phrase, "--format", "json", "--index", str(index_dir)])
    # two of Okaun's coin-flip rulings open with these eight words: the phrase finds both, BM25 orders them
    assert expected[0] in [hit["text"] for hit in json.loads(shown.stdout)]
    out = runner.invoke(cli, ["export", "--format", "jsonl", "--index", str(index_dir)])
    texts = {json.loads(line)["text"] for line in out.stdout.splitlines()[1:]}
    assert texts == set(expected)
    for fmt in ("json", "jsonl", "text"):
        out = runner.invoke(cli, ["search", "Okaun", "--format", fmt, "--limit", "20", "--index", str(index_dir)])
        assert out.exit_code == 0 and not set(out.stdout) & CONTROLS


@pytest.mark.parametrize("fmt", ["csv", "md", "html", "json", "jsonl"])
def test_export_of_an_index_holding_controls_writes_none(fmt):
    """An index made before reading removed them: the exporter removes them again."""
    entry = {"id": "r-1", "text": "Okaun\x00's ability\x1b]0;pwned\x07 doubles\r\nits power.\x85",
             "lang": "en", "mechanics": [], "cards": ["Okaun,\x9f Eye of Chaos"], "sets": ["BBD"],
             "date": "2018-06-08", "dates": ["2018-06-08"], "related": [], "translations": [], "aliases": [],
             "repairs": [],
             "variants": [{"text": "Okaun\x00's ability", "card": "Okaun,\x00 Eye of Chaos", "set": "BBD",
                           "date": "2018-06-08", "date_ambiguous": False, "lang": "en", "oracle_id": None,
                           "publisher": "wotc", "similarity": 1.0, "position": 0,
                           "source": {"path": "okaun\x07.json", "format": "scryfall"}}]}
    text = exporter.render([entry], fmt, variants=fmt == "csv")
    assert not set(text) - {"\n"} & CONTROLS
    shown = text if fmt not in ("json", "jsonl") else text.replace("\\n", "\n")
    kept = {"csv": "Okaun's ability", "md": "Okaun's ability doubles\n  its power. ",
            "html": "Okaun&#39;s ability doubles\nits power. "}.get(fmt, "Okaun's ability doubles\nits power. ")
    assert kept in shown
    assert "Okaun, Eye of Chaos" in shown and ("okaun.json" in shown or fmt in ("md", "html"))


def test_entry_block_removes_controls_before_styling():
    entry = {"text": "A\x1b]0;pwned\x07 ruling", "mechanics": [], "cards": ["Fire\n// Ice\x1b[31m"], "sets": [],
             "date": None, "id": "r-1", "variants": [{"source": {"path": "/x/a\x07.json"}}]}
    assert entry_block(entry).splitlines() == ["A ruling", "  cards: Fire // Ice",
                                               "  date: undated   id: r-1   variants: 1", "  sources: a.json"]


@pytest.mark.parametrize("text,clean", [
    pytest.param("a\x00b", "ab", id="nul"),
    pytest.param("a\r\nb\rc", "a\nb\nc", id="carriage-returns"),
    pytest.param("a\x0bb\x0cc\x1fd\x85e", "a b c d e", id="white-space-controls"),
    pytest.param("a\tb\nc", "a\tb\nc", id="tab-and-newline-kept"),
    pytest.param("\x1b[1mbold\x9b0m", "bold", id="csi"),
    pytest.param("a\x1b]0;title\x07b\x1b]8;;http://x\x1b\\link\x9d8;;\x9c", "ablink", id="osc"),
    pytest.param("a\x1b]no end", "ano end", id="osc-without-end-swallows-nothing"),
    pytest.param("Æther — it’s “fine” 巡逻", "Æther — it’s “fine” 巡逻", id="no-controls"),
])
def test_without_controls(text, clean):
    assert without_controls(text) == clean
    assert without_controls(clean) == clean


def test_single_line_and_json_escapes():
    assert single_line("a\nb\tc\x1b") == "a b c"
    assert single_line("a\x1b[31mb\n") == "ab "
    assert escape_json_controls(json.dumps("a\x9bb\x7f", ensure_ascii=False)) == '"a\\u009bb\\u007f"'
    assert json.loads(escape_json_controls(json.dumps("a\x9bb", ensure_ascii=False))) == "a\x9bb"
