"""ingest/pipeline.py and ingest/runtime.py: the memory savings of update_corpus keep every value as it was."""

from contextlib import contextmanager
from dataclasses import astuple

from rulings.ingest.normalise import normalise
from rulings.ingest.pipeline import _info, build_entries
from rulings.ingest.read import read_file
from rulings.ingest.runtime import share_strings


def _real_rulings(shared, names=("XLN.json", "KLD.json")):
    return [r for name in names for r in read_file(shared / "realdata" / "mtgjson3-sets" / name).rulings]


def test_share_strings_keeps_every_value_and_makes_equal_ones_one_object(shared):
    rulings = _real_rulings(shared) + _real_rulings(shared)        # every ruling twice, as separate objects
    half = len(rulings) // 2
    assert rulings[0].text == rulings[half].text and rulings[0].text is not rulings[half].text
    before = [astuple(r) for r in rulings]
    table: dict = {}
    share_strings(rulings, table)
    assert [astuple(r) for r in rulings] == before
    normalise(rulings)
    matched = [astuple(r) for r in rulings]
    assert matched != before                                       # normalise filled match
    share_strings(rulings, table, normalised=True)
    assert [astuple(r) for r in rulings] == matched
    for a, b in zip(rulings[:half], rulings[half:]):
        assert a.text is b.text and a.match is b.match and a.set_code is b.set_code and a.date is b.date
    assert len({id(r.set_code) for r in rulings}) == 2                 # XLN and KLD
    assert len({id(r.date) for r in rulings}) == len({r.date for r in rulings})


def test_infos_with_shared_values_equal_the_plain_ones(shared):
    entries = build_entries(_real_rulings(shared, ("XLN.json", "KLD.json", "AER.json"))).entries
    assert {entry.sources for entry in entries} == {frozenset({0})}
    assert 1 < len({tuple(entry.mechanics) for entry in entries}) < len(entries)     # some shared, not all
    alike: dict = {}
    shared_infos = [_info(entry, alike) for entry in entries]
    assert shared_infos == [_info(entry) for entry in entries] and len(shared_infos) > 800
    assert len({id(i.langs) for i in shared_infos}) == len({tuple(i.langs.items()) for i in shared_infos}) < 30
    assert len({id(i.sets) for i in shared_infos}) == len({i.sets for i in shared_infos})
    assert len({id(i.mechanics) for i in shared_infos}) == len({i.mechanics for i in shared_infos})


def test_release_free_memory_trims_the_c_heap_where_glibc_is():
    import platform

    from rulings.ingest.runtime import release_free_memory

    assert release_free_memory() is (platform.libc_ver()[0] == "glibc")


def test_update_with_worker_processes_forms_the_same_entries(shared, monkeypatch):
    """A full update whose texts' languages are detected, and whose texts are formed and tagged, in
    worker processes (ingest/runtime.py form_workers) gives the same entries as one that does everything in this
    process: ids, variants and their languages, similarities, Related links, mechanics and
    translations; and remembers the same lingua answers."""
    from rulings.ingest import candidates, language, runtime
    from rulings.ingest.pipeline import Corpus, update_corpus

    monkeypatch.setattr(candidates, "ADD_BATCH", 100)
    decided = []

    def entries(workers):
        monkeypatch.setattr(runtime, "FORM_WORKERS", workers)
        language._DECIDED.clear()              # nothing known from earlier tests: every text is detected
        language._detect.cache_clear()
        rulings = _real_rulings(shared, ("XLN.json", "KLD.json", "AER.json"))
        corpus = Corpus()
        update = update_corpus(corpus, {}, {0: rulings}, lambda refs: {}, everything=True)
        decided.append(dict(corpus.languages))
        return [(e.id, e.text, [(v.ruling.key(), v.ruling.lang, v.similarity) for v in e.variants],
                 [(r.id, r.reason) for r in e.related], e.mechanics, e.translations) for e in update.entries]

    alone = entries(0)
    pools = []
    original = runtime.form_workers

    @contextmanager
    def watched(texts):
        with original(texts) as pool:
            pools.append(pool)
            yield pool
    monkeypatch.setattr("rulings.ingest.pipeline.form_workers", watched)
    pooled = entries(2)
    assert len(pools) == 1 and pools[0] is not None
    assert pooled == alone
    assert decided[0] == decided[1] and len(decided[0]) == 59       # texts looks_english() left to lingua
    assert {lang for e in alone for _, lang, _ in e[2]} == {"en"}
    assert len(alone) > 800 and sum(bool(e[4]) for e in alone) > 200 and sum(bool(e[3]) for e in alone) > 10


def test_a_new_merge_keeps_the_larger_entrys_id_and_the_other_becomes_an_alias():
    """PRODUCT.md "Ids": when a better verifier merges two entries of an existing index, the merged
    entry keeps the id most of its variants had (the larger entry's); the other id stays an alias."""
    from rulings.ingest.model import Ruling, Source

    old = "If a spell is countered, the mana spent on it is not refunded."
    new = "If a spell doesn't resolve, the mana spent on it is not refunded."      # the same rule, CR 608.2b wording
    rulings = [Ruling(text=old, source=Source("old.txt", "text"), position=i, card=card)
               for i, card in enumerate(["Cancel", "Negate", "Essence Scatter"])]
    rulings.append(Ruling(text=new, source=Source("new.txt", "text"), position=0, card="Mana Leak"))
    previous = {r.key(): ("r-0000000big" if r.source.path == "old.txt" else "r-000000small") for r in rulings}
    entries = build_entries(rulings, previous).entries
    assert len(entries) == 1
    assert (entries[0].id, entries[0].aliases) == ("r-0000000big", ["r-000000small"])
    assert len(entries[0].variants) == 4
