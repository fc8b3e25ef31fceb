"""Per-language analysis: which index field holds an entry's text, and that field's analyzer.

An entry's text goes to the field of its language family (``FIELDS``):

- ``text`` (English): search/analysis.py's rulings analyzer;
- ``text_de`` ``text_fr`` ``text_it`` ``text_es`` ``text_pt`` ``text_ru``: the
  same MTG-aware tokens (symbols, ``+1/+1``, words), accents folded
  (``Flugfähigkeit`` is found by ``Flugfahigkeit``), then the language's Snowball
  stemmer from whoosh.lang.snowball;
- ``text_zh`` (zh-Hans, zh-Hant): the Chinese matching form of ingest/language.py
  (``{横置}`` is ``{T}``, full-width to ASCII, Traditional folded to Simplified),
  then jieba word segmentation; in the index each long word also yields its
  dictionary sub-words at the same position, as jieba's "search" mode does. jieba's
  own Whoosh ChineseAnalyzer is not used: it numbers positions by character
  offset (no phrase queries) and drops one-letter tokens such as ``{T}``.
  jieba is imported only when a text or query with Han characters is analysed;
- ``text_cjk`` (ja, ko): overlapping character bigrams inside each run of
  kana, hangul or Han characters (a one-character run is one token), so a
  two-character word is found inside a sentence.

Every tokenizer here leaves a gap of ``SENTENCE_GAP`` positions after a
sentence end (``.`` ``。`` ``!`` ``?``), so a phrase never matches across two sentences.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from whoosh.analysis import Filter, Token, Tokenizer
from whoosh.lang.snowball import classes as snowball

from rulings.ingest.language import canonical_symbols, to_simplified
from rulings.search.analysis import fold as fold_token

# Words, symbols in braces, signed P/T modifiers and (rule) numbers of European text.
TOKEN_PATTERN = re.compile(
    r"\{[^{}\s]{1,8}\}"
    r"|[+\-\u2212][\dxX*]+/[+\-\u2212][\dxX*]+"
    r"|\d+(?:\.\d+[a-z]?)?"
    r"|\w+(?:['\u2019\u2018\u02bc]\w+)*")


class FoldFilter(Filter):
    """Fold each token with search.analysis.fold (case, apostrophes, Æ, accents)."""

    def __call__(self, tokens):
        for token in tokens:
            token.text = _fold_word(token.text)
            yield token


# Folding and stemming run once per distinct word (an index run sees each word many times).
_fold_word = lru_cache(maxsize=200_000)(fold_token)

FIELDS = {
    "en": "text", "de": "text_de", "fr": "text_fr", "it": "text_it", "es": "text_es",
    "pt": "text_pt", "ru": "text_ru", "ja": "text_cjk", "ko": "text_cjk",
    "zh-hans": "text_zh", "zh-hant": "text_zh",
}
SENTENCE_GAP = 10

_SENTENCE_END = re.compile(r"[。！？．]|[.!?](?=\s|$)")
_CJK = r"\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_ZH_SYMBOL = r"\{[^{}\n]{1,16}\}"                          # {T} {横置} {白/黑}
_ZH_TOKEN = re.compile(
    _ZH_SYMBOL +
    r"|[+\-\u2212＋－][\dxX*０-９ｘＸ]+[/／][+\-\u2212＋－][\dxX*０-９ｘＸ]+"   # +1/+1, ＋１/＋１
    rf"|[{_HAN}]+"                                       # a run of Han characters
    r"|[0-9０-９]+(?:\.[0-9]+[a-z]?)?"                      # numbers, rule numbers
    r"|[A-Za-zＡ-Ｚａ-ｚ\u00c0-\u024f]+(?:['’][A-Za-z]+)*")      # Latin words (card names)
_CJK_TOKEN = re.compile(
    r"\{[^{}\s]{1,8}\}"
    r"|[+\-\u2212][\dxX*]+/[+\-\u2212][\dxX*]+"
    rf"|[{_CJK}]+"
    r"|\d+(?:\.\d+[a-z]?)?"
    r"|[^\W\d_]+")


def field_for(lang: str | None) -> str:
    """The index text field of a language code (``zh-Hans`` -> ``text_zh``); English for unknown codes."""
    return FIELDS.get((lang or "en").lower(), "text")


def text_fields() -> tuple[str, ...]:
    """Every text field, English first, in a stable order."""
    return tuple(dict.fromkeys(FIELDS.values()))


def _sentence_breaks(value: str) -> list[int]:
    return [m.start() for m in _SENTENCE_END.finditer(value)]


class GapTokenizer(Tokenizer):
    """Regex tokens with positions that jump by SENTENCE_GAP after each sentence end.

    pattern: the token regex; split: optional function token text -> list of
    (text, start offset, end offset, position step) pieces, for segmenting runs
    of CJK characters (bigrams, jieba words).
    """

    def __init__(self, pattern: re.Pattern, split=None):
        self.pattern = pattern
        self.split = split

    def __eq__(self, other):
        return (type(other) is type(self) and other.pattern == self.pattern
                and other.split == self.split)

    def __call__(self, value, positions=False, chars=False, keeporiginal=False, removestops=True,
                 start_pos=0, start_char=0, tokenize=True, mode="", **kwargs):
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        if not tokenize:
            token.original = token.text = value
            token.boost, token.pos = 1.0, start_pos
            token.startchar, token.endchar = start_char, start_char + len(value)
            yield token
            return
        breaks = _sentence_breaks(value)
        pos, b = start_pos - 1, 0
        for match in self.pattern.finditer(value):
            gap = 0
            while b < len(breaks) and breaks[b] < match.start():
                gap, b = SENTENCE_GAP, b + 1
            pos += gap
            pieces = (self.split(match.group(0), mode) if self.split
                      else [(match.group(0), 0, len(match.group(0)), 1)])
            for text, start, end, step in pieces:
                pos += step
                token.text = text
                token.boost, token.stopped = 1.0, False
                if keeporiginal:
                    token.original = text
                if positions:
                    token.pos = pos
                if chars:
                    token.startchar = start_char + match.start() + start
                    token.endchar = start_char + match.start() + end
                yield token


class _Stem(Filter):
    """Snowball stem of folded words; symbols, P/T modifiers and numbers unchanged."""

    def __init__(self, lang: str):
        self.lang = lang
        self.stemmer = snowball[lang]()

    def __eq__(self, other):
        return type(other) is type(self) and other.lang == self.lang

    def __call__(self, tokens):
        for token in tokens:
            if token.text[:1].isalpha() and "'" not in token.text:
                token.text = _stem_word(self.lang, token.text)
            yield token


@lru_cache(maxsize=1)
def _stemmers() -> dict:
    return {}


@lru_cache(maxsize=200_000)
def _stem_word(lang: str, word: str) -> str:
    """The language's Snowball stem of one folded word, cached (not kept on the pickled analyzer)."""
    stemmers = _stemmers()
    if lang not in stemmers:
        stemmers[lang] = snowball[lang]()
    return stemmers[lang].stem(word)


def european_analyzer(lang: str):
    """Analyzer for de fr it es pt ru: MTG-aware tokens, accent folding, the language's Snowball stemmer."""
    return GapTokenizer(TOKEN_PATTERN) | FoldFilter() | _Stem(lang)


def _bigrams(run: str, mode: str) -> list[tuple[str, int, int, int]]:
    if not re.match(rf"[{_CJK}]", run):
        return [(fold_token(run), 0, len(run), 1)]
    if len(run) == 1:
        return [(run, 0, 1, 1)]
    return [(run[i:i + 2], i, i + 2, 1) for i in range(len(run) - 1)]


def cjk_analyzer():
    """Analyzer for ja and ko: character bigrams inside CJK runs, folded words elsewhere."""
    return GapTokenizer(_CJK_TOKEN, _bigrams)


# Where jieba keeps its dictionary cache (``jieba.cache``, a marshal dump of word frequencies that
# makes its next start faster): the index folder in use, so that the tool writes only there.
_SEGMENTER_CACHE: list[str] = []


def keep_segmenter_cache_in(folder: Path) -> None:
    """Make jieba read and write its dictionary cache in folder (the index folder) instead of the
    system temporary folder. Takes effect when jieba is first loaded in this process."""
    _SEGMENTER_CACHE[:] = [str(folder)]


@lru_cache(maxsize=1)
def _jieba():
    """jieba with its dictionary loaded (jieba loads it at its first segmentation otherwise, and its
    word frequencies, read by _zh_uncached() before that, were empty for a process's first word)."""
    import logging

    import jieba
    jieba.setLogLevel(logging.WARNING)
    if _SEGMENTER_CACHE and Path(_SEGMENTER_CACHE[0]).is_dir():
        jieba.dt.tmp_dir = _SEGMENTER_CACHE[0]
    jieba.initialize()
    return jieba


@lru_cache(maxsize=200_000)
def _segment(run: str) -> tuple[tuple[str, int, int], ...]:
    return tuple(_jieba().tokenize(run))


@lru_cache(maxsize=200_000)
def _zh_pieces(word: str, mode: str) -> tuple[tuple[str, int, int, int], ...]:
    """Pieces (text, start, end, position step) of one Chinese token; cached per (token, mode)."""
    return tuple(_zh_uncached(word, mode))


def _zh_uncached(word: str, mode: str) -> list[tuple[str, int, int, int]]:
    if word.startswith("{"):
        symbols = re.findall(r"\{[^{}]*\}", canonical_symbols(word.replace("\n", "")))
        return [(s.lower(), 0, len(word), 1) for s in symbols]
    if not re.match(rf"[{_HAN}]", word):
        return [(fold_token(word), 0, len(word), 1)]
    simplified = to_simplified(word)
    if len(simplified) != len(word):
        simplified = word
    pieces = []
    freq = _jieba().dt.FREQ
    for text, start, end in _segment(simplified):
        pieces.append((text, start, end, 1))
        if mode != "query" and end - start > 2:       # sub-words at the same position
            for n in (2, 3):
                for i in range(start, end - n + 1):
                    sub = simplified[i:i + n]
                    if sub != text and freq.get(sub):
                        pieces.append((sub, i, i + n, 0))
    return pieces


_HAN_START = re.compile(rf"[{_HAN}]")
_HAN_WORD = re.compile(rf"[{_HAN}]+")
_BRACED = re.compile(_ZH_SYMBOL)                    # _ZH_TOKEN's symbols: the only tokens but runs with Han


def chinese_snippet_terms(text: str, words: frozenset[str]) -> list[tuple[str, int, int, bool]]:
    """(term, startchar, endchar, is a query word) of a Chinese text for marking its snippet, without jieba.

    words: the query's terms in ``text_zh``. Runs of Han characters are not
    segmented: each occurrence of a Han query word in the run (in Simplified
    characters, as the index holds them) is a matched term and the characters
    between occurrences unmatched ones; other tokens (symbols, numbers, Latin
    words) are the analyzer's. Marks the same words as the analyzer's tokens
    where a query word is a jieba word or dictionary sub-word of the text (what
    the index matched), and an occurrence across two jieba words as well;
    segmenting every hit's text would be most of a first-seen Chinese search.
    """
    han_words = [word for word in words if _HAN_WORD.fullmatch(word)]
    whole = to_simplified(text)
    if len(whole) != len(text):                       # a conversion changed a length: run by run
        return _terms_run_by_run(text, words, han_words)
    # the words' occurrences found in the whole text at once, symbols in braces ({横置}) blanked out:
    # then each lies inside one run of Han characters and touches none of another run
    searched = _BRACED.sub(lambda symbol: "\0" * len(symbol.group()), whole) if "{" in whole else whole
    spans = _word_spans(searched, han_words)
    found: list[tuple[str, int, int, bool]] = []
    first = 0
    for match in _ZH_TOKEN.finditer(text):
        base, end = match.span()
        if not _HAN_START.match(text, base):
            found += _other_run_terms(match, words)
            continue
        last = first
        while last < len(spans) and spans[last][0] < end:
            last += 1
        found += _marked_run(whole[base:end], base, [(start - base, stop - base) for start, stop in spans[first:last]])
        first = last
    return found


def _terms_run_by_run(text: str, words: frozenset[str], han_words: list[str]) -> list[tuple[str, int, int, bool]]:
    """chinese_snippet_terms() with each run of Han characters converted and searched on its own."""
    return [item for match in _ZH_TOKEN.finditer(text)
            for item in _run_terms(text, match, to_simplified(match.group(0)), words, han_words)]


def _other_run_terms(match: re.Match, words: frozenset[str]) -> list[tuple[str, int, int, bool]]:
    """chinese_snippet_terms() of a _ZH_TOKEN run that is not Han characters: as the analyzer tokenizes it."""
    base = match.start()
    return [(piece, base + start, base + end, piece in words)
            for piece, start, end, _ in _zh_pieces(match.group(0), "index")]


def _run_terms(text: str, match: re.Match, simplified: str, words: frozenset[str], han_words) -> list:
    """chinese_snippet_terms() of one _ZH_TOKEN run: a run of other characters as the analyzer tokenizes
    it; a run of Han characters (simplified: it in Simplified characters, or itself when the
    conversion changed its length) as its words' occurrences and the characters between them."""
    run, base = match.group(0), match.start()
    if not _HAN_START.match(run):
        return _other_run_terms(match, words)
    if len(simplified) != len(run):
        simplified = run
    return _marked_run(simplified, base, _word_spans(simplified, han_words))


def _marked_run(run: str, base: int, spans: list[tuple[int, int]]) -> list[tuple[str, int, int, bool]]:
    """(term, start, end, matched) of a run of Han characters starting at base in its text: each of the
    spans (start, end in the run, in order) a matched term, the characters between them unmatched."""
    found = []
    done = 0
    for start, end in spans:
        if start > done:
            found.append((run[done:start], base + done, base + start, False))
        found.append((run[start:end], base + start, base + end, True))
        done = max(done, end)
    if done < len(run):
        found.append((run[done:], base + done, base + len(run), False))
    return found


def _word_spans(run: str, words: list[str]) -> list[tuple[int, int]]:
    """(start, end) of the query words' occurrences in a run of Han characters, in order. A one-character
    word counts only where it touches (directly or through other one-character words) an occurrence of
    a longer word, unless every word is one character: a single character occurs inside many other
    words (回 of the query 回战场 in 回合, "turn")."""
    spans = {(at, at + len(word)) for word in words for at in _occurrences(run, word)}
    if all(len(word) == 1 for word in words):
        return sorted(spans)
    kept = {span for span in spans if span[1] - span[0] > 1}
    single = spans - kept
    while single:
        touching = {span for span in single if any(other[0] <= span[1] and span[0] <= other[1] for other in kept)}
        if not touching:
            break
        kept |= touching
        single -= touching
    return sorted(kept, key=lambda span: (span[0], -span[1]))


def _occurrences(text: str, word: str):
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + 1)


def chinese_analyzer():
    """Analyzer for zh-Hans and zh-Hant: canonical symbols, Simplified characters, jieba words."""
    return GapTokenizer(_ZH_TOKEN, _zh_pieces)


def analyzer_for(field: str):
    """The analyzer of a language text field other than ``text``."""
    if field == "text_zh":
        return chinese_analyzer()
    if field == "text_cjk":
        return cjk_analyzer()
    return european_analyzer(field.removeprefix("text_"))


def schema_fields(text_field_type) -> dict:
    """The language text fields for the Whoosh schema (every field in FIELDS but ``text``).

    text_field_type: whoosh.fields.TEXT; CJK fields parse a multi-token word as
    a phrase (bigrams) or as all words (jieba).
    """
    fields = {}
    for name in text_fields()[1:]:
        multitoken = {"text_cjk": "phrase", "text_zh": "and"}.get(name, "default")
        fields[name] = text_field_type(analyzer=analyzer_for(name), phrase=True,
                                       multitoken_query=multitoken)
    return fields
