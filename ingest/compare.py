"""Comparison forms, guards and the verifier: do two rulings make the same rules statement?

What counts as "the same ruling" is ``../shared/gold/dedup-guidelines.md``: only typography,
damaged characters, reordered coordinations, singular/plural, "it"/"they", wording-template
updates, the subject named another way and purely illustrative examples may differ. Works on
``Ruling.match`` (the folded form with the ruling's own card name replaced by ``~``, see
ingest/normalise.py):

1. comparison form (``compare_form``): template rewrites ("enters the battlefield" -> "enters",
   "To/Each time you proliferate" -> "When you proliferate", "the triggered ability of ~" -> "~",
   negation contractions spelled out), illustrative spans ("(such as X)", "such as X",
   "For example, ..." sentences) set aside, then tokens: English words (stemmed) and symbols,
   Chinese characters.
2. verifier (``same_ruling``, ``verify``): guard tokens must be equal (numbers and number words,
   signed P/T modifiers, mana and game symbols, counter kinds, negations, named effects); then
   the two token sequences are aligned and every differing span must be a soft word (articles,
   pronouns, auxiliaries, ``~``), a restated referent, or cancel against a word moved elsewhere.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer
from rapidfuzz.distance import Indel

MIN_SIMILARITY = 0.55          # below this token-sequence similarity two texts are never the same
PLACEHOLDER = "~"

_CJK_CHAR = r"\u3400-\u9fff\uf900-\ufaff"
_CJK = re.compile(f"[{_CJK_CHAR}]")
_TOKEN = re.compile(
    rf"\{{[^}}]*\}}|[+-]?[\dx*]+/[+-]?[\dx*]+|[+-]?\d+|~|[a-z]+(?:'[a-z]+)*|[{_CJK_CHAR}]")
_PT = re.compile(r"^[+-]?[\dx*]+/[+-]?[\dx*]+$")

# --- English comparison form -------------------------------------------------------------

# (pattern, replacement, literals): the pattern is tried only when one of the literals occurs in the
# text (every match contains one of them; most texts need few of the rewrites, and a substring test is
# far cheaper than a regular-expression scan)
_EN_REWRITES = [(re.compile(p), r, literals) for p, r, literals in [
    (r"\bcan ?not\b|\bcan't\b", "can not", ("can",)),
    (r"\bwon't\b", "will not", ("won't",)),
    (r"\b(?:don't|doesn't|didn't)\b", "do not", ("n't",)),
    (r"\b(?:isn't|aren't|wasn't|weren't)\b", "is not", ("n't",)),
    (r"\b(?:hasn't|haven't)\b", "has not", ("n't",)),
    (r"\b(it|that|there|he|she)'s\b", r"\1 is", ("'s",)),
    (r"\b(you|they|we)'(?:re|ll|ve)\b", r"\1", ("'re", "'ll", "'ve")),
    (r"\b(?:no one|nobody|none|nothing|never|neither|nor|no)\b", "not", ("no", "ne")),
    (r"\b(enters?|entered|entering)[ -]the[ -]battlefield\b", r"\1", ("battlefield",)),
    (r"^(?:to proliferate|(?:each time|whenever) you proliferate)\b", "when you proliferate", ("proliferate",)),
    (r",? and not of its effects (?:will )?happen", "", ("effects",)),
    (r"\bthe entire\b", "the", ("entire",)),
    # the subject's ability named by pointer: "~'s triggered ability", "the last ability of ~", "the third mode"
    (r"(?:~(?:'s)?|\bthe|\bits|\bthis|\bthat) (?:(?!or\b|and\b|spell\b|mana\b|other\b|same\b|own\b|new\b)"
     r"[a-z-]+ ){0,2}?(?:ability|mode)(?: of ~)?\b", "~", ("ability", "mode")),
    (r"~(?:'s)? effect\b", "~", ("effect",)),
    (r"\b(?:the spell|it|~) (?:do|will) not resolve\b", "~ not resolve", ("resolve",)),
]]
_EN_ILLUSTRATIVE = [(re.compile(p), literals) for p, literals in [
    (r"\((?:also |as )?(?:such as|like|with|for example|for instance|e\.g\.|including)\b[^)]*\)", ("(",)),
    (r",? such as [^.;,()]*", ("such as",)),
    (r"(?:^|(?<=[.!?] ))for example,[^.]*\.", ("for example,",)),
]]
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty hundred twice thrice half double "
    "triple".split())
_NEGATIONS = frozenset(["not"])
_EN_SOFT = frozenset(
    "~ the a an this that these those it its itself they them their themselves theirs "
    "will would shall be is are was were been being do does did has have had "
    "then if and of to for by with as at on in from any also which who just so there still "
    "you your yours another however instead".split())
# Counter kinds named in rulings (CR 122); a P/T modifier before "counter" is a kind too.
_COUNTER_KINDS = frozenset(
    "loyalty shield poison energy experience charge time ice oil stun lore level quest fade age blood "
    "brick corpse divinity egg fate feather flood fungus fuse hatchling healing hit hourglass infection "
    "ki luck mining mire music net omen ore page pain petal pin plague pressure prey pupa rust scream "
    "sleep slime slumber soot spore storage strife study theft tide tower training trap velocity verse "
    "vitality wage wind wish bounty coin credit defense finality flying lifelink deathtouch "
    "indestructible hexproof menace reach trample vigilance keyword bribery burden".split())
_EN_EFFECTS = [(re.compile(p), name, literal) for p, name, literal in [   # literal: in every match
    (r"\bgain(?:s|ed|ing)? (?:\w+ )?life\b", "gain life", "life"),
    (r"\blos(?:e|es|t|ing) (?:\w+ )?life\b", "lose life", "life"),
    (r"\bdraw(?:s|n|ing)?\b", "draw", "draw"),
    (r"\bscry\b", "scry", "scry"),
    (r"\bsurveil\b", "surveil", "surveil"),
    (r"\bmill\b", "mill", "mill"),
    (r"\bdiscard", "discard", "discard"),
    (r"\bexplore", "explore", "explore"),
    (r"\binvestigate", "investigate", "investigate"),
    (r"\bproliferat", "proliferate", "proliferat"),
    (r"\btoken", "token", "token"),
    (r"\bdamage\b", "damage", "damage"),
    (r"\bsacrific", "sacrifice", "sacrific"),
    (r"\bexile", "exile", "exile"),
    (r"\bdestroy", "destroy", "destroy"),
]]
_IRREGULAR = {"paid": "pay", "dealt": "deal", "made": "make", "got": "get", "gotten": "get",
              "chosen": "choos", "chose": "choos", "began": "begin", "begun": "begin"}

# --- Chinese comparison form -------------------------------------------------------------

_ZH_REWRITES = [(re.compile(p), r, None) for p, r in [
    (r"(?:会|将)?被反击|不会结算", "被反击"),
    (r"[,，]?且其所有效应都不会生效", ""),
    (r"即使|即便|纵使", "就算"),
    (r"整个", ""),
    (r"(?:~的|~之|其)(?:第[一二三四五六]个|最后一个)?(?:触发式|起动式|静止式|激怒|章节|忠诚)?异能", "~"),
]]
_ZH_ILLUSTRATIVE = [(re.compile(p), None) for p in [
    r"\((?:例如|举例来说|如|比如|像是)[^)]*\)",
    r"举例来说[^。]*。",
]]
_ZH_NUMBER = re.compile(r"(?<!第)[二三四五六七八九十两半]|一点|双倍|\d+")
_ZH_NEGATION = re.compile(r"不|没|无(?!论)|未|非")
_ZH_SOFT = frozenset("~的了之该此其已经都则就将也这所被个因在于时当你它们会")
_ZH_GENERIC = ("生物", "牌手", "咒语", "永久物", "衍生物", "异能", "神器", "结界", "地", "牌", "对手", "某")
_ZH_EFFECTS = [(re.compile(p), name) for p, name in [
    (r"获得[^。，]{0,4}生命", "gain life"), (r"失去[^。，]{0,4}生命", "lose life"), (r"抓", "draw"),
    (r"占卜", "scry"), (r"伤害", "damage"), (r"衍生物", "token"), (r"放逐", "exile"),
    (r"消灭", "destroy"), (r"牺牲", "sacrifice"), (r"刺探", "surveil"), (r"探险", "explore"),
]]


@dataclass(frozen=True)
class Form:
    """Comparison form of one matching-form text.

    tokens: content tokens in order (illustrative spans removed); guards: multiset
    of guard tokens over the whole text; effects: named effects mentioned; zh: Chinese.
    """

    tokens: tuple[str, ...]
    guards: tuple[tuple[str, int], ...]
    effects: frozenset[str]
    zh: bool


@dataclass(frozen=True)
class Verdict:
    """The verifier's decision: same ruling or not, similarity 0..1, and the reason when kept apart."""

    same: bool
    similarity: float
    reason: str | None = None


def is_chinese(text: str) -> bool:
    """True when a text holds Chinese characters (then it is compared character by character)."""
    return bool(_CJK.search(text))


@lru_cache(maxsize=None)
def _stemmer():
    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=1)
def _en_soft_stems() -> frozenset[str]:
    return frozenset(_stem(w) for w in _EN_SOFT) | _EN_SOFT


@lru_cache(maxsize=100_000)
def _stem(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("'s"):
        word = word[:-2]
    return _stemmer().stemWord(word)


def tokens(text: str) -> list[str]:
    """Word, symbol, number, P/T and ``~`` tokens of a folded text; Chinese as single characters."""
    return _TOKEN.findall(text)


def _apply(rules, text: str) -> str:
    for pattern, replacement, literals in rules:
        if literals is None or any(literal in text for literal in literals):
            text = pattern.sub(replacement, text)
    return text


@lru_cache(maxsize=16_384)
def compare_form(match: str) -> Form:
    """The comparison form of a matching-form text (see the module docstring).

    Cached for repeated same_ruling() calls; Grouper forms each new text once and
    keeps its leaders' forms itself, so the cache need not hold a corpus."""
    zh = is_chinese(match)
    text = _apply(_ZH_REWRITES if zh else _EN_REWRITES, match)
    whole = tokens(text)
    for pattern, literals in (_ZH_ILLUSTRATIVE if zh else _EN_ILLUSTRATIVE):
        if literals is None or any(literal in text for literal in literals):
            text = pattern.sub(" ", text)
    text = text.replace("(", " ").replace(")", " ")
    content = tokens(text)
    if zh:
        guards = Counter(_ZH_NUMBER.findall(match)) + Counter("not" for _ in _ZH_NEGATION.findall(
            _apply(_ZH_REWRITES, match)))
        guards += Counter(t for t in whole if _is_en_guard(t))
        effects = frozenset(name for pattern, name in _ZH_EFFECTS if pattern.search(text))
    else:
        guards = Counter(t for t in whole if _is_en_guard(t))
        guards += Counter(f"{k} counter" for k in _counter_kinds(whole))
        effects = frozenset(name for pattern, name, literal in _EN_EFFECTS
                            if literal in text and pattern.search(text))
        content = [_stem(t) if t[0].isalpha() else t for t in content]
    return Form(tuple(content), tuple(sorted(guards.items())), effects, zh)


@lru_cache(maxsize=100_000)
def _is_en_guard(token: str) -> bool:
    return (token.startswith("{") or bool(_PT.match(token)) or token.lstrip("+-").isdigit()
            or token in _NUMBER_WORDS or token in _NEGATIONS)


def _counter_kinds(toks: list[str]) -> list[str]:
    kinds = []
    for i, tok in enumerate(toks[1:], 1):
        prev = toks[i - 1]
        if tok in ("counter", "counters") and (prev in _COUNTER_KINDS or _PT.match(prev)):
            kinds.append(toks[i - 1])
    return kinds


def guards(match: str) -> Counter:
    """Multiset of guard tokens of a matching-form text (numbers, symbols, P/T, negations as ``not``, counter kinds)."""
    return Counter(dict(compare_form(match).guards))


def similarity(a: str, b: str) -> float:
    """Similarity 0..1 of two matching-form texts: normalised Indel similarity of their comparison tokens."""
    return Indel.normalized_similarity(compare_form(a).tokens, compare_form(b).tokens)


def same_ruling(a: str, b: str) -> Verdict:
    """Decide whether two matching-form texts make the same rules statement.

    Refuses (same=False) when guard tokens or named effects differ, or when a
    differing word is not soft, a restated referent or moved; the reason names it.
    """
    return verify(compare_form(a), compare_form(b))


def verify(fa: Form, fb: Form, explain: bool = True) -> Verdict:
    """same_ruling() on two comparison forms. explain=False leaves out the reasons that
    name the differing tokens (reason None; the decision and similarity are the same),
    which is what most refusals cost when nobody reads them."""
    sim = Indel.normalized_similarity(fa.tokens, fb.tokens)
    if fa.zh != fb.zh:
        return Verdict(False, sim, "different language")
    if sim < MIN_SIMILARITY:
        return Verdict(False, sim, "wording differs")
    if fa.guards != fb.guards:
        if not explain:
            return Verdict(False, sim)
        ga, gb = Counter(dict(fa.guards)), Counter(dict(fb.guards))
        return Verdict(False, sim, "guard token differs: " + _versus(ga - gb, gb - ga))
    if fa.effects != fb.effects:
        if not explain:
            return Verdict(False, sim)
        return Verdict(False, sim, "named effect differs: " + _versus(
            Counter(fa.effects - fb.effects), Counter(fb.effects - fa.effects)))
    left_a, left_b = _hard_difference(fa, fb)
    if left_a or left_b:
        return Verdict(False, sim, "wording differs: " + _versus(left_a, left_b) if explain else None)
    return Verdict(True, sim)


def judge(fa: Form, fb: Form) -> tuple[bool, float]:
    """verify(fa, fb, explain=False)'s decision and similarity, without making a Verdict (the
    placing loop's hot path: a candidate pair is judged here, and only a refused pair close
    enough for a Related link goes through verify() for its reason)."""
    sim = Indel.normalized_similarity(fa.tokens, fb.tokens)
    if fa.zh != fb.zh or sim < MIN_SIMILARITY or fa.guards != fb.guards or fa.effects != fb.effects:
        return False, sim
    left_a, left_b = _hard_difference(fa, fb)
    return not (left_a or left_b), sim


def may_be_similar(fa: Form, fb: Form) -> bool:
    """False when the token lengths alone put the Indel similarity (2 LCS / (len a + len b),
    LCS <= the shorter length) below MIN_SIMILARITY: then verify() could only refuse, with
    a similarity too low for a Related link."""
    la, lb = len(fa.tokens), len(fb.tokens)
    return 2 * min(la, lb) >= (MIN_SIMILARITY - 1e-9) * (la + lb)      # margin: ties are computed


def _versus(a: Counter, b: Counter) -> str:
    side = lambda c: " ".join(sorted(c.elements())[:4]) or "(nothing)"
    return f"{side(a)} vs {side(b)}"


def _hard_difference(fa: Form, fb: Form) -> tuple[Counter, Counter]:
    """Words that differ and matter: per diff chunk, drop soft words, names and restated referents;
    then cancel what moved (a word deleted in one place and inserted in another)."""
    ta, tb = fa.tokens, fb.tokens
    soft = _ZH_SOFT if fa.zh else _en_soft_stems()
    left_a: list[str] = []
    left_b: list[str] = []
    for i1, i2, j1, j2 in _chunks(ta, tb):
        ca, cb = ta[i1:i2], tb[j1:j2]
        ha = [t for t in ca if t not in soft]
        hb = [t for t in cb if t not in soft]
        if not ha and not hb:
            continue
        if fa.zh and _is_name_swap(ca, ha, cb, hb):
            continue
        if not hb and _restated(ca, ha, ta, i1, i2):
            continue
        if not ha and _restated(cb, hb, tb, j1, j2):
            continue
        left_a += ha
        left_b += hb
    if not left_a or not left_b:            # nothing can cancel
        return Counter(left_a), Counter(left_b)
    count_a, count_b = Counter(left_a), Counter(left_b)
    common = count_a & count_b
    return count_a - common, count_b - common


def _chunks(ta, tb) -> list[tuple[int, int, int, int]]:
    """Differing stretches (i1, i2, j1, j2): runs of adjacent insert/delete opcodes joined."""
    chunks: list[list[int]] = []
    last_end = None
    for tag, i1, i2, j1, j2 in Indel.opcodes(ta, tb).as_list():
        if tag == "equal":
            last_end = None
            continue
        if last_end is not None:
            chunks[-1][1], chunks[-1][3] = i2, j2
        else:
            chunks.append([i1, i2, j1, j2])
        last_end = (i2, j2)
    return [tuple(c) for c in chunks]


def _is_name_swap(ca, ha, cb, hb) -> bool:
    """A Chinese card name on one side against ``~`` on the other (the card field named another card)."""
    for chunk, hard, other in ((ca, ha, cb), (cb, hb, ca)):
        if PLACEHOLDER in other and not [t for t in other if t not in _ZH_SOFT] and 2 <= len(hard) <= 8:
            run = "".join(hard)
            if all(_CJK.match(t) for t in hard) and not any(g in run for g in _ZH_GENERIC):
                return True
    return False


_DEFINITE = frozenset(["that", "the", "this", "those", "these", "该", "此", "这"])


def _restated(chunk, hard, whole, start, end) -> bool:
    """A definite noun phrase standing for a pronoun ("that permanent or player" for "it"):
    short, opened by a definite article, every word already said elsewhere in the text."""
    if not hard or len(chunk) > 5 or chunk[0] not in _DEFINITE:
        return False
    rest = set(whole[:start])
    rest.update(whole[end:])
    return all(t in rest for t in hard)


def hard_tokens(form: Form) -> list[str]:
    """Content tokens without soft words: what shingles are built from."""
    soft = _ZH_SOFT if form.zh else _en_soft_stems()
    return [t for t in form.tokens if t not in soft] or list(form.tokens)
