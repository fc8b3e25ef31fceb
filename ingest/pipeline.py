"""Run the ingest stages in order: normalise -> dedup -> ids -> tag -> translation links.

Reading is separate (ingest/read.py) so that callers can cache parsed sources.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from ingest.dedup import dedup, relink
from ingest.language import declared_disagrees
from ingest.model import Entry, Ruling
from ingest.normalise import Rejection, normalise
from ingest.tag import tag
from ingest.translate import link_translations


@dataclass
class PipelineResult:
    """Entries formed from the rulings, and the rulings normalisation rejected."""

    entries: list[Entry]
    rejections: list[Rejection] = field(default_factory=list)
    language_mismatches: list[Ruling] = field(default_factory=list)   # declared_lang != detected lang

    def rejected_counts(self) -> dict[str, int]:
        """Rejected rulings per reason."""
        return dict(Counter(r.reason for r in self.rejections))


def build_entries(rulings: list[Ruling], previous_ids: dict[tuple, str] | None = None,
                  aliases: dict[str, list[str]] | None = None,
                  timings: dict[str, float] | None = None) -> PipelineResult:
    """Turn rulings into tagged entries with stable ids.

    previous_ids maps a variant key (Ruling.key()) to the id its entry had in the
    index before; ids carried by an ingested export (Ruling.entry_id) count too.
    An entry keeps a previous id of its variants (the one most variants carry,
    then the smallest); merged-away ids become aliases (PRODUCT.md, "Ids").
    timings, when given, receives the wall seconds of each stage (normalise,
    dedup, ids, tag) for the benchmarks.
    """
    clock = _Clock(timings)
    kept, rejections = normalise(rulings)
    clock.lap("normalise")
    entries = dedup(kept)
    clock.lap("dedup")
    content_ids = [entry.id for entry in entries]
    assign_ids(entries, previous_ids or {}, aliases or {})
    relink(entries, {old: entry.id for old, entry in zip(content_ids, entries)})
    clock.lap("ids")
    tag(entries)
    clock.lap("tag")
    link_translations(entries)
    mismatches = [r for r in kept if declared_disagrees(r.declared_lang, r.lang)]
    return PipelineResult(entries, rejections, mismatches)


class _Clock:
    """Adds the seconds since the last lap to timings[stage] (does nothing without a dict)."""

    def __init__(self, timings: dict[str, float] | None):
        self.timings = timings
        self.last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        if self.timings is not None:
            self.timings[stage] = self.timings.get(stage, 0.0) + now - self.last
        self.last = now


def assign_ids(entries: list[Entry], previous_ids: dict[tuple, str],
               aliases: dict[str, list[str]]) -> None:
    """Give each entry its carried id where one exists (in place); ids stay unique."""
    taken: set[str] = set()
    claims = []
    for entry in entries:
        votes = Counter()
        for variant in entry.variants:
            old = variant.ruling.entry_id or previous_ids.get(variant.ruling.key())
            if old:
                votes[old] += 1
        claims.append(votes)
    order = sorted(range(len(entries)), key=lambda i: -sum(claims[i].values()))
    for i in order:
        entry, votes = entries[i], claims[i]
        ranked = sorted(votes, key=lambda old: (-votes[old], old))
        chosen = next((old for old in ranked if old not in taken), None)
        if chosen is not None:
            entry.id = chosen
        while entry.id in taken:
            entry.id = entry.id + "x"
        taken.add(entry.id)
        merged = [old for old in ranked if old != entry.id and old not in taken]
        entry.aliases = sorted(set(aliases.get(entry.id, [])) | set(merged))
        taken.update(merged)
