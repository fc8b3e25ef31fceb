"""docx reader on the 37 Chinese release notes (SOURCES.md section 6).

Per-file counts were read by this reader and checked by eye on a sample of each
file: star paragraphs (＊ or *), Word-numbered paragraphs and ``FAQ Point``
paragraphs, with card P/T lines (``*/4``) and ``FAQ Card`` text left out. AKH holds
whole card blocks in single Word paragraphs separated by soft breaks; each of its
starred lines is a ruling (319, where counting Word paragraphs gives 98).
"""

from __future__ import annotations

import docx as python_docx
import pytest

from ingest.errors import ReadError
from ingest.read import read_file
from ingest.readers import docx

NOTES = "realdata/zh-cn-release-notes-athenacykes/release_notes"
PER_FILE = {
    "2xm": 547, "a25": 294, "aer": 296, "akh": 319, "bbd": 160, "bfz": 243, "c15": 157, "c16": 184,
    "c17": 252, "c18": 277, "cmr": 675, "cn2": 193, "dom": 344, "dtk": 259, "eld": 489, "emn": 344,
    "frf": 216, "grn": 349, "hou": 286, "iko": 425, "ima": 294, "kld": 352, "m19": 302, "m20": 426,
    "m21": 513, "mh1": 430, "mm2": 312, "mm3": 315, "ogw": 203, "ori": 312, "rix": 231, "rna": 337,
    "soi": 331, "thb": 443, "war": 513, "xln": 338, "znr": 452,
}


@pytest.fixture(scope="module")
def results(shared):
    return {code: read_file(shared / NOTES / f"faq_{code}.docx") for code in PER_FILE}


@pytest.mark.parametrize("code,count", sorted(PER_FILE.items()))
def test_per_file_counts(results, code, count):
    result = results[code]
    assert result.format == "docx" and len(result.rulings) == count
    assert {r.set_code for r in result.rulings} == {code.upper()}
    assert all(r.date and r.publisher == "wotc" for r in result.rulings)


def test_total(results):
    total = sum(len(r.rulings) for r in results.values())
    assert total == sum(PER_FILE.values()) == 12_413
    # Counting Word paragraphs (AKH as 98 paragraphs) gives the 11,900..12,300 of SOURCES.md.
    assert 11_900 <= total - (319 - 98) <= 12_300


def test_ruling_has_chinese_card_name_set_and_date(results):
    rulings = results["aer"].rulings
    (ruling,) = [r for r in rulings if r.text.startswith("如果在载具进行攻击或阻挡的过程中，翔空改装不再结附")]
    assert ruling.card == "翔空改装" and ruling.set_code == "AER" and ruling.date == "2016-10-26"
    assert ruling.lang == "zh-Hans" and ruling.declared_lang == "zh-Hans"
    assert not ruling.text.startswith("＊")


def test_numbered_and_faq_card_blocks(results):
    grn = results["grn"].rulings
    (ruling,) = [r for r in grn if r.text.startswith("如果你同时选择两个模式，且粉碎禁品")]
    assert ruling.card == "粉碎禁品" and ruling.date == "2018-08-08"
    iko = [r for r in results["iko"].rulings if r.text.startswith("合变属于替代性费用")]
    assert len(iko) == 1 and iko[0].card is None          # a general note, before the card section


def test_power_toughness_star_is_not_a_ruling(results):
    assert not any(r.text.startswith("/") or r.text in ("*/4", "/4") for r in results["m19"].rulings)


def test_akh_soft_break_rulings_are_split(results):
    rulings = [r for r in results["akh"].rulings if r.card == "惩戒天使"]
    assert any(r.text == "如果惩戒天使在其触发式异能结算前离开战场，则目标永久物不会被放逐。" for r in rulings)
    assert all("\n" not in r.text and "-----" not in r.text for r in results["akh"].rulings)


def test_english_notes_declare_english(results):
    c18 = results["c18"].rulings
    assert {r.declared_lang for r in c18} == {"en"} and {r.lang for r in c18} == {"en"}
    assert results["c18"].rulings[0].date == "2018-06-14"


def test_zip_of_something_else_is_rejected(tmp_path):
    import zipfile
    fake = tmp_path / "faq_xyz.docx"
    with zipfile.ZipFile(fake, "w") as archive:
        archive.writestr("notes.txt", "not a Word document")
    with pytest.raises(ReadError, match="not a Word document"):
        list(docx.read(fake))
    result = read_file(fake)
    assert result.format == "docx" and "not a Word document" in result.rejected


def test_built_document_with_all_three_markers(tmp_path):
    document = python_docx.Document()
    document.add_paragraph("此文件最近更新日期：2016年10月26日")
    document.add_paragraph("单卡解惑")
    document.add_paragraph("翔空改装")
    document.add_paragraph("{四}{白}")
    document.add_paragraph("＊第一条。")
    document.add_paragraph("*第二条。")
    document.add_paragraph("第三条。", style="List Bullet")
    document.add_paragraph("*/4")
    path = tmp_path / "faq_aer.docx"
    document.save(path)
    rulings = list(docx.read(path))
    assert [r.text for r in rulings] == ["第一条。", "第二条。", "第三条。"]
    assert {r.card for r in rulings} == {"翔空改装"} and {r.date for r in rulings} == {"2016-10-26"}
