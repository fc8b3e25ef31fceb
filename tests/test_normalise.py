from hypothesis import given, strategies as st

from corpus import corpus_files
from ingest.normalise import fold, normalise
from ingest.read import read_file


def test_fold_typography():
    assert fold("You  can’t — “any number”\u00a0ＡＢ") == 'you can\'t - "any number" ab'


@given(st.text())
def test_fold_is_idempotent(text):
    once = fold(text)
    assert fold(once) == once


def test_first_letter_repair_on_seeds():
    rulings = [r for p in corpus_files() for r in read_file(p).rulings]
    kept, rejected = normalise(rulings)
    assert rejected == []
    repaired = {r.text[:5]: (r.match[:6], r.repairs) for r in kept if r.repairs}
    assert set(repaired) == {"hield", "hen y"}
    assert repaired["hield"][0] == "shield"
    assert repaired["hen y"][0] == "when y"
    damaged = next(r for r in kept if r.text.startswith("hield"))
    assert damaged.text.startswith("hield counters")          # display text kept
    assert damaged.repaired_text.startswith("Shield counters")
