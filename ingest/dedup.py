"""Dedup stage: merge rulings that make the same rules statement into entries.

What counts as "the same ruling" is ``../shared/gold/dedup-guidelines.md``:
only typography, damaged characters, reordered coordinations, singular/plural,
"it"/"they", wording-template updates, the card's own name and purely
illustrative examples may differ. The stage works on ``Ruling.match`` (the
folded form with the ruling's own card name replaced by ``~``, see
ingest/normalise.py) in three steps:

1. comparison form (``compare_form``): template rewrites ("enters the
   battlefield" -> "enters", "To/Each time you proliferate" -> "When you
   proliferate", "the triggered ability of ~" -> "~", negation contractions
   spelled out), illustrative spans ("(such as X)", "such as X", "For example,
   ..." sentences) set aside, then tokens: English words and symbols, Chinese
   characters.
2. candidates: MinHash LSH (datasketch) over token bigrams (word bigrams in
   English, character bigrams in Chinese), so the work grows linearly.
3. verifier (``same_ruling``): guard tokens must be equal (numbers and number
   words, signed P/T modifiers, mana and game symbols, counter kinds,
   negations, named effects); then every differing word must be a soft word
   (articles, pronouns, auxiliaries, ``~``), a restated referent, or cancel
   against a word moved elsewhere. Close pairs refused by the verifier become
   ``Related`` links carrying the reason.

Entries form around a leader: rulings are visited best first (intact, official,
newest, then by text), and each joins the entry whose leader it matches best,
so every member matches the entry's canonical text (no drift through chains)
and the grouping does not depend on input order.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import re
from collections import Counter, defaultdict, deque
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from multiprocessing.pool import Pool
from typing import Iterable, Iterator

import numpy as np
import snowballstemmer
from datasketch import MinHash, MinHashLSH
from rapidfuzz import fuzz
from rapidfuzz.distance import Indel

from ingest.model import Entry, Related, Ruling, Variant
from ingest.normalise import fold

NUM_PERM = 64
LSH_THRESHOLD = 0.4
LSH_WEIGHTS = (0.5, 0.5)       # false positives cost a verifier call, false negatives a missed merge
RELATED_SIMILARITY = 0.75      # refused candidates at least this similar become Related links
MIN_SIMILARITY = 0.55          # below this token-sequence similarity two texts are never the same
MAX_RELATED = 5
ADD_BATCH = 1024               # texts formed and MinHashed at a time (memory stays bounded)
FORM_WORKERS = min(os.cpu_count() or 1, 4) if (os.cpu_count() or 1) > 1 else 0   # see form_workers
POOL_MIN_BATCHES = 6           # fewer batches than this are formed in this process (starting workers costs more)
POOL_AHEAD = 2                 # batches in flight per worker (results wait in memory until placed)
MAX_CANDIDATES = 48            # leaders verified per text, nearest by MinHash Jaccard: keeps the work linear
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


def _judge(fa: Form, fb: Form) -> tuple[bool, float]:
    """verify(fa, fb, explain=False)'s decision and similarity, without making a Verdict (the
    placing loop's hot path: a candidate pair is judged here, and only a refused pair close
    enough for a Related link goes through verify() for its reason)."""
    sim = Indel.normalized_similarity(fa.tokens, fb.tokens)
    if fa.zh != fb.zh or sim < MIN_SIMILARITY or fa.guards != fb.guards or fa.effects != fb.effects:
        return False, sim
    left_a, left_b = _hard_difference(fa, fb)
    return not (left_a or left_b), sim


def _may_be_similar(fa: Form, fb: Form) -> bool:
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


# --- candidates and grouping ---------------------------------------------------------------

def shingles(toks: Iterable[str]) -> set[bytes]:
    """Token bigrams (word bigrams in English, character bigrams in Chinese) as bytes; one shingle for a 1-token text."""
    toks = list(toks)
    if len(toks) < 2:
        return {" ".join(toks).encode("utf-8")}
    return {f"{a} {b}".encode("utf-8") for a, b in zip(toks, toks[1:])}


def form_batch(matches: list[str]) -> tuple[list[Form], list[bytes]]:
    """The comparison forms (compare_form) and MinHash signatures (signature_bytes of the
    shingles of the hard tokens) of a batch of matching-form texts, in order."""
    forms = [compare_form(match) for match in matches]
    return forms, signatures([shingles(_hard_tokens(form)) for form in forms])


@contextmanager
def form_workers(texts: int) -> Iterator[Pool | None]:
    """A pool of FORM_WORKERS worker processes for an ingest of ``texts`` texts to place, or None
    when they are too few to pay for starting workers (fewer than POOL_MIN_BATCHES batches of
    ADD_BATCH), FORM_WORKERS is 0, or the platform has no ``forkserver``.

    The workers are forked from multiprocessing's fork server, a small process that has
    imported only this module and ingest/tag.py, not from this process: a worker forked from a
    process holding a million rulings would copy the memory pages it writes into (Python's
    allocator and reference counts write all over the heap) and add hundreds of MB to the peak.
    On exit the pool is ended, whatever work is still outstanding (collect every result inside
    the block).
    """
    if (FORM_WORKERS < 1 or texts < POOL_MIN_BATCHES * ADD_BATCH
            or "forkserver" not in multiprocessing.get_all_start_methods()):
        yield None
        return
    start_fork_server()
    pool = multiprocessing.get_context("forkserver").Pool(FORM_WORKERS)
    try:
        yield pool
    finally:
        pool.terminate()
        pool.join()


FORK_SERVER_PRELOAD = ["ingest.workers"]     # what the fork server loads before forking workers


def start_fork_server() -> bool:
    """Start multiprocessing's fork server, which loads FORK_SERVER_PRELOAD (ingest/workers.py: the
    workers' modules and lingua's models, a second or two), unless it runs already; returns at once,
    the loading goes on in the server meanwhile. False where there is no ``forkserver`` or no
    workers are used (FORM_WORKERS 0). Called early in a large ingest (search/catalog.py) so that the
    loading overlaps the reading, and by form_workers()."""
    if FORM_WORKERS < 1 or "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload(FORK_SERVER_PRELOAD)
    forkserver.ensure_running()
    return True


def formed_batches(batches: list[list[str]], pool: Pool | None = None) -> Iterator[tuple[list[Form], list[bytes]]]:
    """form_batch() of each batch of matching texts, yielded in order.

    Forming is independent per text and is most of dedup's work, while placing
    texts (Grouper._place) must be sequential: the batches are formed in the
    worker processes of ``pool`` (or of form_workers(), when it gives a pool for
    this many texts), at most POOL_AHEAD batches per worker in flight, while
    this process places the batches already formed. The results are the same as
    in one process (same functions, same inputs; tests/test_dedup.py compares them).
    """
    if pool is None:
        with form_workers(sum(len(batch) for batch in batches)) as own:
            if own is not None:
                yield from formed_batches(batches, own)
            else:
                for batch in batches:
                    yield form_batch(batch)
        return
    waiting = iter(batches)
    pending = deque(pool.apply_async(form_batch, (batch,)) for batch in islice(waiting, FORM_WORKERS * POOL_AHEAD))
    while pending:
        result = pending.popleft().get()
        batch = next(waiting, None)
        if batch is not None:
            pending.append(pool.apply_async(form_batch, (batch,)))
        yield result


def signatures(shingle_sets: list[set[bytes]]) -> list[bytes]:
    """MinHash signatures (signature_bytes) of many shingle sets at once: the values datasketch's
    ``MinHash(num_perm=NUM_PERM)`` gives after ``update_batch`` of each set, computed as one numpy
    pass over all shingles (hash each shingle once, permute, minimum per set with ``reduceat``)
    instead of a MinHash object per set. Every set must be non-empty (``shingles`` never returns
    an empty set). The arithmetic is datasketch's own scheme (``_Permuter``), checked against
    ``MinHash.bulk`` on first use; if they ever disagree, ``MinHash.bulk`` is used instead."""
    if not shingle_sets:
        return []
    permuter = _permuter()
    if permuter is None:
        return [signature_bytes(mh) for mh in MinHash.bulk(shingle_sets, num_perm=NUM_PERM)]
    return permuter.signatures(shingle_sets)


class _Permuter:
    """datasketch's MinHash arithmetic over a whole batch: sha1_hash32 of each shingle (the first 4
    bytes of its SHA-1, little-endian), then per permutation (a, b) either the ``affine32`` scheme
    (MurmurHash3 finalizer, ``a * h + b`` mod 2**32, datasketch 2) or the ``legacy`` one
    (``(a * h + b) mod (2**61 - 1)`` masked to 32 bits, datasketch 1); the signature is the
    minimum over the set's shingles."""

    def __init__(self, scheme: str, permutations) -> None:
        self.scheme = scheme
        self.a, self.b = (np.asarray(p) for p in permutations)

    def signatures(self, shingle_sets: list[set[bytes]]) -> list[bytes]:
        """signature_bytes of each non-empty shingle set, in order."""
        sha1 = hashlib.sha1
        digests = b"".join([sha1(s).digest()[:4] for shingle_set in shingle_sets for s in shingle_set])
        hv = np.frombuffer(digests, dtype="<u4")
        if self.scheme == "affine32":
            hv = hv.astype(np.uint32)
            hv = hv ^ (hv >> np.uint32(16))
            hv = hv * np.uint32(0x85EBCA6B)
            hv = hv ^ (hv >> np.uint32(13))
            hv = hv * np.uint32(0xC2B2AE35)
            hv = hv ^ (hv >> np.uint32(16))
            phv = hv[:, None] * self.a[None, :] + self.b[None, :]
        else:
            hv = hv.astype(np.uint64)
            phv = (hv[:, None] * self.a[None, :] + self.b[None, :]) % np.uint64((1 << 61) - 1)
            phv &= np.uint64((1 << 32) - 1)
        sizes = np.fromiter((len(shingle_set) for shingle_set in shingle_sets), dtype=np.int64,
                            count=len(shingle_sets))
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        minima = np.minimum.reduceat(phv, starts, axis=0).astype("<u4")
        return [row.tobytes() for row in minima]


_PERMUTER_CHECK = [{b"a b"}, {b"~ deal", b"deal 3", b"3 damage"}, {b"\xe7\x89\x8c"},
                   {f"w{i} w{i + 1}".encode() for i in range(40)}]


@lru_cache(maxsize=1)
def _permuter() -> _Permuter | None:
    """The batch arithmetic for the installed datasketch, or None when it does not reproduce
    ``MinHash.bulk`` on a few shingle sets (an unknown scheme)."""
    probe = MinHash(num_perm=NUM_PERM)
    scheme = getattr(probe, "scheme", "legacy")
    if scheme not in ("affine32", "legacy"):
        return None
    permuter = _Permuter(scheme, probe.permutations)
    expected = [signature_bytes(mh) for mh in MinHash.bulk(_PERMUTER_CHECK, num_perm=NUM_PERM)]
    return permuter if permuter.signatures(_PERMUTER_CHECK) == expected else None


def _hard_tokens(form: Form) -> list[str]:
    """Content tokens without soft words: what shingles are built from."""
    soft = _ZH_SOFT if form.zh else _en_soft_stems()
    return [t for t in form.tokens if t not in soft] or list(form.tokens)


def entry_id(texts: Iterable[str]) -> str:
    """Id derived from the smallest normalised variant text: ``r-`` + 10 hex digits of SHA-1."""
    smallest = min(texts)
    return "r-" + hashlib.sha1(smallest.encode("utf-8")).hexdigest()[:10]


def _rank(r: Ruling) -> tuple:
    """Canonical preference: intact, official, newest; the rest only makes the order total."""
    intact = not r.repairs and "  " not in r.text
    official = r.publisher != "scryfall"
    return (not intact, not official, _neg(r.date or ""), r.match, r.text, r.source.path, r.position)


def _neg(date: str) -> tuple:
    return tuple(-ord(c) for c in date) + (1,)


def text_key(ruling: Ruling) -> tuple[str, str]:
    """(language key, folded display text): rulings with the same one always share an entry."""
    return (_lang_key(ruling), fold(ruling.repaired_text or ruling.text))


def rank(ruling: Ruling) -> tuple:
    """Canonical preference of a ruling (smaller is better): intact, official, newest, then a total order."""
    return _rank(ruling)


def rank_order(rulings: list[Ruling]) -> list[int]:
    """Indices of the rulings best first: the order of ``sorted(rulings, key=rank)``, ties in input order.

    Done as stable sorts on one field at a time, last field first (the date
    descending), so that no rank tuple is built per ruling: the same order, in
    less time and memory for a million rulings.
    """
    order = list(range(len(rulings)))
    order.sort(key=lambda i: rulings[i].position)
    order.sort(key=lambda i: rulings[i].source.path)
    order.sort(key=lambda i: rulings[i].text)
    order.sort(key=lambda i: rulings[i].match)
    order.sort(key=lambda i: rulings[i].date or "", reverse=True)    # newest first, undated last
    order.sort(key=lambda i: rulings[i].publisher == "scryfall")       # official first
    order.sort(key=lambda i: bool(rulings[i].repairs) or "  " in rulings[i].text)   # intact first
    return order


def dedup(rulings: list[Ruling]) -> list[Entry]:
    """Group normalised rulings into entries.

    rulings: output of normalise() (``match`` filled). Returns entries ordered
    by their canonical ruling (best first); each entry's variants are oldest
    first with their similarity to the canonical text, its canonical text is the
    newest intact official variant's, and ``related`` holds refused close
    entries (ids are content ids here; the pipeline renames them after
    assign_ids, see ``relink``). Work is linear in the number of rulings: each
    distinct text is checked only against the leaders LSH returns for it.
    """
    by_text: dict[tuple[str, str], list[Ruling]] = defaultdict(list)
    key_of_text: dict[tuple[str, str], tuple[str, str]] = {}
    for ruling in sorted(rulings, key=_rank):
        # identical texts always share an entry, whatever card each names (masking differs per card)
        key = key_of_text.setdefault(text_key(ruling), (_lang_key(ruling), ruling.match))
        by_text[key].append(ruling)
    grouper = Grouper()
    grouper.add(list(by_text))
    grouper.release_tables()
    order = list(grouper.groups)
    entries = [grouper.entry(g, by_text) for g in order]
    position = {g: i for i, g in enumerate(order)}
    links = {(position[a], position[b]): found for a, partners in grouper.links.items()
             for b, found in partners.items() if a < b}
    _link(entries, links)
    return entries


@dataclass
class Group:
    """One entry in the making: its leader's matching text, the leader's MinHash signature
    (NUM_PERM hash values below 2**32, as little-endian uint32 bytes; see signature_bytes),
    and its member texts (matching text -> similarity to the leader, leader first)."""

    lang: str
    leader: str
    signature: bytes
    members: dict[str, float]


class Grouper:
    """Leaders and their members, kept between ingests so that new texts are matched only
    against existing leaders (incremental ingest).

    groups: Group by group number (numbers are never reused; creation order);
    group_of: group number by text key (language key, matching text); links:
    refused close pairs, both ways: group -> {partner: (similarity, reason)}.
    The LSH band tables (BandIndex, one per language key) are not pickled:
    they are rebuilt from the stored signatures on first use.

    A grouping built by one ``add`` of all texts in rank order is exactly
    ``dedup``'s. Built in steps it may differ from a full rebuild in one way: a
    text added later that ranks above an existing leader joins that leader's
    entry (or starts its own) instead of leading it, so leaders depend on the
    order sources arrived in; every member still matches its entry's leader.
    """

    def __init__(self) -> None:
        self.groups: dict[int, Group] = {}
        self.group_of: dict[tuple[str, str], int] = {}
        self.links: dict[int, dict[int, tuple[float, str]]] = {}
        self.next_group = 0
        self._bands: dict[str, BandIndex] | None = None    # LSH tables by language key, see _index
        self._forms: dict[int, Form] = {}      # leaders' comparison forms, see _leader_form

    def _index(self, lang: str) -> BandIndex:
        if self._bands is None:
            self._bands = {}
            for number, group in self.groups.items():
                self._bands.setdefault(group.lang, BandIndex()).insert(number, group.signature)
        return self._bands.setdefault(lang, BandIndex())

    def add(self, keys: list[tuple[str, str]], pool: Pool | None = None) -> set[int]:
        """Place new text keys (language key, matching text), best ranked first; returns the touched groups.

        Each text joins the leader it matches best among the LSH candidates, or
        leads a new group; a group that gains a Related link is touched too.
        pool: worker processes to form the texts in (form_workers; formed_batches
        makes its own for many texts when none is given).
        """
        touched: set[int] = set()
        keys = [key for key in keys if key not in self.group_of]
        batches = [keys[start:start + ADD_BATCH] for start in range(0, len(keys), ADD_BATCH)]
        formed = formed_batches([[match for _, match in batch] for batch in batches], pool)
        for batch, (forms, hashes) in zip(batches, formed):
            for (lang, match), form, signature in zip(batch, forms, hashes):
                touched |= self._place(lang, match, form, signature)
        return touched

    def _place(self, lang: str, match: str, form: Form, signature: bytes) -> set[int]:
        """Place one new text (its comparison form and MinHash signature); returns the groups it touched."""
        index = self._index(lang)
        best: tuple[float, int] | None = None
        refused = []
        bands = _band_keys(signature)
        for number in _nearest(index.query(signature, bands), signature, self.groups):
            leader = self._leader_form(number)
            if not _may_be_similar(leader, form):
                continue
            same, similarity = _judge(leader, form)
            if same:
                if best is None or (similarity, -number) > (best[0], -best[1]):
                    best = (similarity, number)
            elif similarity >= RELATED_SIMILARITY:
                refused.append((number, verify(leader, form)))
        if best is not None:
            target = best[1]
            self.groups[target].members[match] = best[0]
        else:
            target = self.next_group
            self.next_group += 1
            self.groups[target] = Group(lang, match, signature, {match: 1.0})
            self._forms[target] = form
            index.insert(target, signature, bands)
        self.group_of[(lang, match)] = target
        touched = {target}
        for number, verdict in refused:
            if number != target and self._link(number, target, verdict):
                touched.add(number)
        return touched

    def release_tables(self) -> None:
        """Drop the LSH band tables and the leaders' comparison forms (memory saving).

        Both are working structures of ``add``: at a million rulings they hold
        hundreds of MB (16 band dicts over 250,000 leaders, a token tuple per
        leader) that nothing needs once the texts are placed. They are rebuilt
        from the groups' signatures and leaders on the next ``add`` or
        ``remove`` (as after unpickling), so the grouping is unchanged.
        """
        self._forms, self._bands = {}, None

    def _leader_form(self, number: int) -> Form:
        """The comparison form of a group's leader, kept per group (not pickled; rebuilt on use)."""
        form = self._forms.get(number)
        if form is None:
            form = self._forms[number] = compare_form(self.groups[number].leader)
        return form

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_forms"], state["_bands"] = {}, None
        return state

    def __setstate__(self, state: dict) -> None:
        state.pop("_lsh", None)                      # datasketch tables of an older index folder
        state.pop("scheme", None)
        self.__dict__.update(state)
        self._forms, self._bands = {}, None
        for group in self.groups.values():
            if not isinstance(group.signature, bytes):      # an older folder kept numpy uint64 arrays
                group.signature = signature_bytes(group.signature)

    def _link(self, a: int, b: int, verdict: Verdict) -> bool:
        known = self.links.get(a, {}).get(b)
        if known is not None and known[0] >= verdict.similarity:
            return False
        found = (verdict.similarity, verdict.reason or "wording differs")
        self.links.setdefault(a, {})[b] = found
        self.links.setdefault(b, {})[a] = found
        return True

    def remove(self, keys: Iterable[tuple[str, str]]) -> tuple[set[int], set[int], dict[tuple[str, str], int]]:
        """Take text keys out (their last ruling is gone); returns (touched, dissolved, orphans).

        orphans: the remaining text keys of dissolved groups, with the group each was in.

        A group that lost a member is touched; a group that lost its leader is
        dissolved, and its remaining member texts (orphans) must be added again
        (``add``) so that they are re-formed around new leaders. Partners of a
        dissolved group lose the Related link and are touched.
        """
        touched: set[int] = set()
        dissolved: set[int] = set()
        for key in keys:
            number = self.group_of.pop(key, None)
            if number is None:
                continue
            group = self.groups[number]
            group.members.pop(key[1], None)
            (dissolved if key[1] == group.leader else touched).add(number)
        orphans = {}
        for number in sorted(dissolved):
            group = self.groups.pop(number)
            self._forms.pop(number, None)
            if self._bands is not None and group.lang in self._bands:
                self._bands[group.lang].remove(number, group.signature)
            for match in group.members:
                orphans[(group.lang, match)] = number
                del self.group_of[(group.lang, match)]
            for partner in self.links.pop(number, {}):
                self.links[partner].pop(number, None)
                touched.add(partner)
        return touched - dissolved, dissolved, orphans

    def texts(self, number: int) -> list[tuple[str, str]]:
        """The text keys of a group, leader first."""
        group = self.groups[number]
        return [(group.lang, match) for match in group.members]

    def entry(self, number: int, rulings_of: dict[tuple[str, str], list[Ruling]]) -> Entry:
        """The Entry of a group (content id, no related links) from the rulings of each of its text keys."""
        group = self.groups[number]
        return _entry([(r, sim) for match, sim in group.members.items() for r in rulings_of[(group.lang, match)]])


def signature_bytes(minhash) -> bytes:
    """A MinHash signature (a datasketch MinHash or its hash values) as little-endian uint32
    bytes, 4 bytes a value: datasketch keeps them as uint64 but masks them below 2**32
    (``_max_hash``), so nothing is lost (tests/test_dedup.py compares the LSH candidates)."""
    return np.asarray(getattr(minhash, "hashvalues", minhash)).astype("<u4").tobytes()


@lru_cache(maxsize=1)
def banding() -> tuple[int, int]:
    """(bands, rows per band) of the LSH tables: datasketch's MinHashLSH choice for LSH_THRESHOLD,
    NUM_PERM and LSH_WEIGHTS (16 bands of 4 rows)."""
    lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM, weights=LSH_WEIGHTS)
    return lsh.b, lsh.r


class BandIndex:
    """MinHash LSH tables of leader signatures: two signatures are candidates when all values
    of one band are equal (the candidates datasketch's MinHashLSH with the same banding gives).

    tables: one dict per band from the band's values (as one int) to the group number, or to a
    list of group numbers when several leaders share them. A bucket holds a bare number until
    it is shared, and nothing else is stored per key: about a third of the memory of
    datasketch's tables (which also keep every key's band hashes), and no pickling.
    """

    def __init__(self) -> None:
        self.tables: list[dict[int, int | list[int]]] = [{} for _ in range(banding()[0])]

    def insert(self, number: int, signature: bytes, bands: list[int] | None = None) -> None:
        """Add a leader (group number) under each band of its signature (signature_bytes;
        bands: its _band_keys when already computed)."""
        for table, key in zip(self.tables, bands or _band_keys(signature)):
            found = table.get(key)
            if found is None:
                table[key] = number
            elif type(found) is list:
                found.append(number)
            else:
                table[key] = [found, number]

    def remove(self, number: int, signature: bytes) -> None:
        """Take a leader out of the buckets of its signature."""
        for table, key in zip(self.tables, _band_keys(signature)):
            found = table.get(key)
            if type(found) is list:
                if number in found:
                    found.remove(number)
                if len(found) == 1:
                    table[key] = found[0]
            elif found == number:
                del table[key]

    def query(self, signature: bytes, bands: list[int] | None = None) -> set[int]:
        """Group numbers of the leaders sharing at least one band with the signature (bands: its
        _band_keys when already computed)."""
        candidates: set[int] = set()
        for table, key in zip(self.tables, bands or _band_keys(signature)):
            found = table.get(key)
            if found is None:
                continue
            if type(found) is list:
                candidates.update(found)
            else:
                candidates.add(found)
        return candidates


def _band_keys(signature: bytes) -> list[int]:
    """One int per band: the band's uint32 values' bytes read as one number (exact, no hashing)."""
    width = 4 * banding()[1]
    return [int.from_bytes(signature[i:i + width], "little") for i in range(0, len(signature), width)]


def _nearest(keys: set[int], signature: bytes, groups: dict[int, Group]) -> list[int]:
    """At most MAX_CANDIDATES candidate leaders, highest estimated Jaccard (share of equal
    MinHash values) first, ties by group number."""
    keys = sorted(keys)
    if len(keys) <= MAX_CANDIDATES:
        return keys
    leaders = np.frombuffer(b"".join(groups[k].signature for k in keys), dtype="<u4").reshape(len(keys), -1)
    estimates = (leaders == np.frombuffer(signature, dtype="<u4")).mean(axis=1)
    order = np.lexsort((np.array(keys), -estimates))
    return [keys[i] for i in order[:MAX_CANDIDATES]]


def _lang_key(ruling: Ruling) -> str:
    return "zh" if ruling.lang.startswith("zh") else ruling.lang


def _link(entries: list[Entry], links: dict[tuple[int, int], tuple[float, str]]) -> None:
    found: dict[int, list[tuple[float, str, str]]] = defaultdict(list)
    for (i, j), (sim, reason) in links.items():
        found[i].append((sim, entries[j].id, reason))
        found[j].append((sim, entries[i].id, reason))
    for i, items in found.items():
        items.sort(key=lambda item: (-item[0], item[1]))
        entries[i].related = [Related(id=other, reason=reason) for _, other, reason in items[:MAX_RELATED]]


def relink(entries: list[Entry], renamed: dict[str, str]) -> None:
    """Rewrite Related ids after ids were reassigned (renamed: content id -> final id), in place."""
    for entry in entries:
        for link in entry.related:
            link.id = renamed.get(link.id, link.id)


def _entry(group: list[tuple[Ruling, float]]) -> Entry:
    canonical = min((r for r, _ in group), key=_rank)
    variants = sorted((Variant(r, fuzz.ratio(canonical.match, r.match) / 100.0) for r, _ in group),
                      key=lambda v: (v.ruling.date or "", v.ruling.source.path, v.ruling.position))
    repairs = sorted({note for v in variants for note in v.ruling.repairs})
    return Entry(id=entry_id(v.ruling.match for v in variants), text=canonical.text,
                 lang=canonical.lang, variants=variants, repairs=repairs)


def canonical_variant(variants: list[Variant]) -> Variant:
    """The newest intact variant (no repairs, no doubled spaces); official sources preferred."""
    return min(variants, key=lambda v: _rank(v.ruling))
