"""The JSONL export reader: sniffing, the skipped meta line, every variant field carried, errors."""

import json
from pathlib import Path

import pytest

from rulings.ingest.dates import INVALID_DATE
from rulings.ingest.errors import NoRulings, ReadError
from rulings.ingest.model import Ruling, Source, entry_to_dict
from rulings.ingest.pipeline import build_entries
from rulings.ingest.read import read_file, sniff
from rulings.ingest.readers import jsonl
from rulings.search.export import render


def rulings():
    """Four rulings, two of them the same ruling on two cards of two sets (3 entries)."""
    same = "Energy is a kind of counter that a player may have — it isn’t a permanent."
    return [
        Ruling(same, Source("/data/KLD.json", "mtgjson"), 4, date="2016-09-20", card="Aether Hub", set_code="KLD",
               publisher="wotc"),
        Ruling(same, Source("/data/AER.json", "mtgjson"), 9, date="2017-02-09", card="Aethertide Whale",
               set_code="AER", oracle_id="0a1b", publisher="wotc"),
        Ruling("巡逻和平使者 can’t block.", Source("/data/zh.txt", "text"), 0, lang="zh-Hans", date="2025-07-25",
               date_ambiguous=True, card="巡逻和平使者"),
        Ruling("If a creature has power <3 or >5 & X, nothing happens.", Source("/data/s.txt", "text"), 2),
    ]


@pytest.fixture
def export_file(tmp_path) -> tuple[Path, list[dict]]:
    entries = [entry_to_dict(e) for e in build_entries(rulings()).entries]
    path = tmp_path / "export.jsonl"
    path.write_text(render(entries, "jsonl", created="2026-01-01T00:00:00+00:00"), encoding="utf-8")
    return path, entries


def test_sniffs_by_content_not_suffix(export_file, tmp_path):
    path, _ = export_file
    renamed = tmp_path / "export.txt"
    renamed.write_bytes(path.read_bytes())
    assert sniff(renamed) is jsonl
    assert jsonl.looks_like(b'{"id": "r-1", "text": "x", "variants": []}\n', ".json")
    assert not jsonl.looks_like(b'{"object": "list", "data": []}', ".jsonl")
    assert not jsonl.looks_like(b'{"meta": {"date": "2025-08-25", "version": "5.2.2"}, "data": {}}', ".json")
    assert not jsonl.looks_like(b"Rulings\n\n\xe2\x80\xa2 2024-06-07\n", ".jsonl")


def test_every_variant_becomes_a_ruling_with_its_fields(export_file):
    path, entries = export_file
    result = read_file(path)
    assert (result.format, result.skipped, result.rejected) == ("jsonl", None, None)
    assert len(result.rulings) == 4
    by_card = {r.card: r for r in result.rulings}
    whale = by_card["Aethertide Whale"]
    assert (whale.source, whale.position, whale.date, whale.set_code, whale.oracle_id, whale.publisher) == \
        (Source("/data/AER.json", "mtgjson"), 9, "2017-02-09", "AER", "0a1b", "wotc")
    assert whale.entry_id == by_card["Aether Hub"].entry_id
    assert whale.entry_id in {e["id"] for e in entries}
    zh = by_card["巡逻和平使者"]
    assert (zh.lang, zh.date_ambiguous, zh.text) == ("zh-Hans", True, "巡逻和平使者 can’t block.")
    assert [r.source.path for r in result.rulings] == ["/data/AER.json", "/data/KLD.json", "/data/s.txt",
                                                       "/data/zh.txt"]


def test_rebuilt_entries_keep_ids_and_variants(export_file):
    path, entries = export_file
    again = [entry_to_dict(e) for e in build_entries(list(jsonl.read(path))).entries]
    assert sorted(again, key=lambda e: e["id"]) == sorted(entries, key=lambda e: e["id"])


def test_bad_line_names_its_number(export_file):
    path, _ = export_file
    lines = path.read_text("utf-8").splitlines()
    path.write_text("\n".join(lines[:2] + ['{"id": "r-1", "variants": [{"text": "x"'] + lines[2:]), "utf-8")
    with pytest.raises(ReadError, match="line 3: not JSON"):
        list(jsonl.read(path))
    assert read_file(path).rejected.startswith("line 3: not JSON")


def test_entry_without_variants_is_rejected(tmp_path):
    path = tmp_path / "e.jsonl"
    path.write_text('{"meta": {"selected": {}}}\n{"id": "r-1", "text": "x", "variants": []}\n', "utf-8")
    with pytest.raises(ReadError, match="line 2: not an entry"):
        list(jsonl.read(path))


def test_meta_only_export_holds_no_rulings(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text(json.dumps({"meta": {"selected": {}, "entries": 0}}) + "\n", "utf-8")
    with pytest.raises(NoRulings):
        list(jsonl.read(path))
    assert read_file(path).skipped == "export holds no entries"


def test_mtgjson5_meta_file_is_not_an_export(shared):
    assert sniff(shared / "realdata" / "mtgjson5-TSP" / "TSP.json").FORMAT == "mtgjson"


@pytest.mark.parametrize("name,content,reason", [
    # The tester's file: a meta line, then a bad record, then a non-JSON line.
    ("damaged.jsonl", '{"meta": {}}\n{"bad": 1}\nnot json\n', "line 2: not an entry"),
    ("damaged.txt", '{"meta": {"created": "2026-01-01"}}\n{"bad": 1}\nnot json\n', "line 2: not an entry"),
    ("damaged2.jsonl", '{"meta": {"selected": {}}}\n{"id": "r-1", "te\n', "line 2: not JSON"),
    ("meta-cut.jsonl", '{"meta": {"sel\n{"id": "r-1", "text": "x", "variants": []}\n', "line 1: not JSON"),
])
def test_damaged_export_is_rejected_with_its_line(tmp_path, name, content, reason):
    path = tmp_path / name
    path.write_text(content, "utf-8")
    result = read_file(path)
    assert result.format == "jsonl" and result.skipped is None and result.rejected.startswith(reason)


def test_json_lines_of_something_else_are_skipped(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"event": "a"}\n{"event": "b"}\n', "utf-8")
    result = read_file(path)
    assert result.rejected is None and "not a rulings export" in result.skipped


def test_invalid_variant_date_is_kept_undated_with_a_warning(export_file):
    path, _ = export_file
    text = path.read_text("utf-8").replace('"date": "2016-09-20"', '"date": "2016-13-45"')
    path.write_text(text, "utf-8")
    by_card = {r.card: r for r in read_file(path).rulings}
    assert by_card["Aether Hub"].date is None and by_card["Aether Hub"].warnings == (INVALID_DATE,)
    assert by_card["Aethertide Whale"].date == "2017-02-09" and by_card["Aethertide Whale"].warnings == ()
