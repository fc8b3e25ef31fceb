"""Dedup stage: merge rulings that make the same rules statement into entries.

What counts as "the same ruling" is ``../shared/gold/dedup-guidelines.md``:
only typography, damaged characters, reordered coordinations, singular/plural,
"it"/"they", wording-template updates, the card's own name and purely
illustrative examples may differ. The stage works on ``Ruling.match`` (the
folded form with the ruling's own card name replaced by ``~``, see
ingest/normalise.py) in three steps, the first two in modules of their own:

1. comparison form (ingest/compare.py ``compare_form``): template rewrites ("enters the
   battlefield" -> "enters", "To/Each time you proliferate" -> "When you
   proliferate", "the triggered ability of ~" -> "~", negation contractions
   spelled out), illustrative spans ("(such as X)", "such as X", "For example,
   ..." sentences) set aside, then tokens: English words and symbols, Chinese
   characters.
2. candidates (ingest/candidates.py): MinHash LSH (datasketch) over token bigrams (word bigrams in
   English, character bigrams in Chinese), so the work grows linearly.
3. verifier (ingest/compare.py ``same_ruling``): guard tokens must be equal (numbers and number
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
from dataclasses import dataclass
from multiprocessing.pool import Pool
from typing import Iterable

from rapidfuzz import fuzz

from rulings.ingest import candidates
from rulings.ingest.candidates import BandIndex, band_keys, nearest
from rulings.ingest.compare import Form, Verdict, compare_form, judge, may_be_similar, verify
from rulings.ingest.model import Entry, Ruling, Variant
from rulings.ingest.normalise import fold
from rulings.ingest.runtime import formed_batches

RELATED_SIMILARITY = 0.75      # refused candidates at least this similar become Related links
MAX_RELATED = 5


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


@dataclass
class Group:
    """One entry in the making: its leader's matching text, the leader's MinHash signature
    (NUM_PERM hash values below 2**32, as little-endian uint32 bytes; see ingest/candidates.py signature_bytes),
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

    A grouping built by one ``add`` of all texts in rank order is a full
    rebuild's (ingest/pipeline.py build_entries, ``rulings ingest --rebuild``).
    Built in steps it may differ from a full rebuild in one way: a
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
        pool: worker processes to form the texts in (ingest/runtime.py form_workers; formed_batches
        makes its own for many texts when none is given).
        """
        touched: set[int] = set()
        keys = [key for key in keys if key not in self.group_of]
        batches = [keys[start:start + candidates.ADD_BATCH] for start in range(0, len(keys), candidates.ADD_BATCH)]
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
        bands = band_keys(signature)
        for number in nearest(index.query(signature, bands), signature, self._signature):
            leader = self._leader_form(number)
            if not may_be_similar(leader, form):
                continue
            same, similarity = judge(leader, form)
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

    def _signature(self, number: int) -> bytes:
        return self.groups[number].signature

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
        self.__dict__.update(state)
        self._forms, self._bands = {}, None

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


def _lang_key(ruling: Ruling) -> str:
    return "zh" if ruling.lang.startswith("zh") else ruling.lang


def _entry(group: list[tuple[Ruling, float]]) -> Entry:
    canonical = min((r for r, _ in group), key=_rank)
    variants = sorted((Variant(r, fuzz.ratio(canonical.match, r.match) / 100.0) for r, _ in group),
                      key=lambda v: (v.ruling.date or "", v.ruling.source.path, v.ruling.position))
    repairs = sorted({note for v in variants for note in v.ruling.repairs})
    return Entry(id=entry_id(v.ruling.match for v in variants), text=canonical.text,
                 lang=canonical.lang, variants=variants, repairs=repairs)

