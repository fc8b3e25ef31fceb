
import pytest

from rulings.corpus import corpus_files
from rulings.ingest.read import read_file


def by_name(name):
    return next(p for p in corpus_files() if p.name.startswith(name))


@pytest.mark.parametrize("prefix,count,first_date,card", [
    pytest.param("000", 17, "2024-06-07", None, id="rulings-bullets"),
    pytest.param("002", 11, "2023-02-04", None, id="rulings-bullets-two-dates"),
    pytest.param("003", 9, "2025-07-25", "巡逻和平使者", id="card-dmy"),
    pytest.param("004", 17, None, None, id="search-paragraphs"),
])
def test_seed_layouts(prefix, count, first_date, card):
    result = read_file(by_name(prefix))
    assert result.format == "text"
    assert len(result.rulings) == count
    assert result.rulings[0].date == first_date
    assert result.rulings[0].card == card
    assert [r.position for r in result.rulings] == list(range(count))


def test_seeds_hold_54_rulings():
    assert sum(len(read_file(p).rulings) for p in corpus_files()) == 54


def test_bullet_text_joined_and_dated():
    rulings = read_file(by_name("002")).rulings
    assert rulings[6].date == "2011-06-01"
    assert rulings[6].text.startswith("As you cast a spell or activate an activated ability with one or more Phyrexian")


def test_other_text_is_skipped(tmp_path):
    doc = tmp_path / "notes.txt"
    doc.write_text("Magic: The Gathering Comprehensive Rules\n\n100. General\n", encoding="utf-8")
    result = read_file(doc)
    assert result.rulings == []
    assert result.skipped == "text in none of the three ruling layouts"


def test_cp1252_and_utf16_read(tmp_path):
    text = "Rulings\n\n• 2020-01-01\n  It can’t be blocked — ever.\n"
    for encoding in ("cp1252", "utf-16"):
        doc = tmp_path / f"r-{encoding}.txt"
        doc.write_bytes(text.encode(encoding))
        rulings = read_file(doc).rulings
        assert [r.text for r in rulings] == ["It can’t be blocked — ever."]


@pytest.mark.parametrize("layout, lines, kept", [
    ("Rulings", ["• 2019-13-45", "• 0000-00-00", "• 2019-02-29"], "• 2020-02-29"),
    ("Lightning Bolt", ["31/02/2019", "45/13/2019", "00/01/2019"], "29/02/2020"),
])
def test_a_date_line_that_is_no_real_date_keeps_its_ruling_undated_with_a_warning(tmp_path, layout, lines, kept):
    """They were ingested with dates such as 2019-13-45 and 2019-02-31, no warning (a new user's finding)."""
    from rulings.ingest.dates import INVALID_DATE
    body = [layout]
    for n, line in enumerate(lines + [kept]):
        body += [line, f"Ruling number {n} about blocking."]
    path = tmp_path / "page.txt"
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    rulings = read_file(path).rulings
    assert [r.text for r in rulings] == [f"Ruling number {n} about blocking." for n in range(4)]
    assert [r.date for r in rulings] == [None, None, None, "2020-02-29"]
    assert [r.warnings for r in rulings] == [(INVALID_DATE,)] * 3 + [()]
