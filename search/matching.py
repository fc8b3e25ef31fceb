"""How our searches collect and step through Whoosh's posting lists: faults and hot paths of
whoosh-reloaded 2.7.5's matching, fixed without changing a score.

- Collection (``top()``, ``LiveTopCollector``): Whoosh's matcher replacement lost
  documents of the top N (a union becomes an AndMaybeMatcher whose skip_to leaves
  its optional side behind), so our searches collect every match without it.
- Deleted documents: Whoosh wraps every posting list of a segment with deletions in
  a FilterMatcher (half of the matching calls of a word query on an updated
  million-ruling index); they are left out once, at collection.
- A document's field length was read from the segment file for every scored
  posting (``doc_field_length``: 15 % of a word query's time at a million rulings).
- skip_to within a block moved one posting at a time (``skip_to``, below).
- A boosted field clause (every bare word searches ``variants^0.3``, ``cards^0.8``)
  wrapped its posting list in a WrappingMatcher that every step passed through
  (``without_boost_wrappers``: the boost goes into the list's scorer instead).

Skipping by bisection:

whoosh-reloaded 2.7.5's W3 posting matcher (codec/whoosh3.py ``W3LeafMatcher.skip_to``)
moves to a target document inside a block of up to 128 postings by calling ``next()``
and ``id()`` once per posting it passes. Every intersection steps its sides with
``skip_to`` (two words, a word and a filter, a phrase's words), so on the real
corpus a third of a query's matching time was that Python loop (628,727 ``id()``
calls for the benchmark's 200 queries). The block's document numbers are a sorted
sequence once decoded, so the same position is found with ``bisect``: the same
documents, in the same order, with the same weights and scores.

``install()`` puts skip_to and doc_field_length on Whoosh's classes (idempotent); search/query.py
calls it when it is imported, so every search of the process uses it.
"""

from __future__ import annotations

import copy
from bisect import bisect_left

from whoosh import collectors
from whoosh.codec.whoosh3 import (
    LENGTHS_COLUMN,
    W3LeafMatcher,
    W3PerDocReader,
    _lenfield,
)
from whoosh.matching import Matcher, ReadTooFar, WrappingMatcher
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length

# Whoosh's own methods, kept for tests that compare.
LINEAR_SKIP_TO = W3LeafMatcher.skip_to
ORIG_DFL = W3PerDocReader.doc_field_length


def skip_to(self, targetid: int) -> None:
    """Move the matcher to the first posting whose document number is >= targetid.

    Same contract as Whoosh's ``Matcher.skip_to``: raises ReadTooFar when the
    matcher is no longer active; does nothing when the current posting is at or
    past targetid; becomes inactive when no posting is left at or past it.
    Whole blocks are skipped by their last document number, as Whoosh does;
    within the block, the position is found by bisection over its decoded ids.
    """
    if not self.is_active():
        raise ReadTooFar
    if self._ids is None:
        self._read_ids()
    if targetid <= self._ids[self._i]:
        return
    if targetid > self._maxid:
        while self.is_active() and targetid > self._maxid:
            self._next_block()
        if not self.is_active():
            return
        if self._ids is None:
            self._read_ids()
    # the block's last id (_maxid) is >= targetid, so the position is inside the block
    self._i = bisect_left(self._ids, targetid, self._i, self._blocklength)


def doc_field_length(self, docnum: int, fieldname: str, default=0):
    """A document's length in a field (tokens, Whoosh's one-byte approximation), from lengths held in memory.

    Same answers as Whoosh's ``W3PerDocReader.doc_field_length``; each field's
    length column (one byte per document of the segment) is read into memory the
    first time it is asked for and kept with the per-document reader, instead of
    being looked up in the file for every posting scored. default: the answer for
    a field that keeps no lengths. Raises IndexError past the segment's documents.
    """
    lengths = loaded_lengths(self, fieldname)
    if lengths is None:
        return default
    lbyte = lengths[docnum]
    return byte_to_length(lbyte) if lbyte else None


def loaded_lengths(perdoc: W3PerDocReader, fieldname: str):
    """The field's length bytes for every document of the segment (read once, kept with the per-document
    reader); None for a field that keeps no lengths. search/index.py's flush reads lengths through it too."""
    kept = perdoc.__dict__.setdefault("_loaded_lengths", {})
    lengths = kept.get(fieldname, False)
    if lengths is False:
        column = perdoc._cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
        lengths = kept[fieldname] = None if column is None else column.load()
    return lengths


# Whoosh's length byte -> length; 0 (no length recorded) -> None, as W3PerDocReader answers.
LENGTH_OF_BYTE = (None, *(byte_to_length(b) for b in range(1, 256)))


def with_lengths_in_memory(matcher, perdoc: W3PerDocReader):
    """The matcher tree with each posting list's scorer reading document lengths straight from memory.

    Whoosh's length scorers (BM25F: scoring.py WeightLengthScorer) ask
    ``searcher.doc_field_length`` for every posting scored, four calls deep to
    the per-document reader; here their ``dfl`` looks the length byte up in the
    segment's loaded column (``loaded_lengths``) and the byte up in a table:
    the same lengths (default 1 for a field without lengths, as the scorer asks).
    perdoc: the segment's per-document reader. Walks as without_boost_wrappers().
    """
    if isinstance(matcher, W3LeafMatcher):
        scorer = matcher.scorer
        scorer = getattr(scorer, "scorer", scorer)          # under a _BoostedScorer
        if getattr(scorer, "dfl", None) is not None and matcher._term is not None:
            lengths = loaded_lengths(perdoc, matcher._term[0])
            scorer.dfl = (lambda docnum: 1) if lengths is None else \
                (lambda docnum, lengths=lengths, table=LENGTH_OF_BYTE: table[lengths[docnum]])
        return matcher
    for side in ("a", "b", "child"):
        child = getattr(matcher, side, None)
        if isinstance(child, Matcher):
            with_lengths_in_memory(child, perdoc)
    return matcher


class LiveTopCollector(collectors.TopCollector):
    """Whoosh's TopCollector without matcher replacement, leaving deleted documents out once, as matches
    are collected.

    Replacement (whoosh-reloaded 2.7.5 collectors.py ``replace``) rebuilds the
    matcher while collecting, once the N-th best score is known: a union whose
    one side cannot reach that score alone becomes an AndMaybeMatcher, whose
    ``skip_to`` moves the optional side to the target instead of to where the
    required side landed (binary.py). The optional side's score is then lost for
    the document skipped to, and a document that belonged in the top N falls out
    (``strike`` on the million-ruling benchmark index lost its best hit,
    18.382 scored as 15.413; four of nine common words lost hits there).
    So nothing is replaced while collecting; each segment's matcher is rid once
    of the clauses that match nothing there (``replace(0)``, which applies no
    score bound). Block-quality skipping is off too: a union skips one side's
    blocks by the other side's *current* block bound, though a document of a
    skipped block can meet a later, better block of the other side; with BM25F
    over several fields it skipped almost nothing anyway (same time without it).

    Whoosh excludes a segment's deleted documents by wrapping each of its
    posting lists in a FilterMatcher (reading.py ``SegmentReader.postings``),
    so every step of every matcher of the query passes through the wrapper.
    Here a segment with deletions is matched through a copy of its reader that
    reports none, and a matched document is dropped when it is deleted: the
    same documents with the same scores (a document's score never depends on
    which other documents match). Statistics (document frequencies, average
    lengths) come from the same parent searcher.
    """

    def __init__(self, limit: int):
        super().__init__(limit=limit, usequality=False)
        self.replace = 0

    def set_subsearcher(self, subsearcher, offset):
        reader = subsearcher.reader()
        self.deleted = reader.deleted_docs_set if reader.has_deletions() else frozenset()
        super().set_subsearcher(_unfiltered(subsearcher) if self.deleted else subsearcher, offset)
        # a word absent from a field of this segment is a NullMatcher inside a union, stepped over at
        # every posting; replace(0) removes such clauses and nothing else (no score bound at 0)
        self.matcher = with_lengths_in_memory(without_boost_wrappers(self.matcher.replace(0)),
                                              self.subsearcher.reader()._perdoc)

    def collect_matches(self):
        deleted = self.deleted
        if not deleted:
            return super().collect_matches()
        collect = self.collect
        for docnum in self.matches():
            if docnum not in deleted:
                collect(docnum)


def without_boost_wrappers(matcher):
    """The matcher tree with each field-boost wrapper around a posting list folded into the list's scorer.

    Whoosh wraps the posting list of a boosted term (``variants:word^0.3``,
    ``cards:word^0.8``: every bare word, index.searched_fields()) in a
    WrappingMatcher that multiplies its score, and every step of the list then
    passes through the wrapper (17 % of a word query's calls at a million
    rulings). The list's scorer multiplies instead (``_BoostedScorer``): the same
    product, so the same scores. Binary matchers (``a``/``b``) and wrappers
    (``child``) are walked; other matchers are left as they are. Returns the new
    root (the root itself may have been a boost wrapper).
    """
    if type(matcher) is WrappingMatcher and isinstance(matcher.child, W3LeafMatcher):
        leaf = matcher.child
        leaf.scorer = _BoostedScorer(leaf.scorer, matcher.boost)
        return leaf
    for side in ("a", "b", "child"):
        child = getattr(matcher, side, None)
        if isinstance(child, Matcher):
            setattr(matcher, side, without_boost_wrappers(child))
    return matcher


class _BoostedScorer:
    """A posting list's scorer times a query boost: ``WrappingMatcher(m, boost)``'s arithmetic."""

    __slots__ = ("scorer", "boost")

    def __init__(self, scorer, boost: float):
        self.scorer, self.boost = scorer, boost

    def score(self, matcher) -> float:
        return self.scorer.score(matcher) * self.boost

    def supports_block_quality(self) -> bool:
        return self.scorer.supports_block_quality()

    def max_quality(self) -> float:
        return self.scorer.max_quality() * self.boost

    def block_quality(self, matcher) -> float:
        return self.scorer.block_quality(matcher) * self.boost


def _unfiltered(subsearcher: Searcher) -> Searcher:
    """The searcher of one segment over a copy of its reader whose posting lists are not wrapped in a
    filter of deleted documents; made once per kept searcher."""
    made = subsearcher.__dict__.get("_unfiltered")
    if made is None:
        reader = copy.copy(subsearcher.reader())
        reader.__dict__["deleted_docs_set"] = frozenset()        # Whoosh's cached_property, per instance
        made = Searcher(reader, weighting=subsearcher.weighting, closereader=False,
                        fromindex=subsearcher._ix, parent=subsearcher.get_parent())
        subsearcher.__dict__["_unfiltered"] = made
    return made


def top(searcher: Searcher, query, limit: int):
    """Whoosh Results of the query's ``limit`` best-scored live documents (LiveTopCollector)."""
    collector = LiveTopCollector(limit=limit)
    searcher.search_with_collector(query, collector)
    return collector.results()


def install() -> None:
    """Make Whoosh's W3 matcher skip by bisection and read field lengths from memory; safe to call again."""
    W3LeafMatcher.skip_to = skip_to
    W3PerDocReader.doc_field_length = doc_field_length
