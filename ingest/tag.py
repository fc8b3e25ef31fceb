"""Tag stage: the mechanics each entry is about.

Keyword abilities are CR 702 and keyword actions CR 701
(``realdata/comprules-rulesraker/MagicCompRules.txt``); the named non-keyword
mechanics are listed in PRODUCT.md, "Mechanics". The vocabulary lives in
``ingest/data/mechanics.json``: id, printed name, kind, forms (whole-word
patterns on unstemmed text), symbols and Chinese names.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ingest.model import Entry

CARD_MASK = "\x00card\x00"


@dataclass(frozen=True)
class Mechanic:
    """One vocabulary entry: id (``plus-one-counters``), printed name, kind, and its match patterns."""

    id: str
    name: str
    kind: str
    forms: tuple[str, ...]
    zh: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def vocabulary() -> tuple[Mechanic, ...]:
    """The mechanics of ``ingest/data/mechanics.json``, in file order."""
    raw = json.loads(resources.files("ingest").joinpath("data/mechanics.json").read_text("utf-8"))
    return tuple(Mechanic(m["id"], m["name"], m["kind"], tuple(m["forms"]), tuple(m.get("zh", ())))
                 for m in raw)


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[str, re.Pattern, re.Pattern | None], ...]:
    compiled = []
    for mechanic in vocabulary():
        alternatives = [f for f in mechanic.forms]
        body = "|".join(alternatives)
        pattern = re.compile(rf"(?<![\w-])(?:{body})(?![\w-])", re.IGNORECASE)
        zh = re.compile("|".join(re.escape(z) for z in mechanic.zh)) if mechanic.zh else None
        compiled.append((mechanic.id, pattern, zh))
    return tuple(compiled)


def mask_cards(text: str, cards: list[str]) -> str:
    """Replace each card name (full, each face, short name before a comma) with a placeholder."""
    names = set()
    for card in cards:
        if not card:
            continue
        for face in [card] + card.split(" // "):
            names.add(face.strip())
            if "," in face:
                names.add(face.split(",")[0].strip())
    for name in sorted(names, key=len, reverse=True):
        if name:
            text = re.sub(re.escape(name), CARD_MASK, text, flags=re.IGNORECASE)
    return text


def mechanics_in(text: str, cards: list[str] = ()) -> tuple[str, ...]:
    """Sorted mechanic ids a ruling text is about, with its card names masked first."""
    masked = mask_cards(text, list(cards))
    found = set()
    for mechanic_id, pattern, zh in _patterns():
        if pattern.search(masked) or (zh is not None and zh.search(masked)):
            found.add(mechanic_id)
    return tuple(sorted(found))


def tag(entries: list[Entry]) -> None:
    """Set ``mechanics`` on each entry: the union of its variants' tags (in place)."""
    for entry in entries:
        found = set()
        for variant in entry.variants:
            r = variant.ruling
            found.update(mechanics_in(r.text, [r.card] if r.card else []))
        entry.mechanics = sorted(found)
