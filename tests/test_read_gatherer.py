"""Gatherer reader on the saved card pages (SOURCES.md section 7)."""

from __future__ import annotations

import pytest

from rulings.ingest.errors import ReadError
from rulings.ingest.read import read_file
from rulings.ingest.readers import gatherer

PER_PAGE = {  # SOURCES.md: 31 rulings across 11 pages
    "afflicteddeserter": 4, "ajanigoldmane": 2, "ancestralvision": 2, "crackleburr": 4,
    "darksteelcolossus": 1, "flamejavelin": 4, "recall": 2, "serratedarrows": 1,
    "vaultskirge": 5, "werewolfransacker": 4, "ætherstorm": 2,
}


@pytest.mark.parametrize("page,count", sorted(PER_PAGE.items()))
def test_pages_with_rulings(shared, page, count):
    result = read_file(shared / f"realdata/gatherer-tutor/{page}.html")
    assert result.format == "gatherer" and len(result.rulings) == count
    assert all(r.date and r.card and r.publisher == "wotc" for r in result.rulings)


def test_all_pages(shared):
    results = [read_file(p) for p in sorted((shared / "realdata/gatherer-tutor").glob("*.html"))]
    assert len(results) == 36
    assert sum(len(r.rulings) for r in results) == 31
    skipped = [r for r in results if r.skipped]
    assert len(skipped) == 25 and all("without a rulings table" in r.skipped for r in skipped)


def test_aether_storm_keeps_its_ae(shared):
    rulings = read_file(shared / "realdata/gatherer-tutor/ætherstorm.html").rulings
    assert {r.card for r in rulings} == {"Æther Storm"}
    assert [r.date for r in rulings] == ["2004-10-04", "2008-08-01"]  # 10/4/2004, 8/1/2008: month first


def test_double_faced_page_names_both_faces(shared):
    for page in ("afflicteddeserter", "werewolfransacker"):
        rulings = read_file(shared / f"realdata/gatherer-tutor/{page}.html").rulings
        assert {r.card for r in rulings} == {"Afflicted Deserter // Werewolf Ransacker"}
        assert {r.set_code for r in rulings} == {"DKA"}


def test_autocard_tags_become_text_with_words_apart(shared):
    texts = [r.text for r in read_file(shared / "realdata/gatherer-tutor/ancestralvision.html").rulings]
    assert "like with Fist of Suns or Mind’s Desire." in texts[0]
    assert "Replicate ability of Djinn Illuminatus or by" in texts[1]


def test_symbol_images_become_symbols(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(
        '<html><body><script>ClientIDs.x = 1;</script>'
        '<div id="a_nameRow"><div class="value">Test Card</div></div><table><tr>'
        '<td id="r_ctl00_rulingDate">6/1/2011</td>'
        '<td id="r_ctl00_rulingText">Pay<img src="/Handlers/Image.ashx?size=small&amp;name=WP&amp;type=symbol" '
        'alt="Phyrexian White" />or <img src="/Handlers/Image.ashx?name=tap&amp;type=symbol" alt="Tap" /> '
        'and <img src="x.gif" alt="Blue or Red" /><br/>then<autocard>Hill Giant</autocard>.</td>'
        '</tr></table></body></html>', "utf-8")
    (ruling,) = gatherer.read(page)
    assert ruling.text == "Pay{W/P}or {T} and {U/R} then Hill Giant."
    assert ruling.date == "2011-06-01" and ruling.card == "Test Card"


def test_half_page_is_rejected(shared, tmp_path):
    raw = (shared / "realdata/gatherer-tutor/crackleburr.html").read_bytes()
    half = tmp_path / "crackleburr.html"
    half.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ReadError, match="cut short"):
        list(gatherer.read(half))
    assert read_file(half).rejected


def test_script_style_template_and_comments_in_a_cell_give_no_text(shared, tmp_path):
    """Issue 21, item 8: the text of a <script> (or <style>, <template>, a comment) in a ruling cell
    was kept in the ruling; a browser shows none of it, so it is no ruling text."""
    source = shared / "realdata/gatherer-tutor/vaultskirge.html"
    raw = source.read_text("utf-8")
    marker = 'rulingText" style="width: 610px; padding-right: 5px;">'
    assert raw.count(marker) == 5
    hostile = raw.replace(marker, marker + "<script>document.title='pwned'; alert(1)</script>"
                          "<style>td { color: red }</style><template>hidden</template><!-- a note -->", 1)
    page = tmp_path / "vaultskirge.html"
    page.write_text(hostile, "utf-8")
    before, after = read_file(source).rulings, read_file(page).rulings
    assert [(r.date, r.card, r.text) for r in after] == [(r.date, r.card, r.text) for r in before]
    injected = ("document.title", "alert(1)", "color: red", "a note", "hidden")
    assert [r.text for r in after if any(part in r.text for part in injected)] == []
    assert len(after) == 5
