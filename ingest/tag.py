"""Tag stage: the mechanics each entry is about.

Keyword abilities are CR 702 and keyword actions CR 701
(``realdata/comprules-rulesraker/MagicCompRules.txt``); the named non-keyword
mechanics are listed in PRODUCT.md, "Mechanics". The vocabulary lives in
``ingest/data/mechanics.json``, derived by ``scripts/derive_mechanics.py``: id,
printed name, kind, forms (whole-word patterns on unstemmed text), symbols,
reminder phrases and Chinese names. What counts as "about" follows
``shared/gold/tag-guidelines.md``: a ruling names the mechanic or discusses it
unambiguously; card names never make tags.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from rulings.ingest.errors import UnknownMechanic
from rulings.ingest.model import Entry

try:
    from re import _parser as _sre_parse  # Python 3.11+
except ImportError:                               # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

CARD_MASK = "\x00"

# Straight quotes and ASCII dashes for matching (display text is never changed).
_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "−": "-"})

# A keyword use of a word that is also plain English (``has flash``, ``with reach and flying``).
_GRANT = (r"(?:has|have|had|having|with|without|gains?|gained|gaining|loses?|lost|losing|grants?|granted|"
          r"granting|gives?|gave|given|giving|get|gets)")


@lru_cache(maxsize=1)
def _before() -> re.Pattern:
    """``has`` / ``with`` / ``gains`` ... then optionally other keyword abilities in a list, right before a form."""
    keywords = sorted({f for m in vocabulary() if m.kind == "keyword ability"
                       for f in m.forms if re.fullmatch(r"[a-z -]+", f)}, key=len, reverse=True)
    listed = rf"(?:(?:{'|'.join(keywords)})(?:\s+(?:\d+|X|\{{[^}}]*\}}))*,?\s+(?:(?:and|or|and/or)\s+)?)"
    return re.compile(rf"(?:\b{_GRANT}\s+{listed}{{0,4}}|\binstances? of\s+|[\"'])$", re.IGNORECASE)


_AFTER = re.compile(r"^(?:\s+(?:abilit(?:y|ies)|costs?|cards?|spells?|creatures?|permanents?|triggers?|"
                    r"triggered|mechanic|keyword|instances?|effects?)\b|\s*\{|\s+(?:\d+|X)\b|\s*[—-]\s|"
                    r"\"|'s (?:ability|trigger|cost))", re.IGNORECASE)
_SENTENCE_VERB = re.compile(r"^\s+(?:is|isn't|doesn't|does|can|can't|will|won't|works|only|applies|triggers|"
                            r"lets|allows|causes|checks|counts|was|has|means|represents|refers)\b")

# Chinese keyword use: 具有/获得/失去 X, X异能, X费用, 「X」, X inside quoted card text 「…X…」, X listed after
# another (或 X). A word that is also a verb is the verb when
# a particle or a demonstrative with its object follows (结附了灵气 "Auras attached", 结附于其上, 佩带此武具
# "equipped with this Equipment"), unless it is quoted (「结附于生物」 is the keyword "enchant creature").
_ZH_BEFORE = re.compile(r"(?:具有|具|获得|失去|有|带有|以|「|“|\"|和|与|及|、|或)$")
_ZH_QUOTED = re.compile(r"[「“\"]$")
_ZH_VERB_AFTER = re.compile(r"^(?:着|了|于|在|(?:此|该|这|那)(?:武具|灵气|生物|永久物|牌))")
_ZH_AFTER = re.compile(r"^(?:异能|费用|能力|」|”|\"|的费用|指示物|牌|咒语|生物|动作|之(?![前后])|[0-9X{])")


@dataclass(frozen=True)
class Mechanic:
    """One vocabulary entry.

    id (``plus-one-counters``), printed name, kind (``keyword ability``, ``keyword action``,
    ``counters``, ``mana``, ``other``), forms (regex sources, whole words, case-insensitive),
    zh (Chinese names), and: symbols (regex sources such as ``\\{E\\}``), reminders (phrases that
    describe the mechanic without naming it), keyword_only (the name is also plain English, so only a
    keyword use counts), zh_patterns (Chinese regex sources), zh_keyword_only, rule (CR number).
    """

    id: str
    name: str
    kind: str
    forms: tuple[str, ...]
    zh: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    reminders: tuple[str, ...] = ()
    keyword_only: bool = False
    zh_patterns: tuple[str, ...] = ()
    zh_keyword_only: bool = False
    rule: str = ""


@lru_cache(maxsize=1)
def vocabulary() -> tuple[Mechanic, ...]:
    """The mechanics of ``ingest/data/mechanics.json``, in file order."""
    raw = json.loads(resources.files("rulings.ingest").joinpath("data/mechanics.json").read_text("utf-8"))
    return tuple(Mechanic(m["id"], m["name"], m["kind"], tuple(m["forms"]), tuple(m.get("zh", ())),
                          tuple(m.get("symbols", ())), tuple(m.get("reminders", ())),
                          bool(m.get("keyword_only")), tuple(m.get("zh_patterns", ())),
                          bool(m.get("zh_keyword_only")), m.get("rule", ""))
                 for m in raw)


@dataclass(frozen=True)
class _Matcher:
    id: str
    forms: re.Pattern | None
    keyword_only: bool
    plain: re.Pattern | None        # symbols and reminders: any match counts
    zh: re.Pattern | None
    zh_keyword_only: bool
    zh_plain: re.Pattern | None
    participle: bool = False        # an English past participle (melded, suspected) is one of the forms


def _words(sources) -> re.Pattern | None:
    sources = list(sources)
    if not sources:
        return None
    return re.compile(rf"(?<![\w-])(?:{'|'.join(sources)})(?![\w-])", re.IGNORECASE)


_SCRIPT_CHANGE = re.compile(r"(?<=[0-9A-Za-z])(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])(?=[0-9A-Za-z])")


def _zh_source(name: str) -> str:
    """The regex source of a Chinese name, spaces allowed where it turns from a Latin letter or digit to Han
    or back: the release notes write "+1/+1指示物" and "+1/+1 指示物" (a typesetter's space, no other word);
    a symbol's braces ({能}) stay as written."""
    return r"\s*".join(re.escape(part) for part in _SCRIPT_CHANGE.split(name))


@lru_cache(maxsize=1)
def _matchers() -> tuple[_Matcher, ...]:
    out = []
    for m in vocabulary():
        symbols = [re.compile(s, re.IGNORECASE) for s in m.symbols]
        plain = "|".join([f"(?:{s.pattern})" for s in symbols]
                         + [rf"(?<![\w-])(?:{r})(?![\w-])" for r in m.reminders])
        zh = re.compile("|".join(_zh_source(z) for z in sorted(m.zh, key=len, reverse=True))) if m.zh else None
        zh_plain = re.compile("|".join(m.zh_patterns)) if m.zh_patterns else None
        out.append(_Matcher(m.id, _words(m.forms), m.keyword_only,
                            re.compile(plain, re.IGNORECASE) if plain else None,
                            zh, m.zh_keyword_only, zh_plain,
                            any(re.fullmatch(r"[a-z]+ed", f) for f in m.forms)))
    return tuple(out)


@lru_cache(maxsize=1)
def _zh_names() -> frozenset[str]:
    return frozenset(z for m in vocabulary() for z in m.zh)


@lru_cache(maxsize=1)
def _zh_card_names_holding() -> dict[str, tuple[str, ...]]:
    """{a mechanic's Chinese name: the Chinese card names that hold it but are not it}, longest first:
    预示 ("foretell") -> 预示成真 (As Foretold). From ingest/data/zh_card_names.json (MTGJSON's foreignData)."""
    raw = json.loads(resources.files("rulings.ingest").joinpath("data/zh_card_names.json").read_text("utf-8"))
    names = {matching_text(name) for by_set in raw.values() for name in by_set}
    return {z: tuple(sorted((n for n in names if z in n and n != z), key=len, reverse=True))
            for z in map(matching_text, _zh_names())}


def _in_zh_card_name(text: str, start: int, end: int) -> bool:
    """True when the Chinese name at text[start:end] lies inside another card's Chinese name written there
    (a card name never makes a tag: tag-guidelines.md)."""
    for name in _zh_card_names_holding().get(text[start:end], ()):
        at = text.find(name, max(0, start - len(name) + (end - start)), end + len(name))
        while 0 <= at <= start:
            if at + len(name) >= end:
                return True
            at = text.find(name, at + 1, end + len(name))
    return False


def matching_text(text: str) -> str:
    """NFKC (full-width letters, digits and signs to ASCII), straight quotes, ASCII dashes; case kept."""
    return unicodedata.normalize("NFKC", text).translate(_QUOTES)


def card_names(cards) -> list[str]:
    """The names to mask for these cards: full name, each face, the short name before a comma; longest first."""
    return list(_card_names(tuple(cards)))


@lru_cache(maxsize=1 << 14)
def _card_names(cards: tuple) -> tuple[str, ...]:
    names = set()
    for card in cards:
        if not card:
            continue
        for face in [card] + card.split("//"):
            face = matching_text(face).strip()
            names.add(face)
            if "," in face:
                names.add(face.split(",")[0].strip())
    return tuple(sorted((n for n in names if len(n) > 1), key=len, reverse=True))


def mask_cards(text: str, cards) -> str:
    """Replace each card name (full, each face, short name before a comma) with a placeholder.

    A Chinese release-notes "card" that is exactly a mechanic's Chinese name is a section heading
    (``风暴``), not a card, and stays.
    """
    for name in _card_names(tuple(cards)):
        if name not in _zh_names():
            text = _mask_name(text, name)
    return text


def _mask_name(text: str, name: str) -> str:
    """``re.sub(re.escape(name), CARD_MASK, text, flags=re.IGNORECASE)``, by ``str.find`` where that is the same.

    For a name of ASCII and caseless characters (Chinese) and a text without ``_CASE_ODD`` characters,
    a character matches a name character case-insensitively exactly when their ``str.lower`` forms are
    equal, and lowering keeps every position, so the occurrences in the lowered text are the regex's
    matches (leftmost, non-overlapping). tests/test_tag.py checks both claims on every code point.
    """
    if not _plain_case(name) or _CASE_ODD.search(text):
        return _name_pattern(name).sub(CARD_MASK, text)
    lowered, wanted = text.lower(), name.lower()
    at = lowered.find(wanted)
    if at < 0:
        return text
    parts, start = [], 0
    while at >= 0:
        parts.append(text[start:at])
        start = at + len(wanted)
        at = lowered.find(wanted, start)
    parts.append(text[start:])
    return CARD_MASK.join(parts)


def _plain_case(name: str) -> bool:
    """Every character of name is ASCII or has no case (``c.lower() == c.upper() == c``)."""
    return name.isascii() or all(c.isascii() or c.lower() == c == c.upper() for c in name)


@lru_cache(maxsize=1 << 14)
def _name_pattern(name: str) -> re.Pattern:
    """A card name as a case-insensitive literal pattern (compiled once; ``re``'s own cache holds 512)."""
    return re.compile(re.escape(name), re.IGNORECASE)


# The characters that ``re.IGNORECASE`` and ``str.lower`` disagree on for ASCII: dotless ı and
# İ match i, long ſ matches s, and İ lowers to two characters. Found by trying every code point
# against every printable ASCII character (tests/test_tag.py repeats the search).
_CASE_ODD = re.compile("[\u0130\u0131\u017f]")


def _keyword_use(text: str, start: int, end: int) -> bool:
    word = text[start:end]
    if _before().search(text[max(0, start - 80):start]) or _AFTER.match(text[end:end + 30]):
        return True
    listed = _listed_with_keyword()
    if listed[0].search(text[max(0, start - 40):start]) or listed[1].match(text[end:end + 40]):
        return True
    sentence_start = start == 0 or re.search(r"[.!?:]\s+$|^\s*$", text[max(0, start - 3):start])
    return bool(sentence_start and word[:1].isupper() and _SENTENCE_VERB.match(text[end:end + 20]))


@lru_cache(maxsize=1)
def _listed_with_keyword() -> tuple[re.Pattern, re.Pattern]:
    """A name that is also plain English listed with another keyword's name that is not ("such as suspend
    and rebound do", "flash or rebound"): (the pattern before it, the pattern after it). The Chinese rule
    alike: _ZH_BEFORE's 和 / 或 / 、."""
    names = sorted({f for m in vocabulary() if not m.keyword_only and m.kind in ("keyword ability", "keyword action")
                    for f in m.forms if re.fullmatch(r"[a-z][a-z -]*", f)}, key=len, reverse=True)
    alternatives = "|".join(map(re.escape, names))
    return (re.compile(rf"(?<![\w-])(?:{alternatives}),?\s+(?:and|or|and/or)\s+$", re.IGNORECASE),
            re.compile(rf",?\s+(?:and|or|and/or)\s+(?:{alternatives})(?![\w-])", re.IGNORECASE))


def _is_name(text: str, start: int, end: int) -> bool:
    """A capitalised form in mid-sentence is a name (another card's: ``such as Evolving Wilds``), except
    where it is written as a keyword the way older rulings capitalised them: followed by "ability"
    ("the Reach ability"), or had by an object and ending the phrase ("don't actually have Flying, so")."""
    if not text[start:start + 1].isupper() or start == 0:
        return False
    before = text[max(0, start - 3):start]
    if re.search(r"[.!?:(\"']\s*$|^\s*$", before) or text[start - 1:start] == "\n":
        return False
    if _CAPITALISED_KEYWORD.search(text[max(0, start - 12):start]) and _PHRASE_END.match(text[end:end + 6]) \
            or _ABILITY_AFTER.match(text[end:end + 12]):
        return False
    return not re.match(r"\s*(?:\{|\d)", text[end:end + 3])


# Older rulings capitalise keywords: "has Flying.", "gains Trample and", "the Reach ability".
_CAPITALISED_KEYWORD = re.compile(r"\b(?:have|has|had|having|gains?|gained|loses?|lost|with|without)\s+$")
_PHRASE_END = re.compile(r"\s*(?:[,.;:)]|and\b|or\b|$)")
_ABILITY_AFTER = re.compile(r"\s+abilit(?:y|ies)\b")


def _english(matcher: _Matcher, text: str) -> bool:
    if matcher.plain is not None and matcher.plain.search(text):
        return True
    if matcher.forms is None:
        return False
    for hit in matcher.forms.finditer(text):
        start, end = hit.span()
        if " " not in hit.group(0) and _is_name(text, start, end):
            continue
        if not matcher.keyword_only or _keyword_use(text, start, end):
            return True
    return False


def _chinese(matcher: _Matcher, text: str) -> bool:
    if matcher.zh_plain is not None and matcher.zh_plain.search(text):
        return True
    if matcher.zh is None:
        return False
    for hit in matcher.zh.finditer(text):
        start, end = hit.span()
        if _in_zh_card_name(text, start, end):
            continue
        if not matcher.zh_keyword_only:
            return True
        if _ZH_AFTER.match(text[end:end + 4]) or matcher.participle and _zh_attributive(text, start, end):
            return True
        before = text[max(0, start - 3):start]
        if _ZH_QUOTED.search(before) or _ZH_BEFORE.search(before) and not _ZH_VERB_AFTER.match(text[end:end + 4]):
            return True
        if _in_quoted_text(text, start):
            return True
    return False


def _zh_attributive(text: str, start: int, end: int) -> bool:
    """True when the Chinese name at text[start:end] is a perfect participle before a noun, 已X的 (已融合的永久物
    "a melded permanent", 已遭疑的生物 "a suspected creature"): the state the keyword gives, as the CR
    glossary's Chinese names its designations (已增幅 kicked, 已设谋 plotted, 已铭勇 renowned). Counted for a
    mechanic whose English past participle is one of its forms; the predicate 效应已终止 ("the effect has
    ended") is not before 的."""
    return start > 0 and text[start - 1] == "已" and text[end:end + 1] == "的"


def _in_quoted_text(text: str, start: int) -> bool:
    """True when text[start] is inside a quotation 「…」 or 『…』 (card text quoted in a Chinese ruling, as
    注记于「每当所有牌手完成投票时」: there a mechanic's name is its keyword, not the everyday word)."""
    opened = max(text.rfind("「", 0, start), text.rfind("『", 0, start))
    return opened >= 0 and max(text.rfind("」", opened, start), text.rfind("』", opened, start)) < 0


def _required_literals(parsed) -> frozenset[str] | None:
    """Strings one of which every match of a parsed regex (sre_parse form) contains; None when unknown.

    Runs of literal characters are required as written; a group, a branch whose every alternative has
    required strings (their union) and a repeat of at least once add their own; anything else (classes,
    optional parts, lookarounds) breaks a run. Of the candidates, the set whose shortest string is
    longest is kept (the most selective).
    """
    candidates, run = [], []

    def flush():
        if run:
            candidates.append(frozenset(["".join(run)]))
            run.clear()

    for op, av in parsed:
        if op is _sre_parse.LITERAL:
            run.append(chr(av))
            continue
        flush()
        sub = None
        if op is _sre_parse.SUBPATTERN:
            sub = _required_literals(av[-1])
        elif op is _sre_parse.BRANCH:
            alternatives = [_required_literals(a) for a in av[1]]
            if all(alternatives):
                sub = frozenset().union(*alternatives)
        elif op in (_sre_parse.MAX_REPEAT, _sre_parse.MIN_REPEAT) and av[0] >= 1:
            sub = _required_literals(av[2])
        if sub:
            candidates.append(sub)
    flush()
    if not candidates:
        return None
    return max(candidates, key=lambda s: (min(map(len, s)), -len(s)))


def _matcher_literals(matcher: _Matcher) -> frozenset[str] | None:
    """Lower-cased strings one of which a text must contain (lower-cased) for the matcher to match it.

    None when some pattern of the matcher has no required string: that matcher is always run.
    """
    out: set[str] = set()
    for pattern in (matcher.forms, matcher.plain, matcher.zh, matcher.zh_plain):
        if pattern is None:
            continue
        found = _required_literals(_sre_parse.parse(pattern.pattern, pattern.flags))
        if found is None:
            return None
        out |= found
    if not all(_plain_case(s) for s in out) or any(_CASE_ODD.search(s) for s in out):
        return None                      # only ASCII and caseless strings lower the way re matches
    lowered = {s.lower() for s in out}
    return frozenset(s for s in lowered if not any(t != s and t in s for t in lowered))


_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class _Prefilter:
    """Where to look up each required string (see ``_candidates``).

    by_core: the longest ``[a-z0-9]`` run of a string -> (string, matcher indexes) pairs; by_char: for
    strings without such a run, one of their characters (non-ASCII where there is one) -> pairs;
    always: indexes of matchers with no required strings.
    """

    by_core: dict[str, tuple[tuple[str, tuple[int, ...]], ...]]
    by_char: dict[str, tuple[tuple[str, tuple[int, ...]], ...]]
    always: tuple[int, ...]


@lru_cache(maxsize=1)
def _prefilter() -> _Prefilter:
    by_literal: dict[str, list[int]] = defaultdict(list)
    always = []
    for i, matcher in enumerate(_matchers()):
        literals = _matcher_literals(matcher)
        if literals is None:
            always.append(i)
            continue
        for literal in literals:
            by_literal[literal].append(i)
    by_core: dict[str, list] = defaultdict(list)
    by_char: dict[str, list] = defaultdict(list)
    for literal, ids in sorted(by_literal.items()):
        runs = _TOKEN.findall(literal)
        if runs:
            by_core[max(runs, key=len)].append((literal, tuple(ids)))
        else:
            by_char[next((c for c in literal if not c.isascii()), literal[0])].append((literal, tuple(ids)))
    return _Prefilter({k: tuple(v) for k, v in by_core.items()}, {k: tuple(v) for k, v in by_char.items()},
                      tuple(always))


@lru_cache(maxsize=1 << 16)
def _token_literals(token: str) -> tuple[frozenset[int], tuple[tuple[str, tuple[int, ...]], ...]]:
    """For a word token: the matcher indexes of strings that are a core inside it (surely present), and
    the (string, matcher indexes) pairs whose core lies inside it but that are longer (to look for)."""
    sure: set[int] = set()
    maybe = []
    for core, pairs in _prefilter().by_core.items():
        if core in token:
            for literal, ids in pairs:
                if literal == core:
                    sure.update(ids)
                else:
                    maybe.append((literal, ids))
    return frozenset(sure), tuple(maybe)


def _candidates(masked: str) -> list[_Matcher]:
    """The matchers that could match a masked text, in vocabulary order (all of them when unsure).

    Every match of a matcher's patterns contains one of its required strings (``_matcher_literals``),
    so a matcher none of whose strings occurs in the lower-cased text cannot match. A string occurs
    only where its core lies inside one ``[a-z0-9]`` token of the text, or, without a core, where its
    key character occurs; only those strings are looked for. Texts with a character that
    ``re.IGNORECASE`` and ``str.lower`` treat differently get every matcher.
    """
    matchers = _matchers()
    if _CASE_ODD.search(masked):
        return list(matchers)
    pre = _prefilter()
    lowered = masked.lower()
    hits = set(pre.always)
    maybe: dict[str, tuple[int, ...]] = {}
    for token in set(_TOKEN.findall(lowered)):
        sure, longer = _token_literals(token)
        hits |= sure
        maybe.update(longer)
    for char in pre.by_char.keys() & set(lowered):
        maybe.update(pre.by_char[char])
    for literal, ids in maybe.items():       # each string looked for once: linear in the text's length
        if literal in lowered:
            hits.update(ids)
    return [matchers[i] for i in sorted(hits)]


def _mechanics_of(masked: str, matchers) -> tuple[str, ...]:
    return tuple(sorted(m.id for m in matchers if _english(m, masked) or _chinese(m, masked)))


def mechanics_in(text: str, cards=()) -> tuple[str, ...]:
    """Sorted mechanic ids a ruling text is about, with its card names masked first.

    text: a ruling as written (any language); cards: the card names of the ruling (``Face A // Face B``
    is masked whole and by face). English forms match whole words on unstemmed text; Chinese names
    match anywhere in the text. Only the mechanics whose required strings occur in the text are tried
    (``_candidates``); the result equals trying every mechanic (``mechanics_in_plain``).
    """
    masked = mask_cards(matching_text(text), list(cards))
    return _mechanics_of(masked, _candidates(masked))


def mechanics_in_plain(text: str, cards=()) -> tuple[str, ...]:
    """``mechanics_in`` trying every mechanic's patterns on the text (the reference the tests compare with)."""
    masked = mask_cards(matching_text(text), list(cards))
    return _mechanics_of(masked, _matchers())


def tag_key(ruling) -> tuple[str, str | None]:
    """What a ruling's tags depend on: (its text, repaired when repaired; its card name)."""
    return (ruling.repaired_text or ruling.text, ruling.card)


def mechanics_of_keys(keys: list[tuple[str, str | None]]) -> list[tuple[str, ...]]:
    """mechanics_in() of each tag_key (text, card), in order (a batch for a worker process)."""
    return [mechanics_in(text, [card] if card else []) for text, card in keys]


def tag(entries: list[Entry], known: dict[tuple[str, str | None], tuple[str, ...]] | None = None) -> None:
    """Set ``mechanics`` on each entry: the union of its variants' tags (in place).

    known: mechanics already found by tag_key (mechanics_of_keys, e.g. in worker processes
    while the entries were made); extended in place with the rest.
    """
    memo = {} if known is None else known   # a ruling repeated on every printing is tagged once
    for entry in entries:
        found = set()
        for variant in entry.variants:
            r = variant.ruling
            key = tag_key(r)
            if key not in memo:
                memo[key] = mechanics_in(key[0], [r.card] if r.card else [])
            found.update(memo[key])
        entry.mechanics = sorted(found)


def find_mechanic(name: str) -> Mechanic | None:
    """The mechanic a person means by ``name``: its id, printed name, any of its forms, a Chinese name,
    or another name the CR glossary gives it (glossary_names(): renamed ``Totem Armor``, ``Swampwalk``,
    ``Vehicle``); inner hyphens may stand for spaces (``totem-armor``).

    ``Proliferated``, ``double strike``, ``totem armor``, ``增殖`` and ``plus-one-counters`` all resolve;
    None when nothing matches.
    """
    wanted = matching_text(name).strip()
    if not wanted:
        return None
    if re.search(r"[\u3400-\u9fff]", wanted):
        from rulings.ingest.language import to_simplified  # Traditional names (飛行) resolve like Simplified
        wanted = to_simplified(wanted)
    lowered = wanted.lower()
    as_id = re.sub(r"[\s_]+", "-", lowered)
    for mechanic in vocabulary():
        if as_id == mechanic.id or lowered == mechanic.name.lower() or wanted in mechanic.zh:
            return mechanic
    spaced = re.sub(r"(?<=\w)[-_](?=\w)", " ", wanted)
    for mechanic in vocabulary():
        forms = _words(mechanic.forms)
        if forms is not None and (forms.fullmatch(wanted) or forms.fullmatch(spaced)):
            return mechanic
        if any(re.fullmatch(p, wanted) for p in mechanic.zh_patterns):
            return mechanic
    key = _name_key(wanted)
    alias = _aliases().get(key) or (_aliases().get(key[:-1]) if key.endswith("s") else None)   # Vehicles
    return next((m for m in vocabulary() if m.id == alias), None) if alias else None


def resolve_mechanic(name: str) -> str:
    """The id of the mechanic a person means by ``name`` (find_mechanic()): the one resolver behind
    ``mechanics NAME``, ``search --mechanic``, ``export --mechanic`` and a query's ``mechanic:``.

    Raises UnknownMechanic (one line) otherwise: for a former keyword that is now an ability word
    (``threshold``, CR glossary) saying so; else naming the closest mechanic ids (closest_mechanics()).
    """
    mechanic = find_mechanic(name)
    if mechanic is not None:
        return mechanic.id
    key = _name_key(name)
    if not any(ch.isalnum() for ch in key):
        raise UnknownMechanic(f"{name!r} names no mechanic; give an id, a printed name or a Chinese name")
    if key in glossary_names()["ability_words"]:
        raise UnknownMechanic(f"{name!r} is an ability word, not a mechanic: it used to be a keyword ability and "
                              f"now has no rules meaning (CR glossary); search for the word: rulings search {key}")
    close = closest_mechanics(name)
    if not close:
        raise UnknownMechanic(f"unknown mechanic {name!r}; 'rulings mechanics' lists them")
    raise UnknownMechanic(f"unknown mechanic {name!r}; closest: {', '.join(close)}")


def closest_mechanics(name: str, limit: int = 3) -> list[str]:
    """Up to limit mechanic ids whose id, printed name, plain forms or glossary names are spelled most like
    name (rapidfuzz ratio of at least 60 of 100), closest first; [] when none is that close."""
    from rapidfuzz import fuzz

    key = _name_key(name)
    best: dict[str, float] = {}
    for candidate, mechanic_id in mechanic_spellings():
        score = fuzz.ratio(key, candidate)
        if score >= 60 and score > best.get(mechanic_id, 0):
            best[mechanic_id] = score
    return sorted(best, key=lambda m: (-best[m], m))[:limit]


@lru_cache(maxsize=1)
def mechanic_spellings() -> tuple[tuple[str, str], ...]:
    """Every name the resolver (find_mechanic) knows a mechanic by, spelled as a person types it:
    ``(spelling, mechanic id)`` pairs, the spelling lower case with runs of spaces, '-' and '_' as one
    space (``("double strike", "double-strike")``), in vocabulary order: each mechanic's id, printed
    name and forms that are plain words, then the CR glossary's other names (``("totem armor",
    "umbra-armor")``); each pair once. What closest_mechanics() compares a mistyped name with, and what
    search/bestmatch.py mechanic_name_table() adds to the names a query's words may spell."""
    found = []
    for mechanic in vocabulary():
        plain = [f for f in mechanic.forms if re.fullmatch(r"[\w' -]+", f)]
        found += [(_name_key(text), mechanic.id) for text in (mechanic.id, mechanic.name, *plain)]
    found += list(_aliases().items())
    return tuple(dict.fromkeys(found))


def _name_key(text: str) -> str:
    """A typed name for comparison: matching_text(), lower case, runs of spaces, '-' and '_' as one space."""
    return re.sub(r"[\s_-]+", " ", matching_text(text).strip().lower())


@lru_cache(maxsize=1)
def glossary_names() -> dict:
    """``ingest/data/mechanic_names.json`` (scripts/derive_mechanics.py --glossary): ``aliases`` (a name the
    CR glossary gives a mechanic, lower case -> mechanic id) and ``ability_words`` (a former keyword,
    lower case -> the glossary's sentence)."""
    return json.loads(resources.files("rulings.ingest").joinpath("data/mechanic_names.json").read_text("utf-8"))


@lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    return {_name_key(name): mechanic_id for name, mechanic_id in glossary_names()["aliases"].items()}
