"""Run the ingest stages in order: normalise -> dedup -> ids -> tag -> translation links.

update_corpus() is the pipeline, incremental over a Corpus kept between ingests; build_entries() runs
it on rulings alone. Reading is separate (ingest/read.py) so that callers can cache parsed sources;
how a run uses processes, the garbage collector and memory is ingest/runtime.py.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Callable

from rulings.ingest.controls import without_controls
from rulings.ingest.dedup import MAX_RELATED, Grouper, rank, rank_order, text_key
from rulings.ingest.language import declared_disagrees, remember_decisions
from rulings.ingest.model import Entry, Related, Ruling, Translation
from rulings.ingest.normalise import Rejection, fold, normalise, text_words
from rulings.ingest.runtime import (  # noqa: F401 (gc_paused, release_free_memory, share_strings: the pipeline's API)
    form_workers,
    gc_paused,
    languages_in_workers,
    release_free_memory,
    share_strings,
    tags_in_workers,
)
from rulings.ingest.tag import tag
from rulings.ingest.translate import learn_from_entries, link_rulings


@dataclass
class PipelineResult:
    """Entries formed from the rulings, and the rulings normalisation rejected."""

    entries: list[Entry]
    rejections: list[Rejection] = field(default_factory=list)
    language_mismatches: list[Ruling] = field(default_factory=list)   # declared_lang != detected lang


def build_entries(rulings: list[Ruling], previous_ids: dict[tuple, str] | None = None,
                  aliases: dict[str, list[str]] | None = None,
                  timings: dict[str, float] | None = None) -> PipelineResult:
    """Turn rulings into tagged entries with stable ids: update_corpus() of a new Corpus given the
    rulings as one source (what a first ``rulings ingest`` runs), without an index.

    previous_ids maps a variant key (Ruling.key()) to the id its entry had in the
    index before; ids carried by an ingested export (Ruling.entry_id) count too.
    An entry keeps a previous id of its variants (the one most variants carry,
    then the smallest); merged-away ids become aliases (PRODUCT.md, "Ids").
    timings, when given, receives the wall seconds of each step (update_corpus's).
    Entries come in the order of their groups; the rulings are normalised in place.
    """
    update = update_corpus(Corpus(), {}, {0: rulings}, _nothing_stored, everything=True, timings=timings,
                           previous_ids=previous_ids, aliases=aliases)
    return PipelineResult(update.entries, update.rejections.get(0, []), update.mismatches.get(0, []))


def _nothing_stored(refs: list) -> dict:
    """The fetch of a corpus that has stored nothing yet."""
    return {}


class Clock:
    """The timer of the ingest's steps: lap(step) adds the wall seconds since the last lap (or since it was
    made) to timings[step]; does nothing without a dict.

    now: the clock (wall seconds; bench/stage_speed.py --cpu sets time.process_time).
    """

    now = staticmethod(time.perf_counter)

    def __init__(self, timings: dict[str, float] | None):
        self.timings = timings
        self.last = self.now()

    def lap(self, stage: str) -> None:
        now = self.now()
        if self.timings is not None:
            self.timings[stage] = self.timings.get(stage, 0.0) + now - self.last
        self.last = now


def assign_ids(entries: list[Entry], previous_ids: dict[tuple, str],
               aliases: dict[str, list[str]], taken: set[str] | None = None) -> None:
    """Give each entry its carried id where one exists (in place); ids stay unique.

    taken: ids already held by other entries (incremental ingest); extended in place.
    """
    taken = set() if taken is None else taken
    claims = []
    for entry in entries:
        votes = Counter()
        for variant in entry.variants:
            old = variant.ruling.entry_id or previous_ids.get(variant.ruling.key())
            if old:
                votes[old] += 1
        claims.append(votes)
    order = sorted(range(len(entries)), key=lambda i: -sum(claims[i].values()))
    for i in order:
        entry, votes = entries[i], claims[i]
        ranked = sorted(votes, key=lambda old: (-votes[old], old))
        chosen = next((old for old in ranked if old not in taken), None)
        if chosen is not None:
            entry.id = chosen
        while entry.id in taken:
            entry.id = entry.id + "x"
        taken.add(entry.id)
        merged = [old for old in ranked if old != entry.id and old not in taken]
        entry.aliases = sorted(set(aliases.get(entry.id, [])) | set(merged))
        taken.update(merged)


# --- incremental ingest -------------------------------------------------------------------

Ref = tuple[int, int]          # (source number, index of the ruling in what its source's reader returned)


@dataclass
class GroupInfo:
    """What is remembered of one formed entry besides its variants: id, canonical text and language,
    set codes (all, and of Chinese variants), source numbers, variants per language, mechanics,
    translations ((id, lang, text) each) and aliases."""

    id: str
    lang: str
    text: str
    sets: frozenset[str]
    zh_sets: frozenset[str]
    sources: frozenset[int]
    langs: dict[str, int]
    mechanics: tuple[str, ...]
    variants: int
    translations: tuple[tuple[str, str, str], ...] = ()
    aliases: tuple[str, ...] = ()


@dataclass
class Corpus:
    """The pipeline's memory between ingests (kept in the index folder's state).

    words: corpus word counts (normalise's first-letter repair vocabulary: in how many distinct
    folded texts each word occurs, ingest/normalise.py corpus_words); copies: how many rulings
    hold each distinct folded text (by SHA-1, 12 bytes), so that a copy changes no word count;
    same_text: text key of identical texts (language, SHA-1 of the folded text)
    -> the dedup text key (language key, matching text) they share; refs: the
    rulings of each dedup text key; grouper: leaders, members, signatures and
    Related links (ingest/dedup.py Grouper); info: GroupInfo by group number.
    """

    words: Counter = field(default_factory=Counter)
    copies: Counter = field(default_factory=Counter)
    same_text: dict[tuple[str, bytes], tuple[str, str]] = field(default_factory=dict)
    refs: dict[tuple[str, str], list[Ref]] = field(default_factory=dict)
    grouper: Grouper = field(default_factory=Grouper)
    info: dict[int, GroupInfo] = field(default_factory=dict)
    lexicon: dict[str, frozenset[str]] | None = None      # translation lexicon, learnt on a full pass
    pairs: dict[str, set[tuple[int, int]]] = field(default_factory=dict)   # translation pairs by set code
    languages: dict[str, str | None] = field(default_factory=dict)   # lingua's answers by text (language.py)


@dataclass
class Update:
    """What one incremental update changed.

    entries: the entries to (re)write, complete; deleted: ids whose documents
    go; rejections and mismatches (declared language disagrees) of the added
    rulings by source number; touched: group numbers rewritten.
    """

    entries: list[Entry]
    deleted: list[str]
    rejections: dict[int, list[Rejection]]
    mismatches: dict[int, list[Ruling]]


def count_copies(corpus: Corpus, rulings: list[Ruling], sign: int) -> None:
    """Count rulings in (sign +1) or out (sign -1) of corpus.copies; a text's words enter
    corpus.words with its first copy and leave with its last (the counts corpus_words gives
    for the distinct texts held, however many copies and in whatever order they came)."""
    for ruling in rulings:
        folded = fold(without_controls(ruling.text))     # as normalise() leaves the text
        key = hashlib.sha1(folded.encode("utf-8")).digest()[:12]
        before = corpus.copies[key]
        corpus.copies[key] = after = before + sign
        if after <= 0:
            del corpus.copies[key]
        if (before == 0) != (after <= 0):
            words = text_words(folded)
            (corpus.words.update if sign > 0 else corpus.words.subtract)(words)


def _same_text(ruling: Ruling) -> tuple[str, bytes]:
    lang, folded = text_key(ruling)
    return lang, hashlib.sha1(folded.encode("utf-8")).digest()[:12]


@gc_paused()
def update_corpus(corpus: Corpus, removed: dict[int, list[Ruling]], added: dict[int, list[Ruling]],
                  fetch: Callable[[list[Ref]], dict[Ref, Ruling]], everything: bool = False,
                  timings: dict[str, float] | None = None, previous_ids: dict[tuple, str] | None = None,
                  aliases: dict[str, list[str]] | None = None) -> Update:
    """Apply removed and added sources to the corpus; only what they touch is re-formed. The one
    pipeline: ``rulings ingest``, ``remove`` and ``update`` (search/catalog.py) and build_entries().

    Its steps, each timed into timings (wall seconds by step: remove, normalise, dedup, ids, tag,
    translate): forget_removed, normalise_added, place_texts, group_texts (dedup), make_entries (ids),
    tag (ingest/tag.py), remember_entries, link_translations_of.

    removed: source number -> the normalised rulings stored for it (as stored by
    a former update); added: source number -> rulings as read (card names
    resolved), normalised here in place with the corpus word counts; fetch:
    stored normalised rulings by Ref (for entries that gain or lose variants).
    New texts are matched only against the existing leaders; entries that lost
    their leader are re-formed from their remaining texts (ingest/dedup.py
    Grouper). Touched entries are re-tagged, their Related links rebuilt, and
    translation links recomputed over the entries of the sets that hold Chinese
    rulings when a touched entry is in such a set. Ids: an existing entry keeps
    its id; a new one takes the id its variants had (removed in this update,
    or carried in an export, or given in previous_ids), else its content id (PRODUCT.md "Ids");
    aliases: id -> aliases it already has.
    everything: rewrite every entry (the Whoosh index is being rebuilt).
    A large update (runtime.form_workers, counting the added rulings) runs worker processes from the
    start: they detect the added texts' languages while the corpus words are counted here, then form
    dedup's texts and tag the rulings.
    """
    with form_workers(sum(len(rulings) for rulings in added.values())) as workers:
        return _update_corpus(corpus, removed, added, fetch, everything, timings, workers, previous_ids, aliases)


def _update_corpus(corpus: Corpus, removed: dict[int, list[Ruling]], added: dict[int, list[Ruling]],
                   fetch: Callable[[list[Ref]], dict[Ref, Ruling]], everything: bool,
                   timings: dict[str, float] | None, workers, previous_ids: dict[tuple, str] | None = None,
                   aliases: dict[str, list[str]] | None = None) -> Update:
    """update_corpus() with its worker processes (a multiprocessing Pool), or None: its steps in order."""
    clock = Clock(timings)
    run = _Run(corpus, fetch, _Pool(added), dict(previous_ids or {}), dict(aliases or {}))
    forget_removed(run, removed)
    clock.lap("remove")
    kept, kept_refs, rejections, mismatches = normalise_added(run, added, workers)
    changed_sets = _set_codes(kept) | _set_codes(r for rulings in removed.values() for r in rulings)
    clock.lap("normalise")
    placed = place_texts(run, kept, kept_refs)
    del kept, kept_refs
    # the update's workers, or (removed sources leave texts to place again) workers for this many texts
    with nullcontext(workers) if workers is not None else form_workers(len(placed)) as workers:
        group_texts(run, placed, everything, workers)
        del placed
        clock.lap("dedup")
        # the added rulings' tags are found in the workers while the entries are made here
        tagging = tags_in_workers(workers, added) if workers is not None else None
        entries = make_entries(run)
        clock.lap("ids")
        tag(list(entries.values()), tagging() if tagging is not None else None)
    new_groups = remember_entries(run, entries)
    clock.lap("tag")
    rewrite = link_translations_of(run, entries, new_groups, changed_sets, everything)
    clock.lap("translate")
    live = {i.id for i in corpus.info.values()}
    deleted = sorted({i.id for i in run.old_info.values()} - live)
    return Update([rewrite[g] for g in sorted(rewrite)], deleted, rejections, mismatches)


@dataclass
class _Run:
    """What the steps of one update hand on: the corpus, the stored rulings (fetch) and the added ones
    (pool); previous_ids (variant key -> the id its entry had) and old_aliases (id -> aliases) for the
    ids of entries formed anew; touched: group numbers to make again; orphans: texts whose group
    dissolved (text key -> old group); old_info: the GroupInfo of dissolved groups; zh_before: the set
    codes holding Chinese rulings before; ids: group number -> entry id after the update."""

    corpus: Corpus
    fetch: Callable[[list[Ref]], dict[Ref, Ruling]]
    pool: _Pool
    previous_ids: dict[tuple, str]
    old_aliases: dict[str, list[str]]
    touched: set[int] = field(default_factory=set)
    orphans: dict = field(default_factory=dict)
    old_info: dict[int, GroupInfo] = field(default_factory=dict)
    zh_before: frozenset[str] = frozenset()
    ids: dict[int, str] = field(default_factory=dict)


def forget_removed(run: _Run, removed: dict[int, list[Ruling]]) -> None:
    """Take the removed sources' rulings out of the corpus: word counts, text keys and refs; groups that
    lose a text are touched, groups left without texts dissolve (their texts become orphans)."""
    corpus = run.corpus
    grouper, info = corpus.grouper, corpus.info
    run.zh_before = _zh_sets(info.values())
    dead: list[tuple[str, str]] = []
    for rulings in removed.values():
        count_copies(corpus, rulings, -1)
    for number, rulings in removed.items():
        for index, ruling in enumerate(rulings):
            if not ruling.match:
                continue
            same = _same_text(ruling)
            key = corpus.same_text.get(same)
            refs = corpus.refs.get(key)
            if refs is None or (number, index) not in refs:
                continue
            refs.remove((number, index))
            group = grouper.group_of.get(key)
            if group is not None:
                run.previous_ids[ruling.key()] = info[group].id
                run.touched.add(group)
            if not refs:
                del corpus.refs[key]
                dead.append(key)
            if corpus.same_text.get(same) == key and key not in corpus.refs:
                del corpus.same_text[same]
    corpus.words = +corpus.words
    lost, dissolved, run.orphans = grouper.remove(dead)
    run.touched |= lost
    run.touched -= dissolved
    run.old_info = {g: info.pop(g) for g in dissolved}
    run.old_aliases.update({i.id: list(i.aliases) for i in run.old_info.values() if i.aliases})


def normalise_added(run: _Run, added: dict[int, list[Ruling]], workers
                    ) -> tuple[list[Ruling], list[Ref], dict[int, list[Rejection]], dict[int, list[Ruling]]]:
    """Normalise the added rulings in place with the corpus word counts (languages detected in the
    workers when there are any); returns (kept rulings, their refs, rejections and language
    mismatches by source number)."""
    corpus = run.corpus
    # lingua's earlier answers: a re-read or changed file does not load its models again for known texts
    corpus.languages = remember_decisions(getattr(corpus, "languages", None) or {})
    detecting = languages_in_workers(workers, added) if workers is not None else None
    for rulings in added.values():
        count_copies(corpus, rulings, +1)
    languages = detecting() if detecting is not None else None
    del detecting
    kept: list[Ruling] = []
    kept_refs: list[Ref] = []
    rejections: dict[int, list[Rejection]] = {}
    mismatches: dict[int, list[Ruling]] = {}
    shared: dict = {}
    for number, rulings in added.items():
        share_strings(rulings, shared)
        # one source at a time (the same decisions as all at once: the word counts are complete),
        # so that no map from every added ruling to its source is needed
        _, rejected = normalise(rulings, corpus.words, languages)
        share_strings(rulings, shared, normalised=True)
        if rejected:
            rejections[number] = rejected
        dropped = {id(rejection.ruling) for rejection in rejected}
        for index, ruling in enumerate(rulings):
            if id(ruling) in dropped:
                continue
            kept.append(ruling)
            kept_refs.append((number, index))
            if declared_disagrees(ruling.declared_lang, ruling.lang):
                mismatches.setdefault(number, []).append(ruling)
    return kept, kept_refs, rejections, mismatches


def place_texts(run: _Run, kept: list[Ruling], kept_refs: list[Ref]) -> list[tuple[str, str]]:
    """Record the kept rulings under their text keys; returns the text keys to group (orphans and new
    texts), in rank order. A text already in a group touches that group."""
    corpus, orphans = run.corpus, run.orphans
    orphan_rulings = run.fetch([ref for key in orphans for ref in corpus.refs[key]])
    best: dict[tuple[str, str], tuple | None] = {}
    for key, old in orphans.items():
        best[key] = min(rank(orphan_rulings[ref]) for ref in corpus.refs[key])
        for ref in corpus.refs[key]:
            run.previous_ids[orphan_rulings[ref].key()] = run.old_info[old].id
    group_of = corpus.grouper.group_of
    for i in rank_order(kept):
        ruling = kept[i]
        same = _same_text(ruling)
        key = corpus.same_text.setdefault(same, (same[0], ruling.match))
        corpus.refs.setdefault(key, []).append(kept_refs[i])
        if key in group_of:
            run.touched.add(group_of[key])
        elif key not in best:
            # without orphans the first appearance in rank order is already the order by best rank,
            # so no rank tuple need be kept per text (memory and time at a million rulings)
            best[key] = rank(ruling) if orphans else None
    return sorted(best, key=best.get) if orphans else list(best)


def group_texts(run: _Run, placed: list[tuple[str, str]], everything: bool, workers) -> None:
    """Dedup: group the placed texts (ingest/dedup.py Grouper.add); everything: touch every group."""
    grouper = run.corpus.grouper
    run.touched |= grouper.add(placed, workers)
    grouper.release_tables()          # the LSH tables and leader forms are rebuilt when next needed
    if everything:
        run.touched = set(grouper.groups)
    release_free_memory()              # what dedup freed goes back before entries are made


def make_entries(run: _Run) -> dict[int, Entry]:
    """The touched groups' entries with their ids (kept, carried or content ids) and Related links."""
    info = run.corpus.info
    entries = _materialize(run.corpus, sorted(run.touched), run.pool, run.fetch)
    fresh = [entries[g] for g in sorted(entries) if g not in info]
    taken = {i.id for g, i in info.items()}
    assign_ids(fresh, run.previous_ids, run.old_aliases, taken)
    for g, entry in entries.items():
        if g in info:
            entry.id, entry.aliases = info[g].id, list(info[g].aliases)
    run.ids = {g: (entries[g].id if g in entries else i.id) for g, i in info.items()}
    run.ids.update({g: e.id for g, e in entries.items()})
    links = run.corpus.grouper.links
    for g, entry in entries.items():
        entry.related = _related(links.get(g, {}), run.ids)
    return entries


def remember_entries(run: _Run, entries: dict[int, Entry]) -> list[int]:
    """Keep each made entry's GroupInfo in the corpus; returns the groups that are new."""
    info = run.corpus.info
    new_groups = [g for g in entries if g not in info]
    alike: dict = {}
    for g, entry in entries.items():
        info[g] = _info(entry, alike)
    return new_groups


def link_translations_of(run: _Run, entries: dict[int, Entry], new_groups: list[int], changed_sets: set[str],
                         everything: bool) -> dict[int, Entry]:
    """Translation links (ingest/translate.py): pairs are formed again within the sets whose rulings or
    entries moved and hold Chinese rulings (every such set when everything, or when no lexicon was
    learnt yet); returns every entry to write (group -> entry) with its translations set."""
    corpus, pool, fetch, ids = run.corpus, run.pool, run.fetch, run.ids
    info, grouper = corpus.info, corpus.grouper
    zh_after = _zh_sets(info.values())
    moved = changed_sets | set().union(*(i.sets for i in run.old_info.values()), *(info[g].sets for g in new_groups))
    rewrite = dict(entries)
    redo = set(zh_after) if everything or corpus.lexicon is None else moved & (run.zh_before | zh_after)
    if redo:
        # pairs are formed within one set, so only the sets whose rulings or entries moved are linked again
        universe = [g for g, i in info.items() if i.sets & redo]
        rest = _materialize(corpus, [g for g in universe if g not in entries], pool, fetch)
        _complete(rest, info, grouper, ids)
        linked = [rest.get(g) or entries[g] for g in universe]
        if everything or corpus.lexicon is None:
            corpus.lexicon = learn_from_entries(linked)
        group_of = {id(v.ruling): g for g in universe for v in (rest.get(g) or entries[g]).variants}
        for code in redo | set(corpus.pairs):
            if code in redo or code not in zh_after:
                corpus.pairs.pop(code, None)
        for zh, en in link_rulings(linked, lexicon=corpus.lexicon):
            code = zh.set_code.upper()
            if code in redo:
                corpus.pairs.setdefault(code, set()).add((group_of[id(zh)], group_of[id(en)]))
        materialized = {**rest, **entries}
    else:
        materialized = dict(entries)
    partners: dict[int, set[int]] = {}
    for found in corpus.pairs.values():
        for a, b in found:
            if a in info and b in info:
                partners.setdefault(a, set()).add(b)
                partners.setdefault(b, set()).add(a)
    extra = []
    for g, i in info.items():
        wanted = tuple(sorted((info[o].id, info[o].lang, info[o].text) for o in partners.get(g, ())))
        if wanted != i.translations or g in entries:
            i.translations = wanted
            if g not in materialized:
                extra.append(g)
            else:
                rewrite[g] = materialized[g]
    more = _materialize(corpus, extra, pool, fetch)
    _complete(more, info, grouper, ids)
    rewrite.update(more)
    for g, entry in rewrite.items():
        entry.translations = [Translation(*t) for t in info[g].translations]
    return rewrite


def _zh_sets(infos) -> frozenset[str]:
    """The set codes of the entries' Chinese variants (GroupInfo.zh_sets), together."""
    return frozenset().union(*(i.zh_sets for i in infos))


def _set_codes(rulings) -> set[str]:
    return {r.set_code.upper() for r in rulings if r.set_code}


class _Pool:
    """The rulings being added, by Ref (source number, index): a view of ``added``, so that no
    dict over every added ruling is built."""

    def __init__(self, added: dict[int, list[Ruling]]):
        self.added = added

    def __contains__(self, ref: Ref) -> bool:
        rulings = self.added.get(ref[0])
        return rulings is not None and 0 <= ref[1] < len(rulings)

    def get(self, ref: Ref) -> Ruling | None:
        """The added ruling at ref, or None when ref is not among them."""
        return self.added[ref[0]][ref[1]] if ref in self else None


def _materialize(corpus: Corpus, groups: list[int], pool: _Pool,
                 fetch: Callable[[list[Ref]], dict[Ref, Ruling]]) -> dict[int, Entry]:
    """Entries (content ids) of these groups from their rulings: in the pool, else fetched."""
    needed = [ref for g in groups for key in corpus.grouper.texts(g) for ref in corpus.refs[key]]
    fetched = fetch([ref for ref in needed if ref not in pool])
    entries = {}
    for g in groups:
        rulings_of = {key: [pool.get(ref) or fetched[ref] for ref in corpus.refs[key]]
                      for key in corpus.grouper.texts(g)}
        entry = corpus.grouper.entry(g, rulings_of)
        entry.sources = frozenset(ref[0] for key in rulings_of for ref in corpus.refs[key])
        entries[g] = entry
    return entries


def _complete(entries: dict[int, Entry], info: dict[int, GroupInfo], grouper: Grouper,
              ids: dict[int, str]) -> None:
    """Fill id, aliases, mechanics (remembered) and Related links of untouched entries materialized again."""
    for g, entry in entries.items():
        entry.id, entry.aliases, entry.mechanics = info[g].id, list(info[g].aliases), list(info[g].mechanics)
        entry.related = _related(grouper.links.get(g, {}), ids)


def _related(partners: dict[int, tuple[float, str]], ids: dict[int, str]) -> list[Related]:
    found = sorted((-sim, ids[p], reason) for p, (sim, reason) in partners.items() if p in ids)
    return [Related(id=other, reason=reason) for _, other, reason in found[:MAX_RELATED]]


def _info(entry: Entry, alike: dict | None = None) -> GroupInfo:
    """What is remembered of a formed entry (GroupInfo).

    alike: a table shared over the entries of one update, so that equal set
    collections, source numbers, language counts and mechanics are one object
    each (a memory saving: most of the 250,000 infos of a million rulings have
    no Chinese sets and the same few language counts and mechanics; the values
    are only read, never changed in place, and pickle keeps the sharing in the
    state).
    """
    keep = (lambda value: value) if alike is None else (lambda value: alike.setdefault(value, value))
    zh_sets = {v.ruling.set_code.upper() for v in entry.variants
               if v.ruling.set_code and v.ruling.lang.startswith("zh")}
    counts = tuple(Counter(v.ruling.lang for v in entry.variants).items())
    langs = dict(counts) if alike is None else alike.setdefault(("langs", counts), dict(counts))
    return GroupInfo(entry.id, entry.lang, entry.text, keep(frozenset(s.upper() for s in entry.sets)),
                     keep(frozenset(zh_sets)), keep(entry.sources), langs,
                     keep(tuple(entry.mechanics)), len(entry.variants),
                     (), tuple(entry.aliases))
