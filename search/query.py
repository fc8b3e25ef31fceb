"""Queries over the entry index: the query language, filters, card lookup, mechanic listing.

The query language (parsed by Whoosh's QueryParser with our own plugin set):

* bare words: all must match, in any of the searched fields (index.searched_fields():
  the text, other variant texts, card names and mechanics), ranked by BM25F;
* ``"a phrase"`` (operators and field names inside quotes are text), ``a OR b``,
  ``NOT word`` and ``-word`` (a ``-`` before a letter, quote or parenthesis; so
  ``-1/-1`` is a term), ``( ... )``;
* filters ``card:NAME`` ``set:CODE`` ``mechanic:ID`` ``lang:CODE`` ``date:>=2019-01-01``
  (also ``>`` ``<`` ``<=`` ``=`` and partial dates ``date:2019``); a value with
  spaces goes in quotes: ``card:"Fire // Ice"``.

Anything else is text: ``T:`` and ``kicker:`` are words, a lone ``"`` or ``(`` is
ignored. Every input either parses or raises QueryError with a one-line reason.
"""

from __future__ import annotations

import copy
import math
import re
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from whoosh import highlight, qparser
from whoosh.analysis import Token
from whoosh.qparser import syntax
from whoosh.query import (
    And,
    AndMaybe,
    AndNot,
    Every,
    Not,
    NullQuery,
    Or,
    Phrase,
    Query,
    Term,
)

from rulings.ingest.dates import is_date_prefix
from rulings.ingest.errors import QueryError
from rulings.ingest.model import LANGUAGES
from rulings.search import bestmatch, index
from rulings.search.analysis import (
    RulingsTokenizer,
    card_key,
    flagged_terms,
    fold,
    match_spans,
    stem,
    terms,
    typed,
)
from rulings.search.engine import DateRange, TermNotFound, Unscored, merge_matched_tokens, top
from rulings.search.languages import chinese_snippet_terms, field_for
from rulings.search.terms import is_function_word

# A user's code -> the language codes it selects: ``zh`` both scripts; the region-style codes people type
# for Chinese (BCP 47 zh-CN/zh-SG simplified, zh-TW/zh-HK/zh-MO traditional) as their script.
LANG_GROUPS = {"zh": ("zh-hans", "zh-hant"), "zh-cn": ("zh-hans",), "zh-sg": ("zh-hans",),
               "zh-tw": ("zh-hant",), "zh-hk": ("zh-hant",), "zh-mo": ("zh-hant",)}
FILTER_FIELDS = ("card", "set", "mechanic", "lang", "date")
SNIPPET_CHARS = 300

# What a search derives once per kept reader or parser (never written into Whoosh's objects): the
# searched fields without text, the Chinese words, a parser's word -> field terms table.
_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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


# ---------------------------------------------------------------- filters


def card_filter(name: str) -> Query:
    """Entries of the card with this full name or face name (any case, accents, ``/`` for ``//``)."""
    key = card_key(name)
    if not key:
        raise QueryError(f"{name!r} is not a card name")
    return Term("card_keys", key)


def mechanic_id(name: str) -> str:
    """The mechanic id a person means by name: ingest/tag.py resolve_mechanic(), the one resolver every
    command uses; raises UnknownMechanic (a QueryError) naming the closest ids."""
    from rulings.ingest.tag import resolve_mechanic  # a mechanic filter only: not on a word search's path

    return resolve_mechanic(name)


def set_filter(code: str) -> Query:
    """Entries with a variant from this set code (any case)."""
    if not code.strip():
        raise QueryError("'set:' needs a set code")
    return Term("sets", code.strip().lower())


def lang_codes(code: str) -> tuple[str, ...]:
    """The lower-case language codes a user's code selects (``zh`` -> zh-hans, zh-hant; ``zh-TW`` -> zh-hant).

    Raises QueryError for an empty code or one that is not among Magic's
    languages (ingest.model.LANGUAGES).
    """
    lang = code.strip().lower()
    if not lang:
        raise QueryError("'lang:' needs a language code")
    group = LANG_GROUPS.get(lang, (lang,))
    if not set(group) <= {known.lower() for known in LANGUAGES}:
        raise QueryError(f"unknown language {code!r}; use one of zh, {', '.join(LANGUAGES)}")
    return group


def lang_filter(code: str) -> Query:
    """Entries in this language; ``zh`` matches ``zh-Hans`` and ``zh-Hant``."""
    group = lang_codes(code)
    return Or([Term("lang", c) for c in group]) if len(group) > 1 else Term("lang", group[0])


_DATE_VALUE = re.compile(r"(?P<op>>=|<=|=>|=<|>|<|=)?(?P<date>\d{4}(?:-\d{2}(?:-\d{2})?)?)")
_MIN_DATE, _MAX_DATE = "0000", "9999\uffff"


def date_filter(value: str) -> Query:
    """Entries with a variant dated in the range: ``>=2019-01-01``, ``<2020``, ``2019-06``, ``=2019-06-07``.

    A partial date means every day in it. Raises QueryError for anything else.
    """
    match = _DATE_VALUE.fullmatch(value.strip())
    if not match or not is_date_prefix(match.group("date")):
        raise QueryError(f"'date:{value}' is not a date; write date:>=2019-01-01 (or >, <, <=, a year, a month)")
    op, day = match.group("op") or "=", match.group("date")
    low, high = day, day + "\uffff"
    if op in (">=", "=>"):
        return DateRange("dates", low, _MAX_DATE)
    if op == ">":
        return DateRange("dates", high, _MAX_DATE, startexcl=True)
    if op == "<":
        return DateRange("dates", _MIN_DATE, low, endexcl=True)
    if op in ("<=", "=<"):
        return DateRange("dates", _MIN_DATE, high)
    return DateRange("dates", low, high)


def filter_query(filters: Filters) -> Query:
    """The Whoosh query selecting entries that pass every filter (Every() when none); raises QueryError
    for a since or until that is not a real date, a month or a year (``2019-13``, ``soon``)."""
    parts: list[Query] = [Term("mechanics", mechanic_id(m)) for m in filters.mechanics]
    if filters.card:
        parts.append(card_filter(filters.card))
    if filters.set_code:
        parts.append(set_filter(filters.set_code))
    if filters.lang:
        parts.append(lang_filter(filters.lang))
    for name, value in (("since", filters.since), ("until", filters.until)):
        if value and not is_date_prefix(value):
            raise QueryError(f"{name} {value!r} is not a date; give YYYY-MM-DD, a month YYYY-MM or a year YYYY")
    if filters.since or filters.until:
        parts.append(DateRange("dates", filters.since or _MIN_DATE, (filters.until or "9999") + "\uffff"))
    if not parts:
        return Every()
    return And(parts) if len(parts) > 1 else parts[0]


# ---------------------------------------------------------------- parser

_FILTER_BUILDERS = {
    "card": card_filter,
    "set": set_filter,
    "mechanic": lambda value: Term("mechanics", mechanic_id(value)),
    "lang": lang_filter,
    "date": date_filter,
}


class FilterNode(syntax.SyntaxNode):
    """A ``field:value`` filter in a query; its query() is the filter's Whoosh query."""

    def __init__(self, name: str, value: str | None):
        self.name = name.lower()
        self.value = (value or "").strip()
        if self.value.startswith('"'):
            self.value = self.value.strip('"').strip()

    def r(self):
        return f"{self.name}:{self.value!r}"

    def query(self, parser):
        if not self.value:
            raise QueryError(f"'{self.name}:' needs a value, e.g. {self.name}:{_EXAMPLES[self.name]}")
        built = _FILTER_BUILDERS[self.name](self.value)
        for leaf in [built] if built.is_leaf() else built.leaves():
            leaf.from_filter = True
        return Unscored(built)      # selects, never ranks: the same order as the --card/--set/... options


_EXAMPLES = {"card": '"Fire // Ice"', "set": "ONE", "mechanic": "proliferate", "lang": "en",
             "date": ">=2019-01-01"}


# Where a filter may start: not inside a word (``pre-set:x`` is text), but after a clause's ``-`` (``-set:xln``
# is NOT set:xln, as ``-word`` is NOT word).
_FILTER_START = r"(?:(?<![\w\-])|(?<=^-)|(?<=[\s(]-))"


class FilterPlugin(qparser.TaggingPlugin):
    """Tags ``card:`` ``set:`` ``mechanic:`` ``lang:`` ``date:`` (any case) with a word or quoted value.

    Other ``name:`` text is left alone and so searched as words, and so is a filter name without a value
    after other words ("my split card: the target is gone"); alone or first it is an error.
    """

    expr = (r"(?i)" + _FILTER_START + r"(?P<name>" + "|".join(FILTER_FIELDS) + r"):"
            r"(?P<value>\"[^\"]*\"?|[^\s()\"]+)?")
    priority = 0

    def create(self, parser, match):
        if match.group("value") is None and match.string[:match.start()].strip():
            return syntax.WordNode(match.group("name"))     # a sentence's colon ("a split card: the ...")
        return FilterNode(match.group("name"), match.group("value"))


class OperatorCleanupPlugin(qparser.Plugin):
    """Turns operators that lack operands (``NOT NOT x``, ``OR`` at the start, ``a AND``) into words.

    Runs after whitespace removal (500) and before Whoosh applies operators (600),
    which would otherwise fail with IndexError on such input.
    """

    def filters(self, parser):
        return [(self.clean, 550)]

    def clean(self, parser, group):
        nodes = [self.clean(parser, n) if isinstance(n, syntax.GroupNode) else n for n in group]
        changed = True
        while changed:
            changed = False
            for i, node in enumerate(nodes):
                if isinstance(node, syntax.Operator) and not _has_operands(nodes, i):
                    word = syntax.WordNode(node.text)
                    word.startchar, word.endchar = getattr(node, "startchar", 0), getattr(node, "endchar", 0)
                    nodes[i] = _in_every_field(parser, word)
                    changed = True
                    break
        cleaned = group.empty_copy()
        cleaned.extend(nodes)
        return cleaned


def _in_every_field(parser, word: syntax.WordNode) -> syntax.GroupNode:
    """The word in every searched field, made by the parser's own MultifieldPlugin (its pass ran before
    this cleanup: a word made here was left without a field and could match nothing)."""
    multifield = next(plugin for plugin in parser.plugins if isinstance(plugin, qparser.MultifieldPlugin))
    return multifield.do_multifield(parser, syntax.GroupNode([word]))[0]


def _has_operands(nodes: list, i: int) -> bool:
    """A prefix operator needs a following operand; an infix one an operand before and after
    (the one after may start with a prefix operator)."""
    following = nodes[i + 1] if i + 1 < len(nodes) else None
    preceding = nodes[i - 1] if i > 0 else None
    if following is None:
        return False
    if isinstance(nodes[i], syntax.PrefixOperator):
        return not isinstance(following, syntax.Operator)
    if preceding is None or isinstance(preceding, syntax.Operator):
        return False
    return not isinstance(following, syntax.Operator) or isinstance(following, syntax.PrefixOperator)


# ``-word``: a minus at the start of a clause, before a letter, a quote or a parenthesis.
_MINUS = r"(?:^|(?<=[\s(]))-(?=[^\W\d_]|[\"(])"


def parser(schema) -> qparser.QueryParser:
    """The query parser over index.searched_fields(): words, phrases, groups, AND/OR/NOT, -word, filters."""
    fields = index.searched_fields()
    minus = qparser.OperatorsPlugin.OpTagger(_MINUS, syntax.NotGroup, syntax.PrefixOperator, memo="minus")
    plugins = [
        qparser.PhrasePlugin(),
        qparser.GroupPlugin(),
        qparser.OperatorsPlugin(ops=[(minus, 0)], AndMaybe=None, Require=None),
        OperatorCleanupPlugin(),
        FilterPlugin(),
        qparser.MultifieldPlugin(list(fields), fieldboosts=fields),
    ]
    return qparser.QueryParser(None, schema, plugins=plugins, group=syntax.AndGroup)


# Parsers per schema: (schema, parser) by id(schema); the schema is kept so its id is not reused.
_PARSERS: dict[int, tuple] = {}


def cached_parser(schema) -> qparser.QueryParser:
    """parser(schema), built once per schema object (the kept searcher's schema) in a process."""
    kept = _PARSERS.get(id(schema))
    if kept is None or kept[0] is not schema:
        if len(_PARSERS) >= 8:
            _PARSERS.clear()
        kept = _PARSERS[id(schema)] = (schema, parser(schema))
    return kept[1]


def parse(schema, text: str, empty: frozenset[str] = frozenset()) -> Query:
    """Parse a user query; raises QueryError for a query with nothing to search for or a bad filter.

    empty: searched fields that hold no text in the index (_empty_fields()); plain words are then
    not analysed for them (without_empty_fields() would drop those clauses)."""
    try:
        query = _plain_words(schema, text, empty) or _plain_phrase(schema, text, empty) \
            or cached_parser(schema).parse(text)
    except QueryError:
        raise
    except RecursionError:
        raise QueryError("query is nested too deeply") from None
    if query is None or isinstance(query, type(NullQuery)) or not _searchable_fields(query) - {"mechanics"}:
        raise QueryError(f"query {text!r} has no words to search for")
    return unscored_negated_filters(without_andnot(without_unmatchable(without_positionless_phrases(query, schema))))


def unscored_negated_filters(query: Query) -> Query:
    """A NOT of a filter (``-set:xln``) as a clause that selects and scores 0, like the filter itself.

    Whoosh scores a NOT clause of an AND 1.0 for every document it lets through
    (InverseMatcher), so ``战场 生物 -set:ZZZ`` scored every hit 1.0 above ``战场 生物``.
    """
    if isinstance(query, Not) and isinstance(query.query, Unscored):
        return Unscored(Not(query.query))
    if query.is_leaf():
        return query
    return query.apply(unscored_negated_filters)


def without_positionless_phrases(query: Query, schema) -> Query:
    """Each phrase on a field that keeps no positions as the AND of its words.

    A quoted phrase is searched in every field, ``mechanics`` too, and that keyword
    field splits its text at commas: ``"x, y"`` or a pasted ruling sentence made a
    phrase there, which Whoosh refuses ("field has no positions"). There the words
    must all be present instead (a mechanic tag is one term, so order means nothing).
    """
    if isinstance(query, Phrase):
        field = schema[query.fieldname] if query.fieldname in schema else None
        if field is not None and not (field.format and field.format.supports("positions")):
            words = [Term(query.fieldname, word) for word in query.words]
            if len(words) == 1:
                return Term(query.fieldname, query.words[0], boost=query.boost)
            return And(words, boost=query.boost)
        return query
    if query.is_leaf():
        return query
    return query.apply(lambda q: without_positionless_phrases(q, schema))


_PLAIN = re.compile(r"[ \t]*[^\W\d_]+(?:[ \t]+[^\W\d_]+)*[ \t]*")
_OPERATOR_WORDS = frozenset({"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE", "REQUIRE", "TO"})


def _plain_words(schema, text: str, empty: frozenset[str] = frozenset()) -> Query | None:
    """The parser's query for text made only of plain words of letters (any script: ``flying``,
    ``Flugfähigkeit``, ``回战场``; no operator word), without its tagging and filter passes; None for
    any other text (the parser then reads it).

    The same query as parser(schema).parse(text): each word an OR of the parser's own
    ``term_query`` in every searched field with its boost (MultifieldPlugin), the words
    ANDed (the parser's AndGroup), normalised; without the fields in empty (but one, as
    without_empty_fields() keeps it). tests/test_query.py compares the two.
    """
    if len(text) > 200 or not _PLAIN.fullmatch(text):
        return None
    words = text.split()
    if any(word.upper() in _OPERATOR_WORDS for word in words):
        return None
    made_by = cached_parser(schema)
    made = _word_clauses(made_by)
    clauses = []
    for word in words:
        terms = made.get((word, empty))
        if terms is None:
            terms = made[word, empty] = _field_terms(made_by, word, empty)
        clauses.append(Or(list(terms)))
    return And(clauses).normalize()


def _word_clauses(made_by) -> dict[str, tuple]:
    """The word -> field terms table kept with a cached parser (at most 20,000 words; then started anew)."""
    made = _KEPT.setdefault(made_by, {})
    if len(made) > 20_000:
        made.clear()
    return made


def _field_terms(made_by, word: str, empty: frozenset[str]) -> tuple:
    """The parser's ``term_query`` of a word in every searched field but the empty ones, with its boost
    (MultifieldPlugin); Term queries are not changed after parsing, so they are shared by every query
    of the word."""
    make = made_by.term_query
    made = [make(name, word, Term, boost=boost) for name, boost in _fields_but(empty)]
    return tuple(q for q in made if q is not None)


def _fields_but(empty: frozenset[str]) -> list[tuple[str, float]]:
    """(field, boost) of the searched fields not in empty; the first searched field when all are (as
    without_empty_fields() keeps one clause)."""
    fields = index.searched_fields()
    return [(name, boost) for name, boost in fields.items() if name not in empty] or list(fields.items())[:1]


# One quoted phrase: inside quotes the parser's PhrasePlugin takes any text up to the next quote (its
# ``"(?P<text>.*?)"``; ``.`` stops at a line break, so a phrase with one goes to the parser).
_PLAIN_PHRASE = re.compile(r'[ \t]*"([^"\r\n]*[^"\s][^"\r\n]*)"[ \t]*')


def _plain_phrase(schema, text: str, empty: frozenset[str] = frozenset()) -> Query | None:
    """The parser's query for one quoted phrase (``"the battlefield"``, ``"can't be countered"``,
    ``"+1/+1 counter"``), without its tagging passes and without the fields in empty; None for any
    other text (a phrase with a slop ``~2``, with other words or filters, two phrases).

    The parser's own PhraseNode (slop 1) copied per searched field with its boost, as
    MultifieldPlugin copies it, each made a query by the node itself, ORed, in the
    parser's AndGroup, normalised. tests/test_query.py compares the two.
    """
    found = _PLAIN_PHRASE.fullmatch(text) if len(text) <= 200 else None
    if found is None:
        return None
    made_by = cached_parser(schema)
    node = qparser.PhrasePlugin.PhraseNode(found.group(1), found.start(1))
    node.startchar, node.endchar = found.start(1) - 1, found.end(1) + 1      # the quotes, as tagged
    clauses = []
    for name, boost in _fields_but(empty):
        field_node = copy.copy(node)
        field_node.set_fieldname(name)
        field_node.set_boost(boost)
        clauses.append(field_node.query(made_by))
    return And([Or(clauses)]).normalize()


def without_unmatchable(query: Query) -> Query:
    """Drop from an AND the words that only the ``mechanics`` keyword field kept.

    A word no text analyzer keeps (an emoji, a lone symbol character) survives only
    as a raw mechanics term that can never match, which would make every query
    holding it empty (``🐉 flying``); such words are ignored instead. A query of
    nothing but such words is refused earlier ("has no words to search for").
    """
    if isinstance(query, And):
        kept = [without_unmatchable(q) for q in query.subqueries if not _mechanics_word(q)]
        return And(kept) if kept else query
    if query.is_leaf():
        return query
    return query.apply(without_unmatchable)


def _mechanics_word(query: Query) -> bool:
    leaves = [query] if query.is_leaf() else list(query.leaves())
    return bool(leaves) and all(getattr(leaf, "fieldname", None) == "mechanics"
                                and not getattr(leaf, "from_filter", False) for leaf in leaves)


def without_andnot(query: Query) -> Query:
    """Rewrite every ``AndNot(a, b)`` as ``And([a, Not(b)])`` (same documents).

    Whoosh's AndNotMatcher over a union of terms can step past the end of a
    posting block inside an intersection (IndexError in W3LeafMatcher.id,
    whoosh-reloaded 2.7.5, e.g. ``date:>0001 ANDNOT counter no``); the Not
    form uses an InverseMatcher, which has no such fault.
    """
    if isinstance(query, AndNot):
        return And([without_andnot(query.a), Not(without_andnot(query.b))])
    if query.is_leaf():
        return query
    return query.apply(without_andnot)


def as_union_trees(query: Query) -> Query:
    """Make every OR in the query match through Whoosh's tree of union matchers (in place; returns it).

    Whoosh picks, per segment, a matcher for an OR: in segments of fewer than
    5,000 documents (whoosh-reloaded 2.7.5 query/compound.py Or._matcher) one
    that reads every posting of every clause and scores them all before the
    first match, which is most of a query's set-up time in the small segment an
    update writes. The tree steps through the postings and skips with the other
    clauses; the documents and scores are the same.
    """
    for node in _nodes(query):
        if isinstance(node, Or):
            node.matcher_type = Or.DEFAULT_MATCHER
    return query


def without_empty_fields(query: Query, reader) -> Query:
    """Drop from each OR the word and phrase clauses on searched fields that hold no text in this index.

    A bare word is searched in every language field (index.searched_fields()),
    and most indexes hold two or three languages: each clause on an empty field
    still costs a term lookup per segment. An OR keeps at least one clause, so
    the query matches exactly the same documents. reader: the searcher's reader.
    """
    empty = _empty_fields(reader)
    return _without_clauses_in(query, empty) if empty else query


def _without_clauses_in(query: Query, empty: frozenset[str]) -> Query:
    """without_empty_fields() with the empty fields found once for the whole query."""
    if query.is_leaf():
        return query
    if isinstance(query, Or):
        kept = [q for q in query.subqueries if not _only_in(q, empty)] or query.subqueries[:1]
        if len(kept) < len(query.subqueries):
            query = Or(kept, boost=query.boost, minmatch=query.minmatch, scale=query.scale)
    return query.apply(lambda q: _without_clauses_in(q, empty))


def _empty_fields(reader) -> frozenset[str]:
    """Searched fields with no indexed text in the reader (their total length is 0); found once per
    reader (a kept searcher's reader is never changed: an update opens a new one)."""
    kept = _KEPT.setdefault(reader, {})
    found = kept.get("empty")
    if found is None:
        found = kept["empty"] = frozenset(name for name in index.searched_fields() if not reader.field_length(name))
    return found


def _only_in(query: Query, fields: frozenset[str]) -> bool:
    """True when every leaf of the query is a user word or phrase on one of these fields."""
    leaves = [query] if query.is_leaf() else list(query.leaves())
    return bool(leaves) and all(getattr(leaf, "fieldname", None) in fields
                                and not getattr(leaf, "from_filter", False) for leaf in leaves)


def _searchable_fields(query: Query) -> set[str]:
    """Fields of the query's leaves (terms, phrases, ranges); mechanics alone means only symbols were typed."""
    leaves = [query] if query.is_leaf() else list(query.leaves())
    return {"filter" if getattr(leaf, "from_filter", False) else leaf.fieldname
            for leaf in leaves if getattr(leaf, "fieldname", None)}


def _included_fields(query: Query) -> set[str]:
    """_searchable_fields() of the leaves not under a NOT: what the query selects by, not what it excludes."""
    if isinstance(query, Not):
        return set()
    if query.is_leaf():
        return _searchable_fields(query)
    return set().union(*(_included_fields(child) for child in query.children()))


# ---------------------------------------------------------------- best match


def best_match(searcher, text: str, empty: frozenset[str] = frozenset(), index_dir: Path | None = None
               ) -> Query | None:
    """The best-match query of a plain query (search/bestmatch.py), or None when the parser reads the
    text whole (parentheses, operator words, no plain word). index_dir: where the index's Chinese
    words are kept (index.zh_words; the lexicon is read when None). Raises QueryError as parse() does."""
    if len(text) > 100_000 or not bestmatch.plain(text):
        return None
    found = bestmatch.items(text)
    schema = searcher.schema
    made_by = cached_parser(schema)
    if not found.words:
        return _only_required(schema, made_by, found, empty, index_dir)
    vocabulary = {}
    if bestmatch._HAN.search(text):
        vocabulary = (index.zh_words(index_dir) if index_dir is not None else None) \
            or chinese_vocabulary(searcher.reader())
    units = _units(searcher, made_by, bestmatch.word_units(found.words, vocabulary), vocabulary, empty, index_dir)
    if not units:
        return None
    covers, cover_clauses, weights = _covers(searcher, units, vocabulary, empty)
    for number, unit in enumerate(units):          # a word only a meaning finds still counts
        if unit.idf == 0.0 and any(number in c for c in covers):
            unit.idf = math.log(1 + 100)
    if not any(u.content and u.idf > 0 for u in units):     # only function words: they are the query
        for unit in units:
            unit.content, unit.weight, unit.idf = True, 1.0, unit.idf or 1.0
    for unit in units:
        unit.content = unit.content and unit.idf > 0
    near = bestmatch.near_pairs(units, [name for name, _ in _fields_but(empty)])
    card_texts = _card_text_clauses(made_by, units)
    best = bestmatch.BestMatch(
        [u.clause for u in units] + cover_clauses + near + [clause for clause, _ in card_texts],
        units=len(units), covers=covers,
        weights=[u.weight * min(u.times, 3) for u in units] + weights + [bestmatch.NEAR_WEIGHT] * len(near)
        + [weight for _, weight in card_texts],
        idfs=[u.idf * min(u.times, 3) for u in units], content=[u.content for u in units],
        chinese=any(u.chinese for u in units))
    required = _parsed(made_by, found.required, empty, index_dir, vocabulary)
    selectors = _parsed(made_by, found.selectors, empty, index_dir, vocabulary)
    query = AndMaybe(_all(required), best) if required else best      # what is required selects, best ranks
    query = And([query, *selectors]) if selectors else query
    return unscored_negated_filters(without_andnot(without_unmatchable(without_positionless_phrases(query, schema))))


def _only_required(schema, made_by, found: bestmatch.Items, empty: frozenset[str],
                   index_dir: Path | None) -> Query | None:
    """The query of a plain query that has no optional word but has ``+word`` / ``a AND b`` items
    (``+flying``, ``+deathtouch +trample``): every required item and selector, each read alone as
    best match reads it (the ``+`` is the operator, never part of the word). None for the parser
    to read the text whole (only phrases, symbols or filters: the parser's reading is the same), but not
    for a P/T modifier written with a minus ("-X/-X"), which the parser would read as NOT."""
    if not found.signed and not any(item.startswith("-") and bestmatch._precise(item) for item in found.required):
        return None
    parts = _parsed(made_by, found.required + found.selectors, empty, index_dir, {})
    if not parts:
        return None
    return unscored_negated_filters(without_andnot(without_unmatchable(
        without_positionless_phrases(_all(parts), schema))))


def _parsed(made_by, items: list[str], empty: frozenset[str], index_dir: Path | None,
            vocabulary: dict[str, int]) -> list[Query]:
    """_required() of each item, those that read as nothing left out."""
    return [q for q in (_required(made_by, item, empty, index_dir, vocabulary) for item in items) if q is not None]


def _all(queries: list[Query]) -> Query:
    return queries[0] if len(queries) == 1 else And(queries)


def _required(made_by, item: str, empty: frozenset[str] = frozenset(), index_dir: Path | None = None,
              vocabulary: dict[str, int] | None = None) -> Query | None:
    """The parser's query of one required or excluded item (a wildcard or fuzzy word as best match reads
    it); an excluded word or phrase selects and scores 0 (Whoosh scores a NOT clause 1.0)."""
    word = item.removeprefix("-")
    if bestmatch.WILDCARD.fullmatch(word) or bestmatch.FUZZY.fullmatch(word):
        expanded = _expanded_clause(word, empty, index_dir, vocabulary or {})
        return Unscored(Not(expanded)) if item.startswith("-") else expanded
    # a P/T modifier or symbol is one term: quoted, so the parser never reads "-X/-X" as NOT "X/-X"
    parsed = made_by.parse(f'"{item}"' if bestmatch._precise(item) else item)
    if parsed is None or parsed is NullQuery:
        return None
    if isinstance(parsed, And) and len(parsed.subqueries) == 1:
        parsed = parsed.subqueries[0]
    if isinstance(parsed, Not):
        return Unscored(parsed)
    return parsed


# The most distinct words of one best-match query (a pasted page is read for its first ones).
MAX_UNITS = 64


def _units(searcher, made_by, words: list[tuple[str, bool]], vocabulary: dict[str, int],
           empty: frozenset[str], index_dir: Path | None = None) -> list[bestmatch.Unit]:
    units = []
    seen: dict[tuple[str, bool], int] = {}
    for word, chinese in words:
        if (word, chinese) in seen:     # a word said again counts again (up to 3 times), searched once
            units[seen[word, chinese]].times += 1
            continue
        if len(units) >= MAX_UNITS:
            continue
        if chinese:
            clause = _chinese_clause(word, vocabulary, made_by, empty)
        elif bestmatch.WILDCARD.fullmatch(word) or bestmatch.FUZZY.fullmatch(word):
            seen[word, chinese] = len(units)
            units.append(bestmatch.Unit((word,), _expanded_clause(word, empty, index_dir, vocabulary), 1.0, True,
                                        math.log(1 + 100), text=word))
            continue
        else:
            found = _word_clauses(made_by).get((word, empty))
            if found is None:
                found = _word_clauses(made_by)[word, empty] = _field_terms(made_by, word, empty)
            found = [q for q in found if not (isinstance(q, Term) and q.fieldname == "mechanics"
                                              and not q.text[:1].isalnum())]
            found = _without_common_card_word(searcher, found)
            if not found:
                continue
            clause = Or(list(found))
        seen[word, chinese] = len(units)
        function = is_function_word(fold(word) if not chinese else word)
        units.append(bestmatch.Unit(bestmatch.unit_key(word, chinese), clause,
                                    bestmatch.FUNCTION_WEIGHT if function else 1.0, not function,
                                    bestmatch.idf(searcher, clause), chinese, word))
    return units


def _without_common_card_word(searcher, found: list[Query]) -> list[Query]:
    """A word's field terms without its ``cards`` term when the texts use the word far more often than
    card names do (more than CARD_WORD_SHARE times as many entries): "go to graveyard" ranked every
    ruling of Graveyard Busybody first, "left" those of It That Gets Left Hanging. A card named in full
    is found by its name (bestmatch.own_card_spans), and a rare word (Busybody) keeps its card term."""
    text = next((q for q in found if isinstance(q, Term) and q.fieldname == "text"), None)
    card = next((q for q in found if isinstance(q, Term) and q.fieldname == "cards"), None)
    if text is None or card is None:
        return found
    if searcher.doc_frequency("text", text.text) <= bestmatch.CARD_WORD_SHARE * searcher.doc_frequency(
            "cards", card.text):
        return found
    return [q for q in found if q is not card]


def _expanded_clause(word: str, empty: frozenset[str], index_dir: Path | None,
                     vocabulary: dict[str, int]) -> Query:
    """``prolif*``: the index's words (as written, folded: the "did you mean" vocabulary; Chinese: its
    words) starting with the letters; ``prolifirate~`` (``~2``): those within 1 (2) edits; each found
    word searched as a word is, in the English text fields and card names (at most 50 words)."""
    words = _expanded_words(word, index_dir, vocabulary)
    fields = [name for name in ("text", "variants", "cards") if name not in empty] or ["text"]
    clauses: list[Query] = []
    for found in words:
        if bestmatch._HAN.match(found):
            clauses += [Term("text_zh", found), Term("cards", found)]
        else:
            clauses += [Term(name, found if name == "cards" else stem(found)) for name in fields]
    return Or(clauses) if clauses else Or([Term("text", "\0")])


def _expanded_words(word: str, index_dir: Path | None, vocabulary: dict[str, int]) -> list[str]:
    from bisect import bisect_left
    wildcard = bestmatch.WILDCARD.fullmatch(word)
    wanted = fold(wildcard.group(1) if wildcard else bestmatch.FUZZY.fullmatch(word).group(1))
    if bestmatch._HAN.match(wanted):
        return sorted(w for w in vocabulary if w.startswith(wanted))[:50] if wildcard else [wanted]
    spelled = index.spelling_vocabulary(index_dir) if index_dir is not None else []
    if wildcard:
        start = bisect_left(spelled, wanted)
        found = []
        for candidate in spelled[start:]:
            if not candidate.startswith(wanted) or len(found) >= 50:
                break
            found.append(candidate)
        return found
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein
    edits = int(bestmatch.FUZZY.fullmatch(word).group(2) or 1)
    close = process.extract(wanted, spelled, scorer=Levenshtein.distance, score_cutoff=edits, limit=50)
    return [candidate for candidate, _, _ in close] or [wanted]


def _chinese_clause(word: str, vocabulary: dict[str, int], made_by, empty: frozenset[str]) -> Query:
    """A unit of Han characters in text_zh and card names, and as Japanese text when the index holds
    some (text_cjk bigrams); a word of two or more characters also finds the index's words and card
    names that contain it (牌库 in 牌库顶, 祈愿 in 生机祈愿), with less weight."""
    clauses: list[Query] = [Term("text_zh", word), Term("cards", word)]
    if len(word) >= 3:              # a card name: also its pieces as the texts were cut, together
        pieces = bestmatch.chinese_units(word, vocabulary, without=word)
        if 1 < len(pieces) < len(word):
            clauses.append(Phrase("text_zh", pieces, boost=0.7))
    if "text_cjk" not in empty:
        japanese = made_by.term_query("text_cjk", word, Term, boost=index.searched_fields()["text_cjk"])
        clauses += [japanese] if japanese is not None else []
    if len(word) >= 2:
        longer = sorted(w for w in _containing(vocabulary, word[:2]) if word in w and w != word)[:30]
        clauses += [Term(name, w, boost=0.7) for w in longer for name in ("text_zh", "cards")]
    return Or(clauses)


def _card_text_clauses(made_by, units: list[bestmatch.Unit]) -> list[tuple[Query, float]]:
    """(clause, weight) of each content word of the query (not Chinese, not a wildcard or fuzzy word)
    in the ``card_text`` field, the rules texts of the entry's cards (search/documents.py card_text()):
    "the indestructible artifact land" ranks the ruling of Darksteel Citadel, whose text does not say
    indestructible, first among those that hold the query's other words. The weight is CARD_TEXT_WEIGHT
    times the word's repeats (at most 3), as the word's own clause counts them."""
    clauses = []
    for unit in units:
        if unit.chinese or not unit.content or bestmatch.WILDCARD.fullmatch(unit.text) \
                or bestmatch.FUZZY.fullmatch(unit.text):
            continue
        clause = made_by.term_query("card_text", unit.text, Term, boost=1.0)
        if clause is not None:
            clauses.append((clause, bestmatch.CARD_TEXT_WEIGHT * min(unit.times, 3)))
    return clauses


def _covers(searcher, units: list[bestmatch.Unit], vocabulary: dict[str, int], empty: frozenset[str]
            ) -> tuple[list[tuple[int, ...]], list[Query], list[float]]:
    """The clauses that stand for some units: their meanings (search/terms.py), the mechanics they
    name and the cards they name, with the unit numbers each covers and its weight."""
    def card_entries(key: str) -> int:
        return searcher.doc_frequency("card_keys", key)

    def text_entries(word: str) -> int:
        analysed = [w for w, *_ in terms(word, joined=False)]
        return max((searcher.doc_frequency("text", w) for w in analysed), default=0)

    covers, clauses, weights = [], [], []
    keys = [u.key for u in units]
    for start, end, meanings in bestmatch.covered_spans(keys):
        for meaning in meanings:
            for text in meaning.means:
                clause = _meaning_clause(text, meaning, vocabulary, empty)
                if clause is not None:
                    covers.append(tuple(range(start, end)))
                    clauses.append(clause)
                    weights.append(bestmatch.MEANING_WEIGHT)
    words = [(u.text, u.chinese) for u in units]
    for start, end, mechanic in bestmatch.mechanic_spans(words):
        covers.append(tuple(range(start, end)))
        clauses.append(Term("mechanics", mechanic))
        weights.append(bestmatch.MECHANIC_WEIGHT)
    for start, end, clause in bestmatch.card_name_spans(words):
        covers.append(tuple(range(start, end)))
        clauses.append(clause)
        weights.append(bestmatch.MEANING_WEIGHT)
    for start, end, clause in bestmatch.own_card_spans(words, card_entries, text_entries):
        if clause is not None:
            covers.append(tuple(range(start, end)))
            clauses.append(clause)
            weights.append(bestmatch.CARD_WEIGHT)
    return covers, clauses, weights


def _meaning_clause(text: str, meaning, vocabulary: dict[str, int], empty: frozenset[str]) -> Query | None:
    """A meaning's words in the text fields of its language (a phrase with the row's slop)."""
    if meaning.lang == "zh" and meaning.across:
        # a translation, for a query that may hold no Chinese (so no vocabulary was read): the word where
        # the index made it one, its characters where it did not
        return Or([Term("text_zh", text), Phrase("text_zh", list(text))]) if len(text) > 1 else Term("text_zh", text)
    if meaning.lang == "zh":
        pieces = [text] if text in vocabulary else bestmatch.chinese_units(text, vocabulary)
        if len(pieces) == 1:
            return Term("text_zh", pieces[0])
        return Phrase("text_zh", pieces, slop=meaning.near + 1)
    fields = [name for name in ("text", "variants") if name not in empty] or ["text"]
    made = [bestmatch.phrase_of(name, text, meaning.near + 1, 1.0) for name in fields]
    made = [q for q in made if q is not None]
    return (Or(made) if len(made) > 1 else made[0]) if made else None


def _containing(vocabulary: dict[str, int], pair: str) -> list[str]:
    """The vocabulary's words holding a pair of characters (made once per vocabulary)."""
    pairs = _PAIRS.get(id(vocabulary))
    if pairs is None or pairs[0] is not vocabulary:
        table: dict[str, list[str]] = {}
        for word in vocabulary:
            for at in range(len(word) - 1):
                table.setdefault(word[at:at + 2], []).append(word)
        _PAIRS.clear()
        pairs = _PAIRS[id(vocabulary)] = (vocabulary, table)
    return pairs[1].get(pair, [])


_PAIRS: dict[int, tuple] = {}


def chinese_vocabulary(reader) -> dict[str, int]:
    """The words of Han characters the index holds (index.han_terms: text_zh and card names) with their
    document frequencies, read once per reader."""
    kept = _KEPT.setdefault(reader, {})
    found = kept.get("zh_words")
    if found is None:
        found = kept["zh_words"] = index.han_terms(reader)
    return found


# ---------------------------------------------------------------- search


def search(index_dir: Path, text: str | None, filters: Filters | None = None, limit: int = 20,
           every_word: bool = False) -> list[dict]:
    """Entries matching a query and filters, best first.

    A plain query is best match (search/bestmatch.py): entries holding every word first, then those
    holding most of them; every_word: every word required instead (the parser's AND).

    Each entry is in its JSON shape plus ``score`` (BM25F, 3 decimals; 0 without
    words) and ``snippet`` (the best fragment of the text with matched words as
    ``**word**``, original spelling). text may be None or empty only when a
    filter is given; raises QueryError otherwise and for a query it cannot read.
    """
    with index.searcher(index_dir) as searcher:
        compiled = _compiled(searcher, text, filters or Filters(), every_word, index_dir)
        if compiled.ranked:
            hits = _top(searcher, compiled.query, limit)
        else:                               # only filters: newest first, as without words
            hits = searcher.search(compiled.query, limit=limit, sortedby="date", reverse=True)
        best = compiled.best
        snippets = Snippets(hits, best.marked() if best is not None else None) if compiled.ranked else None
        results = []
        scored = hits.top_n
        shown = shown_scores([score for score, _ in scored]) if compiled.ranked else [0.0] * len(scored)
        for score, entry in zip(shown, index.entries_at(searcher, [docnum for _, docnum in scored])):
            entry["score"] = round(score or 0.0, 3)
            entry["snippet"] = (snippets(entry["text"], field_for(entry["lang"])) if snippets
                                else _shorten(entry["text"]))
            results.append(entry)
    return results


def selected(index_dir: Path, text: str | None, filters: Filters | None = None) -> list[dict]:
    """Every entry a query and filters select, as a set (``rulings export --query``), in index order.

    The query is read exactly as ``search`` reads it (the same words, meanings, syntax and errors);
    a best-match query selects the entries it ranks in its first tier, those holding every content
    word of the query (through any form or meaning; function words are never required), in any
    language, and nothing of its long tail of partial matches. Quoted phrases, ``+word``, ``-word``,
    operators and filters select as in search. Raises QueryError as ``search`` does.
    """
    with index.searcher(index_dir) as searcher:
        compiled = _compiled(searcher, text, filters or Filters(), False, index_dir)
        if compiled.ranked:
            hits = _top(searcher, compiled.query, searcher.doc_count_all()).top_n
            if compiled.best is not None:
                hits = [(score, docnum) for score, docnum in hits if bestmatch.holds_every_word(score)]
        else:
            hits = searcher.search(compiled.query, limit=None).top_n
        return index.entries_at(searcher, sorted(docnum for _, docnum in hits))


@dataclass
class _Compiled:
    """A query as search runs it: the Whoosh query (filters joined), its best-match node or None, and
    whether it ranks (False: only filters, or only exclusions within filters)."""

    query: Query
    best: bestmatch.BestMatch | None
    ranked: bool


def _compiled(searcher, text: str | None, filters: Filters, every_word: bool, index_dir: Path) -> _Compiled:
    """The query ``search`` and ``selected`` run for the text and filters (their docstrings say how it
    reads); raises QueryError for an empty query without filters, a query it cannot read, and a query
    that only excludes without a filter."""
    has_text = bool(text and text.strip())
    if not has_text and not filters.any():
        raise QueryError("empty query: give words to search for or a filter")
    selection = filter_query(filters)
    if not has_text:
        return _Compiled(selection, None, False)
    text = typed(text)                      # a full-width ＣＭＣ is CMC; a soft hyphen is no break
    reader = searcher.reader()
    empty = _empty_fields(reader)
    query = (None if every_word else best_match(searcher, text, empty, index_dir)) \
        or parse(searcher.schema, text, empty)
    best = _best_of(query)
    query = without_empty_fields(query, reader)
    only_exclusions = not _included_fields(query) - {"filter"}     # nothing to rank
    if only_exclusions and not (filters.any() or "filter" in _searchable_fields(query)):
        raise QueryError(f"query {text!r} only excludes: add a word to search for, or a filter "
                         "(--mechanic, --card, --set, --lang, --since) to list what it leaves")
    if filters.any():
        query = And([query, Unscored(selection)])
    as_union_trees(query)
    ranked = bool(not only_exclusions and _searchable_fields(query) - {"filter"})
    return _Compiled(query, best, ranked)


def _best_of(query: Query):
    """The BestMatch node of a best-match query (itself, or a clause of its AND / AND MAYBE), or None."""
    return next((node for node in _nodes(query) if isinstance(node, bestmatch.BestMatch)), None)


def shown_scores(scores: list[float]) -> list[float]:
    """The scores a search shows for its hits, best first: without the tier offsets of best match
    (bestmatch.TIER per tier: every word, same language); when an entry of a lower tier scored more
    than the last entry of the tier above, that tier is scaled down as a whole, so the shown scores
    never rise down the list."""
    tiers: dict[int, list[float]] = {}
    for score in scores:
        tier = int(score // bestmatch.TIER) if score >= bestmatch.TIER else 0
        tiers.setdefault(tier, []).append(score - tier * bestmatch.TIER)
    shown: list[float] = []
    for tier in sorted(tiers, reverse=True):
        group = tiers[tier]
        if shown and group and max(group) >= shown[-1] > 0:
            factor = 0.999 * shown[-1] / max(group)
            group = [s * factor for s in group]
        shown += group
    return shown


def _top(searcher, query: Query, limit: int):
    """Whoosh Results of the query's ``limit`` best-scored documents (search/engine top(): every match
    scored, never Whoosh's matcher replacement, which loses documents of the top ``limit``)."""
    return top(searcher, query, limit)


def _nodes(query: Query) -> Iterator[Query]:
    yield query
    for child in query.children():
        yield from _nodes(child)


class _MarkFormatter(highlight.Formatter):
    """Marks matched words as ``**word**`` and joins fragments with `` … ``."""

    between = " … "

    def format_token(self, text, token, replace=False):
        return "**" + highlight.get_text(text, token, replace) + "**"


def _shorten(text: str) -> str:
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"


class Snippets:
    """The snippets of one search's hits: ``Snippets(results)(text, field) -> str``.

    A snippet is the canonical text's best fragments with the query's words as
    ``**word**`` (as written): a text of at most SNIPPET_CHARS characters whole,
    a longer one as its best two sentences, the start of the text when no query
    word of the text's field occurs in it. It is Whoosh's Hit.highlights with the
    query's words per field looked up once per search instead of once per hit.
    results: the whoosh Results of the search.
    """

    def __init__(self, results, marked: Query | None = None):
        self.results = results
        self.marked = marked
        self.words: dict[str, frozenset[str]] = {}

    def __call__(self, text: str, field: str = "text") -> str:
        words = self._words(field)
        if not words:
            return _shorten(text)
        analyzer = self.results.searcher.schema[field].analyzer
        if field == "text_zh":
            return self._chinese(text, words)
        if len(text) <= SNIPPET_CHARS:
            spans = (match_spans(text, words, analyzer.stemming) if isinstance(analyzer, RulingsTokenizer)
                     else _matched_spans(analyzer, text, words))
            return marked(text, spans) or text
        if isinstance(analyzer, RulingsTokenizer):
            fragments = sentences(text, flagged_terms(text, words, analyzer.stemming))
        else:
            tokens = analyzer(text, positions=True, chars=True, mode="index", removestops=False)
            tokens = merge_matched_tokens(highlight.set_matched_filter(tokens, words))
            fragments = _SENTENCES.fragment_tokens(text, tokens)
        fragments = highlight.top_fragments(fragments, 2, _SCORER, highlight.FIRST)
        # Whoosh's sentence fragments leave out sentences longer than SNIPPET_CHARS
        return _FORMATTER.format(fragments) or window(text, list(_matched_spans(analyzer, text, words)))

    @staticmethod
    def _chinese(text: str, words: frozenset[str]) -> str:
        """A Chinese text's snippet: query words marked where they occur (chinese_snippet_terms), words
        that touch as one mark; a long text as its best two sentences (ending at 。！？ too)."""
        found = _touching_joined(text, chinese_snippet_terms(text, words))
        spans = [(start, end, hit) for _, start, end, hit in found]
        if len(text) <= SNIPPET_CHARS:
            return marked(text, spans) or text
        fragments = highlight.top_fragments(sentences(text, found, _CHINESE_ENDS), 2, _SCORER, highlight.FIRST)
        return _FORMATTER.format(fragments) or window(text, spans)

    def _words(self, field: str) -> frozenset[str]:
        """The query's terms in this field that the index holds (Whoosh Results.query_terms)."""
        if field not in self.words:
            from_bytes = self.results.searcher.schema[field].from_bytes
            found = (self.marked.existing_terms(self.results.searcher.reader(), fieldname=field, expand=True)
                     if self.marked is not None else self.results.query_terms(expand=True, fieldname=field))
            words = (from_bytes(term) for _, term in found)
            self.words[field] = frozenset(w for w in words if self.marked is None or not is_function_word(w))
        return self.words[field]


# Sentence ends of Chinese text for its snippets: the full-width marks and Whoosh's own.
_CHINESE_ENDS = "。！？.!?"


def _touching_joined(text: str, found: list[tuple[str, int, int, bool]]) -> list[tuple[str, int, int, bool]]:
    """The (term, start, end, matched) list with consecutive matched terms that touch or overlap made one
    (Whoosh's merging lets a match after an unmatched gap start no merge, which printed 则 and 该生物会
    of one phrase as ``**则****该生物会**``)."""
    joined: list[tuple[str, int, int, bool]] = []
    for item in found:
        if item[3] and joined and joined[-1][3] and item[1] <= joined[-1][2]:
            start, end = joined[-1][1], max(joined[-1][2], item[2])
            joined[-1] = (text[start:end], start, end, True)
        else:
            joined.append(item)
    return joined


def _matched_spans(analyzer, text: str, words: frozenset[str]) -> Iterator[tuple[int, int, bool]]:
    """(startchar, endchar, is a query word) of each token of text, as the field's analyzer indexes it."""
    if isinstance(analyzer, RulingsTokenizer):       # its terms() without a Token object per word
        return ((start, end, hit) for _, start, end, hit in flagged_terms(text, words, analyzer.stemming))
    return ((t.startchar, t.endchar, t.text in words)
            for t in analyzer(text, chars=True, mode="index", removestops=False))


def sentences(text: str, tokens: Iterable[tuple[str, int, int, bool]], ends: str | None = None
              ) -> list[highlight.Fragment]:
    """The sentences of text holding a matched token, as Whoosh's highlighting makes them, from plain tuples.

    tokens: (term, startchar, endchar, matched) of each token in the analyzer's
    order. The same fragments as whoosh-reloaded 2.7.5 highlight.py
    ``Highlighter._merge_matched_tokens`` (consecutive matched tokens that touch
    become one) then ``SentenceFragmenter(maxchars=SNIPPET_CHARS).fragment_tokens``
    (a sentence ends at a token followed by ``.``, ``!`` or ``?``, not ``..``; one
    with matches and at most SNIPPET_CHARS characters of tokens is kept; text
    past its character limit is not read), with a Whoosh Token made only per
    matched token instead of per token. ends: the sentence-end characters
    (Whoosh's ``.!?`` when None).
    """
    limit, length = _SENTENCES.charlimit, len(text)
    ends = ends or _SENTENCES.sentencechars
    fragments, matched = [], []
    first, endchar, current = None, None, 0
    for term, start, end, hit in _merged(tokens):
        endchar = end
        if limit and end > limit:
            break
        if first is None:
            first, current = start, 0
        current += end - start
        if hit:
            matched.append(Token(text=term, startchar=start, endchar=end, boost=1.0, matched=True))
        if end < length and text[end] in ends:
            if end + 1 < length and text[end + 1] in ends:
                continue
            if matched and current <= SNIPPET_CHARS:
                fragments.append(highlight.Fragment(text, matched, startchar=first, endchar=end))
            matched, first, current = [], None, 0
    if matched:
        fragments.append(highlight.Fragment(text, matched, startchar=first, endchar=endchar))
    return fragments


def _merged(tokens: Iterable[tuple[str, int, int, bool]]) -> Iterator[tuple[str, int, int, bool]]:
    """Whoosh's ``Highlighter._merge_matched_tokens`` on (term, startchar, endchar, matched) tuples: a
    matched token starting at or before the end of the matched one before it extends it (its text gets
    the new token's last characters); a matched token past it ends the merge and is given as it is."""
    merging = None
    for token in tokens:
        term, start, end, hit = token
        if not hit:
            if merging is not None:
                yield tuple(merging)
                merging = None
            yield token
        elif merging is None:
            merging = [term, start, end, True]
        elif start <= merging[2]:
            if end > merging[2]:
                merging[0] += term[merging[2] - end:]
                merging[2] = end
        else:
            yield tuple(merging)
            merging = None
            yield token
    if merging is not None:
        yield tuple(merging)


def window(text: str, spans: list[tuple[int, int, bool]]) -> str:
    """About SNIPPET_CHARS characters of a long text from shortly before its first matched token,
    marked as marked() does, with `` …`` where it was cut; the start of the text when nothing matched.

    spans: (startchar, endchar, matched) of each token of text, in order.
    """
    first = next((start for start, _, matched in spans if matched), None)
    if first is None:
        return _shorten(text)
    lead = SNIPPET_CHARS // 3
    start = 0
    if first > lead:                # from a space before the lead, or at it in text without spaces
        space = text.rfind(" ", 0, first - lead)
        start = space + 1 if space >= 0 else first - lead
    end = start + SNIPPET_CHARS
    if end < len(text):             # at the last space past the first match, or at the limit
        space = text.rfind(" ", start, end)
        end = space if space > first else end
    body = text[start:end].rstrip()
    inside = [(s - start, e - start, m) for s, e, m in spans if s >= start and e - start <= len(body)]
    return ("… " if start else "") + (marked(body, inside) or body) + (" …" if end < len(text) else "")


def marked(text: str, spans: Iterable[tuple[int, int, bool]]) -> str:
    """The whole text with its matched tokens as ``**word**``; "" when none matched.

    spans: (startchar, endchar, matched) of each token in the analyzer's order.
    The same output as Whoosh's highlighting with a WholeFragmenter and our
    _MarkFormatter (whoosh-reloaded 2.7.5 highlight.py: consecutive matched
    tokens that overlap or touch are merged; overlapping marks keep the first,
    longest one), without its Token objects and generator stages.
    """
    merged: list[tuple[int, int]] = []
    current = None
    for start, end, matched in spans:
        if not matched:
            if current:
                merged.append(current)
                current = None
        elif current is None:
            current = (start, end)
        elif start <= current[1]:
            current = (current[0], max(current[1], end))
        else:                       # Whoosh emits both and starts no merge with the second
            merged += [current, (start, end)]
            current = None
    if current:
        merged.append(current)
    if not merged:
        return ""
    output, index = [], 0
    for start, end in sorted(merged, key=lambda span: (span[0], span[0] - span[1])):
        if start < index:
            continue
        output += [text[index:start], "**", text[start:end], "**"]
        index = end
    output.append(text[index:])
    return "".join(output)


_SENTENCES = highlight.SentenceFragmenter(maxchars=SNIPPET_CHARS)
_SCORER = highlight.BasicFragmentScorer()
_FORMATTER = _MarkFormatter()


def suggestions(index_dir: Path, text: str, limit: int = 3) -> list[str]:
    """Closest indexed words (folded, as written) for the query words that match nothing.

    For "did you mean": ``prolifirate`` -> ``["proliferate", ...]``. Words in
    quotes count too; filter values and operators do not.
    """
    wanted = []
    plain = re.sub(r"(?i)" + _FILTER_START + r"(?:" + "|".join(FILTER_FIELDS) + r"):(\"[^\"]*\"?|\S+)?", " ", text)
    for word, *_ in terms(plain, stemming=False, joined=False):
        if word[:1].isalpha() and word not in ("and", "or", "not") and word not in wanted:
            wanted.append(word)
    with index.searcher(index_dir) as searcher:
        reader = searcher.reader()
        missing = [w for w in wanted if not _live(reader, w)]
        if not missing:
            return []
        from rapidfuzz import fuzz, process
        vocabulary_words = index.spelling_vocabulary(index_dir)
        found: list[str] = []
        for word in missing:
            close = process.extract(word, vocabulary_words, scorer=fuzz.ratio, limit=limit * 4, score_cutoff=70)
            # the vocabulary may still hold words of removed sources: only words that find something
            kept = [match for match, _, _ in close if match not in found and _live(reader, match)]
            found += kept[:limit]
    return found[:limit * max(1, len(missing))]


def _live(reader, word: str) -> bool:
    """True when the word (folded) occurs in a searched field of a document that is not deleted."""
    for name in index.searched_fields():
        for term in reader.schema[name].process_text(word, mode="query"):
            try:
                if reader.postings(name, term).is_active():
                    return True
            except TermNotFound:
                continue
    return False


# ---------------------------------------------------------------- cards


@dataclass
class CardMatch:
    """One card a lookup name resolved to: its full name, whether the name was the full
    name (``exact``) or one face, and its entries oldest first (stable within a date)."""

    card: str
    exact: bool
    entries: list[dict]


def card_matches(index_dir: Path, name: str) -> list[CardMatch]:
    """The cards whose full name or face name is ``name``; the exact full-name match first.

    Matching uses card_key(): any case, with or without accents and ``Æ``,
    ``Fire // Ice`` written ``Fire/Ice`` or ``Fire / Ice``. Empty when no card matches.
    """
    key = card_key(name)
    if not key:
        return []
    with index.searcher(index_dir) as searcher:
        entries = index.entries_at(searcher, searcher.document_numbers(card_keys=key))
    groups: dict[str, list[dict]] = {}
    spellings: dict[str, dict[str, int]] = {}
    exact: dict[str, bool] = {}
    for entry in entries:
        for card in entry["cards"]:
            full = card_key(card)
            faces = {card_key(face) for face in card.split("//")}
            if key != full and key not in faces:
                continue
            groups.setdefault(full, []).append(entry)
            counts = spellings.setdefault(full, {})
            counts[card] = counts.get(card, 0) + 1
            exact[full] = key == full
    matches = []
    for full, group in groups.items():
        written = max(spellings[full], key=lambda s: (spellings[full][s], s))
        unique = list({e["id"]: e for e in group}.values())
        unique.sort(key=lambda e: _card_order(e, full))
        matches.append(CardMatch(written, exact[full], unique))
    matches.sort(key=lambda m: (not m.exact, m.card))
    return matches


def _card_order(entry: dict, full_key: str) -> tuple:
    """Oldest date of the card's variants (undated last), then source path and position, then id."""
    own = [v for v in entry["variants"] if v.get("card") and card_key(v["card"]) == full_key] or entry["variants"]
    dates = [v["date"] for v in own if v.get("date")]
    first = min(own, key=lambda v: (v.get("date") or "9999", v["source"]["path"], v.get("position", 0)))
    return (min(dates) if dates else "9999", first["source"]["path"], first.get("position", 0), entry["id"])


# ---------------------------------------------------------------- ids and mechanics


def entry_by_id(index_dir: Path, entry_id: str) -> dict | None:
    """The entry with this id or alias (any case, surrounding space ignored), or None."""
    entry_id = entry_id.strip().lower()
    with index.searcher(index_dir) as searcher:
        docnum = searcher.document_number(id=entry_id)
        if docnum is not None:
            return index.entries_at(searcher, [docnum])[0]
    for entry in index.all_entries(index_dir):
        if entry_id in entry.get("aliases", []):
            return entry
    return None


def mechanic_counts(index_dir: Path, lang: str | None = None) -> dict[str, int]:
    """Number of entries tagged with each mechanic id (optionally in one language)."""
    counts: dict[str, int] = {}
    group = lang_codes(lang) if lang else None
    for entry in index.all_entries(index_dir):
        if group and entry["lang"].lower() not in group:
            continue
        for mechanic in entry["mechanics"]:
            counts[mechanic] = counts.get(mechanic, 0) + 1
    return counts
