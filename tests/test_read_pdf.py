"""PDF reader on the four Chinese release notes (SOURCES.md section 6).

Per-file counts: every ``• `` ruling paragraph; the ``•`` options of modal
spells inside card text (5, 7, 23 and 33 lines) are not rulings.
"""

from __future__ import annotations

import re

import pytest

from rulings.ingest.errors import ReadError
from rulings.ingest.read import read_file
from rulings.ingest.readers import pdf

NOTES = "realdata/zh-cn-release-notes-athenacykes/release_notes"
PER_FILE = {"one": (310, "2023-01-20"), "mkm": (541, "2024-01-25"),
            "otj": (883, "2024-03-07"), "mh3": (1112, "2024-05-15")}


@pytest.fixture(scope="module")
def results(shared):
    return {code: read_file(shared / NOTES / f"faq_{code}.pdf") for code in PER_FILE}


@pytest.mark.parametrize("code", sorted(PER_FILE))
def test_per_file_counts(results, code):
    count, date = PER_FILE[code]
    result = results[code]
    assert result.format == "pdf" and len(result.rulings) == count
    assert {r.set_code for r in result.rulings} == {code.upper()} and {r.date for r in result.rulings} == {date}


def test_total(results):
    assert sum(len(r.rulings) for r in results.values()) == 2_846


def test_wrapped_ruling_is_one_unbroken_sentence(results):
    start = "如果有多个替代性效应或防止性效应试图更改将对某个生物"
    (ruling,) = [r for r in results["one"].rulings if r.text.startswith(start)]
    assert ruling.text == ("如果有多个替代性效应或防止性效应试图更改将对某个生物造成的伤害数量，"
                           "则由该生物的操控者来决定这些效应的生效顺序。")
    assert ruling.card == "非瑞克西亚雪恨兽"
    # no space ever sits between two Chinese characters
    assert not any(re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", r.text)
                   for result in results.values() for r in result.rulings)


def test_modal_options_are_not_rulings(results):
    grist = [r for r in results["one"].rulings if r.card == "戮日者格莉莎"]
    assert [r.text[:12] for r in grist] == ["对于第三个模式而言，你是"]


def test_latin_words_keep_their_space():
    assert pdf.join_lines(["请至 Magic.Wizards.com/Rules", "查询", "of the", "rules"]) == \
        "请至 Magic.Wizards.com/Rules查询of the rules"


def test_truncated_pdf_is_rejected(shared, tmp_path):
    raw = (shared / NOTES / "faq_one.pdf").read_bytes()
    cut = tmp_path / "faq_one.pdf"
    cut.write_bytes(raw[: len(raw) // 3])
    with pytest.raises(ReadError):
        list(pdf.read(cut))
    result = read_file(cut)
    assert result.format == "pdf" and result.rejected and result.rulings == []


def test_card_block_text_goes_with_its_rulings(results):
    """A card block's lines after its name, but for the mana cost, joined as a paragraph's wrapped lines
    are, are the card's text (Ruling.card_text)."""
    lullaby = [r for r in results["otj"].rulings if r.card == "艾纶缇的摇篮曲"]
    assert lullaby and {r.card_text for r in lullaby} == {"法术消灭目标已横置的生物。你获得 2 点生命。"}
    block = ["Lightning Bolt", "{R}", "Instant", "Lightning Bolt deals 3 damage", "to any target."]
    assert pdf.block_card_text(block) == "Instant Lightning Bolt deals 3 damage to any target."
    assert pdf.block_card_text(["no card here"]) is None
