"""How our searches find and score their best hits in Whoosh's posting lists, with Whoosh's scores.

- ``top()`` scores term at a time (``SegmentScores``): each word's posting list is
  read whole, block by block, and scored in one pass; ORs and ANDs combine the
  documents' scores in dictionaries (an AND matches its smallest clause first and
  reads the others only in blocks holding its documents); phrases are checked on
  the positions of the documents holding every word. The scores are Whoosh's
  BM25F scores, summed in the shape of Whoosh's matcher trees, so hits, scores
  and order are those of Whoosh's own collector scoring every match
  (``whoosh_top()``; tests/test_engine_equivalence.py compares them).
- Every match is scored: Whoosh's matcher replacement loses documents of the top N
  (a union becomes an AndMaybeMatcher whose ``skip_to`` leaves its optional side
  behind, whoosh-reloaded 2.7.5 binary.py), and block-quality skipping is unsound
  for a union (a skipped document can meet a later, better block of the other side).
- Deleted documents are left out once, after scoring a segment (Whoosh wraps
  every posting list of a segment with deletions in a FilterMatcher).
- A query node it does not score itself is matched by Whoosh's own matcher, with
  the field lengths read from memory (``with_lengths_in_memory``) and field boosts
  folded into the posting lists' scorers (``without_boost_wrappers``); skips by
  bisection come with the searcher's read codec (reading.py).
- On a Whoosh outside version.TESTED, ``top()`` is ``whoosh_top()``.
"""
from __future__ import annotations

import copy
import heapq
from array import array
from bisect import bisect_left, bisect_right, insort
from collections import OrderedDict
from itertools import accumulate
from pickle import loads

from whoosh import collectors
from whoosh.codec.whoosh3 import W3LeafMatcher, W3PerDocReader
from whoosh.formats import Positions
from whoosh.matching import Matcher, WrappingMatcher
from whoosh.query import And, Not, Or, Phrase, Term
from whoosh.query.compound import DefaultOr
from whoosh.query.spans import Span, SpanNear2
from whoosh.query.wrappers import ConstantScoreQuery
from whoosh.reading import TermNotFound
from whoosh.scoring import BM25F
from whoosh.searching import Results, Searcher

from rulings.search.engine import version
from rulings.search.engine.reading import LENGTH_OF_BYTE, loaded_lengths, memo


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


def without_boost_wrappers(matcher):
    """The matcher tree with each field-boost wrapper around a posting list folded into the list's scorer.

    Whoosh wraps the posting list of a boosted term (``variants:word^0.3``,
    ``cards:word^0.8``: every bare word, index.searched_fields()) in a
    WrappingMatcher that multiplies its score, and every step of the list then
    passes through the wrapper. The list's scorer multiplies instead (``_BoostedScorer``): the same
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
    def make() -> Searcher:
        reader = copy.copy(subsearcher.reader())
        reader.__dict__["deleted_docs_set"] = frozenset()        # Whoosh's cached_property, per instance
        return Searcher(reader, weighting=subsearcher.weighting, closereader=False,
                        fromindex=subsearcher._ix, parent=subsearcher.get_parent())
    return memo(subsearcher, "unfiltered", make)


# ---------------------------------------------------------------- term-at-a-time scoring

def top(searcher: Searcher, query, limit: int) -> Results:
    """Whoosh Results of the query's ``limit`` best-scored live documents, best first.

    On a Whoosh outside version.TESTED: whoosh_top(), Whoosh's own collector scoring every match.

    Scored term at a time (``SegmentScores``), every match of every segment (the
    module docstring says why nothing is skipped). The scores are Whoosh's BM25F
    scores of the same query: the same formula on the same weights, lengths and
    statistics, summed in the shape of Whoosh's matcher trees. Ties go to the
    lower document number, as in Whoosh's TopCollector. Returns a Whoosh Results
    of (score, document number) pairs, best first.
    """
    if not version.internals():
        return whoosh_top(searcher, query, limit)
    context = searcher.context()
    kept = kept_for(searcher, context)
    best: list[tuple[float, int]] = []
    for number, (subsearcher, offset) in enumerate(searcher.leaf_searchers()):
        reader = subsearcher.reader()
        deleted = reader.deleted_docs_set if reader.has_deletions() else ()
        plain = _unfiltered(subsearcher) if deleted else subsearcher
        scores = _live(SegmentScores(searcher, plain, context, kept, number).scores(query), deleted)
        best.extend(_best(scores, limit, offset))
    best.sort(key=_best_first)
    return Results(searcher, query, [(score, docnum) for score, docnum in best[:limit]])


def whoosh_top(searcher: Searcher, query, limit: int) -> Results:
    """Whoosh Results of the query's ``limit`` best-scored live documents by Whoosh's public collector,
    without matcher replacement and block-quality skipping (every match scored by its matcher tree;
    Whoosh's replacement lost documents of the top N, the module docstring says how). The same hits,
    scores and order as top()."""
    collector = collectors.TopCollector(limit=limit, usequality=False, replace=0)
    searcher.search_with_collector(query, collector)
    return collector.results()


def _live(scores: dict[int, float], deleted) -> dict[int, float]:
    """The scores without the segment's deleted documents (in place)."""
    if deleted:
        for docnum in deleted.intersection(scores) if len(deleted) < len(scores) else \
                [docnum for docnum in scores if docnum in deleted]:
            del scores[docnum]
    return scores


def _best_first(item: tuple[float, int]) -> tuple[float, int]:
    return -item[0], item[1]


def _best(scores: dict[int, float], limit: int, offset: int) -> list[tuple[float, int]]:
    """The (score, offset + docnum) of the ``limit`` best documents of one segment, with every document
    that ties the last of them (the final order decides between ties)."""
    if len(scores) > limit:
        floor = min(heapq.nlargest(limit, scores.values())) if limit > 0 else float("inf")
        return [(score, offset + docnum) for docnum, score in scores.items() if score >= floor]
    return [(score, offset + docnum) for docnum, score in scores.items()]


# The most postings whose scores a kept searcher holds (Kept.scores): about 90 bytes each in a dict,
# so about 45 MB; a posting list longer than a quarter of it is not kept.
KEPT_POSTINGS = 500_000
# The most postings with their encoded positions kept for phrases (Kept.positions): about 120 bytes each.
KEPT_POSITIONS = 300_000
# Postings per block of Whoosh's W3 codec (W3Codec blocklimit).
_BLOCK_POSTINGS = 128
# The most term lookups and per-term BM25 constants kept (each constant is two lists of 256 floats).
KEPT_INFOS = 200_000
KEPT_CONSTANTS = 2_000


class Kept:
    """What the searches of one kept searcher share while its index is unchanged (segments are never
    changed in place: an update commits new ones and search/index.py opens a new searcher).

    infos: (segment number, field, term bytes) -> W3TermInfo or None (not in the segment);
    constants: (field, term bytes) -> the term's BM25F constants (SegmentScores._bm25_constants), and
    field -> the field's (SegmentScores._field_norms);
    scores: (segment number, field, term bytes, scored) -> {docnum: score before the term's boost} of
    a whole posting list, least recently used first, holding at most KEPT_POSTINGS postings in all
    (``postings``). A query's common words are then read and scored once per searcher, not once per
    search. Dictionaries handed out are copies: the callers combine scores in place.
    """

    __slots__ = ("infos", "constants", "scores", "postings", "positions", "positions_kept")

    def __init__(self):
        self.infos: dict = {}
        self.constants: dict = {}
        self.scores: OrderedDict = OrderedDict()
        self.postings = 0
        self.positions: OrderedDict = OrderedDict()
        self.positions_kept = 0

    def positions_of(self, key) -> tuple[list, list, list] | None:
        """The kept (document numbers, weights, encoded positions) of a phrase word (read only: the
        caller does not change them), most recently used now; None if not kept."""
        found = self.positions.get(key)
        if found is not None:
            self.positions.move_to_end(key)
        return found

    def keep_positions(self, key, found: tuple[list, list, list]) -> None:
        """Keep a phrase word's postings with their positions, dropping the least recently used past
        KEPT_POSITIONS postings."""
        size = len(found[0])
        if size > KEPT_POSITIONS // 4 or key in self.positions:
            return
        self.positions[key] = found
        self.positions_kept += size
        while self.positions_kept > KEPT_POSITIONS:
            _, dropped = self.positions.popitem(last=False)
            self.positions_kept -= len(dropped[0])

    def scores_of(self, key) -> dict[int, float] | None:
        """The kept scores of a term (the caller copies them), most recently used now; None if not kept."""
        found = self.scores.get(key)
        if found is not None:
            self.scores.move_to_end(key)
        return found

    def keep_scores(self, key, scores: dict[int, float]) -> None:
        """Keep a term's scores (not copied: the caller hands out copies), dropping the least recently
        used past KEPT_POSTINGS."""
        if len(scores) > KEPT_POSTINGS // 4 or key in self.scores:
            return
        self.scores[key] = scores
        self.postings += len(scores)
        while self.postings > KEPT_POSTINGS:
            _, dropped = self.scores.popitem(last=False)
            self.postings -= len(dropped)

    def trim(self) -> None:
        """Forget term lookups and constants past their bounds (called once per search)."""
        if len(self.infos) > KEPT_INFOS:
            self.infos.clear()
        if len(self.constants) > KEPT_CONSTANTS:
            self.constants.clear()


def kept_for(searcher: Searcher, context) -> Kept:
    """The searcher's Kept (made on first use); a fresh one, not kept, for a context whose weighting is
    not the searcher's own (its scores would differ)."""
    if context.weighting is not searcher.weighting:
        return Kept()
    kept = memo(searcher, "kept", Kept)
    kept.trim()
    return kept


class SegmentScores:
    """The scores of a query's matching documents in one segment: ``scores(query) -> {docnum: score}``.

    searcher: the top searcher (global statistics: idf, average field lengths, as
    Whoosh's BM25FScorer takes them from the parent); segment: the searcher of
    one segment whose posting lists are not filtered by deletions (the caller
    drops deleted documents); context: the search context (its weighting);
    kept: what the searches of the top searcher share (Kept: term lookups,
    per-term constants, whole posting lists' scores); number: the segment's
    place among the top searcher's segments.

    Term (exact class): the posting list read whole, each posting scored with
    BM25F (whoosh scoring.py ``bm25``, the field's B, K1, the term's idf, the
    document's field length from the length column held in memory); a field
    that is not scorable scores the weight, as Whoosh's WeightScorer does; times
    the term's boost when it is not 1. Or: each document's scores of the clauses
    it matches, summed. And: documents matching every clause, scores summed; a
    Not clause removes its documents and adds 1.0 (Whoosh's InverseMatcher
    weight). ConstantScoreQuery (query.py's Unscored filter): its child's
    documents, each scored the query's constant. An Or or And of two or more
    clauses multiplies by its boost, as Whoosh's compound matcher does.
    """

    def __init__(self, searcher: Searcher, segment: Searcher, context, kept: Kept, number: int):
        self.searcher, self.segment, self.context, self.kept, self.number = \
            searcher, segment, context, kept, number
        self.reader = segment.reader()
        self.weighting = context.weighting

    def scores(self, query, scored: bool = True, within: Within | None = None) -> dict[int, float]:
        """{docnum in the segment: score} of every document matching the query (scores 0.0 when not
        scored). within: when given, only documents of it are asked for (others may be returned too:
        the caller intersects), so posting blocks holding none of them are not read."""
        kind = type(query)
        if kind is Term:
            return self._term(query, scored, within)
        if kind in (Or, DefaultOr, And) and (kind is And or not (query.minmatch or query.scale)):
            subqueries = query.subqueries
            if len(subqueries) < 2:
                return self.scores(subqueries[0], scored, within) if subqueries else {}
            if kind is And:
                found = self._and(subqueries, scored, within)
            else:
                found = _weighted_tree([(self._size(q), self.scores(q, scored, within)) for q in subqueries],
                                       _union)
            return _times(found, query.boost) if scored else found
        if kind is Phrase:
            return self._phrase(query, scored, within)
        combine = getattr(query, "combine_scores", None)
        if combine is not None:             # search/bestmatch.py BestMatch
            found = combine(self._best_match_parts(query, scored, within),
                            self.scores(query.other_language, False, None))
            return found if scored else dict.fromkeys(found, 0.0)
        if isinstance(query, ConstantScoreQuery):
            return dict.fromkeys(self.scores(query.child, False, within), query.score if scored else 0.0)
        if kind is Not:
            excluded = self.scores(query.query, False, within)
            return dict.fromkeys(self._all(within).difference(excluded), 1.0 if scored else 0.0)
        return self._whoosh(query, scored, within)

    def _best_match_parts(self, query, scored: bool, within: Within | None) -> list[dict[int, float]]:
        """Each subquery's scores for BestMatch.combine_scores; the subqueries that bear no content word
        (function words, proximity pairs) are asked only about the documents the others match, the
        only documents whose score they can change."""
        numbers = range(len(query.subqueries))
        parts: list = [None] * len(numbers)
        for number in numbers:
            if query.bears_content(number):
                parts[number] = self.scores(query.subqueries[number], scored, within)
        matched = set().union(*(part for part in parts if part is not None))
        rest = Within(matched if within is None else within.docnums.intersection(matched))
        for number in numbers:
            if parts[number] is None:
                found = self.scores(query.subqueries[number], scored, rest)
                parts[number] = {docnum: score for docnum, score in found.items() if docnum in rest.docnums}
        return parts

    def _and(self, clauses, scored: bool, within: Within | None) -> dict[int, float]:
        """An AND: its smallest clause is matched first and the others only within its documents; the
        parts are then combined in the shape of Whoosh's intersection tree (weights: minus the sizes)."""
        sizes = [self._size(q) for q in clauses]
        values: list = [None] * len(clauses)
        order = sorted(range(len(clauses)), key=lambda i: (type(clauses[i]) is Not, sizes[i]))
        for i in order:
            clause = clauses[i]
            if type(clause) is Not:
                values[i] = _Excluded(self.scores(clause.query, False, within), 1.0 if scored else 0.0)
                continue
            values[i] = found = self.scores(clause, scored, within)
            if not found:
                return {}
            within = Within(found if within is None else within.docnums.intersection(found))
        found = _weighted_tree([(-size, value) for size, value in zip(sizes, values)], _intersection)
        if isinstance(found, _Excluded):
            return dict.fromkeys(self._all(within).difference(found.docnums), found.score)
        return found

    def _size(self, query) -> int:
        """Whoosh's estimate_size of the query in this segment (the weights of its matcher trees), from
        the kept term lookups for terms, phrases (the least frequent word), ANDs (the smallest clause)
        and ORs (the sum, at most the live documents), as whoosh query/terms.py, positional.py and
        compound.py compute them."""
        kind = type(query)
        if kind is Term:
            return self._frequency(query.fieldname, query.text)
        if kind is Phrase and query.words:
            return min(self._frequency(query.fieldname, word) for word in query.words)
        if kind is And and query.subqueries:
            return min(self._size(q) for q in query.subqueries)
        if kind in (Or, DefaultOr):
            return min(sum(self._size(q) for q in query.subqueries), self.reader.doc_count())
        return query.estimate_size(self.reader)

    def _frequency(self, fieldname: str, text) -> int:
        """The term's document frequency in this segment (Whoosh's doc_frequency); 0 when absent."""
        if fieldname not in self.segment.schema:
            return 0
        try:
            btext = self.segment.schema[fieldname].to_bytes(text)
        except ValueError:
            return 0
        return self._btext_frequency(fieldname, btext)

    def _btext_frequency(self, fieldname: str, btext: bytes) -> int:
        """The document frequency of a term (as bytes) in this segment, from the kept lookups; 0 when absent."""
        info = self._term_info(fieldname, btext)
        return 0 if info is None else info.doc_frequency()

    def _term_info(self, fieldname: str, btext: bytes):
        """The term's W3TermInfo in this segment, or None; looked up once per kept searcher and segment."""
        if not hasattr(self.reader, "_terms"):       # Whoosh's EmptyReader (an index of 0 entries)
            return None
        infos = self.kept.infos
        key = (self.number, fieldname, btext)
        if key not in infos:
            try:
                infos[key] = self.reader._terms.term_info(fieldname, btext)
            except TermNotFound:
                infos[key] = None
        return infos[key]

    def _postings(self, fieldname: str, btext: bytes):
        """The term's posting list in this segment (a W3LeafMatcher without a scorer), or None."""
        if not hasattr(self.reader, "_terms"):
            try:
                return self.reader.postings(fieldname, btext)
            except TermNotFound:
                return None
        info = self._term_info(fieldname, btext)
        if info is None:
            return None
        terms = self.reader._terms
        return terms._codec.postings_reader(terms._postfile, info, self.segment.schema[fieldname].format,
                                            term=(fieldname, btext), scorer=None)

    def _all(self, within: Within | None) -> set[int]:
        return set(range(self.reader.doc_count_all())) if within is None else set(within.docnums)

    def _term(self, query, scored: bool, within: Within | None) -> dict[int, float]:
        fieldname = query.fieldname
        schema = self.segment.schema
        if fieldname not in schema:
            return {}
        field = schema[fieldname]
        try:
            btext = field.to_bytes(query.text)
        except ValueError:
            return {}
        key = (self.number, fieldname, btext, scored)
        scores = self.kept.scores_of(key)
        if scores is not None:
            return _handed_out(scores, within, query.boost)
        postings = self._postings(fieldname, btext)
        if postings is None:
            return {}
        if not isinstance(postings, W3LeafMatcher) or (scored and type(self.weighting) is not BM25F
                                                       and field.scorable):
            return self._whoosh(query, scored, within)
        whole = within is None or self._read_whole(fieldname, btext, len(within.docnums))
        docnums, weights, _ = _read_postings(postings, None if whole else within)
        if not scored:
            scores = dict.fromkeys(docnums, 0.0)
        else:
            scores = self._term_scores(field, fieldname, btext, docnums, weights)
        if not whole:
            return _times(scores, query.boost)
        self.kept.keep_scores(key, scores)
        return _handed_out(scores, within, query.boost)

    def _read_whole(self, fieldname: str, btext: bytes, wanted: int) -> bool:
        """Whether a term asked about ``wanted`` documents (an AND's smaller clauses) is read whole and
        kept: when its postings are few enough to keep and its blocks (W3's 128 postings each) are
        about as many as the documents wanted, so that nearly every block would be read anyway."""
        frequency = self._btext_frequency(fieldname, btext)
        return frequency <= KEPT_POSTINGS // 4 and frequency <= _BLOCK_POSTINGS * wanted

    def _term_scores(self, field, fieldname: str, btext: bytes, docnums: list[int],
                     weights: list[float]) -> dict[int, float]:
        """{docnum: score} of a term's postings before its boost (BM25F; the weight in a field that is
        not scorable)."""
        if field.scorable:
            idf, norms, once = self._bm25_constants(fieldname, btext)
            lengths = loaded_lengths(self.reader._perdoc, fieldname)
            k1_plus_1 = self.weighting.K1 + 1
            scores = {docnum: once[lengths[docnum]] if tf == 1.0 else
                      idf * ((tf * k1_plus_1) / (tf + norms[lengths[docnum]]))
                      for docnum, tf in zip(docnums, weights)}
        else:
            scores = dict(zip(docnums, weights))
        return scores

    def _phrase(self, query, scored: bool, within: Within | None) -> dict[int, float]:
        """A phrase as Whoosh matches it (query/positional.py Phrase.matcher: SpanNear2 of its words,
        ordered, within ``slop`` positions, mindist 1): documents holding every word with spans that
        SpanNear2's own ``_get_spans`` accepts, scored the sum of the words' BM25F scores in the order of
        Whoosh's intersection tree (util make_binary_tree), times the phrase's boost. The rarest word's
        postings are read first; a word's positions are decoded only for documents holding every word
        (``_positions`` says which posting lists are read whole and kept)."""
        fieldname = query.fieldname
        schema = self.segment.schema
        if fieldname not in schema:
            return {}
        field = schema[fieldname]
        if not field.format or not field.format.supports("positions") or not field.scorable \
                or type(self.weighting) is not BM25F:
            return self._whoosh(query, scored, within)
        lists = []
        for word in query.words:
            try:
                btext = field.to_bytes(word)
            except ValueError:
                return {}
            postings = self._postings(fieldname, btext)
            if postings is None:
                return {}
            if not isinstance(postings, W3LeafMatcher) or postings._fixedsize is not None:
                return self._whoosh(query, scored, within)
            lists.append((btext, postings))
        if not lists:
            return {}
        words: list = [None] * len(lists)
        for i in sorted(range(len(lists)), key=lambda i: lists[i][1]._length):
            btext, postings = lists[i]
            words[i] = (btext, read := self._positions(fieldname, btext, postings, within))
            if not read[0]:
                return {}
            within = Within(read[0] if within is None else within.docnums.intersection(read[0]))
        docnums = within.docnums.intersection(*(read[0] for _, read in words))
        if not docnums:
            return {}
        decode = _decode_positions if type(field.format).decode_positions is Positions.decode_positions \
            else field.format.decoder("positions")
        candidates = sorted(docnums)
        where = [_places(read, candidates) for _, read in words]
        values = [read[2] for _, read in words]
        matches = _adjacent if query.slop == 1 else _near(query.slop, len(words))
        lengths = loaded_lengths(self.reader._perdoc, fieldname)
        constants = [self._bm25_constants(fieldname, w[0])[:2] for w in words]
        k1_plus_1 = self.weighting.K1 + 1
        found = {}
        for docnum in candidates:
            at = [place[docnum] for place in where]
            if not matches(values, at, decode):
                continue
            if not scored:
                found[docnum] = 0.0
                continue
            length = lengths[docnum]
            found[docnum] = _binary_sum([idf * ((tf * k1_plus_1) / (tf + norms[length]))
                                         for (idf, norms), tf in
                                         zip(constants, (read[1][i] for (_, read), i in zip(words, at)))])
        return _times(found, query.boost) if scored else found

    def _positions(self, fieldname: str, btext: bytes, postings: W3LeafMatcher, within: Within | None) -> list:
        """[document numbers, weights, encoded positions, {docnum: place in them} or None] of a phrase
        word. A posting list of at most a quarter of KEPT_POSITIONS postings is read whole and kept with
        the searcher (Kept.positions): the common words of phrases (the, to, of) recur in many phrases,
        and the blocks of a common word that hold a rarer word's documents are nearly all of them
        anyway. A longer one is read only in the blocks that may hold documents of ``within``."""
        if self._btext_frequency(fieldname, btext) > KEPT_POSITIONS // 4:
            return [*_read_postings(postings, within, values=True), None]
        key = (self.number, fieldname, btext)
        found = self.kept.positions_of(key)
        if found is None:
            found = [*_read_postings(postings, None, values=True), None]
            self.kept.keep_positions(key, found)
        return found

    def _bm25_constants(self, fieldname: str, btext: bytes) -> tuple[float, list[float], list[float]]:
        """The term's idf; per length byte, ``K1 * ((1 - B) + B * length / avgfl)`` (whoosh scoring.py
        bm25's denominator without tf, the same operations in the same order); and per length byte
        the whole bm25 score of a posting of weight 1.0 (most postings: the word once), the idf times
        the field's ``(K1 + 1) / (1.0 + norm)`` (bm25's ``(tf * (K1 + 1)) / (tf + norm)`` at tf 1.0, the
        same float)."""
        key = (fieldname, btext)
        constants = self.kept.constants
        kept = constants.get(key)
        if kept is None:
            norms, unit = self._field_norms(fieldname)
            idf = self.searcher.idf(fieldname, btext)
            kept = constants[key] = (idf, norms, [idf * part for part in unit])
        return kept

    def _field_norms(self, fieldname: str) -> tuple[list[float], list[float]]:
        """The field's per-length-byte bm25 denominators without tf, and ``(K1 + 1) / (1.0 + norm)`` of
        each: the same for every term of the field (kept under the field's name)."""
        constants = self.kept.constants
        kept = constants.get(fieldname)
        if kept is None:
            weighting = self.weighting
            b = weighting._field_B.get(fieldname, weighting.B)
            k1 = weighting.K1
            avgfl = self.searcher.avg_field_length(fieldname) or 1
            norms = [k1 * ((1 - b) + b * (length or 0) / avgfl) for length in LENGTH_OF_BYTE]
            kept = constants[fieldname] = (norms, [(k1 + 1) / (1.0 + norm) for norm in norms])
        return kept

    def _whoosh(self, query, scored: bool, within: Within | None = None) -> dict[int, float]:
        """Scores from Whoosh's own matcher for the query node (with this module's faster steps); within:
        as scores() (here only a filter of the answer)."""
        segment = self.segment
        context = self.context if scored else segment.boolean_context()
        matcher = query.matcher(segment, context).replace(0)
        found: dict[int, float] = {}
        if not matcher.is_active():
            return found
        if not scored:
            found = dict.fromkeys(matcher.all_ids(), 0.0)
        else:
            matcher = with_lengths_in_memory(without_boost_wrappers(matcher), self.reader._perdoc)
            while matcher.is_active():
                found[matcher.id()] = matcher.score()
                matcher.next()
        if within is not None:
            keep = within.docnums
            return {docnum: score for docnum, score in found.items() if docnum in keep}
        return found


class Within:
    """The documents a clause is asked about (an AND's smaller clauses' documents): a set and, made
    when first needed, the same document numbers sorted."""

    __slots__ = ("docnums", "_sorted")

    def __init__(self, docnums):
        self.docnums = docnums if isinstance(docnums, (set, frozenset)) else set(docnums)
        self._sorted = None

    def sorted(self) -> list[int]:
        if self._sorted is None:
            self._sorted = sorted(self.docnums)
        return self._sorted


def _handed_out(kept: dict[int, float], within: Within | None, boost: float) -> dict[int, float]:
    """A term's kept scores as its caller gets them: only the documents of ``within`` when fewer, times
    the boost, always a new dict (callers combine scores in place)."""
    if within is not None and len(within.docnums) < len(kept):
        return _times({docnum: kept[docnum] for docnum in within.docnums if docnum in kept}, boost)
    return dict(kept) if boost == 1.0 else _times(kept, boost)


def _times(scores: dict[int, float], boost: float) -> dict[int, float]:
    """The scores times a query's boost (Whoosh's WrappingMatcher arithmetic); the same dict for 1.0."""
    if boost == 1.0:
        return scores
    return {docnum: score * boost for docnum, score in scores.items()}


class _Excluded:
    """An AND's NOT clauses: the documents they exclude (every other document matches, scoring ``score``)."""

    __slots__ = ("docnums", "score")

    def __init__(self, docnums, score: float):
        self.docnums, self.score = docnums, score


def _weighted_tree(parts: list[tuple[int, object]], combine):
    """Combine the parts pairwise in the shape of Whoosh's matcher tree (whoosh util make_weighted_tree:
    the two lightest first, the result inserted after parts of equal weight; Whoosh's sort and insort
    never order matchers of equal weight, so ties keep their order). parts: (weight, value).

    Scores are then summed in the very order Whoosh's union and intersection matchers sum them."""
    items = [(weight, number, value) for number, (weight, value) in enumerate(parts)]
    items.sort(key=_weight_and_number)
    number = len(items)
    while len(items) > 1:
        (weight_a, _, a), (weight_b, _, b) = items[0], items[1]
        del items[:2]
        insort(items, (weight_a + weight_b, number, combine(a, b)), key=_weight_and_number)
        number += 1
    return items[0][2]


def _weight_and_number(item) -> tuple[int, int]:
    return item[0], item[1]


def _union(a: dict[int, float], b: dict[int, float]) -> dict[int, float]:
    """Documents of either side, scored a + b where both match (UnionMatcher); reuses the larger dict."""
    if len(a) < len(b):
        a, b = b, a
    get = a.get
    for docnum, score in b.items():
        a[docnum] = get(docnum, 0.0) + score
    return a


def _intersection(a, b):
    """Documents of both sides, scored a + b (IntersectionMatcher); an _Excluded side adds its score."""
    if isinstance(a, _Excluded) and isinstance(b, _Excluded):
        return _Excluded(set(a.docnums).union(b.docnums), a.score + b.score)
    if isinstance(b, _Excluded):
        a, b = b, a
    if isinstance(a, _Excluded):
        excluded, plus = a.docnums, a.score
        return {docnum: score + plus for docnum, score in b.items() if docnum not in excluded}
    if len(a) > len(b):
        a, b = b, a
    return {docnum: score + b[docnum] for docnum, score in a.items() if docnum in b}


def _places(read: list, candidates: list[int]) -> dict[int, int]:
    """{docnum: its place in the postings} of a phrase word's [docnums, weights, values, places] for
    the candidates (sorted; every one in the postings). The whole map is made once and kept in it
    (read[3]), so kept postings make it once per searcher; for candidates fewer than a
    _BISECTED_SHARE of the postings, while none is kept, their places are found by bisection instead."""
    if read[3] is None:
        docnums = read[0]
        if len(candidates) * _BISECTED_SHARE < len(docnums):
            return {docnum: bisect_left(docnums, docnum) for docnum in candidates}
        read[3] = dict(zip(docnums, range(len(docnums))))
    return read[3]


# _places() bisects for candidates fewer than the postings divided by this (a map of every posting
# then costs more than bisecting for each candidate).
_BISECTED_SHARE = 16


def _binary_sum(scores: list[float]) -> float:
    """The sum in the shape of util make_binary_tree: first half's sum + second half's sum."""
    if len(scores) == 1:
        return scores[0]
    half = len(scores) // 2
    return _binary_sum(scores[:half]) + _binary_sum(scores[half:])


def _decode_positions(value: bytes) -> list[int]:
    """A Positions-format posting value's positions: whoosh formats.py Positions.decode_positions (a
    4-byte count, then the pickled position deltas, the pickle's final STOP byte possibly left off).
    The caller does not change the list: decoded values are kept (_DECODED; a value is the same bytes
    wherever the same positions occur)."""
    found = _DECODED.get(value)
    if found is None:
        if len(_DECODED) >= _DECODED_MOST:
            _DECODED.clear()
        found = _DECODED[value] = list(accumulate(loads(value[4:] if value.endswith(b".") else value[4:] + b".")))
    return found


# Decoded positions values (_decode_positions): at most this many, then started anew.
_DECODED: dict[bytes, list[int]] = {}
_DECODED_MOST = 100_000


def _adjacent(values: list[list], at: list[int], decode) -> bool:
    """Whether the words stand at consecutive positions somewhere in the document: SpanNear2 with slop 1,
    ordered, mindist 1 accepts exactly that (each next word's span must start one past the end of the
    spans so far). values: each word's encoded values of its posting list; at: the index of the
    document's posting in each."""
    starts = set(decode(values[0][at[0]]))
    for offset in range(1, len(values)):
        starts.intersection_update([position - offset for position in decode(values[offset][at[offset]])])
        if not starts:
            return False
    return bool(starts)


def _near(slop: int, count: int):
    """A test of one document's word positions by Whoosh's own SpanNear2 span logic (any slop)."""
    near = _Near(slop, [_WordSpans() for _ in range(count)])

    def matches(values: list[list], at: list[int], decode) -> bool:
        for spans, encoded, i in zip(near.ms, values, at):
            spans.found = [Span(position) for position in decode(encoded[i])]
        return bool(_GET_SPANS(near))
    return matches


class _WordSpans:
    """One word's spans in one document, as a posting list's ``spans()`` gives them."""

    __slots__ = ("found",)

    def spans(self) -> list:
        return self.found


class _Near:
    """What SpanNear2Matcher._get_spans reads of its matcher: a phrase's slop, order, minimum distance
    and its words' spans."""

    __slots__ = ("slop", "ordered", "mindist", "ms")

    def __init__(self, slop: int, words: list[_WordSpans]):
        self.slop, self.ordered, self.mindist, self.ms = slop, True, 1, words


_GET_SPANS = SpanNear2.SpanNear2Matcher._get_spans


def _read_postings(postings: W3LeafMatcher, within: Within | None = None, values: bool = False) -> tuple:
    """(document numbers, weights, encoded values or None) of a W3 posting list, block by block
    (whoosh3.py W3LeafMatcher ``_read_ids``/``_read_weights``/``_read_values``: ids delta-coded per
    block unless byte ids; weights an array of float32, one float for the block or None for 1.0).

    within: when given, a block is read only if it may hold one of these documents (its numbers run
    from just past the previous block's last to its own last, ``_maxid``); its every posting is kept."""
    docnums: list[int] = []
    weights: list[float] = []
    encoded: list | None = [] if values else None
    wanted = None if within is None else within.sorted()
    previous = -1
    while postings.is_active():
        last = postings._maxid
        if wanted is not None:
            at = bisect_right(wanted, previous)
            previous = last
            if at == len(wanted):
                break
            if wanted[at] > last:
                postings._next_block()
                continue
        postings._read_data()
        data = postings._data
        ids, block_weights = data[0], data[1]
        count = postings._blocklength
        docnums.extend(ids if postings._byteids else accumulate(ids))
        if block_weights is None:
            weights.extend([1.0] * count)
        elif isinstance(block_weights, float):
            weights.extend(array("f", [block_weights]).tolist() * count)
        else:
            weights.extend(block_weights)
        if values:
            encoded.extend(data[2])
        postings._next_block()
    return docnums, weights, encoded
