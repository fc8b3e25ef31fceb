"""Best match (search/bestmatch.py) and the MTG term tables (search/terms.py), on real rulings."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from rulings.ingest.errors import QueryError
from rulings.search import analysis, bestmatch, index, query, terms
from rulings.search.analysis import fold


def ids(folder, text, **kwargs):
    return [hit["id"] for hit in query.search(folder, text, limit=kwargs.pop("limit", 200), **kwargs)]


def hits(folder, text, limit=200, **filters):
    return query.search(folder, text, query.Filters(**filters), limit=limit)


# ---------------------------------------------------------------- coordination and what is required


def test_a_question_finds_what_its_words_find(real_index):
    """Question words are never required: the question ranks the rulings holding its content words."""
    found = hits(real_index, "can I respond to proliferate?", limit=10)
    assert found and "proliferate" in found[0]["mechanics"]
    assert sum("proliferate" in h["mechanics"] for h in found[:5]) >= 2
    # the Chinese rulings hold both words (four entries since the restatements of "players can respond to
    # proliferate" became one, issue 22)
    assert [bool(re.search(r"回应", h["text"])) for h in found[:5]] == [True] * 4 + [False]
    english = hits(real_index, "can I respond to proliferate?", limit=10, lang="en")
    assert sum("proliferate" in h["mechanics"] for h in english[:5]) >= 2
    assert any(re.search(r"respon", h["text"], re.I) for h in english[:5])
    assert query.search(real_index, "can I respond to proliferate", every_word=True) == []


def test_the_cards_rules_text_ranks_a_query_that_describes_the_card(real_index):
    """A query naming what the card is ("the indestructible artifact land") ranks that card's ruling first
    through the card's rules text (MTGJSON), which the ruling itself does not hold; a word found only in
    a card's text makes no match and is never shown."""
    found = hits(real_index, "can I cast the indestructible artifact land", limit=10)
    assert found[0]["cards"] == ["Darksteel Citadel"]
    assert "indestructible" not in found[0]["text"].lower() + found[0]["snippet"].lower()
    assert hits(real_index, "antelope") == []           # only in type lines ("Creature — Antelope")


def test_entries_with_every_word_come_first(real_index):
    """Every entry holding all the content words ranks above every entry that lacks one of them."""
    every = set(ids(real_index, "trample damage lang:en", every_word=True, limit=100_000))
    ranked = ids(real_index, "trample damage lang:en", limit=100_000)
    assert len(every) == 23 and set(ranked[:len(every)]) == every and len(ranked) > 500
    scores = [h["score"] for h in hits(real_index, "trample damage", limit=100_000)]
    assert scores == sorted(scores, reverse=True)


def test_more_words_rank_above_fewer(real_index):
    """Among partial matches, entries holding two of three words rank, as a rule, above those holding one."""
    words = ["sacrifice", "token", "flying"]
    holding = {w: set(ids(real_index, f"{w} lang:en", every_word=True, limit=100_000)) for w in words}
    ranked = ids(real_index, " ".join(words) + " lang:en", limit=100_000)
    count = {i: sum(i in holding[w] for w in words) for i in ranked}
    two = [r for r, i in enumerate(ranked) if count[i] == 2]
    one = [r for r, i in enumerate(ranked) if count[i] == 1]
    assert two and one and sorted(two)[len(two) // 2] < sorted(one)[len(one) // 2]
    assert min(one) > min(two)


def test_plus_word_minus_word_and_phrase_keep_their_meaning(real_index):
    required = hits(real_index, "+trample deathtouch", limit=100_000)
    assert required and all("trampl" in (h["text"] + " ".join(v["text"] for v in h["variants"])).lower()
                            or "trample" in h["mechanics"] for h in required)
    excluded = hits(real_index, "deathtouch -trample", limit=100_000)
    assert excluded and not any("trample" in h["text"].lower() for h in excluded)
    assert ids(real_index, "deathtouch -trample", limit=100_000) == ids(real_index, "deathtouch NOT trample",
                                                                         limit=100_000)
    phrase = hits(real_index, '"first strike" damage', limit=100_000)
    assert phrase and all("first strike" in (h["text"] + " ".join(v["text"] for v in h["variants"])).lower()
                          or "first-strike" in h["mechanics"] for h in phrase)
    anded = set(ids(real_index, "trample AND deathtouch", limit=100_000))
    assert anded == set(ids(real_index, "trample deathtouch", every_word=True, limit=100_000))


def test_a_required_word_selects_and_the_other_words_rank(real_index):
    """``+deathtouch trample``: every entry holding deathtouch is a match, whether or not it holds
    trample, and those holding trample come first. Only the + word is required."""
    selected = set(ids(real_index, "deathtouch", every_word=True, limit=100_000))
    ranked = ids(real_index, "+deathtouch trample", limit=100_000)
    assert len(selected) > 40 and set(ranked) == selected
    both = set(ids(real_index, "deathtouch trample", every_word=True, limit=100_000))
    assert both and set(ranked[:len(both)]) == both
    phrase = ids(real_index, '"first strike" trample', limit=100_000)
    assert set(phrase) == set(ids(real_index, '"first strike"', limit=100_000))


def test_a_query_of_required_words_reads_them_as_words(real_index):
    """``+flying`` is the word flying required, never a word "+flying": it finds the same entries as
    flying, the Chinese rulings tagged flying among them; ``+a +b`` is ``a AND b``."""
    alone = set(ids(real_index, "+flying", limit=100_000))
    assert alone == set(ids(real_index, "flying", every_word=True, limit=100_000))
    assert any(h["lang"].startswith("zh") for h in hits(real_index, "+flying", limit=100_000))
    both = set(ids(real_index, "+deathtouch +trample", limit=100_000))
    assert both == set(ids(real_index, "deathtouch AND trample", limit=100_000))
    assert both == set(ids(real_index, "trample deathtouch", every_word=True, limit=100_000))


def test_filters_select_and_never_reorder(real_index):
    plain = [h for h in hits(real_index, "respond proliferate", limit=100_000) if h["lang"] == "en"]
    filtered = hits(real_index, "respond proliferate lang:en", limit=100_000)
    assert [h["id"] for h in filtered] == [h["id"] for h in plain]


def test_symbols_and_pt_stay_precise(real_index):
    """A P/T modifier or a symbol typed is required: +1/+1 never brings -1/-1 rulings."""
    found = hits(real_index, "+1/+1 counter dies", limit=100_000)
    assert found and all("+1/+1" in h["text"] or any("+1/+1" in v["text"] for v in h["variants"])
                         for h in found if h["lang"] == "en")


# ---------------------------------------------------------------- mechanics, syntax, languages


def test_a_mechanic_word_ranks_its_rulings_above_card_names(real_index):
    """``crew`` ranked the card Rowdy Crew's rulings above the crew mechanic's."""
    top = hits(real_index, "crew", limit=5)
    assert all("crew" in h["mechanics"] for h in top)


def test_prefix_and_fuzzy_words(real_index):
    assert hits(real_index, "prolif*", limit=5)[0]["mechanics"] == ["proliferate"] or \
        "proliferate" in hits(real_index, "prolif*", limit=5)[0]["mechanics"]
    assert "proliferate" in hits(real_index, "prolifirate~", limit=5)[0]["mechanics"]


@pytest.mark.parametrize("text, message", [("flying^5", "boosts"), ("text:flying", "no field 'text'"),
                                           ("fly*ing", "wildcard"), ("-+flying", "one sign"),
                                           ("deathtouch +-trample", "one sign"), ("--flying", "one sign")])
def test_unsupported_syntax_is_one_line(real_index, text, message):
    with pytest.raises(QueryError, match=message):
        query.search(real_index, text)


def test_one_sign_before_a_pt_modifier_is_still_the_modifier(real_index):
    """Two signs before a word are refused (``-+flying`` once found flying), but a P/T modifier's own signs
    are its text: ``+1/+1`` and ``-X/-X`` still find their rulings."""
    for modifier in ("+1/+1", "-X/-X"):
        assert any(modifier.lower() in h["text"].lower() for h in hits(real_index, modifier, limit=5))


def test_english_words_find_rulings_written_only_in_chinese(real_index):
    """``shield counter``: the shield-counter rulings are in Chinese only; found through the mechanic's
    tag, holding both words that way: after the English entries holding both, before those holding one."""
    found = hits(real_index, "shield counter", limit=100_000)
    chinese = [i for i, h in enumerate(found) if "shield-counters" in h["mechanics"]]
    assert len(chinese) >= 5
    both = [i for i, h in enumerate(found) if h["lang"] == "en" and "shield counter" in h["text"].lower()]
    assert all(i < min(chinese) for i in both)
    assert not [h for h in hits(real_index, "shield counter", lang="en", limit=100_000) if h["lang"] != "en"]


def test_chinese_questions_and_player_words(real_index):
    found = hits(real_index, "能不能回应增殖？", limit=5)
    assert found and all("proliferate" in h["mechanics"] for h in found)
    assert any("进入战场" in h["text"] for h in hits(real_index, "进场", limit=20))


def test_chinese_query_cut_by_the_index_words(real_index):
    """A query is cut into the words the index holds (longest first), without jieba."""
    with index.searcher(real_index) as searcher:
        vocabulary = query.chinese_vocabulary(searcher.reader())
    assert {"战场", "牌库", "增殖"} <= vocabulary.keys()
    units = [u for u, _ in bestmatch.word_units(["牌庫頂的牌进入战场"], vocabulary)]       # Traditional too
    assert "".join(units) == "牌库顶的牌进入战场" and "战场" in units
    assert all(unit in vocabulary for unit in units if len(unit) > 1)


def test_full_width_letters_are_the_ascii_word(real_index):
    """A Chinese keyboard's full-width mode types ＣＭＣ: the same search as CMC, the player word for mana
    value (its meanings included); full-width punctuation of a Chinese question is left as typed."""
    wide = [h["id"] for h in hits(real_index, "ＣＭＣ", limit=1000)]
    assert len(wide) > 100 and wide == [h["id"] for h in hits(real_index, "CMC", limit=1000)]
    assert [h["id"] for h in hits(real_index, "Ｆｌｙｉｎｇ ２", limit=50)] == \
        [h["id"] for h in hits(real_index, "flying 2", limit=50)]
    assert analysis.half_width("能否响应增殖？ＸＸ") == "能否响应增殖？XX"


def test_invisible_format_characters_inside_a_word_are_no_break(real_index):
    """Text pasted from a web page or a PDF carries soft hyphens and zero-width spaces inside words
    (Unicode Cf): ``prolif\u00aderate`` is proliferate and 增\u200b殖 is 增殖, the same searches."""
    for pasted, word in (("prolif\u00aderate counters", "proliferate counters"), ("增\u200b殖", "增殖"),
                         ("\ufeffdeath\u2060touch", "deathtouch")):
        found = [h["id"] for h in hits(real_index, pasted, limit=50)]
        assert found and found == [h["id"] for h in hits(real_index, word, limit=50)]
    assert analysis.typed("ＣＭＣ\u00ad\u200c") == "CMC"


def test_shown_scores_never_rise():
    every, same = bestmatch.ALL_WORDS + bestmatch.SAME_LANGUAGE, bestmatch.SAME_LANGUAGE
    assert query.shown_scores([every + 5.0, every + 2.0, same + 7.0, same + 1.0, 3.0]) == \
        [5.0, 2.0, pytest.approx(2.0 * 0.999), pytest.approx(1.0 * 2.0 * 0.999 / 7.0),
         pytest.approx(2.0 * 0.999 * 0.999 / 7.0)]


# ---------------------------------------------------------------- the term tables, row by row


def _rows():
    for name in ("player-words.json", "obsolete-terms.json"):
        for row in json.loads(resources.files("rulings.search").joinpath("data", name).read_text("utf-8"))["rows"]:
            yield pytest.param(row, id=f"{name.split('-')[0]}:{' '.join(row['terms'])}")


@pytest.fixture(scope="module")
def folded_entries(real_index):
    return [(e["id"], fold(e["text"]), e["text"]) for e in index.all_entries(real_index)]


@pytest.mark.parametrize("row", list(_rows()))
def test_each_table_row_searches_its_meanings(real_index, folded_entries, row):
    """The row's terms typed as a query search every meaning as a clause standing for them; where the
    real rulings hold a meaning but never the terms, such a ruling is found."""
    typed = ("" if row["lang"] == "zh" else " ").join(row["terms"])
    with index.searcher(real_index) as searcher:
        built = query.best_match(searcher, typed, query._empty_fields(searcher.reader()))
    best = query._best_of(built)
    assert best is not None and len(best.covers) >= len(row["means"])
    literal = re.compile(re.escape(typed), re.I)
    found = None                                     # the query's hits, searched once for all its meanings
    for meaning in row["means"]:
        folded_meaning = fold(meaning)
        holding = {entry_id for entry_id, folded, text in folded_entries
                   if folded_meaning in folded and not literal.search(text)}
        if holding:
            if found is None:
                found = {h["id"] for h in hits(real_index, typed, limit=100_000)}
            assert found & holding, meaning


def test_card_names_across_languages(real_index):
    """An English card name finds the card's Chinese rulings (after the English ones) and a Chinese name
    its English rulings, through ingest/data/zh_card_names.json."""
    english = hits(real_index, "Lifecrafter's Gift", limit=100_000)
    chinese_at = [i for i, h in enumerate(english) if h["lang"].startswith("zh")]
    assert chinese_at and all(english[i]["cards"] == ["铸生匠赋礼"] for i in chinese_at)
    own = [i for i, h in enumerate(english) if h["lang"] == "en" and "Lifecrafter's Gift" in h["cards"]]
    assert own and min(chinese_at) > max(own)
    found = hits(real_index, "铸生匠赋礼", limit=100_000)
    assert found[0]["cards"] == ["铸生匠赋礼"]
    assert any(h["lang"] == "en" and h["cards"] == ["Lifecrafter's Gift"] for h in found)


def test_rules_words_across_languages(real_index):
    """'can I respond to proliferate': no English ruling of the real data says both, the Chinese ones do
    (回应 is respond's translation in search/data/bilingual-words.json), so they come first, before English
    rulings holding one of the two words; a Chinese query finds English rulings the same way, after its own."""
    top = hits(real_index, "can I respond to proliferate", limit=6)
    assert [h["lang"].startswith("zh") and "回应" in h["text"] and "增殖" in h["text"] for h in top] == [True] * 4 + [
        False] * 2                                  # the four Chinese entries holding both, then English ones
    found = hits(real_index, "回应 结算", limit=100_000)        # respond, resolve
    chinese = [i for i, h in enumerate(found) if h["lang"].startswith("zh")]
    english = [i for i, h in enumerate(found) if h["lang"] == "en"]
    assert english and chinese and min(english) > min(chinese)
    assert all(re.search(r"respond|resolv", found[i]["text"], re.I) for i in english[:20])


def test_the_bilingual_table_keeps_its_derivation_rules():
    """Every row of search/data/bilingual-words.json (scripts/derive_bilingual.py) is a mutual-best pair
    above the script's thresholds, names no mechanic (names.json translates those) and is a word of
    each language."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "derive_bilingual", Path(__file__).parent.parent / "scripts" / "derive_bilingual.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    rows = json.loads(resources.files("rulings.search").joinpath("data", "bilingual-words.json").read_text("utf-8"))
    rows = rows["rows"]
    assert len(rows) >= 50 and {"en": "respond", "zh": "回应"} in [{k: r[k] for k in ("en", "zh")} for r in rows]
    mechanics = bestmatch._mechanic_names()
    for row in rows:
        assert row["dice"] >= script.MIN_DICE and row["pairs"] >= script.MIN_PAIRS, row
        assert re.fullmatch(r"[a-z][a-z'-]+", row["en"]) and re.fullmatch(r"[\u4e00-\u9fff]{2,}", row["zh"]), row
        assert row["zh"] not in mechanics and " ".join(terms.key_of([row["en"]])) not in mechanics, row
    assert len({r["en"] for r in rows}) == len({r["zh"] for r in rows}) == len(rows)      # one partner each


# ---------------------------------------------------------------- a new user's findings (the tester's)


def test_the_term_tables_ship_with_the_package():
    """pip install . left search/data out, so every best-match search failed with a damaged-index error."""
    from pathlib import Path

    import tomllib
    config = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text("utf-8"))
    assert "data/*.json" in config["tool"]["setuptools"]["package-data"]["rulings.search"]
    names = sorted(p.name for p in resources.files("rulings.search").joinpath("data").iterdir())
    assert names == ["bilingual-words.json", "names.json", "obsolete-terms.json", "player-words.json"]


def test_the_name_tables_are_what_the_vocabulary_gives_today():
    """search/data/names.json (read by every cold search) equals what bestmatch derives from
    ingest/data now; after a change there, run scripts/derive_terms.py --names."""
    table = json.loads(resources.files("rulings.search").joinpath("data", "names.json").read_text("utf-8"))
    assert table["mechanics"] == bestmatch.mechanic_name_table()
    assert table["cards"] == bestmatch.card_name_table()[0]
    assert bestmatch.mechanic_spans([("proliferated", False)]) == [(0, 1, "proliferate")]
    assert table["mechanics"]["增殖"] == "proliferate"
    assert table["cards"]["lifecrafter's gift"] == ["铸生匠赋礼"]


@pytest.mark.parametrize("words, expected", [
    (["flashed", "back"], [(0, 2, "flashback")]), (["flash", "back"], [(0, 2, "flashback")]),
    (["flashing", "back", "a", "spell"], [(0, 2, "flashback")]), (["life", "link"], [(0, 2, "lifelink")]),
    (["flash"], [(0, 1, "flash")]), (["jump", "started"], [(0, 2, "jump-start")]),
    (["back", "flash"], [(1, 2, "flash")]),              # only in the order of the name
])
def test_a_one_word_mechanic_written_as_two_words(words, expected):
    """"flashed back" found flash rulings (a new user's finding, issue 20)."""
    assert bestmatch.mechanic_spans([(w, False) for w in words]) == expected


def test_flashed_back_finds_flashback_rulings(real_index):
    found = hits(real_index, "flashed back", limit=10)
    assert len(found) == 10 and all("flashback" in h["mechanics"] for h in found)


def test_a_common_word_in_a_card_name_does_not_rank_that_cards_rulings_first(real_index):
    """"left" ranked It That Gets Left Hanging's rulings first, on its card name alone (a new user's finding,
    issue 20); the rare word of a name and the name in full still find the card's rulings."""
    left = hits(real_index, "left", limit=10)
    assert left[0]["cards"] != ["It That Gets Left Hanging"]
    assert re.search(r"\bleft\b|\bleav", left[0]["text"], re.I)
    for text in ("Busybody", "Graveyard Busybody"):
        assert all(h["cards"] == ["Graveyard Busybody"] for h in hits(real_index, text, limit=3))
    assert hits(real_index, "It That Gets Left Hanging", limit=1)[0]["cards"] == ["It That Gets Left Hanging"]


def test_entries_holding_only_function_words_are_no_match(real_index):
    """'what is proliferate' listed 1,756 entries holding only 'what' or 'is' (score 0) before the
    Chinese proliferate rulings."""
    found = hits(real_index, "what is proliferate", limit=100_000)
    assert found and all("proliferate" in h["mechanics"] or re.search("prolif", h["text"], re.I) for h in found)
    assert any(h["lang"].startswith("zh") for h in found)


def test_a_full_cross_language_match_comes_before_partial_ones(real_index):
    """'shield counter': the six Chinese shield-counter rulings hold both words through the mechanic's
    tag, so they come before English entries holding only one of them."""
    top = hits(real_index, "shield counter", limit=10)
    assert sum("shield-counters" in h["mechanics"] for h in top) >= 5


@pytest.mark.parametrize("text, needle", [("fly*", "flying"), ("flyin*", "flying"), ("sacrific*", "sacrific"),
                                          ("proliferatte~", "prolif"), ("+prolif* counter", "prolif")])
def test_wildcards_and_fuzzy_words_expand_written_words(real_index, text, needle):
    found = hits(real_index, text, limit=20)
    assert len(found) >= 2 and all(needle in (h["text"] + " ".join(v["text"] for v in h["variants"])).lower()
                                   or needle.startswith("prolif") and "proliferate" in h["mechanics"]
                                   for h in found)
    assert any(h["lang"].startswith("zh") and "增殖" in h["text"] for h in hits(real_index, "增*", limit=50))


@pytest.mark.parametrize("text", ["o:flying", "c:red", "foo:bar", "flying~9", "flying~abc", "flying^-1",
                                  "flying^abc", "fl*ying"])
def test_odd_syntax_is_refused_in_one_line(real_index, text):
    with pytest.raises(QueryError) as raised:
        query.search(real_index, text)
    assert "\n" not in str(raised.value) and len(str(raised.value)) < 200


@pytest.mark.parametrize("text", ["does it fizzle?!", "what?!", "SELECT * FROM rulings", ".*", "the the the"])
def test_punctuation_of_questions_is_no_syntax(real_index, text):
    """Question marks and lone stars are punctuation, not wildcard syntax: results, or the one-line
    "no words to search for"."""
    try:
        assert isinstance(query.search(real_index, text, limit=5), list)
    except QueryError as err:
        assert "has no words to search for" in str(err)


def test_repeated_words_count_once(real_index):
    once = [h["id"] for h in hits(real_index, "proliferate counter", limit=10)]
    assert [h["id"] for h in hits(real_index, "proliferate counter " * 60, limit=10)] == once
    assert hits(real_index, "a* " * 50, limit=3)


def test_function_words_of_meanings_are_not_marked(real_index):
    """'ETB trigger' marked every 'the' of "enters the battlefield"."""
    found = hits(real_index, "ETB trigger", limit=10)
    assert found and not any("**the**" in h["snippet"].lower() or "**a**" in h["snippet"].lower() for h in found)


def test_a_card_named_in_the_query_is_a_cover_of_its_own():
    """Up to eight words naming a card of the index (a possessive 's dropped) stand for that card's name in
    ``cards``; a single word only when the texts rarely use it otherwise and it names no mechanic."""
    cards = {"territorialallosaurus": 2, "twincast": 2, "exile": 1, "flash": 4, "生机祈愿": 1}
    texts = {"twincast": 5, "exil": 900, "flash": 7}
    spans = lambda words: [(s, e, str(c)) for s, e, c in bestmatch.own_card_spans(
        [(w, bool(bestmatch._HAN.match(w))) for w in words], lambda key: cards.get(key, 0),
        lambda word: max((texts.get(t, 0) for t, *_ in query.terms(word, joined=False)), default=0))]
    assert spans(["does", "Territorial", "Allosaurus's", "fight"]) == [(1, 3, 'cards:"territorial allosaurus"')]
    assert spans(["Twincast", "modes"]) == [(0, 1, "cards:twincast")]
    assert spans(["exile", "it"]) == []             # the action: the texts use the word 900 times
    assert spans(["flash"]) == []                   # the keyword ability first
    assert spans(["生机祈愿", "备牌"]) == [(0, 1, "cards:生机祈愿")]


def test_a_card_named_in_a_question_ranks_its_own_rulings(real_index):
    found = hits(real_index, "does Ajani's Pridemate trigger once for each life gain event", limit=3)
    assert len(found) == 3 and all("Ajani's Pridemate" in h["cards"] for h in found)
    assert "just once for each life-gaining event" in found[0]["text"]


def test_a_chinese_word_finds_the_card_names_holding_it(real_index):
    """祈愿 (wish) is part of 生机祈愿 (Living Wish): the card's rulings are found through its name."""
    found = hits(real_index, "祈愿 备牌", limit=5)
    assert any("生机祈愿" in h["cards"] for h in found)


def test_a_question_need_not_hold_the_pt_it_names(real_index):
    """In a question (more than SHORT_QUERY words) a P/T modifier is a word, not a requirement: the
    ruling says "the chosen bonus", not +2/+0. A short query still requires it (test above)."""
    assert bestmatch.items("+1/+1 counter dies").required == ["+1/+1"]
    question = "does a creature I control later in the turn get +2/+0 from Fortify"
    assert "+2/+0" in bestmatch.items(question).words and not bestmatch.items(question).required
    found = hits(real_index, question, limit=3)
    assert any(h["cards"] == ["Fortify"] and "after Fortify resolves" in h["text"] for h in found)


def test_a_made_up_compound_is_read_as_its_words(real_index):
    """"draw-and-lose-life" is three or more hyphenated words made up for the query: its words, not the
    phrase "draw and lose life" (which no ruling says); two-headed and face-down stay a phrase."""
    assert bestmatch.word_units(["draw-and-lose-life?"], {}) == [
        ("draw", False), ("and", False), ("lose", False), ("life", False)]
    assert bestmatch.word_units(["face-down", "Two-Headed"], {}) == [("face-down", False), ("Two-Headed", False)]
    found = hits(real_index, "Midnight Entourage draw-and-lose-life mandatory", limit=3)
    assert any("triggered ability is mandatory" in h["text"] for h in found)


def test_a_modifier_with_x_is_never_a_sign(real_index):
    """A new user's findings: "+X/+X" found {X}{X} costs ("+" read as required, the word "X/+X") and "-X/-X"
    or a pasted " -X" excluded the word x. A sign is never read before X as a token or a modifier's power;
    a modifier alone is required as one term, whatever its sign."""
    assert bestmatch.items("+X/+X").required == ["+X/+X"]
    assert bestmatch.items("gets +X/+X then -X later").selectors == []
    assert bestmatch.items("-xerox spell").selectors == ["-xerox"]      # a word starting with x still is
    for modifier in ("+X/+X", "-X/-X"):
        found = hits(real_index, modifier, limit=100_000)
        assert found and all(modifier.lower() in h["text"].lower() for h in found), modifier
    assert hits(real_index, "-X/-X -flying", limit=100_000)


@pytest.mark.parametrize("text", ['"deathtouch trample', 'deathtouch trample"', 'deathtouch "trample'])
def test_a_quote_left_open_is_a_stray_character(real_index, text):
    """'"deathtouch trample' searched the phrase "deathtouch trample" and found nothing (a new user's finding)."""
    assert bestmatch.items(text).words == ["deathtouch", "trample"] and bestmatch.items(text).required == []
    closed = [h["id"] for h in hits(real_index, "deathtouch trample", limit=5)]
    assert [h["id"] for h in hits(real_index, text, limit=5)] == closed != []
    # a closed phrase is still one
    assert bestmatch.items('"can\'t be blocked" flying"').required == ['"can\'t be blocked"']
