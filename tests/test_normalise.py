from hypothesis import given
from hypothesis import strategies as st

from rulings.corpus import corpus_files
from rulings.ingest.normalise import fold, normalise
from rulings.ingest.read import read_file


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


def test_fold_matches_the_regex_form_on_real_rulings(shared):
    """fold() (str.split whitespace, ASCII short-cut) gives the NFKC + quote table + ``\\s+`` form on every
    ruling text of the MTGJSON v3 sets (SOURCES.md: 10,094) and on Unicode spaces."""
    import json
    import re
    import unicodedata

    from rulings.ingest.normalise import _QUOTES

    def by_regex(text):
        text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
        return re.sub(r"\s+", " ", text).strip().lower()

    texts = [r["text"] for path in sorted((shared / "realdata" / "mtgjson3-sets").glob("*.json"))
             for card in json.loads(path.read_text("utf-8")).get("cards", []) for r in card.get("rulings") or []]
    assert len(texts) == 10_094
    texts.append("  Tap\u3000it,\u00a0then\u2028\x1c pay\u2009{1}.\t")
    for text in texts:
        assert fold(text) == by_regex(text)
