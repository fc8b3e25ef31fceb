"""Dedup stage: merge near-identical rulings into entries.

Candidates come from MinHash LSH over word shingles of the matching form
(datasketch); a verifier then decides each merge: the texts must be similar
(rapidfuzz ratio on the matching form) and their guard tokens (numbers,
symbols, signed P/T modifiers, negations) must be equal. A ruling joins an
entry only when it matches the entry's first member, so entries never drift
through chains.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from functools import lru_cache
from typing import Iterable, Sequence

from datasketch import MinHash, MinHashLSH
from rapidfuzz import fuzz

from ingest.model import Entry, Ruling, Variant

SHINGLE = 2
NUM_PERM = 128
LSH_THRESHOLD = 0.3
MERGE_RATIO = 80.0

_TOKEN = re.compile(r"\{[^}]*\}|[+-]?[\dx]+/[+-]?[\dx]+|[\w']+")
_GUARD = re.compile(
    r"\{[^}]*\}|[+-][\dx]+/[+-][\dx]+|\b\d+\b|\b(?:can't|cannot|don't|doesn't|won't|isn't|aren't|"
    r"not|no|never|zero|one|two|three|four|five|six|seven|eight|nine|ten)\b")


def tokens(match: str) -> list[str]:
    """Word, symbol and P/T tokens of a matching-form text, in order."""
    return _TOKEN.findall(match)


def shingles(toks: Sequence[str], k: int = SHINGLE) -> set[str]:
    """The k-token shingles of a token list; a text shorter than k gives one shingle (all its tokens)."""
    if len(toks) < k:
        return {" ".join(toks)}
    return {" ".join(toks[i:i + k]) for i in range(len(toks) - k + 1)}


@lru_cache(maxsize=1 << 16)
def guards(match: str) -> Counter:
    """Multiset of guard tokens: numbers and number words, symbols, P/T modifiers, negations.

    Cached per text (a text meets many candidates); callers must not modify the result.
    """
    return Counter(_GUARD.findall(match))


@lru_cache(maxsize=1)
def _permutations():
    """The MinHash permutations, made once (datasketch otherwise draws them for every MinHash)."""
    first = MinHash(num_perm=NUM_PERM)
    return first.permutations, first.scheme


def signature(match: str) -> MinHash:
    """MinHash of a matching-form text's shingles (one vectorised batch update)."""
    permutations, scheme = _permutations()
    mh = MinHash(num_perm=NUM_PERM, permutations=permutations, scheme=scheme)
    mh.update_batch([shingle.encode("utf-8") for shingle in shingles(tokens(match))])
    return mh


@lru_cache(maxsize=1 << 16)
def _guard_key(match: str) -> tuple:
    """guards() as a sorted tuple, cheap to compare."""
    return tuple(sorted(guards(match).items()))


def same_ruling(a: str, b: str, reason: bool = True) -> tuple[bool, float, str | None]:
    """Decide whether two matching-form texts make the same rules statement.

    Returns (same, similarity 0..1, reason they were kept apart or None).
    With reason=False the guard-token reason is not spelled out (dedup's hot loop).
    """
    similarity = fuzz.ratio(a, b) / 100.0
    if _guard_key(a) != _guard_key(b):
        if not reason:
            return False, similarity, "guard token differs"
        ga, gb = guards(a), guards(b)
        diff = sorted((ga - gb) + (gb - ga))
        return False, similarity, "guard token differs: " + ", ".join(diff[:3])
    if similarity * 100 < MERGE_RATIO:
        return False, similarity, None
    return True, similarity, None


def entry_id(texts: Iterable[str]) -> str:
    """Id derived from the smallest normalised variant text: ``r-`` + 10 hex digits of SHA-1."""
    smallest = min(texts)
    return "r-" + hashlib.sha1(smallest.encode("utf-8")).hexdigest()[:10]


def dedup(rulings: list[Ruling]) -> list[Entry]:
    """Group normalised rulings into entries.

    rulings: output of normalise() (``match`` filled). Returns entries in order
    of their first ruling; each entry's variants are oldest first, and its
    canonical text is the newest intact variant's text. Ids are derived from
    content (entry_id); the pipeline replaces them with carried ids.
    """
    lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM)
    groups: list[list[tuple[Ruling, float]]] = []
    by_text: dict[str, int] = {}
    for ruling in rulings:
        if ruling.match in by_text:
            groups[by_text[ruling.match]].append((ruling, 1.0))
            continue
        mh = signature(ruling.match)
        best = None
        for key in lsh.query(mh):
            head = groups[key][0][0]
            if head.lang != ruling.lang:
                continue
            same, similarity, _ = same_ruling(head.match, ruling.match, reason=False)
            if same and (best is None or similarity > best[1]):
                best = (key, similarity)
        if best is not None:
            groups[best[0]].append((ruling, best[1]))
            by_text[ruling.match] = best[0]
            continue
        key = len(groups)
        groups.append([(ruling, 1.0)])
        by_text[ruling.match] = key
        lsh.insert(key, mh)
    return [_entry(group) for group in groups]


def _entry(group: list[tuple[Ruling, float]]) -> Entry:
    variants = sorted((Variant(r, s) for r, s in group),
                      key=lambda v: (v.ruling.date or "", v.ruling.source.path, v.ruling.position))
    canonical = canonical_variant(variants)
    repairs = sorted({note for v in variants for note in v.ruling.repairs})
    return Entry(id=entry_id(v.ruling.match for v in variants), text=canonical.ruling.text,
                 lang=canonical.ruling.lang, variants=variants, repairs=repairs)


def canonical_variant(variants: list[Variant]) -> Variant:
    """The newest intact variant (no repairs, no doubled spaces); official sources preferred."""
    def rank(v: Variant):
        r = v.ruling
        intact = not r.repairs and "  " not in r.text
        official = r.publisher != "scryfall"
        return (intact, official, r.date or "", -r.position)
    return max(variants, key=rank)
