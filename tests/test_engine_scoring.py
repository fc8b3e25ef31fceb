"""search/engine: bisection skips, field lengths from memory, term-at-a-time scoring and deleted
documents left out at collection give exactly what Whoosh's own code gives.

Each test runs on a small index built in code (tests/engine_indexes.py: every clone, in seconds) and
on the real corpus (``real``: ../shared, in CI); the ``floors`` say how much each must have compared.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from whoosh.codec.whoosh3 import W3LeafMatcher, W3PerDocReader

from rulings.search import catalog, index, query
from rulings.search.engine import reading, scoring, version

# Long posting lists of the real corpus (stemmed forms as the index holds them).
LONG_TERMS = [("text", "the"), ("text", "abil"), ("text", "creatur"), ("text", "spell")]

# What each test must have compared on each index (the real corpus's figures are the original ones).
FLOORS = {
    "small": {"long": 300, "lengths": 2000 * 10, "deleted": 100, "returned": 300, "folded": 200,
              "shapes": 3000, "phrases": 500},
    "real": {"long": 700, "lengths": 15_500 * 10, "deleted": 100, "returned": 1000, "folded": 900,
             "shapes": 20_000, "phrases": 5_000},
}


@pytest.fixture(params=["small", "real"])
def indexed(request) -> tuple[str, object]:
    """(name, index folder): the small index built in code, then the real corpus's."""
    name = request.param
    return name, request.getfixturevalue("small_index" if name == "small" else "real_index")


@pytest.fixture(params=["small", "real"])
def updated(request) -> tuple[str, object, set[str]]:
    """(name, index folder with deleted documents, the deleted entries' ids)."""
    name = request.param
    folder, gone = request.getfixturevalue("small_updated_index" if name == "small" else "real_updated_index")
    return name, folder, gone


def _matcher(reader, field, term):
    return reader.postings(field, term)


@pytest.fixture(scope="module", params=["small", "real"])
def long_reader(request):
    """(name, the reader of a kept searcher) of each index."""
    folder = request.getfixturevalue("small_index" if request.param == "small" else "real_index")
    with index.searcher(folder) as opened:
        yield request.param, opened.reader()


@settings(max_examples=60, deadline=None)
@given(term=st.sampled_from(LONG_TERMS), steps=st.lists(st.integers(0, 400), min_size=1, max_size=60))
def test_skip_to_by_bisection_lands_where_whoosh_lands(long_reader, term, steps):
    """After every skip (targets growing by random steps) both matchers are at the same posting."""
    for leaf, _ in long_reader[1].leaf_readers():
        linear, bisected = _matcher(leaf, *term), _matcher(leaf, *term)
        assert isinstance(bisected, reading.BisectingLeafMatcher)  # a full build has no deletions to wrap lists in
        target = 0
        for step in steps:
            target += step
            if not linear.is_active():
                assert not bisected.is_active()
                break
            W3LeafMatcher.skip_to(linear, target)
            bisected.skip_to(target)
            assert linear.is_active() == bisected.is_active()
            if linear.is_active():
                assert (linear.id(), linear.weight()) == (bisected.id(), bisected.weight())
                assert bisected.id() >= target


def test_the_posting_lists_span_many_blocks(long_reader):
    """The terms above make the bisection test meaningful: lists of many blocks of 128 postings."""
    name, reader = long_reader
    for field, term in LONG_TERMS:
        assert reader.doc_frequency(field, term) > FLOORS[name]["long"], (field, term)


def test_field_lengths_from_memory_equal_whoosh_s(long_reader):
    """Every document's length in every searched field, as Whoosh reads it from the segment file."""
    name, reader = long_reader
    compared = 0
    for leaf, _ in reader.leaf_readers():
        perdoc = leaf._perdoc
        assert isinstance(perdoc, reading.MemoryLengths)
        for field in [*index.searched_fields(), "id", "sets"]:
            for docnum in range(leaf.doc_count_all()):
                assert perdoc.doc_field_length(docnum, field) == \
                    W3PerDocReader.doc_field_length(perdoc, docnum, field), (field, docnum)
                compared += 1
    assert compared > FLOORS[name]["lengths"]


@pytest.fixture(scope="module")
def real_updated_index(real_index, shared, tmp_path_factory):
    """A copy of the real index with XLN's MTGJSON file removed: segments with deleted documents.

    Returns (index folder, ids of the entries only that file held)."""
    import shutil
    xln = shared / "realdata" / "mtgjson3-sets" / "XLN.json"
    folder = tmp_path_factory.mktemp("updated") / "ix"
    shutil.copytree(real_index, folder)
    gone = {entry["id"] for entry in index.all_entries(folder)
            if {v["source"]["path"] for v in entry["variants"]} == {str(xln)}}
    catalog.remove(folder, xln)
    return folder, gone


def _whoosh_top(searcher, q, limit, replace=True):
    """Whoosh's own collection: deleted documents filtered out of every posting list; replace=False:
    without matcher replacement and block-quality skipping (every match scored by its matcher tree,
    the engine's public path: scoring.whoosh_top)."""
    if not replace:
        return scoring.whoosh_top(searcher, q, limit)
    collector = searcher.collector(limit=limit)
    searcher.search_with_collector(q, collector)
    return collector.results()


QUERIES = [("counter", {}), ("target creature", {}), ("exile OR graveyard", {}), ('"the battlefield"', {}),
           ("damage -combat", {}), ("explore", {}), ("token", {"set_code": "rix"}),
           ("creature", {"mechanics": ["explore"]}), ("cast", {"lang": "en"}), ("card NOT exile", {})]


def test_deleted_documents_left_out_at_collection_give_whoosh_s_hits(updated, monkeypatch):
    """Same ids and scores, limit 10 and every match, as Whoosh's per-posting-list filter; none of
    the removed entries (deleted, their postings still in the segments) comes back."""
    name, folder, gone = updated
    floor = FLOORS[name]["deleted"]
    assert sum(deleted for _, deleted in index.segments(folder)) > floor and len(gone) > floor
    ours = {}
    for text, filters in QUERIES:
        for limit in (10, 100_000):
            hits = query.search(folder, text, query.Filters(**filters), limit=limit, every_word=True)
            ours[text, limit] = [(hit["id"], hit["score"]) for hit in hits]
    # Whoosh's own collector; on the small index without its matcher replacement, which loses hits there
    # (test_best_hits_are_the_best_of_all_matches_where_whoosh_s_replacement_loses_them)
    monkeypatch.setattr(query, "top", lambda *args: _whoosh_top(*args, replace=name == "real"))
    for text, filters in QUERIES:
        for limit in (10, 100_000):
            hits = query.search(folder, text, query.Filters(**filters), limit=limit, every_word=True)
            assert ours[text, limit] == [(hit["id"], hit["score"]) for hit in hits], (text, limit)
    assert all(ours[text, 10] for text, _ in QUERIES)
    returned = {entry_id for hits in ours.values() for entry_id, _ in hits}
    assert len(returned) > FLOORS[name]["returned"] and not returned & gone


# A small index where Whoosh's matcher replacement loses hits: 400 entries of random rules words, about
# half holding "strike" in their text, some in another variant's text or a card name, written by one
# writer (document order fixed), so the search runs into AndMaybeMatcher.skip_to's fault.
RULES_WORDS = ("the a creature spell target player card ability damage counter token mana land turn control "
               "owner graveyard exile library hand battlefield").split()


def _made_up_entry(number: int, rng) -> dict:
    def text(share):
        words = [rng.choice(RULES_WORDS) for _ in range(rng.randint(3, 40))]
        if rng.random() < share:
            words.insert(rng.randrange(len(words) + 1), "strike")
        return " ".join(words).capitalize() + "."
    main = text(0.5)
    others = [text(0.4) for _ in range(rng.randint(0, 3))]
    cards = {("Strike " if rng.random() < 0.3 else "") + rng.choice(["Bolt", "Wave", "Giant", "Ox",
                                                                             "Sea Serpent of the Deep"])
             for _ in range(rng.randint(1, 3))}
    return {"id": f"r-{number:010x}", "text": main, "lang": "en", "mechanics": [], "cards": sorted(cards),
            "sets": ["TST"], "date": "2020-01-01", "dates": ["2020-01-01"],
            "variants": [{"text": t} for t in [main, *others]], "related": [], "translations": [], "aliases": [],
            "repairs": []}


def test_best_hits_are_the_best_of_all_matches_where_whoosh_s_replacement_loses_them(tmp_path, monkeypatch):
    """Whoosh's replacement turned the union of a word's fields into an AndMaybeMatcher whose skip_to
    left the optional field behind: a document lost that field's score and its place in the top N
    (``strike`` on the million-ruling benchmark index lost its best hit). Without replacement the N
    best are the N best of every match."""
    import json
    import random

    rng = random.Random(0)
    shapes = [_made_up_entry(number, rng) for number in range(400)]
    index.write_documents(tmp_path, [], create=True)
    index.write_documents(tmp_path, ((shape, json.dumps(shape), False) for shape in shapes))
    for text in ("strike", "strike creature", "strike target", "strike OR exile"):
        for every_word in (False, True):
            every = [(hit["id"], hit["score"])
                     for hit in query.search(tmp_path, text, limit=100_000, every_word=every_word)]
            assert len(every) > 150
            for limit in (1, 2, 3, 5, 10, 20):
                assert [(hit["id"], hit["score"]) for hit in
                        query.search(tmp_path, text, limit=limit, every_word=every_word)] == \
                    every[:limit], (text, limit, every_word)
    # the index does lead Whoosh's own collector into the fault (else this test would prove nothing): the
    # parser's query of the word (an OR over the searched fields; best match is one ListMatcher of its
    # exact scores on Whoosh's path, search/bestmatch.py BestMatch.matcher, so it gives Whoosh no union)
    every = [hit["id"] for hit in query.search(tmp_path, "strike", limit=5, every_word=True)]
    monkeypatch.setattr(query, "top", _whoosh_top)
    assert [hit["id"] for hit in query.search(tmp_path, "strike", limit=5, every_word=True)] != every


def test_boost_wrappers_and_lengths_folded_into_scorers_score_the_same(indexed):
    """Every document of ``damage OR counter`` (boosted field clauses): the folded matcher has no
    WrappingMatcher left, its scorers read lengths from memory, and it gives each document the very
    same score as Whoosh's wrapped one reading lengths through the searcher."""
    from whoosh.matching import WrappingMatcher

    def walk(matcher):
        yield matcher
        for side in ("a", "b", "child"):
            if getattr(matcher, side, None) is not None:
                yield from walk(getattr(matcher, side))

    name, folder = indexed
    compared = 0
    with index.searcher(folder) as opened:
        parsed = query.as_union_trees(query.parse(opened.schema, "damage OR counter"))
        for sub, _ in opened.leaf_searchers():
            wrapped = parsed.matcher(sub, opened.context()).replace(0)
            folded = scoring.with_lengths_in_memory(
                scoring.without_boost_wrappers(parsed.matcher(sub, opened.context()).replace(0)),
                sub.reader()._perdoc)
            leaves = [m for m in walk(folded) if hasattr(m, "scorer") and m.scorer]
            assert leaves and all(getattr(m.scorer, "scorer", m.scorer).dfl.__defaults__ for m in leaves)
            assert any(type(m) is WrappingMatcher for m in walk(wrapped))
            assert not any(type(m) is WrappingMatcher for m in walk(folded))
            while wrapped.is_active():
                assert (folded.id(), folded.score()) == (wrapped.id(), wrapped.score())
                wrapped.next(), folded.next()
                compared += 1
            assert not folded.is_active()
    assert compared > FLOORS[name]["folded"]


# Queries of every shape top() scores itself (terms, OR, AND, NOT, boosts, zero-scored filters, phrases with
# and without slop) and shapes it leaves to Whoosh's matchers (ranges, prefixes).
SHAPES = ["trample", "first strike", "damage -combat", "counter NOT flying", "NOT counter NOT flying trample",
          "exile OR graveyard", "counter OR NOT flying", "(token OR copy) AND NOT creature", "damage OR counter",
          '"the battlefield"', '"deals damage"~2 creature', '"target creature" exile', '"end of turn" OR untap',
          '"first strike" -"double strike"', "trample lang:en", "token set:rix", "cast date:>2018",
          "explore mechanic:explore", "指示物", "生物 战场", "Lim-Dûl OR ajani", "+1/+1 counter", "sacrifice*",
          "-counter -flying lang:en"]       # only exclusions: an error without a filter (test_query.py)


def test_term_at_a_time_scores_equal_whooshs_matchers(indexed):
    """top() against Whoosh's own collector without replacement (every match scored by Whoosh's matcher
    tree): the same documents, the same scores to the last bit and the same order, limits 1, 10 and every
    match."""
    name, folder = indexed
    compared = 0
    with index.searcher(folder) as opened:
        for text in SHAPES:
            parsed = query.as_union_trees(query.without_empty_fields(query.parse(opened.schema, text),
                                                                    opened.reader()))
            for limit in (1, 10, 100_000):
                ours = [(docnum, score) for score, docnum in scoring.top(opened, parsed, limit).top_n]
                theirs = [(docnum, score)
                          for score, docnum in _whoosh_top(opened, parsed, limit, replace=False).top_n]
                assert ours == theirs, (text, limit)
                compared += len(ours)
            assert ours, text
    assert compared > FLOORS[name]["shapes"]


def test_kept_scores_give_the_same_hits_and_stay_within_their_bound(indexed, monkeypatch):
    """The scores and phrase words' positions a kept searcher keeps between searches (scoring.Kept)
    give every query shape the hits and scores of Whoosh's own collector again and again, also when
    the bounds make it drop the least recently used; the postings kept never pass the bounds."""
    name, folder = indexed
    postings, positions = (20_000, 8_000) if name == "real" else (8_000, 3_200)
    monkeypatch.setattr(scoring, "KEPT_POSTINGS", postings)
    monkeypatch.setattr(scoring, "KEPT_POSITIONS", positions)     # longer lists than a quarter are read in part
    with index.searcher(folder) as opened:
        opened.memo.pop("kept", None)
        parsed = [query.as_union_trees(query.without_empty_fields(query.parse(opened.schema, text),
                                                                  opened.reader())) for text in SHAPES]
        expected = [[(docnum, score) for score, docnum in _whoosh_top(opened, q, 50, replace=False).top_n]
                    for q in parsed]
        for _ in range(3):
            for q, theirs in zip(parsed, expected):
                assert [(docnum, score) for score, docnum in scoring.top(opened, q, 50).top_n] == theirs
                kept = opened.memo["kept"]
                assert kept.postings == sum(map(len, kept.scores.values())) <= postings
                assert kept.positions_kept == sum(len(read[0]) for read in kept.positions.values()) <= positions
        assert len(kept.scores) > 20 and len(kept.positions) > 5
        # kept scores are handed out as copies: combining them in place changes nothing kept
        before = {key: dict(found) for key, found in kept.scores.items()}
        for q in parsed:
            scoring.top(opened, q, 5)
        assert all(kept.scores[key] == found for key, found in before.items() if key in kept.scores)
        opened.memo.pop("kept", None)


PHRASES = ['"the battlefield"', '"deals damage"~2 creature', '"target creature" exile', '"end of turn" OR untap',
           '"first strike" -"double strike"', '"the top of your library"', '"can\'t be countered"',
           '"it\'s still a"', '"enters the battlefield tapped"', '"战场"', '"lim-dûl\'s vault"']


@pytest.mark.parametrize("share", [0, 16, 10**9])
def test_phrase_places_by_bisection_or_by_map_score_as_whoosh(indexed, monkeypatch, share):
    """A phrase's candidates are found in its words' postings by bisection (share 0: always), by a map of
    every posting (10**9: always) or as top() chooses (16); positions decoded afresh or kept
    (_DECODED): the hits and scores of Whoosh's own collector."""
    name, folder = indexed
    monkeypatch.setattr(scoring, "_BISECTED_SHARE", share)
    monkeypatch.setattr(scoring, "_DECODED", {})
    compared = 0
    with index.searcher(folder) as opened:
        opened.memo.pop("kept", None)
        for _ in range(2):                                # positions decoded, then kept
            for text in PHRASES:
                parsed = query.as_union_trees(query.without_empty_fields(query.parse(opened.schema, text),
                                                                        opened.reader()))
                ours = [(docnum, score) for score, docnum in scoring.top(opened, parsed, 100_000).top_n]
                theirs = [(docnum, score)
                          for score, docnum in _whoosh_top(opened, parsed, 100_000, replace=False).top_n]
                assert ours == theirs, text
                compared += len(ours)
        opened.memo.pop("kept", None)
    assert scoring._DECODED and compared > FLOORS[name]["phrases"]


# Plain queries (best match, search/bestmatch.py), with and without filters and --every-word.
PLAIN = ["can I respond to proliferate", "strike creature", "counter token damage", "first strike trample",
         "指示物 生物", "the battlefield tapped", "ajani", "explore target creature", "flying -trample",
         "deals damage to target creature", "what happens when a token dies"]


def test_whoosh_s_public_path_gives_the_same_searches(indexed, monkeypatch, capsys):
    """On a Whoosh outside version.TESTED the engine reads, matches and scores through Whoosh's public
    API only (plain storage and codec, Whoosh's collector, BestMatch as a ListMatcher): every search
    gives the same hits, scores and snippets, and the switch is said once on stderr."""
    name, folder = indexed
    asked = [(text, {}, False) for text in PLAIN] + [(text, {"lang": "en"}, False) for text in PLAIN[:4]] + \
        [(text, {}, True) for text in SHAPES]

    def searches():
        return [query.search(folder, text, query.Filters(**filters), limit=20, every_word=every)
                for text, filters, every in asked]

    ours = searches()
    monkeypatch.setattr(index, "_OPEN", {})
    monkeypatch.setattr(version, "TESTED", ((0,), (0,)))
    monkeypatch.setattr(version, "_said", False)
    try:
        with index.searcher(folder) as opened:
            leaf = opened.reader().leaf_readers()[0][0]
            assert type(leaf._perdoc) is W3PerDocReader and type(opened.memo) is dict
            assert type(leaf.postings("text", "the")) is W3LeafMatcher
        theirs = searches()
    finally:
        for _, opened in index._OPEN.values():
            opened.close()
    assert ours == theirs
    assert sum(len(hits) for hits in ours) > (300 if name == "small" else 700)
    notice = capsys.readouterr().err
    assert notice.count("\n") == 1 and "outside the versions tested with rulings' engine" in notice
