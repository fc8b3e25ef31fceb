"""One stray byte never costs a file (issue 21, item 2): a real UTF-8 document with one byte that is
not UTF-8 (a cp1252 apostrophe ``\\x92``, a ``\\xff``) is read as UTF-8 with that byte replaced by
U+FFFD and a warning naming its offset, by every text-based reader: text pages, MTGJSON loaded whole
and streamed, Scryfall lists and streamed bulk arrays, Gatherer pages, our JSONL export. Legacy
cp1252 files are still read as cp1252, and bytes that are no text are still rejected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulings.ingest.read import read_file
from rulings.ingest.readers import encoding, jsontext
from rulings.search.cli import cli

SEED = "seeds/000_4791008fab4c9afc.txt"                       # layout 1, 17 rulings (bullets are UTF-8)
KLD = "realdata/mtgjson3-sets/KLD.json"                      # MTGJSON v3 set, 813 rulings (SOURCES.md)
TSP = "realdata/mtgjson5-TSP/TSP.json"                       # MTGJSON v5 set, 921 rulings
AETHERSTORM = "realdata/gatherer-tutor/ætherstorm.html"      # Gatherer page, card "Æther Storm", 2 rulings
DECODED = "realdata/scryfall-cassette-mtgjson/decoded_bodies"


def with_bad_byte(source: Path, target: Path, bad: bytes = b"\x92", after: bytes = b"'") -> int:
    """Write source to target with its first ``after`` byte (inside a ruling's text) replaced by bad;
    returns the offset of the bad byte."""
    raw = source.read_bytes()
    at = raw.index(after)
    target.write_bytes(raw[:at] + bad + raw[at + 1:])
    return at


def texts(result) -> list[str]:
    return [r.text for r in result.rulings]


def test_text_page_with_a_cp1252_apostrophe_keeps_its_layout_and_rulings(shared, tmp_path):
    source = shared / SEED
    path = tmp_path / "seed.txt"
    at = with_bad_byte(source, path)
    before, after = read_file(source), read_file(path)
    assert (after.format, after.skipped, after.rejected) == ("text", None, None)
    assert len(after.rulings) == len(before.rulings) == 17
    changed = [(old, new) for old, new in zip(texts(before), texts(after)) if old != new]
    assert len(changed) == 1
    old, new = changed[0]
    assert new == old.replace("'", "\ufffd", 1)
    warning = f"{path}: byte {at} is not UTF-8 (replaced by U+FFFD)"
    assert {r.warnings for r in after.rulings} == {(warning,)}


def test_ingest_counts_the_warning_in_its_summary(shared, tmp_path, runner):
    path = tmp_path / "seed.txt"
    at = with_bad_byte(shared / SEED, path)
    done = runner.invoke(cli, ["ingest", str(path), "--format", "json", "--index", str(tmp_path / "ix")])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["rulings"] == 17 and report["skipped"] == [] and report["rejected"] == []
    assert report["warnings"] == {f"{path}: byte {at} is not UTF-8 (replaced by U+FFFD)": 17}
    text = runner.invoke(cli, ["ingest", str(path), "--index", str(tmp_path / "ix")])
    assert f"warnings: 17 rulings ({path}: byte {at} is not UTF-8 (replaced by U+FFFD))" in text.stdout.splitlines()
    stats = json.loads(runner.invoke(cli, ["stats", "--format", "json", "--index", str(tmp_path / "ix")]).stdout)
    assert stats["warnings"] == report["warnings"] and stats["rulings"] == 17


@pytest.mark.parametrize("name,count", [(KLD, 813), (TSP, 921)])
def test_mtgjson_set_with_one_bad_byte_keeps_every_ruling(shared, tmp_path, name, count):
    source = shared / name
    path = tmp_path / source.name
    at = with_bad_byte(source, path, b"\xff")
    before, after = read_file(source), read_file(path)
    assert after.rejected is None and len(after.rulings) == len(before.rulings) == count
    changed = [(old, new) for old, new in zip(texts(before), texts(after)) if old != new]
    assert [new for _, new in changed] == [old.replace("'", "\ufffd", 1) for old, _ in changed]
    assert len(changed) <= 1             # the first apostrophe may sit in card text, not in a ruling
    assert after.rulings[0].warnings == (f"{path}: byte {at} is not UTF-8 (replaced by U+FFFD)",)
    # every other non-ASCII character (dashes, curly quotes) is read as before, not as cp1252 mojibake
    assert not [t for t in texts(after) if "â€" in t]


def test_streamed_allprintings_with_bad_bytes_keeps_every_ruling(shared, tmp_path, monkeypatch):
    tsp = json.loads((shared / TSP).read_text("utf-8"))
    raw = json.dumps({"meta": tsp["meta"], "data": {"TSP": tsp["data"]}}, ensure_ascii=False).encode()
    first, last = raw.index(b"Time Spiral") + 4, raw.rindex(b"'")     # one in the sniffed head, one near the end
    assert first < 4096 < last
    raw = raw[:first] + b"\x92" + raw[first + 1:last] + b"\xff" + raw[last + 1:]
    path = tmp_path / "AllPrintings.json"
    path.write_bytes(raw)
    before = texts(read_file(shared / TSP))
    monkeypatch.setattr(jsontext, "load", None)        # streamed set by set, never loaded whole
    result = read_file(path)
    assert result.rejected is None and len(result.rulings) == 921
    assert result.rulings[0].warnings == (f"{path}: 2 bytes are not UTF-8, at offsets {first}, {last} "
                                          "(replaced by U+FFFD)",)
    assert {r.set_code for r in result.rulings} == {"TSP"}
    changed = [(old, new) for old, new in zip(before, texts(result)) if old != new]
    assert len(changed) <= 1                         # the last apostrophe may sit in card text, not a ruling
    assert [new for _, new in changed] == [old[:old.rindex("'")] + "\ufffd" + old[old.rindex("'") + 1:]
                                           for old, _ in changed]


def test_streamed_scryfall_bulk_array_with_a_bad_byte_keeps_every_ruling(shared, tmp_path, monkeypatch):
    rulings = [r for p in sorted((shared / DECODED).glob("rulings_*.json"))
               for r in json.loads(p.read_text("utf-8"))["data"]]
    raw = json.dumps(rulings, ensure_ascii=False).encode()
    at = raw.rindex(b"'")
    path = tmp_path / "rulings.json"
    path.write_bytes(raw[:at] + b"\x92" + raw[at + 1:])
    monkeypatch.setattr(jsontext, "load", None)        # streamed item by item, never loaded whole
    result = read_file(path)
    assert result.format == "scryfall" and result.rejected is None
    assert len(result.rulings) == 67                                # SOURCES.md
    last = [r["comment"] for r in rulings if "'" in r["comment"]][-1]
    k = last.rindex("'")
    assert [t for t in texts(result) if "\ufffd" in t] == [last[:k] + "\ufffd" + last[k + 1:]]
    assert result.rulings[0].warnings == (f"{path}: byte {at} is not UTF-8 (replaced by U+FFFD)",)


def test_gatherer_page_keeps_its_card_name_and_rulings(shared, tmp_path):
    source = shared / AETHERSTORM
    path = tmp_path / "aetherstorm.html"
    at = with_bad_byte(source, path, b"\xff", after=b"Rulings")
    result = read_file(path)
    assert [(r.card, r.text) for r in result.rulings] == [(r.card, r.text) for r in read_file(source).rulings]
    assert {r.card for r in result.rulings} == {"Æther Storm"}      # was "Ã†ther Storm": the page read as cp1252
    assert result.rulings[0].warnings == (f"{path}: byte {at} is not UTF-8 (replaced by U+FFFD)",)


def test_jsonl_export_with_a_bad_byte_is_read_not_rejected(real_index, tmp_path, runner):
    exported = runner.invoke(cli, ["export", "--set", "KLD", "--index", str(real_index)])
    raw = exported.stdout_bytes
    at = raw.index(b"'")
    path = tmp_path / "kld.jsonl"
    path.write_bytes(raw[:at] + b"\x92" + raw[at + 1:])
    before = sum(len(json.loads(line)["variants"]) for line in raw.splitlines()[1:])
    result = read_file(path)
    assert result.rejected is None and len(result.rulings) == before > 800
    assert result.rulings[0].warnings == (f"{path}: byte {at} is not UTF-8 (replaced by U+FFFD)",)


def test_legacy_cp1252_and_garbage_keep_their_old_outcomes(shared, tmp_path):
    # a ruling page written by an old Windows tool: every non-ASCII byte is cp1252, none is UTF-8
    page = (shared / SEED).read_text("utf-8").replace("•", "-").replace("'", "\u2019")
    page = page.replace("- 20", "\u2022 20")                        # cp1252 has the bullet (0x95)
    path = tmp_path / "legacy.txt"
    path.write_bytes(page.encode("cp1252"))
    result = read_file(path)
    assert len(result.rulings) == 17 and all(not r.warnings for r in result.rulings)
    assert any("’" in t for t in texts(result))
    # bytes that are no text in any encoding: rejected, as before
    garbage = tmp_path / "garbage.txt"
    garbage.write_bytes(b"Rulings\n\n\xe2\x80 \x81\x8d\x8f\x90\x9d \xc3\x28\n")
    assert read_file(garbage).rejected == "not UTF-8, UTF-16 or cp1252 text"


@pytest.mark.parametrize("raw,choice", [
    pytest.param("• 2024-06-07 it’s".encode(), "utf-8", id="utf-8"),
    pytest.param("• 2024-06-07 it".encode() + b"\x92s", "utf-8-replaced", id="one-stray-byte-beside-utf-8"),
    pytest.param("\u2022 it’s Dandân".encode("cp1252"), "cp1252", id="cp1252"),
    pytest.param(b"plain ascii " * 20 + b"\x81", "utf-8-replaced", id="ascii-with-a-byte-cp1252-lacks"),
    pytest.param(b"\x81\x8d\x8f\x90", None, id="no-text"),
    pytest.param("\ufeffRulings".encode("utf-16"), "utf-16", id="utf-16"),
])
def test_choice(raw, choice):
    assert encoding.scan_bytes(raw).choice() == choice


def test_scan_file_matches_scan_bytes_across_chunk_boundaries(tmp_path):
    raw = ("Æther’s • " * 200_000).encode()           # 3.2 MB, characters cut at 1 MiB chunk borders
    raw = raw[:1_500_000] + b"\x92" + raw[1_500_000:]
    path = tmp_path / "big.txt"
    path.write_bytes(raw)
    assert encoding.scan_file(path) == encoding.scan_bytes(raw)
    assert encoding.scan_file(path).offsets == (1_500_000,)
    with encoding.open_utf8(path) as stream:
        assert stream.read() == raw.decode("utf-8", "replace").encode()
