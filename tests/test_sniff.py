"""One entry point: formats sniffed from content, bad files reported, dates, oracle_id names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rulings.ingest.dates import ParsedDate, parse_date, resolve_dates
from rulings.ingest.read import read_file, sniff, walk
from rulings.search import catalog

REAL = {  # path under realdata -> format sniffed from content
    "mtgjson3-sets/BBD.json": "mtgjson", "mtgjson5-TSP/TSP.json": "mtgjson",
    "mightstone-samples/mtgjson/deck.json": "mtgjson", "mightstone-samples/scryfall/ruling.json": "scryfall",
    "scryfall-aioscryfall/single-card.json": "scryfall", "gatherer-tutor/recall.html": "gatherer",
    "zh-cn-release-notes-athenacykes/release_notes/faq_aer.docx": "docx",
    "zh-cn-release-notes-athenacykes/release_notes/faq_one.pdf": "pdf",
}
SKIPPED = ["comprules-rulesraker/MagicCompRules.txt", "zh-cn-release-notes-athenacykes/plain_text/translatedterms.txt",
           "mightstone-samples/wiki/crew.xml", "scryfall-cassette-mtgjson/api.scryfall.com.yml",
           "gatherer-tutor/hillgiant.html", "mtgjson3-sets/SOI.jp.json",
           "scryfall-cassette-mtgjson/decoded_bodies/search_langany_7dec219b-96d1-4d4c-b3ac-15eda9d2ccc6.json",
           "zh-cn-release-notes-athenacykes/scripts/20240607.json"]


@pytest.mark.parametrize("path,fmt", sorted(REAL.items()))
def test_format_from_content_not_name(shared, tmp_path, path, fmt):
    source = shared / "realdata" / path
    assert sniff(source).FORMAT == fmt
    renamed = tmp_path / "renamed.dat"
    shutil.copyfile(source, renamed)
    if fmt != "docx":                       # a zip is a docx only by its parts or its name
        assert sniff(renamed).FORMAT == fmt
        assert len(read_file(renamed).rulings) == len(read_file(source).rulings)


@pytest.mark.parametrize("path", SKIPPED)
def test_files_without_rulings_are_skipped(shared, path):
    result = read_file(shared / "realdata" / path)
    assert result.skipped and not result.rejected and result.rulings == []


def test_binary_file_is_rejected(tmp_path):
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    assert "binary" in read_file(path).rejected


def test_bad_files_do_not_stop_a_folder(shared, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copyfile(shared / "realdata/gatherer-tutor/recall.html", folder / "recall.html")
    raw = (shared / "realdata/mtgjson3-sets/BBD.json").read_bytes()
    (folder / "BBD-cut.json").write_bytes(raw[:1000])
    pdf = (shared / "realdata/zh-cn-release-notes-athenacykes/release_notes/faq_one.pdf").read_bytes()
    (folder / "faq_one.pdf").write_bytes(pdf[: len(pdf) // 4])
    (folder / "blob.bin").write_bytes(bytes(range(256)) * 8)
    results = {Path(r.path).name: r for r in map(read_file, walk(folder))}
    assert len(results["recall.html"].rulings) == 2
    assert "truncated JSON" in results["BBD-cut.json"].rejected
    assert results["faq_one.pdf"].rejected and results["blob.bin"].rejected


@pytest.mark.parametrize("text,order,expected", [
    ("2016-10-26", None, ParsedDate("2016-10-26")),
    ("此文件最近更新日期：2016年10月26日", None, ParsedDate("2016-10-26")),
    ("此文件最近更新日期：2023 年 1 月 20 日", None, ParsedDate("2023-01-20")),
    ("26/10/2016", None, ParsedDate("2016-10-26")),
    ("10/26/2016", None, ParsedDate("2016-10-26")),
    ("6/1/2011", "mdy", ParsedDate("2011-06-01")),
    ("6/1/2011", "dmy", ParsedDate("2011-01-06")),
    ("6/1/2011", None, ParsedDate("2011-01-06", ambiguous=True)),
    ("26 octobre 2016", None, ParsedDate("2016-10-26")),
    ("Document last modified June 14, 2018", None, ParsedDate("2018-06-14")),
    ("26. Oktober 2016", None, ParsedDate("2016-10-26")),
    ("26 de octubre de 2016", None, ParsedDate("2016-10-26")),
    ("26 октября 2016", None, ParsedDate("2016-10-26")),
    ("2016년 10월 26일", None, ParsedDate("2016-10-26")),
    ("no date here", None, None),
    ("31/02/2016", "dmy", None),
])
def test_parse_date(text, order, expected):
    assert parse_date(text, order) == expected


def test_ambiguous_dates_take_the_order_of_the_document():
    assert resolve_dates(["6/1/2011", "25/12/2011"]) == [ParsedDate("2011-01-06"), ParsedDate("2011-12-25")]
    assert resolve_dates(["6/1/2011", "12/25/2011"]) == [ParsedDate("2011-06-01"), ParsedDate("2011-12-25")]
    assert resolve_dates(["6/1/2011", "5/2/2011"])[0].ambiguous


def test_scryfall_rulings_get_card_names_from_a_card_list(shared, tmp_path):
    bodies = shared / "realdata/scryfall-cassette-mtgjson/decoded_bodies"
    folder = tmp_path / "okaun"
    folder.mkdir()
    for name in ("rulings_94eea6e3-20bc-4dab-90ba-3113c120fb90.json",
                 "search_langany_7dec219b-96d1-4d4c-b3ac-15eda9d2ccc6.json"):
        shutil.copyfile(bodies / name, folder / name)
    index = tmp_path / "index"
    catalog.ingest(index, [folder])
    rulings = catalog.remembered_rulings(catalog.load_state(index))
    assert len(rulings) == 13 and {r.card for r in rulings} == {"Okaun, Eye of Chaos"}


def test_ingest_prints_a_table_per_format(shared, tmp_path, runner):
    from rulings.search.cli import cli
    folder = tmp_path / "few"
    folder.mkdir()
    for path in ("gatherer-tutor/recall.html", "gatherer-tutor/hillgiant.html",
                 "mightstone-samples/scryfall/ruling.json"):
        shutil.copyfile(shared / "realdata" / path, folder / Path(path).name)
    (folder / "blob.bin").write_bytes(bytes(range(256)) * 8)
    result = runner.invoke(cli, ["ingest", str(folder), "--index", str(tmp_path / "ix")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1].split() == ["format", "files", "rulings", "skipped", "rejected"]
    # files: those that yielded rulings, as in the JSON "formats"; skipped and rejected files are counted apart
    assert lines[2].split() == ["gatherer", "1", "2", "1", "0"]
    assert lines[3].split() == ["scryfall", "1", "1", "0", "0"]
    assert lines[4].split() == ["(none)", "0", "0", "0", "1"]
    assert "hillgiant.html: Gatherer card page without a rulings table" in result.output


CUT = {  # a real file of each kind -> how its truncated copy is rejected
    **{path: "truncated JSON" for path in (
        "mtgjson3-sets/BBD.json", "mtgjson3-sets/SOI.jp.json", "mtgjson5-TSP/TSP.json",
        "mightstone-samples/mtgjson/deck.json", "mightstone-samples/mtgjson/cardset.json",
        "mightstone-samples/scryfall/ruling.json", "scryfall-aioscryfall/single-card.json",
        "scryfall-cassette-mtgjson/decoded_bodies/rulings_94eea6e3-20bc-4dab-90ba-3113c120fb90.json",
        "scryfall-cassette-mtgjson/decoded_bodies/search_langany_7dec219b-96d1-4d4c-b3ac-15eda9d2ccc6.json",
        "zh-cn-release-notes-athenacykes/scripts/20240607.json")},
    "gatherer-tutor/recall.html": "HTML page cut short", "gatherer-tutor/hillgiant.html": "HTML page cut short",
    "mightstone-samples/wiki/crew.xml": "damaged or truncated XML",
    "zh-cn-release-notes-athenacykes/release_notes/faq_aer.docx": "damaged zip file",
    "zh-cn-release-notes-athenacykes/release_notes/faq_one.pdf": "damaged or truncated PDF",
}


@pytest.mark.parametrize("fraction", [0.02, 0.5, 0.97])
@pytest.mark.parametrize("path,reason", sorted(CUT.items()))
def test_truncated_file_of_each_kind_is_rejected_not_skipped(shared, tmp_path, path, reason, fraction):
    raw = (shared / "realdata" / path).read_bytes()
    cut = tmp_path / Path(path).name
    cut.write_bytes(raw[: int(len(raw) * fraction)])
    result = read_file(cut)
    assert result.skipped is None and result.rulings == []
    assert result.rejected.startswith(reason), result.rejected


def test_whole_json_and_xml_of_another_kind_are_skipped_with_their_kind(shared):
    cr = read_file(shared / "realdata/zh-cn-release-notes-athenacykes/scripts/20240607.json")
    assert cr.rejected is None and cr.skipped.startswith("JSON that is not a ruling document")
    wiki = read_file(shared / "realdata/mightstone-samples/wiki/crew.xml")
    assert wiki.rejected is None and wiki.skipped == "XML that is not a ruling document"
