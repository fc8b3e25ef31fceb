"""Card lookup past an exact name or face (search/query.py card_matches()): the cards a name's leading
words begin (``Jace`` finds every Jace card), and the card names spelled most like a name.

Both read every card name of the index once (index.all_entries()); they serve ``rulings card`` when the
exact lookup found nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from rulings.ingest.errors import QueryError
from rulings.search import index, query
from rulings.search.analysis import card_key


def card_words(name: str) -> tuple[str, ...]:
    """The words of a card or face name as card_key() folds them: ``Jace, Vryn's Prodigy`` ->
    ``("jace", "vryns", "prodigy")``; punctuation between words (commas, ``//``) separates, inside a
    word (``Lim-Dûl``, ``Vryn's``) it is dropped. () for a name without letters or digits."""
    return tuple(key for key in (card_key(part) for part in re.split(r"[\s,/]+", name)) if key)


def _card_names(index_dir: Path) -> dict[str, str]:
    """card_key() of every card name in the index -> the name as first written there."""
    names: dict[str, str] = {}
    for entry in index.all_entries(index_dir):
        for card in entry["cards"]:
            names.setdefault(card_key(card), card)
    return names


def cards_starting_with(index_dir: Path, name: str) -> list[query.CardMatch]:
    """The cards whose full name or one of whose faces begins with the words of name, each with its
    entries as card_matches() gives them for its full name, sorted by card name.

    ``Jace`` finds ``Jace, Cunning Castaway`` and ``Jace, Unraveler of Secrets`` but not
    ``Jace's Sentinel`` (its first word is ``Jace's``); ``Insectile`` finds
    ``Delver of Secrets // Insectile Aberration``. [] when name has no words or no card begins so.
    """
    wanted = card_words(name)
    if not wanted:
        return []
    found = []
    for written in _card_names(index_dir).values():
        names = [written, *written.split("//")]
        if any(card_words(part)[:len(wanted)] == wanted for part in names):
            found.append(written)
    matches = []
    for written in sorted(found, key=str.casefold):
        matches += [m for m in query.card_matches(index_dir, written) if m.exact]
    return matches


def close_cards(index_dir: Path, name: str, limit: int = 3) -> list[str]:
    """Up to limit card names spelled most like name, closest first: compared (rapidfuzz ratio, at least
    60 of 100) with each card's full name, each face and each face's first word, so a mistyped
    ``Jaec`` finds the Jace cards rather than a card whose whole name is spelled alike."""
    from rapidfuzz import fuzz

    key = card_key(name)
    if not key:
        return []
    scored = []
    for full, written in _card_names(index_dir).items():
        candidates = {full}
        for face in written.split("//"):
            words = card_words(face)
            candidates |= {card_key(face), words[0] if words else ""}
        score = max(fuzz.ratio(key, candidate) for candidate in candidates if candidate)
        if score >= 60:
            scored.append((-score, written.casefold(), written))
    return [written for _, _, written in sorted(scored)[:limit]]


def card_selector(index_dir: Path, name: str) -> str:
    """The card name a ``--card`` selector means: name itself when a card has that name or face (or no card
    begins with it: the selection is then empty), else the one card that begins with name's words.

    Raises QueryError listing the cards when several begin with them (``--card Jace``).
    """
    if query.card_matches(index_dir, name):
        return name
    begun = cards_starting_with(index_dir, name)
    if len(begun) > 1:
        raise QueryError(f"no card is named {name!r}; {len(begun)} cards begin with it: "
                         f"{'; '.join(m.card for m in begun)} (give one)")
    return begun[0].card if begun else name
