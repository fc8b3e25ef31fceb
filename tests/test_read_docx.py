"""docx reader on the 37 Chinese release notes (SOURCES.md section 6).

Per-file counts were read by this reader and checked by eye on a sample of each
file: star paragraphs (＊ or *), Word-numbered paragraphs and ``FAQ Point``
paragraphs, with card P/T lines (``*/4``) and ``FAQ Card`` text left out. A ruling
is a Word paragraph (PRODUCT.md): AKH holds whole card blocks in single Word
paragraphs separated by soft breaks (card text, then ``* ruling`` lines); such a
paragraph gives its card text as the block header and one ruling from its first
starred line on (209 rulings holding its 319 starred lines; 69 of them hold more
than one). A paragraph holding two rulings joined by a star after a sentence end
is one ruling too (DOM, DTK, KLD, ORI: 7 such paragraphs).

Not counted although starred: double-faced cards' colour indicators ``*蓝*`` (SOI 21,
ORI 6, EMN 1) and the heading ``***中文版勘误***`` (OGW 1).
"""

from __future__ import annotations

import docx as python_docx
import pytest

from rulings.ingest.errors import ReadError
from rulings.ingest.read import read_file
from rulings.ingest.readers import docx

NOTES = "realdata/zh-cn-release-notes-athenacykes/release_notes"
PER_FILE = {
    "2xm": 547, "a25": 294, "aer": 296, "akh": 209, "bbd": 160, "bfz": 243, "c15": 157, "c16": 184,
    "c17": 252, "c18": 277, "cmr": 675, "cn2": 193, "dom": 344, "dtk": 259, "eld": 489, "emn": 343,
    "frf": 216, "grn": 349, "hou": 286, "iko": 425, "ima": 294, "kld": 352, "m19": 302, "m20": 426,
    "m21": 513, "mh1": 430, "mm2": 312, "mm3": 315, "ogw": 202, "ori": 306, "rix": 231, "rna": 337,
    "soi": 310, "thb": 443, "war": 513, "xln": 338, "znr": 452,
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
    assert total == sum(PER_FILE.values()) == 12_274          # issue 3: between 11,900 and 12,300


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


def test_akh_soft_break_paragraph_is_one_ruling_of_its_card(results):
    """A Word paragraph holding card text and starred lines: the card text names the card, and the
    starred lines form one ruling with every line kept; the next paragraphs keep the card."""
    akh = results["akh"].rulings
    (ruling,) = [r for r in akh if r.card == "杰鲁的决心"]
    assert ruling.text == ("如果重置进行攻击的生物，并不会把它移出战斗。\n\n"
                           "* 杰鲁的决心可以指定未横置的生物为目标。其防止性效应仍会生效。")
    starred = sum(1 + sum(line.startswith(("*", "＊")) for line in r.text.split("\n")[1:]) for r in akh)
    assert starred == 319                                   # every starred line of the file is kept
    assert sum("\n" in r.text for r in akh) == 69
    starts = ("所放逐的牌会在斥逐离开战场后", "在多人游戏中，如果斥逐的拥有者")
    assert [r.card for r in akh if r.text.startswith(starts)] \
        == ["斥逐"] * 2                                     # later paragraphs of the block keep its card
    assert all("-----" not in r.text for r in akh)


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


@pytest.mark.parametrize("code,card,count", [
    ("frf", "灵龙蛰居", 4), ("kld", "发明家博览会", 3), ("mm2", "光蛾连结点", 3), ("a25", "闹鬼沼墓", 3),
    ("bfz", "伙伴营地", 2), ("mm3", "灵魂洞窟", 2), ("ogw", "腐化会所", 1), ("ori", "浪客小径", 1),
])
def test_land_after_type_heading_gets_its_name(results, code, card, count):
    # The lands section opens with a "-----" line and a heading "地"; the name is the line before the type line.
    assert len([r for r in results[code].rulings if r.card == card]) == count


def test_no_card_name_is_a_separator_or_type_heading(results):
    names = {r.card for result in results.values() for r in result.rulings if r.card}
    assert not [n for n in names if docx._SEPARATOR.match(n) or n in ("地", "神器", "传奇地")]


def test_star_after_sentence_end_stays_in_its_paragraph(results):
    """A Word paragraph is one ruling even when a second star follows a sentence end in it."""
    dom = [r.text for r in results["dom"].rulings if r.card == "摘离"]
    assert ("结附于所放逐生物上的灵气将被置入其拥有者的坟墓场。武具则会被卸装并留在战场上。所放逐生物上的任何指示物"
            "都会消失。＊当该牌移回战场之时，它会是一个全新物件，与先前所放逐的牌毫无关联。") in dom
    inline = [r for result in results.values() for r in result.rulings if "。＊" in r.text or "。* " in r.text]
    assert sorted(r.set_code for r in inline) == ["DOM", "DTK", "DTK", "DTK", "KLD", "ORI", "ORI"]


def test_colour_indicator_is_not_a_ruling(results):
    texts = {r.text for code in ("soi", "ori", "emn") for r in results[code].rulings}
    assert not texts & {"蓝*", "红*", "绿*", "白*", "黑*", "红*，*绿*"}
    # The rulings after a back face keep the card of the block (its front face, before the cost line).
    assert len([r for r in results["soi"].rulings if r.card == "变体研究员"]) == 2


def test_built_document_split_separator_and_colour_indicator(tmp_path):
    document = python_docx.Document()
    document.add_paragraph("单卡解惑")
    document.add_paragraph("-----")
    document.add_paragraph("地")
    document.add_paragraph("灵龙蛰居")
    document.add_paragraph("地")
    document.add_paragraph("{横置}：加{一}到你的法术力池中。")
    document.add_paragraph("* 第一条。＊第二条。")
    document.add_paragraph("*/*")
    document.add_paragraph("*蓝*")
    document.add_paragraph("* 生物的力量为*，且其数值为*/*。")
    path = tmp_path / "faq_frf.docx"
    document.save(path)
    rulings = list(docx.read(path))
    assert [r.text for r in rulings] == ["第一条。＊第二条。", "生物的力量为*，且其数值为*/*。"]
    assert {r.card for r in rulings} == {"灵龙蛰居"} and [r.position for r in rulings] == [0, 1]


def test_card_block_text_goes_with_its_rulings(results):
    """The lines of a card block after its name, but for the mana cost and power/toughness, are the card's
    text (Ruling.card_text): the type line and rules text, one per line; general notes have none."""
    marshal = [r for r in results["dom"].rulings if r.card == "宾纳里亚元帅"]
    assert marshal and {r.card_text for r in marshal} == {"生物～人类／骑士\n由你操控的其他生物得+1/+1。"}
    karn = next(r for r in results["dom"].rulings if r.card == "克撒传人卡恩")
    assert karn.card_text.startswith("传奇鹏洛客～卡恩\n5\n+1：展示你牌库顶的两张牌。")
    assert all(r.card_text is None for r in results["dom"].rulings if r.card is None)
    assert sum(1 for r in results["dom"].rulings if r.card_text) == sum(1 for r in results["dom"].rulings if r.card)


def test_header_card_text_of_a_block():
    assert docx.header_card_text(["-----", "罗堰妖精", "{绿}", "生物～妖精／德鲁伊", "1/1", "{横置}：加{绿}。"]) \
        == "生物～妖精／德鲁伊\n{横置}：加{绿}。"
    assert docx.header_card_text(["与罗堰妖精有关的说明"]) is None        # named by a heading: no text
