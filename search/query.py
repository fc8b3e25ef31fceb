"""Queries over the entry index: keyword search with filters, card lookup, mechanic listing.

The query language is parsed by Whoosh's QueryParser over the ``text``,
``cards`` and ``mechanics`` fields (BM25F), all words required. Filters are
applied as Whoosh filter queries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from whoosh import highlight, qparser
from whoosh.query import And, Every, NullQuery, Or, Term, TermRange

from ingest.errors import QueryError
from search import index
from search.analysis import card_key

LANG_GROUPS = {"zh": ("zh-hans", "zh-hant")}


@dataclass
class Filters:
    """Search filters: every mechanic id must be present; dates are ISO strings, inclusive."""

    mechanics: list[str] = field(default_factory=list)
    card: str | None = None
    set_code: str | None = None
    lang: str | None = None
    since: str | None = None
    until: str | None = None

    def any(self) -> bool:
        """True when at least one filter is set."""
        return bool(self.mechanics or self.card or self.set_code or self.lang or self.since or self.until)


def filter_query(filters: Filters):
    """The Whoosh query selecting entries that pass every filter (Every() when none)."""
    parts = []
    for mechanic in filters.mechanics:
        parts.append(Term("mechanics", mechanic.lower()))
    if filters.card:
        parts.append(Term("card_keys", card_key(filters.card)))
    if filters.set_code:
        parts.append(Term("sets", filters.set_code.lower()))
    if filters.lang:
        lang = filters.lang.lower()
        group = LANG_GROUPS.get(lang, (lang,))
        parts.append(Or([Term("lang", code) for code in group]))
    if filters.since or filters.until:
        parts.append(TermRange("date", filters.since or "0000", filters.until or "9999"))
    if not parts:
        return Every()
    return And(parts) if len(parts) > 1 else parts[0]


def parse(ix, text: str):
    """Parse a user query over text, cards and mechanics; all words must match.

    Raises QueryError for a query with no searchable words.
    """
    parser = qparser.MultifieldParser(["text", "cards", "mechanics"], ix.schema,
                                      group=qparser.AndGroup)
    parser.remove_plugin_class(qparser.FieldsPlugin)
    parser.remove_plugin_class(qparser.WildcardPlugin)
    query = parser.parse(text)
    if query is None or query is NullQuery or not list(query.iter_all_terms(phrases=True)):
        raise QueryError(f"query {text!r} has no words to search for")
    return query


def search(index_dir: Path, text: str | None, filters: Filters | None = None, limit: int = 20) -> list[dict]:
    """Entries matching a query and filters, best first (entries in JSON shape with score and snippet).

    text may be None or empty only when a filter is given; raises QueryError otherwise.
    """
    filters = filters or Filters()
    if not (text and text.strip()) and not filters.any():
        raise QueryError("empty query: give words to search for or a filter")
    ix = index.open_index(index_dir)
    with ix.searcher() as searcher:
        if text and text.strip():
            query = parse(ix, text)
            # no filter at all rather than Every(): Whoosh would build a set of every document per query
            chosen = filter_query(filters) if filters.any() else None
            hits = searcher.search(query, filter=chosen, limit=limit, terms=True)
        else:
            hits = searcher.search(filter_query(filters), limit=limit)
        hits.fragmenter = highlight.SentenceFragmenter(maxchars=300)
        hits.formatter = highlight.UppercaseFormatter()
        results = []
        for hit in hits:
            entry = json.loads(hit["entry"])
            entry["score"] = round(hit.score or 0.0, 3)
            entry["snippet"] = snippet(hit, entry["text"]) if text else entry["text"][:300]
            results.append(entry)
    return results


class _MarkFormatter(highlight.Formatter):
    def format_token(self, text, token, replace=False):
        return "**" + highlight.get_text(text, token, replace) + "**"


def snippet(hit, text: str) -> str:
    """The canonical text's best fragment with matched words as ``**word**`` (original spelling)."""
    try:
        hit.results.formatter = _MarkFormatter()
        fragment = hit.highlights("text", text=text, top=2)
    except Exception:  # highlighting is cosmetic; never fail a search over it
        fragment = ""
    return fragment or text[:300]


def entries_for_card(index_dir: Path, name: str) -> list[dict]:
    """Every entry that applies to the card (full name or either face), oldest first, stable by id."""
    ix = index.open_index(index_dir)
    with ix.searcher() as searcher:
        docs = searcher.search(Term("card_keys", card_key(name)), limit=None)
        entries = [json.loads(hit["entry"]) for hit in docs]
    return sorted(entries, key=lambda e: (min(e["dates"]) if e["dates"] else "9999", e["id"]))


def entry_by_id(index_dir: Path, entry_id: str) -> dict | None:
    """The entry with this id or alias, or None."""
    ix = index.open_index(index_dir)
    with ix.searcher() as searcher:
        fields = searcher.document(id=entry_id)
        if fields is not None:
            return json.loads(fields["entry"])
    for entry in index.all_entries(index_dir):
        if entry_id in entry.get("aliases", []):
            return entry
    return None


def mechanic_counts(index_dir: Path, lang: str | None = None) -> dict[str, int]:
    """Number of entries tagged with each mechanic id (optionally in one language)."""
    counts: dict[str, int] = {}
    group = LANG_GROUPS.get(lang.lower(), (lang.lower(),)) if lang else None
    for entry in index.all_entries(index_dir):
        if group and entry["lang"].lower() not in group:
            continue
        for mechanic in entry["mechanics"]:
            counts[mechanic] = counts.get(mechanic, 0) + 1
    return counts
