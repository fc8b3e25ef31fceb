"""The rulings analyzer: symbols, P/T modifiers, rule numbers, folding, stemming, card keys."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from whoosh.formats import Positions

from rulings.ingest.tag import vocabulary
from rulings.search.analysis import (
    TOKEN_PATTERN,
    TermPositions,
    canonical_symbol,
    card_key,
    fold,
    name_analyzer,
    rulings_analyzer,
    stem,
    term_positions,
    terms,
    unstemmed_words,
)


def tokens(text, mode="index"):
    return [t.text for t in rulings_analyzer()(text, mode=mode)]


@pytest.mark.parametrize("symbol,token", [
    ("{T}", "{t}"), ("{t}", "{t}"), ("{Q}", "{q}"), ("{E}", "{e}"), ("{X}", "x"),
    ("{W/P}", "{w/p}"), ("{P/W}", "{w/p}"), ("{WP}", "{w/p}"), ("{2/W}", "{2/w}"), ("{W/2}", "{2/w}"),
    ("{G/U/P}", "{g/u/p}"), ("{U/G/P}", "{g/u/p}"), ("{P/U/G}", "{g/u/p}"), ("{W/U}", "{w/u}"),
    ("{U/W}", "{w/u}"), ("{10}", "{10}"),
])
def test_symbols_are_single_canonical_tokens(symbol, token):
    assert canonical_symbol(symbol) == token
    assert tokens(f"Pay {symbol} now") == ["pay", token, "now"]


def test_pt_modifiers_numbers_and_one_letter_words():
    assert tokens("gets +1/+1 and -1/-1, +X/+0 or \u22122/\u22122; a 2/2 I") == \
        ["get", "+1/+1", "and", "-1/-1", "+x/+0", "or", "-2/-2", "a", "2/2", "i"]
    assert tokens("See rule 702.19b, not 702.1. It's 3rd.") == \
        ["see", "rule", "702.19b", "not", "702.1", "it's", "3rd"]


def test_no_stop_words_and_apostrophes_folded():
    assert tokens("The creature can’t be blocked. It can't. Urza's Tower") == \
        ["the", "creatur", "can't", "be", "block", "it", "can't", "urza", "tower"]


def test_folding_keeps_offsets_of_the_original():
    text = "Æther Vial and Dandân and Lim-Dûl"
    found = [(t.text, text[t.startchar:t.endchar]) for t in rulings_analyzer()(text, chars=True)]
    assert found == [("aether", "Æther"), ("vial", "Vial"), ("and", "and"), ("dandan", "Dandân"),
                     ("and", "and"), ("limdul", "Lim-Dûl"), ("lim", "Lim"), ("dul", "Dûl")]
    assert tokens("Lim-Dûl", mode="query") == ["lim", "dul"]


@pytest.mark.parametrize("text,folded", [("Æther", "aether"), ("AEther", "aether"), ("Dandân", "dandan"),
                                         ("can’t", "can't"), ("Jötun", "jotun"), ("ＡＢＣ", "abc")])
def test_fold(text, folded):
    assert fold(text) == folded


@pytest.mark.parametrize("forms", [
    ("sacrifice", "sacrifices", "sacrificed", "sacrificing"),
    ("activate", "activates", "activated", "activating"),
    ("experience", "experienced", "experiences"),
    ("add", "adds", "added", "adding"),
    ("scry", "scrys", "scried", "scrying"),
    ("block", "blocks", "blocked", "blocking"),
    ("choose", "chooses", "choosing"),
    ("creature", "creatures", "creature's"),
    # irregular forms (search/analysis.py _IRREGULAR): "damage dealt" finds "deals damage"
    ("deal", "deals", "dealt", "dealing"),
    ("choose", "chose", "chosen"),
    ("pay", "paid", "pays"),
    ("draw", "drew", "drawn", "draws"),
    ("leave", "leaves", "left", "leaving"),
    ("foretell", "foretold", "foretells"),
    ("wolf", "wolves"), ("thief", "thieves"), ("elf", "elves"),
])
def test_stem_conflates_inflected_forms(forms):
    assert len({stem(form) for form in forms}) == 1, {form: stem(form) for form in forms}


def test_stem_keeps_apart_different_words():
    assert stem("on") != stem("only")
    assert stem("experience") != stem("experiment")
    assert stem("can't") != stem("can")
    assert stem("dice") != stem("die") and stem("crew") != stem("crow") and stem("won't") != stem("win")


def test_a_word_longer_than_any_english_word_is_its_own_term():
    """A run of letters past LONGEST_STEMMED (a pasted blob) is not stemmed, in texts and queries alike:
    Snowball's time grows with the square of the length (50,000 letters took 9 s to search)."""
    blob = "sacrificed" * 7
    assert stem(blob) == blob and stem("sacrificed" * 6 + "ing") != "sacrificed" * 6 + "ing"      # 63 letters
    assert [term for term, *_ in terms(f"sacrificed {blob}")] == ["sacrif", blob]      # a query's terms
    assert list(term_positions(f"sacrificed {blob}")) == ["sacrif", blob]                # the index's


def test_mechanic_verb_forms_share_a_stem():
    """Every keyword action's printed forms from ingest/data/mechanics.json (evolve, evolves, evolved, ...)."""
    checked = 0
    for mechanic in vocabulary():
        words = [f for f in mechanic.forms if re.fullmatch(r"[a-z]+", f)]
        base = mechanic.id
        family = [w for w in words if w == base or w in (base + "s", base + "d", base + "ed", base + "ing",
                                                          base[:-1] + "ing", base[:-1] + "ed", base + "es")]
        if len(family) > 1:
            checked += 1
            assert len({stem(w) for w in family}) == 1, {w: stem(w) for w in family}
    assert checked >= 2


def test_real_rulings_inflections_stem_together(shared):
    """Every -s/-ed/-ing family of words in the MTGJSON v3 ruling texts stems to one stem."""
    words = set()
    for path in sorted((shared / "realdata" / "mtgjson3-sets").glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        for card in data.get("cards", []):
            for ruling in card.get("rulings") or []:
                words.update(w.lower() for w in re.findall(r"[A-Za-z]+", ruling["text"]))
    families = defaultdict(set)
    for word in words:
        stems_of = {word}
        if word.endswith("e") and len(word) > 3:
            stems_of |= {word + "s", word + "d", word[:-1] + "ing"}
        else:
            stems_of |= {word + "s", word + "ed", word + "ing"}
        family = {w for w in stems_of if w in words}
        if len(family) > 1 and len(word) > 3:
            families[word] = family
    split = {base: fam for base, fam in families.items() if len({stem(w) for w in fam}) > 1}
    assert len(families) == 459
    # Left apart on purpose: different words that only look like inflections; "foretolds" is the card As
    # Foretold in the plural ("multiple As Foretolds"), while "foretold" is foretell's past tense.
    assert set(split) == {"them", "cares", "http", "foretold"}, \
        {b: {w: stem(w) for w in f} for b, f in split.items()}


def test_card_key():
    assert card_key("Fire // Ice") == card_key("fire/ice") == card_key("Fire / Ice") == "fireice"
    assert card_key("Æther Vial") == card_key("aether vial") == card_key("AETHER VIAL")
    assert card_key("Lim-Dûl's Vault") == "limdulsvault"
    assert card_key(" // ") == ""


def test_name_analyzer_does_not_stem():
    assert [t.text for t in name_analyzer()("Sacrificed Creatures")] == ["sacrificed", "creatures"]
    assert [t[0] for t in terms("Sacrificed", stemming=False)] == ["sacrificed"]


def _real_ruling_texts(shared) -> list[str]:
    """Every ruling text of the MTGJSON v3 sets (realdata/mtgjson3-sets)."""
    texts = []
    for path in sorted((shared / "realdata" / "mtgjson3-sets").glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        texts += [r["text"] for card in data.get("cards", []) for r in card.get("rulings") or []]
    return texts


# Floors of the tests below on each corpus of ruling_texts: the small one (every clone, in seconds) and the
# real one (../shared, in CI; the original figures).
FLOORS = {"small": {"texts": 75, "flagged": 900, "changed": 70, "words": 550},
          "real": {"texts": 10_094, "flagged": 50_000, "changed": 9_000, "words": 5_000}}


@pytest.fixture(scope="module", params=["small", "real"])
def ruling_texts(request) -> tuple[str, list[str]]:
    """(name, ruling texts): the made-up rulings of tests/engine_indexes.py and the bundled corpus's texts
    (``small``), then every ruling text of the MTGJSON v3 sets (``real``, SOURCES.md section 5)."""
    if request.param == "real":
        return "real", _real_ruling_texts(request.getfixturevalue("shared"))
    from engine_indexes import RULINGS

    from rulings.search import index
    seeded = [e["text"] for e in index.all_entries(request.getfixturevalue("seed_index"))]
    return "small", [ruling[0] for ruling in RULINGS] + seeded


def test_term_positions_gather_what_terms_yields(ruling_texts):
    """term_positions() (the index's cached per-token path) gives terms()' terms and positions on ruling texts."""
    name, texts = ruling_texts
    assert len(texts) >= FLOORS[name]["texts"]
    for text in texts:
        for stemming in (True, False):
            gathered = defaultdict(list)
            for term, _, _, pos in terms(text, stemming=stemming, joined=True):
                gathered[term].append(pos)
            assert term_positions(text, stemming) == gathered


def test_term_positions_format_writes_whooshs_postings(ruling_texts):
    """TermPositions.word_values() gives Whoosh Positions.word_values() for the rulings and name analyzers."""
    for text in ruling_texts[1]:
        for analyzer in (rulings_analyzer(), name_analyzer()):
            ours = list(TermPositions().word_values(text, analyzer, mode="index"))
            whooshs = list(Positions().word_values(text, analyzer, mode="index"))
            assert ours == whooshs
    # a query-time call takes Whoosh's path (no joined form of hyphenated words)
    assert [w for w, *_ in TermPositions().word_values("Lim-Dûl", rulings_analyzer(), mode="query")] == ["lim", "dul"]


def test_unstemmed_words_are_the_unstemmed_letter_terms(ruling_texts):
    """unstemmed_words() (cached per written token) gives the words terms(stemming=False) would on ruling texts."""
    for text in ruling_texts[1]:
        expected = {t for t, *_ in terms(text, stemming=False, joined=False) if t[:1].isalpha() and " " not in t}
        assert unstemmed_words(text) == expected
    assert unstemmed_words("Lim-Dûl's Vault: {T}, pay 2 life. +1/+1") == {"lim", "dul's", "vault", "pay", "life"}


def test_card_key_cache_matches_uncached(shared):
    """card_key() (cached per name) gives the uncached function's key for every real card name."""
    names = set()
    for path in sorted((shared / "realdata" / "mtgjson3-sets").glob("*.json")):
        names.update(card["name"] for card in json.loads(path.read_text("utf-8")).get("cards", []))
    assert len(names) > 1000
    for name in names:
        assert card_key(name) == card_key.__wrapped__(name)


def test_flagged_terms_flag_what_terms_gives(ruling_texts):
    """flagged_terms() (words whose first letter starts no query word are not stemmed) gives the tokens
    and matches of terms() on every ruling text, with query words from the text itself and others."""
    from rulings.search.analysis import flagged_terms
    name, texts = ruling_texts
    matched = 0
    for n, text in enumerate(texts):
        own = [term for term, *_ in terms(text)]
        extra = ["zzz", "fli", "{t}", "+1/+1", "dul", "limdul"]
        words = frozenset(own[n % len(own)::7] + extra) if own else frozenset()
        for stemming in (True, False):
            ours = list(flagged_terms(text, words, stemming))
            expected = [(start, end, term in words) for term, start, end, _ in terms(text, stemming)]
            assert [(start, end, hit) for _, start, end, hit in ours] == expected
            assert all(term in words for term, _, _, hit in ours if hit)
            matched += sum(hit for *_, hit in ours)
    assert matched > FLOORS[name]["flagged"]


def test_match_spans_mark_texts_as_every_token_does(ruling_texts):
    """match_spans() (matched tokens only, BETWEEN for the others) marks every ruling text as the
    spans of all its tokens do (search/query.py marked())."""
    from rulings.search.analysis import match_spans
    from rulings.search.query import marked
    name, texts = ruling_texts
    changed = 0
    for n, text in enumerate(texts):
        own = [term for term, *_ in terms(text)]
        words = frozenset(own[n % len(own)::5] + ["zzz", "{t}", "+1/+1", "limdul", "dul"]) if own else frozenset()
        every = [(start, end, term in words) for term, start, end, _ in terms(text)]
        assert marked(text, match_spans(text, words)) == marked(text, every)
        changed += marked(text, every) != ""
    assert changed > FLOORS[name]["changed"]


def _every_token_spans(text, words):
    from rulings.search.analysis import _every_match_span
    return _every_match_span(text, words, True, 0, len(text), [], False)[0]


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet="aAbBcxX{}-'/+.*0123 \t\n\x1c()", max_size=60), data=st.data())
def test_match_spans_of_the_pieces_that_may_hold_a_word_equal_every_token_s(text, data):
    """match_spans() tokenizes only the whitespace-separated pieces of an ASCII text that may start a
    query word: the same spans (and BETWEEN marks) as reading every token, on texts of braces, hyphens,
    apostrophes, slashes, P/T signs, digits and odd whitespace."""
    from rulings.search.analysis import match_spans
    own = [term for term, *_ in terms(text)]
    words = frozenset(data.draw(st.lists(st.sampled_from(own + ["x", "a", "b", "ab", "{x}", "1"]), max_size=4)))
    assert match_spans(text, words) == _every_token_spans(text, words)


def test_match_spans_of_ruling_texts_equal_every_token_s(ruling_texts):
    from rulings.search.analysis import match_spans
    checked = 0
    for n, text in enumerate(ruling_texts[1]):
        own = [term for term, *_ in terms(text)]
        for words in (frozenset(own[n % max(1, len(own))::5]), frozenset({"x", "dul", "limdul", "t", "+1/+1"})):
            assert match_spans(text, words) == _every_token_spans(text, words)
            checked += 1
    assert checked == 2 * len(ruling_texts[1])


@settings(max_examples=2000, deadline=None)
@given(word=st.from_regex(r"[A-Za-zÀ-ÿœæ][A-Za-zÀ-ÿœæ']{0,10}", fullmatch=True))
def test_a_word_ruled_out_by_its_first_letters_never_stems_to_the_word(word):
    """_cannot_be() never rules out a word for one of its own terms (random words, accents, apostrophes)."""
    from rulings.search.analysis import _cannot_be, _prefixes
    for match in TOKEN_PATTERN.finditer(word):
        if match.lastgroup == "word":
            for stemming in (True, False):
                for term, *_ in terms(match.group(), stemming):
                    assert not _cannot_be(match.group(), _prefixes(frozenset({term}))), (match.group(), term)


def test_no_ruling_word_is_ruled_out_for_its_own_stem(ruling_texts):
    from rulings.search.analysis import _cannot_be, _prefixes
    name, texts = ruling_texts
    seen = set()
    for text in texts:
        for match in TOKEN_PATTERN.finditer(text):
            token = match.group()
            if match.lastgroup == "word" and token not in seen:
                seen.add(token)
                for term, *_ in terms(token):
                    assert not _cannot_be(token, _prefixes(frozenset({term}))), (token, term)
    assert len(seen) > FLOORS[name]["words"]
    assert _cannot_be("dying", _prefixes(frozenset({"dice"}))) is False      # dying -> die, so "di" -> "dy" too
    assert _cannot_be("flying", _prefixes(frozenset({"fire"}))) is True
