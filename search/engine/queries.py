"""Query nodes and helpers built on Whoosh's public matcher seams (a Query whose matcher() is a
ListMatcher of precomputed documents and scores, a wrapper matcher), for search/query.py and
search/bestmatch.py, which import no Whoosh matcher module themselves."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from whoosh.matching import ListMatcher, NullMatcher
from whoosh.matching.wrappers import ConstantScoreWrapperMatcher
from whoosh.query import Query, TermRange
from whoosh.query.wrappers import ConstantScoreQuery

__all__ = ["DateRange", "Unscored", "listed", "merge_matched_tokens", "scores_of"]


class Unscored(ConstantScoreQuery):
    """A filter inside a scored query: the documents of its child, each adding 0 to the score.

    ``And([words, Unscored(filter)])`` ranks exactly as the words alone over the
    filtered documents, and steps through the filter's postings alongside the
    words' instead of first collecting every document of the filter (Whoosh's
    ``search(filter=...)`` builds a set of all of them per query).
    """

    boost = 1.0         # Whoosh's query normalisation multiplies boosts through nested ANDs; 0 * boost is 0

    def __init__(self, child: Query, score: float = 0.0):
        super().__init__(child, score)

    def matcher(self, searcher, context=None):
        child = self.child.matcher(searcher, context)
        return child if not child.is_active() else _UnscoredMatcher(child, 0.0)


class _UnscoredMatcher(ConstantScoreWrapperMatcher):
    """Scores 0 and is never dropped or skipped by block quality (a top-k search's pruning must
    advance the scored side of an intersection, not the filter)."""

    def supports_block_quality(self):
        return False

    def replace(self, minquality=0):
        child = self.child.replace(0)
        if not child.is_active():
            return NullMatcher()
        return self if child is self.child else _UnscoredMatcher(child, 0.0)


class DateRange(TermRange):
    """A range of ISO date terms matched through one sorted list of document numbers.

    Whoosh's union of many term matchers under ``ANDNOT`` can step past its end
    (IndexError in W3LeafMatcher.id, whoosh-reloaded 2.7.5); a ListMatcher of
    the materialised docnums has no such state, and a date filter needs no score.
    """

    def matcher(self, searcher, context=None):
        reader = searcher.reader()
        ids = set()
        for fieldname, btext in self.expanded_terms(reader):
            ids.update(reader.postings(fieldname, btext).all_ids())
        if not ids:
            return NullMatcher()
        return ListMatcher(sorted(ids), all_weights=self.boost)


def listed(scores: dict[int, float]):
    """A matcher of these documents of one segment ({docnum: score}) in document order, each scoring
    its score (a ListMatcher; a NullMatcher when there are none)."""
    if not scores:
        return NullMatcher()
    docnums = sorted(scores)
    return ListMatcher(docnums, weights=[scores[docnum] for docnum in docnums])


def scores_of(query: Query, searcher, context=None, scored: bool = True) -> dict[int, float]:
    """{docnum: score} of every document of one segment's searcher that the query matches, by Whoosh's
    own matcher tree without replacement (scores 0.0 when not scored)."""
    matcher = query.matcher(searcher, context)
    if not scored:
        return dict.fromkeys(matcher.all_ids(), 0.0) if matcher.is_active() else {}
    found = {}
    while matcher.is_active():
        found[matcher.id()] = matcher.score()
        matcher.next()
    return found


def merge_matched_tokens(tokens: Iterable) -> Iterator:
    """Consecutive matched Whoosh tokens that touch or overlap made one (copies), as Whoosh's
    Highlighter merges them before fragmenting (highlight.py ``_merge_matched_tokens``)."""
    token = None
    for t in tokens:
        if not t.matched:
            if token is not None:
                yield token
                token = None
            yield t
            continue
        if token is None:
            token = t.copy()
        elif t.startchar <= token.endchar:
            if t.endchar > token.endchar:
                token.text += t.text[token.endchar - t.endchar:]
                token.endchar = t.endchar
        else:
            yield token
            token = None
            yield t
    if token is not None:
        yield token
