"""Comparison forms, guards and the verifier: do two rulings make the same rules statement?

What counts as "the same ruling" is ``../shared/gold/dedup-guidelines.md``: only typography,
damaged characters, reordered coordinations, singular/plural, "it"/"they", wording-template
updates, the subject named another way and purely illustrative examples may differ. Works on
``Ruling.match`` (the folded form with the ruling's own card name replaced by ``~``, see
ingest/normalise.py):

1. comparison form (``compare_form``): other cards' names (TABLES["names"]) masked as ``@``,
   template rewrites ("enters the battlefield" -> "enters", "To/Each time you proliferate" ->
   "When you proliferate", "the triggered ability of ~" / "~'s emblem's ability" -> "~", "is an
   illegal target" -> "is illegal", "cast from exile" -> "cast this way", negation contractions
   spelled out), illustrative spans ("(such as X)", "such as X", "For example, ..." sentences)
   set aside, then tokens: English words (stemmed) and symbols, Chinese characters.
2. verifier (``same_ruling``, ``verify``): guard tokens must be equal (numbers and number words,
   signed P/T modifiers, mana and game symbols, counter kinds, negations, named effects); then
   the two token sequences are aligned and every differing span is classified (``span_kind``):
   soft words (articles, pronouns, auxiliaries, ``~``), a referent (the subject, its controller
   or the copied object named another way, a pronoun for a definite noun phrase), a learned
   alternation or function word (TABLES["alternations"]), "will"/"can", else guard or content;
   what is left must cancel against a word moved elsewhere.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import snowballstemmer
from rapidfuzz.distance import Indel

from rulings.ingest.normalise import zh_subtypes

# below this token-sequence similarity two texts are never the same (fitted: bench/dedup_quality.py --folds 5)
MIN_SIMILARITY = 0.65
PLACEHOLDER = "~"
# another card named in the text (a card name of TABLES["names"]), see _mask_other_cards
OTHER_CARD = "@"

_CJK_CHAR = r"\u3400-\u9fff\uf900-\ufaff"
_CJK = re.compile(f"[{_CJK_CHAR}]")
_TOKEN = re.compile(
    rf"\{{[^}}]*\}}|[+-]?[\dx*]+/[+-]?[\dx*]+|[+-]?\d+|[~@](?:'s\b)?|[a-z]+(?:'[a-z]+)*|[{_CJK_CHAR}]")
_PT = re.compile(r"^[+-]?[\dx*]+/[+-]?[\dx*]+$")

# --- English comparison form -------------------------------------------------------------

_DIGIT_WORDS = "zero one two three four five six seven eight nine ten".split()

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
    # "regardless of" said three ways ("no matter which additional cost you paid"), before "no" is "not"
    (r"\b(?:no matter|independent of|irrespective of)\b", "regardless of", ("matter", "independent", "irrespective")),
    (r"\b(?:no one|nobody|none|nothing|never|neither|nor|no)\b", "not", ("no", "ne")),
    (r"\b(enters?|entered|entering)[ -]the[ -]battlefield\b", r"\1", ("battlefield",)),
    # "is put onto the battlefield" for "enters" (a zone change said either way, CR 603.6a)
    (r"\b(?:is|are|was|were|be) put onto the battlefield\b", "enters", ("put onto",)),
    (r"^(?:to proliferate|(?:each time|whenever) you proliferate)\b", "when you proliferate", ("proliferate",)),
    (r",? and not of its effects (?:will )?happen", "", ("effects",)),
    (r"\bthe entire\b", "the", ("entire",)),
    # an emblem's ability for the card's own ("~'s emblem's triggered ability"; the emblem a
    # planeswalker makes, CR 114)
    (r"~(?:'s)? emblem\b", "~", ("emblem",)),
    # the subject's ability named by pointer: "~'s triggered ability", "the last ability of ~", "the third mode";
    # never by what it does in a hyphenated compound ("the damage-dealing ability" is not "the card-drawing ability")
    (r"(?:~(?:'s)?|\bthe|\bits|\bthis|\bthat) (?:(?!or\b|and\b|spell\b|mana\b|other\b|same\b|own\b|new\b)"
     r"[a-z]+ ){0,2}?(?:ability|mode)(?: of ~)?\b", "~", ("ability", "mode")),
    (r"~(?:'s)? effect\b|\bthe effects? of ~", "~", ("effect",)),
    # a characteristic said with "of" or with the possessive: "the power of the creature" is "the
    # creature's power", "the controller of ~" is "~'s controller"
    (r"\bthe (power|toughness|power and toughness|controller|owner|mana value|name) of "
     r"(~|(?:the|that|this) [a-z]+)(?![a-z'])", r"\2's \1", (" of ",)),
    (r"\brather than\b", "instead of", ("rather than",)),
    # typography of the "non-" prefix (CR 205.4b: "noncreature", "non-Aura")
    (r"\bnon-(?=[a-z])", "non", ("non-",)),
    # the illegal-target template (CR 608.2b): "if either target is an illegal target" / "if either
    # or both targets are illegal"
    (r"\b(?:is|are|becomes?|became|has become|have become) (?:an )?illegal(?: targets?)?\b", "is illegal",
     ("illegal",)),
    (r"\beither or both\b", "either", ("either or both",)),
    # the card cast by the effect named by where it was cast from or by "this way"
    (r"\b(cast|play)(s|ed|ing)? (?:this way|from exile)\b", r"\1\2 this way", ("this way", "from exile")),
    # template generations of the Oracle wording (the same rule said in each one's words):
    # "doesn't resolve" for "is countered" on resolution (CR 608.2b), "tries to resolve" for "resolves"
    (r"\b(?:is|be) countered(?: on resolution)?\b", "do not resolve", ("countered",)),
    (r"\b(?:the spell|it|~) (?:do|will) not resolve\b", "~ not resolve", ("resolve",)),
    (r"\b(?:do|will) not resolve\b", "not resolve", ("resolve",)),
    (r"\b(?:tries|try|tried|trying) to resolve\b", "resolves", ("to resolve",)),
    # a target is checked as the spell or ability resolves (CR 608.2b): "is illegal by the time ~ tries to
    # resolve" says no more than "is illegal"
    (r"\bis illegal (?:by the time|when|as) (?:~|it|the spell|the ability|that spell|that ability) "
     r"(?:resolves|would resolve)\b",
     "is illegal", ("illegal",)),
    # mana value for converted mana cost (CR glossary, "Converted Mana Cost (Obsolete)"; CR 202.3)
    (r"\bconverted mana cost\b", "mana value", ("converted",)),
    (r"\bis determined (?:only by|by only) its mana cost\b", "remains unchanged", ("determined",)),
    # "is put into a graveyard" for "goes to the graveyard" (a zone change said either way, CR 400.7)
    (r"\b(?:is|are|was|were|be)(?: both| all)? put into\b", "go to", ("put into",)),
    # the free-cast template (CR 118.9a): "can't choose to cast it for any alternative costs" for
    # "can't pay any alternative costs"; "if you want to" before the purpose clause
    (r"\bchoose to cast (?:it|~|the card|that card|the spell) for\b", "pay", ("choose to cast",)),
    (r"\bif you want to\b", "to", ("want to",)),
    # a trailing purpose clause that adds nothing ("those must be paid to cast the card.")
    (r",? (?:in order )?to cast (?:(?:the|that|this) (?:card|spell)|it|~)(?=[.]|$)", "", ("to cast",)),
    (r"\b(?:goes|went|gone|going) to\b", "go to", ("goes to", "went to", "gone to", "going to")),
    # a number said in digits or in words ("x is 0" / "x is considered to be zero"): the word, which
    # a refusal's reason then names ("two vs three"); not in a symbol, P/T or larger number
    (r"(?<![\w/+{.,-])(?:10|[0-9])(?![\w/}]|[.,]\d)", lambda number: _DIGIT_WORDS[int(number.group(0))], None),
]]
# a moved condition: "If X, Y." said "Y if X." (Form.moved: the sentence's clauses the other way round)
_MOVED_IF = re.compile(r"(?:^|(?<=[.!?] ))if ([^,.;:()\"]+), (?:then )?([^.;:()\"]+)(?=[.;]|$)")
_EN_ILLUSTRATIVE = [(inline, re.compile(p), literals) for inline, p, literals in [   # inline ones first
    (True, r"\((?:also |as )?(?:such as|like|with|for example|for instance|e\.g\.|including)\b[^)]*\)", ("(",)),
    (True, r",? such as [^.;,()]*", ("such as",)),
    # a likely cause given in passing: "(most likely because it's already tapped)", "(perhaps because ...)"
    (True, r" ?\((?:most likely|probably|perhaps|likely)\b[^)]*\)", ("(",)),
    # the life-gain template's example pair: "…just once for each life-gaining event, whether it's 1 life
    # from Drana's Emissary or 7 life from Nissa's Renewal" (its cards and amounts vary, the rule does not)
    (True, r",? whether it(?:'s| is) [^.;]*? from [^.;]*? or [^.;]*? from [^.;]*(?=[.;]|$)", ("whether it",)),
    (False, r"(?:^|(?<=[.!?] ))for example,[^.]*\.", ("for example,",)),
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
    "you your yours another however instead "
    "he she him her his hers or even when while already".split())
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
    # making a token (CR 111.1), not a token named as the subject ("the token copies ...", "when the
    # creature enters, the token ...", "put the token onto the battlefield")
    (r"\bcreat(?:e|es|ed|ing)\b[^.;]{0,60}\btokens?\b|\btokens? (?:is|are|was|were|being) created"
     r"|\bput (?!the |that |those |this )[^.;]{0,40}\btokens?\b",
     "token", "token"),
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
    (r"(?:~的|~之|~|其)(?:徽记(?:的|之)?)?(?:第[一二三四五六]个|最后一个)?(?:触发式|起动式|静止式|激怒|章节|忠诚)?异能",
     "~"),
    (r"~[的之]效应", "~"),                   # "~'s effect" for the card, as in English
    # an ability's kind said without its noun at the end of a clause: 为状态触发式。 for 为状态触发式异能。
    (r"(触发|起动|静止)式(?=[」』\"'.,;:!?)。，；：！？）]|$)", r"\1式异能"),
    # putting an ability or spell on the stack is its going there (CR 405.1): 将~放进堆叠 / ~进入堆叠
    (r"(?:放进|放到|置于)堆叠(?:上|中)?", "进入堆叠"),
    # template generations, as in English: 法术力值 (mana value) for 总法术力费用 (converted mana cost),
    # 试图结算 (tries to resolve) for 结算, 被置入 (is put into) for 进入, 贴附 for 结附 (attached)
    (r"总法术力费用", "法术力值"),
    (r"替身甲|图腾铠甲", "本影甲"),             # totem armor, renamed umbra armor (CR 702.89, 2023)
    # "while it resolves" said three ways: 结算的过程(当)中 / 正在结算时 / 结算时
    (r"正在结算时|结算的?过程当?中", "结算时"),
    (r"试图结算", "结算"),
    (r"(?:将|会)?被置入|(?:将|会)进入", "进入"),
    (r"贴附", "结附"),
    # an Equipment "equipping" a creature is attached to it (CR 301.5): 装备在…的武具 / 结附于…的武具
    (r"装备([于在][^.,;]{0,12}?的武具)", r"结附\1"),
    (r"(武具[^.,;]{0,8}?)装备(?=[于在])", r"\1结附"),
    (r"能够", "可以"),
    # "regardless" (无论) said 不论 or 不管: no negation, though it is written with 不
    (r"不论|不管", "无论"),
    # the free-cast template (CR 118.9a) said two ways: 无法选择支付替代性费用来施放之 / 无法支付任何替代性费用
    (r"(?:不能|无法)选择支付(?:任何)?替代性费用来施放之", "不能支付替代性费用"),
    (r"任何", ""),
    # a trailing purpose clause that adds nothing: 才能施放此牌 ("in order to cast this card")
    (r"[,，]?才(?:能|可以)施放(?:此|该)(?:牌|咒语)(?=[.。]|$)", ""),
    # "too late to respond" (来不及去回应) is "can't respond": no player may act (CR 117.3)
    (r"来不及", "无法"),
    (r"无法", "不能"),
    (r"并非", "不是"),
    # the written adverb 均 ("all", "both") is 都, a soft word; 哪些 ("which") written 那些, a common variant
    (r"(?<!平)均(?=[已会可能不将为是要在])", "都"),
    (r"哪(?=些|个|一)", "那"),
    # the proliferate template's two generations: 其操控者选择 / 其操控者已着手选择 ("has begun to choose")
    (r"已?着手(?=选择|决定)", ""),
    (r"选择", "选"),      # "choose" said in two characters or one (所选择的 / 所选)
    # "not only" said four ways (不只是 / 不是只 / 不仅是 / 不仅仅是), never "not" (而不是在战场上, "rather than on the
    # battlefield"): before "merely", which would make 不只是 that
    (r"不(?:只是|是只|仅仅?是?|只)", "不仅"),
    # "merely" (它只是改变… "it merely changes") is not "only" (只能, 只会: "can only", a guard)
    (r"只是", "是"),
]]
# (the matching form writes Chinese full stops and commas as ASCII ones: ingest/normalise.py)
_ZH_ILLUSTRATIVE = [(inline, re.compile(p), None) for inline, p in [     # inline ones first
    # 如 is "such as", but 如果 / 如若 is "if": a bracketed condition is a rule, not an example
    (True, r"\((?:例如|举例来说|如(?![果若此])|比如|像是)[^)]*\)"),
    (True, r"[,，]?(?:例如|比如|像是)[^.。,，;；()]*"),         # 例如X费用 without parentheses: "such as X"
    # a likely cause given in passing, as in English: (最有可能的原因是它已横置) / (最有可能是因为它已横置)
    (True, r"\((?:最有可能|很可能|可能是|大概)[^)]*\)"),
    # the life-gain template's example pair, as in English: 无论是由于哲娜的密使获得1点生命，还是由于妮莎重光获得7点生命
    (True, r"[,，]?无论是由于[^.。;；]*?[,，]还是由于[^.。;；]*"),
    (False, r"举例来说[^.。]*[.。]"),
]]
_ZH_NUMBER = re.compile(r"(?<!第)[二三四五六七八九十两半]|一点|双倍|\d+")
# a colour (CR 105.1) said by its character before 色 or a colour pair: 黑色, 白绿双色 (白 and 绿), 红蓝色;
# or after 反, the quality of protection and hexproof from a colour (CR 702.16, 702.11d): 反白保护, 反黑辟邪
_ZH_COLOUR = re.compile(r"[白蓝黑红绿](?=[白蓝黑红绿]{0,4}(?:[双两三]色|色))|(?<=反)[白蓝黑红绿]")
_ZH_NEGATION = re.compile(r"不|没|无(?!论)|未|非(?!瑞)")      # 非瑞人 is "Phyrexian", no negation
_ZH_SOFT = frozenset("~的了之该此其已经都则就将也这所被个因在于时当你它们会他她仍和或与")
_ZH_GENERIC = ("生物", "牌手", "咒语", "永久物", "衍生物", "异能", "神器", "结界", "地", "牌", "对手", "某")
_ZH_EFFECTS = [(re.compile(p), name) for p, name in [
    (r"获得[^.。,，]{0,4}生命", "gain life"), (r"失去[^.。,，]{0,4}生命", "lose life"), (r"抓", "draw"),
    (r"占卜", "scry"), (r"伤害", "damage"), (r"放逐", "exile"),
    # any token (衍生物), also one named as the subject: "the token enters" is not "~ enters" (public pair
    # P0196; the guidelines' object type), although English tells a token made from one named
    (r"衍生物", "token"),
    (r"消灭", "destroy"), (r"牺牲", "sacrifice"), (r"刺探", "surveil"), (r"探险", "explore"),
]]


@dataclass(frozen=True)
class Form:
    """Comparison form of one matching-form text.

    tokens: content tokens in order (illustrative spans removed); guards: multiset
    of guard tokens over the text without its examples named in passing ("such as {3}", 例如…;
    a worked "For example, ..." sentence keeps its guards); effects: named effects mentioned; zh: Chinese;
    moved: the tokens with each sentence "if X, Y" said "Y if X" (English), None when no
    sentence is of that shape.
    """

    tokens: tuple[str, ...]
    guards: tuple[tuple[str, int], ...]
    effects: frozenset[str]
    zh: bool
    moved: tuple[str, ...] | None = None


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
    """Word, symbol, number, P/T and ``~`` tokens of a folded text; Chinese as single characters. The
    possessive of a card ("~'s power") is the card, as "the creature's" is "the creature" once stemmed."""
    return [t[0] if t[0] in "~@" else t for t in _TOKEN.findall(text)]


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
    text = _apply(_ZH_REWRITES, match) if zh else _apply(_EN_REWRITES, _keyword_triggers(_mask_other_cards(match)))
    # an example named in passing ("such as kicker costs", 例如…) may be swapped, guards and all; a worked
    # example sentence ("For example, ... a 6/6 creature") states outcomes, so its guards stay
    whole = None
    for inline, pattern, literals in (_ZH_ILLUSTRATIVE if zh else _EN_ILLUSTRATIVE):
        if not inline and whole is None:
            whole = tokens(text)
        if literals is None or any(literal in text for literal in literals):
            text = pattern.sub(" ", text)
    text = text.replace("(", " ").replace(")", " ")
    content = tokens(text)
    if zh:
        kept = "".join(whole)
        guards = Counter(_ZH_NUMBER.findall(kept)) + Counter("not" for _ in _ZH_NEGATION.findall(kept))
        guards += Counter(_ZH_COLOUR.findall(text))        # not a worked example's: its card may be swapped
        guards += Counter(t for t in whole if _is_en_guard(t))
        effects = frozenset(name for pattern, name in _ZH_EFFECTS if pattern.search(text))
    else:
        guards = Counter(t for t in whole if _is_en_guard(t))
        guards += Counter(f"{k} counter" for k in _counter_kinds(whole))
        effects = frozenset(name for pattern, name, literal in _EN_EFFECTS
                            if literal in text and pattern.search(text))
        content = [_stem(t) if t[0].isalpha() else t for t in content]
        if "if " in text:
            moved_text = _MOVED_IF.sub(r"\2 if \1", text)
            if moved_text != text:
                moved = tuple(_stem(t) if t[0].isalpha() else t for t in tokens(moved_text))
                return Form(tuple(content), tuple(sorted(guards.items())), effects, zh, moved)
    return Form(tuple(content), tuple(sorted(guards.items())), effects, zh)


_WORD = re.compile(r"[a-z][a-z'-]*")


@lru_cache(maxsize=1)
def _names_by_first() -> dict[str, tuple[str, ...]]:
    """TABLES["names"] by first word, longest name first."""
    table: dict[str, list[str]] = {}
    for name in _tables().get("names", ()):
        first = _WORD.match(name)
        if first:
            table.setdefault(first.group(0), []).append(name)
    return {first: tuple(sorted(names, key=len, reverse=True)) for first, names in table.items()}


# a name after these is what the effect acts on ("you won't search for Ral, Caller of Storms",
# "a card named X"), not an example: it stays spelled out
_OBJECT_OF = ("for ", "named ")


def _mask_other_cards(text: str) -> str:
    """Each other card's name (TABLES["names"]: never written in lower case by a ruling, not a rules
    word) replaced by OTHER_CARD, except after _OBJECT_OF: an example card swapped for another
    ("1 life from Vicious Rumors" / "1 life from Ajani's Welcome", "such as that of Tormenting Voice")
    then reads the same (guidelines: a different example card is the same ruling)."""
    table = _names_by_first()
    parts: list[str] = []
    done = 0
    for word in _WORD.finditer(text):
        start = word.start()
        if (start < done or word.group(0) not in table or text[start - 1:start] in ("'", "~")
                or text[max(0, start - 6):start].endswith(_OBJECT_OF)):
            continue
        for name in table[word.group(0)]:
            end = start + len(name)
            if text.startswith(name, start) and not (text[end:end + 1].isalnum() or text[end:end + 1] == "-"):
                parts += [text[done:start], OTHER_CARD]
                done = end
                break
    return "".join(parts) + text[done:] if parts else text


def clear_caches() -> None:
    """Forget the cached tables and forms (after TABLES is rewritten: scripts/derive_dedup_tables.py)."""
    for cached in (_tables, alternations, _names_by_first, compare_form, _en_guard_stems):
        cached.cache_clear()


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


def _moved(fa: Form, fb: Form) -> tuple[Form, Form] | None:
    """The two forms with one side's "if" clauses moved, when exactly one side has such a sentence
    (the other may say "Y if X"); None otherwise."""
    if (fa.moved is None) == (fb.moved is None):
        return None
    if fa.moved is not None:
        return replace(fa, tokens=fa.moved, moved=None), fb
    return fa, replace(fb, tokens=fb.moved, moved=None)


def verify(fa: Form, fb: Form, explain: bool = True) -> Verdict:
    """same_ruling() on two comparison forms. explain=False leaves out the reasons that
    name the differing tokens (reason None; the decision and similarity are the same),
    which is what most refusals cost when nobody reads them. A refused pair is tried once more
    with a moved "if" clause (Form.moved)."""
    verdict = _verify(fa, fb, explain)
    if not verdict.same and fa.zh == fb.zh:
        moved = _moved(fa, fb)
        if moved is not None:
            again = _verify(*moved, explain)
            if again.same:
                return again
    return verdict


def _verify(fa: Form, fb: Form, explain: bool) -> Verdict:
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
    same, sim = _judge(fa, fb)
    if not same and (fa.moved is None) != (fb.moved is None):
        again = _judge(*_moved(fa, fb))
        if again[0]:
            return again
    return same, sim


def _judge(fa: Form, fb: Form) -> tuple[bool, float]:
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
    """Words that differ and matter: the two token sequences aligned, each differing span is
    classified (span_kind); the words of the spans that may differ are dropped, then what moved
    cancels (a word deleted in one place and inserted in another)."""
    ta, tb = fa.tokens, fb.tokens
    soft = _ZH_SOFT if fa.zh else _en_soft_stems()
    spans: list[tuple[str, list[str], list[str], int]] = []
    chunks = _chunks(ta, tb)
    if _roles_swapped(ta, tb, chunks, soft):
        return Counter({SWAPPED: 1}), Counter()
    for i1, i2, j1, j2 in chunks:
        ha = [t for t in ta[i1:i2] if t not in soft]
        hb = [t for t in tb[j1:j2] if t not in soft]
        if not ha and not hb:
            continue
        kind = span_kind(fa.zh, ta, tb, (i1, i2, j1, j2), ha, hb)
        if kind not in MAY_DIFFER:
            spans.append((kind, ha, hb, max(i2 - i1, j2 - j1)))
    if (fa.zh and _zh_slips(spans, ta, tb)) or _one_slip(spans, ta, tb):
        spans = []
    left_a = [t for _, ha, _, _ in spans for t in ha]
    left_b = [t for _, _, hb, _ in spans for t in hb]
    if not left_a or not left_b:            # nothing can cancel
        return Counter(left_a), Counter(left_b)
    count_a, count_b = Counter(left_a), Counter(left_b)
    common = count_a & count_b
    return count_a - common, count_b - common


MAY_DIFFER = frozenset(["referent", "alternation"])
SWAPPED = "(roles swapped)"
# between two swapped objects, words that make the swap say the same: "X dies at the same time as Y",
# "X and Y", 与 / 和 / 或 / 同时
_SYMMETRIC = frozenset(["and", "or", "same", "和", "与", "或", "及", "同"])


def _roles_swapped(ta, tb, chunks: list[tuple[int, int, int, int]], soft: frozenset[str]) -> bool:
    """True when two things changed places: "damage dealt to a Knight you control may become lethal if
    ~ leaves" is not "damage dealt to ~ may become lethal if a Knight you control leaves" (英勇骑士 /
    冬霜沼指挥官 in the real corpus). Either two spans cross (X against Y here, Y against X there), or the
    words deleted in one place are those inserted in another in another order, with the card (``~``)
    among them (it hopped over the others). Words that moved together keep their order and cancel (a
    clause said earlier or later); a swap across "and", "or" or "at the same time as" says the same, and
    soft words swapped (之 / 的) are wording."""
    for n, (i1, i2, j1, j2) in enumerate(chunks):
        for k1, k2, l1, l2 in chunks[n + 1:]:
            a1, b1, a2, b2 = ta[i1:i2], tb[j1:j2], ta[k1:k2], tb[l1:l2]
            if a1 and b1 and a2 and b2:         # crossed: X against Y here, Y against X there
                hard = [tuple(t for t in span if t not in soft) for span in (a1, b1, a2, b2)]
                if not all(h or PLACEHOLDER in span for h, span in zip(hard, (a1, b1, a2, b2))) \
                        or (hard[0], hard[1]) != (hard[3], hard[2]):
                    continue
            elif a1 and b2 and not b1 and not a2:   # hopped: deleted here, inserted there in another order
                if len(a1) != len(b2) or a1 == b2 or PLACEHOLDER not in a1 or sorted(a1) != sorted(b2):
                    continue
            elif b1 and a2 and not a1 and not b2:
                if len(b1) != len(a2) or b1 == a2 or PLACEHOLDER not in b1 or sorted(b1) != sorted(a2):
                    continue
            else:
                continue
            words = set(a1 + b1 + a2 + b2)
            if words - soft - {PLACEHOLDER} and not _SYMMETRIC.intersection(words.union(ta[i2:k1])):
                return True
    return False


SLIP_TOKENS = 1            # a slip: at most this many hard tokens each side (fitted likewise)
SLIP_CONTEXT = 12          # in rulings of at least this many tokens


def _one_slip(spans: list[tuple[str, list[str], list[str], int]], ta, tb) -> bool:
    """True when the only span left that matters is one content word against one (or none), soft words
    included at most one more, in rulings that otherwise agree word for word over at least SLIP_CONTEXT
    tokens: a wording or translation variant ("respond" / "react", 相应 / 对应), the guidelines' "wording
    only". Never a guard word (span_kind says "guard" for those), never a clause added ("and it gains the
    activated ability"), never two such spans."""
    if len(spans) != 1 or min(len(ta), len(tb)) < SLIP_CONTEXT:
        return False
    kind, ha, hb, width = spans[0]
    timing = [bool(_TIMING.intersection(side)) for side in (ha, hb)]
    if any(timing) and not (ha and hb and not all(timing)):
        return False        # "after" against "before" or nothing changes when; against "once" it is wording
    return (kind == "content" and len(ha) <= SLIP_TOKENS and len(hb) <= SLIP_TOKENS and width <= SLIP_TOKENS + 1
            and not _NEVER_A_SLIP.intersection(ha + hb) and not _hedge_alone(ha, hb))


# Chinese slips: at most ZH_SLIP_CHARS characters over at most ZH_SLIP_SPANS spans, in rulings of at least
# ZH_SLIP_CONTEXT characters (chosen on the fresh pairs H and I, not cross-validated: docs/dedup-quality.md)
ZH_SLIP_CHARS, ZH_SLIP_SPANS, ZH_SLIP_CONTEXT = 4, 2, 40
# Never in a Chinese slip: X or a digit, 一 ("one"); a conjunction, which adds a clause (会被卸装并留在 against
# 会留在: the Equipment is also unattached); a change of quantity or a replacement (增加或减少 against 改变或替代);
# 总 (总法术力费用, mana value, is not 法术力费用, mana cost); 开始 (在～开始时, "at the beginning of", is a step)
_ZH_NO_SLIP = re.compile(r"[a-z0-9一并且而及总]|增加|减少|提高|降低|替代|代替|取代|开始")


def _zh_slips(spans: list[tuple[str, list[str], list[str], int]], ta, tb) -> bool:
    """Chinese rulings that agree character for character but for a few short content spans (ZH_SLIP_SPANS,
    ZH_SLIP_CHARS in all): the translators' rewordings of one rule (到来 dropped, 完毕 / 完成, 选 / 决定,
    如果 said twice), the guidelines' "wording only". A translation is a character stream with many ways to
    say one word, so a few characters are what one English word is (_one_slip). Never a guard word (those
    spans are ``guard``), a negation, a number or X, a timing word, or a word of _NEVER_A_SLIP."""
    if len(spans) > ZH_SLIP_SPANS or min(len(ta), len(tb)) < ZH_SLIP_CONTEXT:
        return False
    if sum(max(len(ha), len(hb)) for _, ha, hb, _ in spans) > ZH_SLIP_CHARS:
        return False
    for kind, ha, hb, _ in spans:
        text = "".join(ha) + "|" + "".join(hb)
        if (kind != "content" or _ZH_NEGATION.search(text) or _ZH_NUMBER.search(text) or _ZH_NO_SLIP.search(text)
                or any(word in text for word in _ZH_NEVER_A_SLIP)
                or _hedge_alone(ha, hb, zh=True)):
            return False
    return True


def _with_stems(words: list[str]) -> frozenset[str]:
    """The words and the stems of the English ones: comparison tokens are stemmed ("before" is
    "befor", "any" is "ani"), so a word set tested against them must hold both."""
    return frozenset(words) | {_stem(w) for w in words if w.isascii()}


_TIMING = _with_stems(["before", "after", "until", "前", "后", "之前", "之后", "直到"])


# Never a slip: which one of several ("the first spell" is not "the original spell"), whether it must, may
# or can happen ("will copy" is not "may copy"), how often, and what happens ("enters" is not "dies").
_NEVER_A_SLIP = _with_stems(["first", "second", "third", "fourth", "last", "previous", "former", "latter",
                           "origin", "original", "initi", "initial", "final", "第一", "第二", "最后", "原",
                           # which kind of object ("any spells or permanents" is not "any permanents")
                           "spell", "card", "object", "咒语",
                           "原本", "原版", "首",
                           "may", "must", "can", "could", "will", "would", "should", "might", "need",
                           "可以", "可", "能", "必须", "须", "得", "会", "将", "应", "team", "队伍",
                           "both", "either", "neither", "any", "no", "none", "some", "one", "两", "任一", "皆",
                           # how often ("always", "sometimes" against nothing or against each other)
                           "always", "sometimes", "rarely", "never", "有时", "始终",
                           # what happens: an event or an action ("enters" is not "dies")
                           "enter", "die", "leav", "return", "draw", "discard", "gain", "lose", "deal", "prevent",
                           "exil", "put", "creat", "copi", "search", "reveal", "shuffl", "transform", "flip",
                           "turn", "resolv", "counter", "choos", "pay", "control", "own", "target", "mill", "becom",
                           "进战场", "死去", "离开", "移回", "抓", "弃", "获得", "失去", "造成", "防止", "置入",
                           "派出", "复制", "搜寻", "展示", "洗", "转化", "结算", "反击", "选择", "支付", "成为"])


_ZH_NEVER_A_SLIP = tuple(sorted(w for w in _NEVER_A_SLIP | _TIMING if not w.isascii()))
# A hedge makes a rule a rule of thumb: "usually can't" is not "can't", so a hedge against nothing is never a
# slip; against another hedge ("often written as" / "usually written as") it is wording.
_HEDGES = _with_stems(["usually", "normally", "generally", "typically", "often", "通常", "经常", "往往", "一般"])


def _hedge_alone(ha: list[str], hb: list[str], zh: bool = False) -> bool:
    """True when one side of a span holds a hedge word and the other none (Chinese spans are characters:
    a hedge is found in their joined text)."""
    if zh:
        return any(w in "".join(ha) for w in _HEDGES) != any(w in "".join(hb) for w in _HEDGES)
    return any(t in _HEDGES for t in ha) != any(t in _HEDGES for t in hb)


def span_kind(zh: bool, ta, tb, chunk: tuple[int, int, int, int], ha: list[str], hb: list[str]) -> str:
    """The kind of one differing span of two aligned comparison forms (ta[i1:i2] against
    tb[j1:j2]; ha, hb: its tokens that are not soft words, not both empty):

    ``referent``: the subject named another way (``~`` against "the token", "the enchanted
    creature", another card's Chinese name; a definite noun phrase restating a pronoun);
    ``guard``: a word of a guard class (card type and subtype, zone, player, colour, action,
    quantity, turn structure, mechanic) differs, so the span states something else;
    ``alternation``: a pair of spans that alternate in otherwise identical rulings of the real
    corpus (ingest/data/dedup_tables.json, made by scripts/derive_dedup_tables.py);
    ``content``: anything else. Only referent and alternation spans may differ (MAY_DIFFER).
    """
    i1, i2, j1, j2 = chunk
    ca, cb = ta[i1:i2], tb[j1:j2]
    if zh and _is_name_swap(ca, ha, cb, hb):
        return "referent"
    if {tuple(ha), tuple(hb)} == {(OTHER_CARD,), ()} and PLACEHOLDER in (cb if ha else ca):
        return "referent"           # the subject called by its own name where the card field names another
    if _names_subject(zh, ca, ha, cb, hb, ta) or _names_subject(zh, cb, hb, ca, ha, tb):
        return "referent"
    if zh and (_keyword_for(ta, i1, i2, tb, j1, j2) or _keyword_for(tb, j1, j2, ta, i1, i2)):
        return "referent"
    if (not hb and _restated(ca, ha, ta, i1, i2)) or (not ha and _restated(cb, hb, tb, j1, j2)):
        return "referent"
    if zh and ((not hb and _restated_modifier(ca, ha, ta, tb, i1, i2)) or
               (not ha and _restated_modifier(cb, hb, tb, ta, j1, j2))):
        return "referent"
    if _pronoun_for(zh, ca, ha, cb, hb) or _pronoun_for(zh, cb, hb, ca, ha):
        return "referent"
    if _names_controller(zh, ca, ha, cb, hb, ta, i1) or _names_controller(zh, cb, hb, ca, ha, tb, j1):
        return "referent"
    if not zh and _copy_modifier(ta, i1, ha, tb, j1, hb):
        return "referent"
    if _target_of_definite(zh, ta, i1, ha, hb) or _target_of_definite(zh, tb, j1, hb, ha):
        return "referent"
    if _this_way(zh, ta, i1, i2, tb, j1, j2) or _this_way(zh, tb, j1, j2, ta, i1, i2):
        return "referent"
    if _same_object_described(zh, ta, i1, i2, tb, j1, j2):
        return "referent"
    if not zh and {tuple(ha), tuple(hb)} <= _MODAL_SWAP and ha != hb:
        return "alternation"
    if guard_words(zh, ta, i1, i2, ha) != guard_words(zh, tb, j1, j2, hb):
        return "guard"
    if _list_member_dropped(zh, ta, tb, chunk, ha, hb):
        return "content"
    table = alternations("zh" if zh else "en")
    if (tuple(ha), tuple(hb)) in table:
        return "alternation"
    # learned function words (spans that alternate with nothing) left out, the rest classified again
    fa = [t for t in ha if ((), (t,)) not in table]
    fb = [t for t in hb if ((), (t,)) not in table]
    if (fa, fb) != (ha, hb):
        if not fa and not fb:
            return "alternation"
        return span_kind(zh, ta, tb, chunk, fa, fb)
    return "content"


_CONJUNCTIONS = {"en": frozenset(["or", "and"]), "zh": frozenset("或和与及")}


def _list_member_dropped(zh: bool, ta, tb, chunk, ha, hb) -> bool:
    """Words said on one side only, joined to the rest by "or" / "and" (或, 和, 与, 及) inside the span
    or beside it: a member of a list dropped ("spells or permanents" against "permanents", 咒语或永久物
    against 永久物), which names other objects however often the word alone alternates with nothing."""
    if ha and hb:
        return False
    i1, i2, j1, j2 = chunk
    tokens, start, end = (ta, i1, i2) if ha else (tb, j1, j2)
    conjunctions = _CONJUNCTIONS["zh" if zh else "en"]
    return any(t in conjunctions for t in tokens[max(0, start - 1):end + 1])


# a pronoun against a short definite noun phrase of an object class (guidelines: "it" vs "they", a
# pronoun for a repeated subject): "it" / "this ability", 它 / 此异能, 其中 / 该异能的
_PRONOUNS = {"en": frozenset(["it", "they", "them", "itself", "he", "she", "him", "her"]), "zh": frozenset("它其他她")}
_EN_DEFINITE_NP = re.compile(
    r"(?:this|that|the|these|those) (?:abil|spell|creatur|perman|card|token|copi|object|player)")
_ZH_DEFINITE_NP = re.compile(r"(?:此|该|这)(?:个|一)?(?:异能|咒语|生物|牌|永久物|衍生物|牌手|复制品)们?的?")


def _pronoun_for(zh: bool, chunk, hard, other, other_hard) -> bool:
    """A definite noun phrase naming an object class on one side, a pronoun alone on the other."""
    if other_hard or not hard or not any(t in _PRONOUNS["zh" if zh else "en"] for t in other):
        return False
    if zh:
        return bool(_ZH_DEFINITE_NP.fullmatch("".join(chunk)))
    return bool(_EN_DEFINITE_NP.fullmatch(" ".join(chunk)))


# "will" against "can" in the same statement ("~'s ability will copy" / "can copy"): both say what
# the rule allows to happen; "may" and "must" (choice, obligation) are not in it
_MODAL_SWAP = frozenset([("can",), ("will",), ()])
# the controller of the subject called by role against "you" (guidelines: the subject named another
# way): "its controller", "the controller of the copy", "that spell's controller" / 其操控者, 该咒语的操控者
_EN_CONTROLLER = re.compile(r"(?:its|it|the|that|this|~) (?:(?:spell|copi|token|creatur|perman|abil|~) )?(?:s )?control"
                            r"(?: of (?:the|that|this|it) (?:spell|copi|token|creatur|perman|abil))?")
_ZH_CONTROLLER = re.compile(r"(?:其|该|此)?(?:咒语|复制品|衍生物|生物|永久物|异能)?的?操控者")
# "its controller" is "you" only when "it" is an object the card's controller controls: the card itself,
# its copy, spell, token or ability; the object is the last one named before the pronoun. After "the
# creature" or "the permanent" it may be anyone's ("if the creature's power is negative, its controller
# doesn't gain life", Swords to Plowshares, against "you don't gain life", Attendant of Vraska).
_EN_OBJECTS = frozenset(["spell", "copi", "token", "creatur", "perman", "abil", "card", "~"])
_EN_YOURS = frozenset(["spell", "copi", "token", "abil", "~"])
_ZH_OBJECTS = ("咒语", "复制品", "衍生物", "异能", "生物", "永久物", "牌", "~")
_ZH_YOURS = frozenset(["咒语", "复制品", "衍生物", "异能", "~"])


def _antecedent_is_yours(zh: bool, tokens, start: int) -> bool:
    """Whether the last object word before tokens[start] ("its controller", 其操控者) is one of
    _EN_YOURS / _ZH_YOURS."""
    if zh:
        before = "".join(tokens[:start])      # the word ending last, the longer on a tie (衍生物 over 生物)
        end, _, named = max((before.rfind(w) + len(w), len(w), w) for w in _ZH_OBJECTS if w in before) \
            if any(w in before for w in _ZH_OBJECTS) else (0, 0, None)
        return named in _ZH_YOURS
    named = next((t for t in reversed(tokens[:start]) if t in _EN_OBJECTS), None)
    return named in _EN_YOURS


def _names_controller(zh: bool, chunk, hard, other, other_hard, tokens, start: int) -> bool:
    """"you" on one side against the subject's controller named by role on the other (chunk: that
    side's span, tokens[start:] onwards)."""
    if other_hard or not hard:
        return False
    if zh:
        if "你" not in other or not _ZH_CONTROLLER.fullmatch("".join(chunk)):
            return False
        return "".join(chunk) not in ("其操控者", "操控者") or _antecedent_is_yours(zh, tokens, start)
    if "you" not in other or not _EN_CONTROLLER.fullmatch(" ".join(chunk)):
        return False
    return chunk[0] not in ("its", "it") or _antecedent_is_yours(zh, tokens, start)


# words a copy effect's rulings call the object copied by ("the original spell", "the targeted
# spell", "the chosen creature", "the copied creature": the same object named another way)
_COPY_MODIFIERS = frozenset(["origin", "target", "choos", "copi"])


def _copy_modifier(ta, i1, ha, tb, j1, hb) -> bool:
    """One copy-object modifier against another, each after "the" or "that" (a noun phrase
    naming the copied object), in a ruling that speaks of copying."""
    if len(ha) != 1 or len(hb) != 1 or ha[0] not in _COPY_MODIFIERS or hb[0] not in _COPY_MODIFIERS:
        return False
    if not (i1 and j1 and ta[i1 - 1] in ("the", "that") and tb[j1 - 1] in ("the", "that")):
        return False
    return "copi" in ta and "copi" in tb


_TARGET = {"en": ["target"], "zh": ["目", "标"]}


def _target_of_definite(zh: bool, tokens, start: int, hard: list[str], other_hard: list[str]) -> bool:
    """"target" added to a definite noun phrase ("the target creature" for "the creature", 该目标牌 for
    该牌): the object is the one already named either way (guidelines: the subject named another way)."""
    if other_hard or hard != _TARGET["zh" if zh else "en"] or not start:
        return False
    return tokens[start - 1] in (("该", "此", "这") if zh else ("the", "that"))


_ZH_THIS_WAY = re.compile(f"以此法[{_CJK_CHAR}]{{1,3}}的")


def _this_way(zh: bool, ta, i1: int, i2: int, tb, j1: int, j2: int) -> bool:
    """"cast this way" (以此法移回的) in ta[i1:i2] against a definite determiner in tb ("a spell cast this
    way" for "that spell", 以此法移回的生物 for 该生物): the object the card's effect acted on, named by its
    effect or by "that" (guidelines: the subject named another way). Against "a spell" alone it is not."""
    if zh:
        other = "".join(tb[j1:j2])
        return bool(_ZH_THIS_WAY.fullmatch("".join(ta[i1:i2]))) and other in ("该", "此", "这")
    if ta[i1:i2][1:] != ("this", "way") or j2 > j1:
        return False
    return any(t in ("the", "that", "this") for t in tb[max(0, j1 - 2):j1])


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
    """A Chinese card name on one side against ``~`` on the other (the card field named another card),
    the name alone or with its ability (圣阳圣所的异能, as ~的异能 is ``~``). A subtype alone is no card's
    name (如果天使攻击 is "if an Angel attacks"), except a planeswalker's, its character (莉莲娜)."""
    for hard, other in ((ha, cb), (hb, ca)):
        if PLACEHOLDER in other and not [t for t in other if t not in _ZH_SOFT]:
            run = _ZH_OWN_ABILITY.sub("", "".join(hard))
            # a mechanic's ability (虚色异能, devoid) is no card's name
            if (2 <= len(run) <= 8 and all(_CJK.match(t) for t in run) and not any(g in run for g in _ZH_GENERIC)
                    and not _ZH_GUARD.search(run) and not _zh_mechanic_names().fullmatch(run)
                    and not _zh_creature_types().fullmatch(run)):
                return True
    return False


_DEFINITE = frozenset(["that", "the", "this", "those", "these", "its", "该", "此", "这", "其"])
# Head and modifier words of a noun phrase that names a ruling's subject another way ("the token",
# "the copy", "this creature", "the enchanted creature", "the exiled card", "its last ability")
_EN_REFERENT = frozenset(
    "token copy creature permanent card spell artifact enchantment land planeswalker object "
    "enchanted equipped chosen exiled copied original new ability emblem triggered activated "
    "static last first second third".split())
_GENERAL = frozenset(["a", "an"])     # a general rule's subject ("a spell") for the card's own
_ZH_BARE_NOUN = re.compile(r"生物|永久物|牌|咒语|神器|结界|鹏洛客")
_ZH_REFERENT = re.compile(
    r"(?:某|一|每)?(?:个|一)?(?:所|被|受)?(?:放逐|结附|装备|所选|选择|复制|原版|影响|移回|佩带此武具|佩带该武具|"
    r"触发式|起动式|静止式)?的?"
    r"(?:衍生物|复制品|生物|永久物|牌|咒语|神器|结界|鹏洛客|徽记|异能)")


# The object a ruling is about, described by what happened to it or pointed at: "the affected creature",
# "the enchanted creature", "that creature" (受影响的生物, 所结附的生物, 该生物). "Affected" or a pointer on
# one side names the same object as any of them on the other; "enchanted" against "equipped" (an Aura's
# creature, an Equipment's) is left to the words.
_EN_DESCRIBED = {"affect": "affected", "enchant": "enchanted", "equip": "equipped", "that": "pointer",
                 "this": "pointer", "the": "pointer"}
_ZH_DESCRIBED = re.compile(r"(?:该|此|这|其)?(?:(?P<affected>受|被)影响|所?(?P<enchanted>结附)|所?(?P<equipped>装备))?"
                           r"的?(?P<head>生物|永久物)")
_EN_HEADS = frozenset(["creatur", "perman"])


def _described(zh: bool, tokens, start: int, end: int) -> tuple[str, str] | None:
    """(how, head) when tokens[start:end] and the words after it up to a head noun describe the object
    (_EN_DESCRIBED, _ZH_DESCRIBED), else None."""
    if zh:
        rest = "".join(tokens[start:end + 3])
        phrase = "".join(tokens[start:end])
        for head in ("生物", "永久物"):
            at = rest.find(head, len(phrase))
            if at < 0:
                continue
            found = _ZH_DESCRIBED.fullmatch(rest[:at + len(head)])
            if found and (phrase or found.group(0) != head):
                how = next((k for k in ("affected", "enchanted", "equipped") if found.group(k)), "pointer")
                return how, head
        return None
    words = list(tokens[start:end + 1])
    if start > 0 and (not words or _EN_DESCRIBED.get(words[0]) != "pointer"):
        words.insert(0, tokens[start - 1])          # the article before the span
    if len(words) < 2 or words[-1] not in _EN_HEADS or not all(w in _EN_DESCRIBED for w in words[:-1]):
        return None
    described = [_EN_DESCRIBED[w] for w in words[:-1] if _EN_DESCRIBED[w] != "pointer"]
    return (described[0] if len(described) == 1 else "pointer" if not described else "many"), words[-1]


def _same_object_described(zh: bool, ta, i1: int, i2: int, tb, j1: int, j2: int) -> bool:
    """"The enchanted creature" against "the affected creature" or "that creature": the same object."""
    a, b = _described(zh, ta, i1, i2), _described(zh, tb, j1, j2)
    if a is None or b is None or a[1] != b[1] or "many" in (a[0], b[0]):
        return False
    return bool({a[0], b[0]} & {"affected", "pointer"})


def _keyword_for(ta, i1: int, i2: int, tb, j1: int, j2: int) -> bool:
    """A keyword's ability (灵技异能, heroic) in ta[i1:i2] against the card's own ability in tb[j1:j2] (``~``,
    which ~的异能 is in the comparison form, or 该异能 "this ability" when the alignment keeps 异能 common),
    in Chinese, when tb's text also names that keyword (the card has it: "Tarmogoyf's ability" is not
    "the devoid ability")."""
    phrase = "".join(ta[i1:i2]).lstrip("该此这其")
    other = [t for t in tb[j1:j2] if t not in _ZH_SOFT or t == PLACEHOLDER]     # (~ is a soft word)
    if phrase.endswith("异能") and other == [PLACEHOLDER]:
        name = phrase[:-2]
    elif "".join(ta[i2:i2 + 2]) == "异能" == "".join(tb[j2:j2 + 2]) and other in ([], [PLACEHOLDER]):
        name = phrase
    else:
        return False
    return bool(name) and bool(_zh_mechanic_names().fullmatch(name)) and name in "".join(tb)


# an ability called by its place or its kind: 第二个异能, 最后一个触发式异能, 触发式异能 (CR 113.3: activated,
# triggered, static); said of a card, it is the card's own ability (~的异能 is ``~`` in the comparison form)
_ZH_PLACE, _ZH_KIND = r"(?:第[一二三四五六]个|最后一个)", r"(?:触发式|起动式|静止式)"
_ZH_NTH_ABILITY = re.compile(f"{_ZH_PLACE}{_ZH_KIND}?异能")
_ZH_OWN_ABILITY = re.compile(f"{_ZH_PLACE}?{_ZH_KIND}?异能$")        # a name's ability: 圣阳圣所(的)异能


def _names_subject(zh: bool, chunk, hard, other, other_hard, whole=()) -> bool:
    """``~`` (the ruling's own card) on one side against a short definite noun phrase naming the
    same subject another way on the other (guidelines: the subject named another way), or the
    general subject of the same rule ("a spell", 某个咒语: a general rule against the card's own).
    whole: all tokens of the side of ``chunk``; a bare Chinese noun is the card only where that side
    does not name the card elsewhere (如果生物攻击鹏洛客，则~的最后一个异能不会触发: the creature is another)."""
    if other_hard or PLACEHOLDER not in other or not hard or len(hard) > (8 if zh else 3):
        return False
    if zh:
        # the phrase without a preposition the alignment left in the span (于该异能进入堆叠时: "as this ability ...")
        phrase = "".join(t for t in chunk if t != PLACEHOLDER).lstrip("在于将当")
        if not phrase:
            return False
        if _ZH_NTH_ABILITY.fullmatch(phrase):
            return True             # the card's ability called by its place (最后一个异能 for ~的异能)
        if _ZH_BARE_NOUN.fullmatch(phrase) and PLACEHOLDER not in whole:
            return True             # Chinese has no article: 让生物失去先攻 is "make a creature lose first strike"
        return phrase[0] in "该此这其某一每" and bool(_ZH_REFERENT.fullmatch(phrase.lstrip("该此这其")))
    return chunk[0] in _DEFINITE | _GENERAL and all(t in _en_referent_stems() for t in hard)


@lru_cache(maxsize=1)
def _en_referent_stems() -> frozenset[str]:
    return frozenset(_stem(w) for w in _EN_REFERENT)


def _restated(chunk, hard, whole, start, end) -> bool:
    """A definite noun phrase standing for a pronoun ("that permanent or player" for "it"):
    short, opened by a definite article, every word already said elsewhere in the text."""
    if not hard or len(chunk) > 5 or chunk[0] not in _DEFINITE | _GENERAL:
        return False
    rest = set(whole[:start])
    rest.update(whole[end:])
    return all(t in rest for t in hard)


def _restated_modifier(chunk, hard, whole, other, start, end) -> bool:
    """A Chinese modifier (…的) added before a noun whose every character both texts say elsewhere
    (装备在所放逐生物上的武具 for 武具 in a ruling about the exiled creature's Equipment)."""
    if not hard or len(chunk) > 10 or chunk[-1] != "的" or _ZH_NEGATION.search("".join(chunk)):
        return False
    rest = set(whole[:start]) | set(whole[end:])
    return all(t in rest and t in other for t in hard)


# --- guard classes and the learned alternations ------------------------------------------------

TABLES = Path(__file__).parent / "data" / "dedup_tables.json"
MIN_ALTERNATION_PAIRS = 4      # an alternation counts when seen in this many pairs of corpus rulings (fitted likewise)
# Word classes whose words state what a ruling is about (guidelines: which player or object, the
# zone, the timing, the effect): zones (CR 400.1), players, colours (CR 105.1), actions, quantities,
# turn structure (CR 500); the card types, subtypes and supertypes (CR 205) come from TABLES and the
# mechanic names from ingest/data/mechanics.json.
_EN_GUARD_WORDS = (
    "battlefield graveyard hand library exile stack command "
    "opponent player controller owner teammate "
    "white blue black red green colorless multicolored monocolored "
    "cast play attack attacking block blocking tap untap activate trigger sacrifice destroy "
    "each every all target other another only additional more less fewer greater least most "
    "turn step phase upkeep combat end cleanup beginning next power toughness mana life damage "
    "permanent token emblem ability nontoken noncreature nonland lethal")
# A "non-" word says which objects (nonbasic, nonlegendary, noncombat, nonhuman): a guard like its stem.
_NON_WORD = re.compile(r"non[a-z]{3,}")
_ZH_GUARD = re.compile(
    "生物|神器|结界|鹏洛客|永久物|瞬间|法术|衍生物|战役|部族|徽记|灵气|武具|载具|"
    "战场|坟墓场|手牌|牌库|放逐区|堆叠|统帅区|"
    "对手|牌手|操控|拥有者|队友|"
    "白色|蓝色|黑色|红色|绿色|无色|多色|颜色|类别|指挥官|"
    "施放|使用|攻击|阻挡|横置|重置|起动|触发|牺牲|消灭|"
    "每|各|所有|目标|其他|另一|额外|仅|"
    "传奇|基本|雪境|"
    "回合|步骤|阶段|维持|战斗|结束|力量|防御力|法术力|生命|伤害|致命|放逐|地|大|小|只|异能")


@lru_cache(maxsize=1)
def _tables() -> dict:
    return json.loads(TABLES.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _en_guard_stems() -> frozenset[str]:
    words = set(_EN_GUARD_WORDS.split()) | set(_tables()["types"])
    mechanics = json.loads((Path(__file__).parent / "data" / "mechanics.json").read_text(encoding="utf-8"))
    words |= {m["name"].lower() for m in mechanics if " " not in m["name"]}
    return frozenset(_stem(w) for w in words)


@lru_cache(maxsize=1)
def _keyword_trigger_pattern() -> re.Pattern:
    mechanics = json.loads((Path(__file__).parent / "data" / "mechanics.json").read_text(encoding="utf-8"))
    names = sorted({m["name"].lower() for m in mechanics}, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(map(re.escape, names)) + r") trigger(s?)\b"
                      r"(?! (?:when|whenever|if|only|once|again|twice|as|at|during|while)\b)")


def _keyword_triggers(text: str) -> str:
    """A keyword's trigger named as a noun ("that card's madness trigger") is its triggered ability
    (CR 603.1-603.2: the ability "triggers", so "its trigger" is the triggered ability); the verb ("madness
    triggers when ...", "... triggers only once") is left."""
    if " trigger" not in text:
        return text
    return _keyword_trigger_pattern().sub(
        lambda m: m.group(1) + (" triggered abilities" if m.group(2) else " triggered ability"), text)


@lru_cache(maxsize=1)
def _zh_mechanic_names() -> re.Pattern:
    mechanics = json.loads((Path(__file__).parent / "data" / "mechanics.json").read_text(encoding="utf-8"))
    names = sorted({name for m in mechanics for name in m["zh"] if len(name) >= 2}, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, names)))


def rules_words() -> set[str]:
    """English words of the guard classes written in this module (zones, players, actions, ...) and
    the counter kinds: what a one-word card name must not be to be masked (scripts/derive_dedup_tables.py)."""
    return set(_EN_GUARD_WORDS.split()) | set(_COUNTER_KINDS) | set(_NUMBER_WORDS)


def guard_words(zh: bool, tokens, start: int, end: int, hard: list[str]) -> Counter:
    """The guard-class words of one side of a differing span: English hard tokens of a guard class;
    Chinese guard words and mechanic names found in the span widened by two characters each side
    (a word may be cut by the alignment: 永久物 against 生物 differ in 永久 against 生)."""
    if not zh:
        stems = _en_guard_stems()
        return Counter(t for t in hard if t in stems or _NON_WORD.match(t))
    around = "".join(tokens[max(0, start - 2):end + 2])
    return (Counter(_ZH_GUARD.findall(around)) + Counter(_zh_mechanic_names().findall(around))
            + Counter(_zh_types().findall(around)))


@lru_cache(maxsize=1)
def _zh_types() -> re.Pattern:
    """The Chinese subtypes printed on the release notes' type lines (ingest/data/zh_types.json, made by
    scripts/derive_zh_types.py), longest first: 天使 against 吸血鬼 names another creature (CR 205.3)."""
    names = json.loads((Path(__file__).parent / "data" / "zh_types.json").read_text(encoding="utf-8"))["types"]
    return re.compile("|".join(map(re.escape, sorted(names, key=len, reverse=True))))


@lru_cache(maxsize=1)
def _zh_creature_types() -> re.Pattern:
    """The Chinese subtypes but the planeswalker types (ingest/data/zh_types.json): a word that names a kind
    of object, never one card (天使 "Angel", 人类 "Human"): the set name masking uses (normalise.zh_subtypes)."""
    return re.compile("|".join(map(re.escape, sorted(zh_subtypes(), key=len, reverse=True))))


@lru_cache(maxsize=4)
def alternations(lang: str, min_pairs: int | None = None) -> frozenset[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The learned alternations of a language ("en" or "zh"), both ways: pairs of hard-token spans
    that alternate in at least ``min_pairs`` (default MIN_ALTERNATION_PAIRS) pairs of otherwise
    identical rulings of the real corpus, neither span holding a guard-class word."""
    least = MIN_ALTERNATION_PAIRS if min_pairs is None else min_pairs
    found = set()
    zh = lang == "zh"
    for a, b, pairs in _tables()["alternations"][lang]:
        if pairs >= least and not any(guard_words(zh, side, 0, len(side), side) for side in (a.split(), b.split())):
            found.add((tuple(a.split()), tuple(b.split())))
            found.add((tuple(b.split()), tuple(a.split())))
    return frozenset(found)


def hard_tokens(form: Form) -> list[str]:
    """Content tokens without soft words: what shingles are built from."""
    soft = _ZH_SOFT if form.zh else _en_soft_stems()
    return [t for t in form.tokens if t not in soft] or list(form.tokens)
