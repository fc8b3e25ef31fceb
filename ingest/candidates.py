"""Candidates for the verifier: MinHash LSH over token bigrams, so the work grows linearly.

Each text's comparison form (ingest/compare.py) gives its shingles: word bigrams in English,
character bigrams in Chinese, of its hard tokens. A MinHash signature (datasketch's scheme,
computed for a batch at once) goes into banded LSH tables (``BandIndex``); a new text is verified
only against the leaders sharing a band with it, the nearest MAX_CANDIDATES of them. Forming and
signing a batch (``form_batch``) is independent per text; for a large ingest it runs in worker
processes (ingest/runtime.py ``form_workers``, ``formed_batches``).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Iterable

import numpy as np
from datasketch import MinHash, MinHashLSH

from rulings.ingest.compare import Form, compare_form, hard_tokens

NUM_PERM = 64
LSH_THRESHOLD = 0.4
LSH_WEIGHTS = (0.5, 0.5)       # false positives cost a verifier call, false negatives a missed merge
ADD_BATCH = 1024               # texts formed and MinHashed at a time (memory stays bounded)
MAX_CANDIDATES = 48            # leaders verified per text, nearest by MinHash Jaccard: keeps the work linear

def shingles(toks: Iterable[str]) -> set[bytes]:
    """Token bigrams (word bigrams in English, character bigrams in Chinese) as bytes; one shingle
    for a 1-token text."""
    toks = list(toks)
    if len(toks) < 2:
        return {" ".join(toks).encode("utf-8")}
    return {f"{a} {b}".encode("utf-8") for a, b in zip(toks, toks[1:])}


def form_batch(matches: list[str]) -> tuple[list[Form], list[bytes]]:
    """The comparison forms (compare_form) and MinHash signatures (signature_bytes of the
    shingles of the hard tokens) of a batch of matching-form texts, in order."""
    forms = [compare_form(match) for match in matches]
    return forms, signatures([shingles(hard_tokens(form)) for form in forms])


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
        for table, key in zip(self.tables, bands or band_keys(signature)):
            found = table.get(key)
            if found is None:
                table[key] = number
            elif type(found) is list:
                found.append(number)
            else:
                table[key] = [found, number]

    def remove(self, number: int, signature: bytes) -> None:
        """Take a leader out of the buckets of its signature."""
        for table, key in zip(self.tables, band_keys(signature)):
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
        for table, key in zip(self.tables, bands or band_keys(signature)):
            found = table.get(key)
            if found is None:
                continue
            if type(found) is list:
                candidates.update(found)
            else:
                candidates.add(found)
        return candidates


def band_keys(signature: bytes) -> list[int]:
    """One int per band: the band's uint32 values' bytes read as one number (exact, no hashing)."""
    width = 4 * banding()[1]
    return [int.from_bytes(signature[i:i + width], "little") for i in range(0, len(signature), width)]


def nearest(keys: set[int], signature: bytes, signature_of) -> list[int]:
    """At most MAX_CANDIDATES candidate leaders, highest estimated Jaccard (share of equal
    MinHash values) first, ties by group number."""
    keys = sorted(keys)
    if len(keys) <= MAX_CANDIDATES:
        return keys
    leaders = np.frombuffer(b"".join(signature_of(k) for k in keys), dtype="<u4").reshape(len(keys), -1)
    estimates = (leaders == np.frombuffer(signature, dtype="<u4")).mean(axis=1)
    order = np.lexsort((np.array(keys), -estimates))
    return [keys[i] for i in order[:MAX_CANDIDATES]]
