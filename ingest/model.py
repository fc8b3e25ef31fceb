"""Plain records that flow through the pipeline: read -> normalise -> dedup -> tag.

A ``Ruling`` is one statement as one source published it. An ``Entry`` is one
deduplicated ruling: its ``variants`` are the rulings merged into it. The JSON
shape of an entry (``entry_to_dict``) is the contract in PRODUCT.md, "Entry".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LANGUAGES = ("en", "de", "fr", "it", "es", "pt", "ja", "ko", "ru", "zh-Hans", "zh-Hant")


@dataclass(frozen=True, slots=True)
class Source:
    """Where a ruling was read: the file path (str; as an index remembers it, absolute with links
    resolved, or a bundled document's stable name ``rulings:corpus/NAME``) and the sniffed format name."""

    path: str
    format: str


@dataclass(slots=True)
class Ruling:
    """One ruling as one source published it (slots: a million of them are held during an ingest).

    text: as written (display form, never rewritten but for control characters, which are
    removed: ingest/controls.py); lang: a code of LANGUAGES;
    date: ISO ``YYYY-MM-DD`` or None; card: full card name (``Face A // Face B``
    for split and double-faced cards) or None; set_code: upper-case set code or
    None; position: 0-based index of the ruling within its source file.
    ``match`` is filled by normalise(): the folded form used for matching only;
    ``repairs`` notes what normalise() repaired in the matching form.
    ``warnings`` notes what a reader could not take as given but kept the ruling
    for, e.g. ``dates.INVALID_DATE`` for a date that is not a real date (date None);
    ingest counts them by reason (``warnings`` of ``rulings ingest --format json``).
    ``card_text``: the card's type line and rules text when the source prints them beside the
    ruling (MTGJSON ``type`` and ``text``), or None; searched with a low weight, never shown.
    """

    text: str
    source: Source
    position: int = 0
    lang: str = "en"
    date: str | None = None
    date_ambiguous: bool = False
    card: str | None = None
    set_code: str | None = None
    oracle_id: str | None = None
    publisher: str | None = None
    declared_lang: str | None = None
    entry_id: str | None = None          # id carried in an ingested export
    match: str = ""
    repairs: tuple[str, ...] = ()
    repaired_text: str | None = None    # display text with the repairs applied, for search
    warnings: tuple[str, ...] = ()      # reader notes, e.g. dates.INVALID_DATE
    card_text: str | None = None        # the card's type line and rules text, for search only

    def key(self) -> tuple:
        """Identity of this variant across re-ingests: (path, position, text)."""
        return (self.source.path, self.position, self.text)


@dataclass(slots=True)
class Variant:
    """A ruling inside an entry, with its similarity (0..1) to the entry's canonical text."""

    ruling: Ruling
    similarity: float = 1.0


@dataclass(slots=True)
class Related:
    """A close but different entry, and the guard (reason) that kept them apart.

    slots: up to five per entry, over a million at a million rulings (a memory saving).
    """

    id: str
    reason: str


@dataclass(slots=True)
class Translation:
    """A linked entry in another language (slots, as Related)."""

    id: str
    lang: str
    text: str


@dataclass
class Entry:
    """One deduplicated ruling with a stable id (PRODUCT.md "Ids").

    ``variants`` are ordered oldest first; ``text`` is the canonical text (original
    characters); ``mechanics`` sorted ids; ``aliases`` ids merged into this one.
    """

    id: str
    text: str
    lang: str
    variants: list[Variant]
    mechanics: list[str] = field(default_factory=list)
    related: list[Related] = field(default_factory=list)
    translations: list[Translation] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)

    @property
    def cards(self) -> list[str]:
        """Distinct card names of the variants, in first-seen order (oracle id when no name)."""
        return _distinct(v.ruling.card or v.ruling.oracle_id for v in self.variants)

    @property
    def sets(self) -> list[str]:
        """Distinct set codes of the variants, sorted."""
        return sorted({v.ruling.set_code for v in self.variants if v.ruling.set_code})

    @property
    def dates(self) -> list[str]:
        """Distinct ISO dates of the variants, oldest first."""
        return sorted({v.ruling.date for v in self.variants if v.ruling.date})

    @property
    def date(self) -> str | None:
        """Newest ISO date of any variant, or None."""
        dates = self.dates
        return dates[-1] if dates else None


def _distinct(values) -> list[str]:
    seen: dict[str, None] = {}
    for value in values:
        if value and value not in seen:
            seen[value] = None
    return list(seen)


def variant_to_dict(variant: Variant) -> dict[str, Any]:
    """The PRODUCT.md variant shape of one variant."""
    r = variant.ruling
    return {
        "text": r.text, "card": r.card, "set": r.set_code, "date": r.date,
        "date_ambiguous": r.date_ambiguous, "lang": r.lang, "oracle_id": r.oracle_id,
        "publisher": r.publisher, "similarity": round(variant.similarity, 4),
        "source": {"path": r.source.path, "format": r.source.format},
        "position": r.position,
        **({"repaired_text": r.repaired_text} if r.repaired_text else {}),
    }


def entry_to_dict(entry: Entry) -> dict[str, Any]:
    """The PRODUCT.md entry shape (without search-only ``score``/``snippet``)."""
    return {
        "id": entry.id, "text": entry.text, "lang": entry.lang,
        "mechanics": list(entry.mechanics), "cards": entry.cards, "sets": entry.sets,
        "date": entry.date, "dates": entry.dates,
        "variants": [variant_to_dict(v) for v in entry.variants],
        "related": [{"id": r.id, "reason": r.reason} for r in entry.related],       # asdict(), without its deep copy
        "translations": [{"id": t.id, "lang": t.lang, "text": t.text} for t in entry.translations],
        "aliases": list(entry.aliases),
        "repairs": list(entry.repairs),
    }
