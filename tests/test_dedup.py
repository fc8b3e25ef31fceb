
from corpus import corpus_files
from ingest.pipeline import build_entries
from ingest.read import read_file


def seed_rulings():
    return [r for p in corpus_files() for r in read_file(p).rulings]


def test_seeds_form_43_entries_with_four_merges():
    entries = build_entries(seed_rulings()).entries
    assert len(entries) == 43
    merged = sorted((len(e.variants), e.text[:30]) for e in entries if len(e.variants) > 1)
    assert merged == [
        (3, "Players can respond to a spell"),
        (4, "If a permanent or player has m"),
        (4, "When you proliferate, you can "),
        (4, "You don’t have to choose every"),
    ]


def test_damaged_copy_merges_and_entry_notes_repair():
    entries = build_entries(seed_rulings()).entries
    choose = next(e for e in entries if e.text.startswith("When you proliferate, you can choose"))
    assert any(v.ruling.text.startswith("hen you proliferate") for v in choose.variants)
    assert choose.repairs == ["first letter restored: 'hen' -> 'when'"]
    assert not choose.text.startswith("hen")                   # canonical text is an intact variant


def test_tap_and_untap_paragraphs_stay_apart():
    entries = build_entries(seed_rulings()).entries
    symbols = [e for e in entries if e.text.startswith(("The tap symbol is", "The untap symbol is"))]
    assert len(symbols) == 2


def test_ids_do_not_depend_on_input_order():
    rulings = seed_rulings()
    first = sorted(e.id for e in build_entries(rulings).entries)
    again = sorted(e.id for e in build_entries(list(reversed(seed_rulings()))).entries)
    assert first == again
    assert len(set(first)) == 43
