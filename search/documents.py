"""The Whoosh document of an entry: which of its texts, names and tags go to which field of
search/index.py's schema, and its "did you mean" words.

Pure functions of an entry's JSON shape (PRODUCT.md); the index writers (search/engine/writing.py)
and the benchmark's FTS5 side (bench/run.py, search_texts) call them.
"""

from __future__ import annotations

import json

from rulings.search.analysis import card_key, unstemmed_words
from rulings.search.languages import field_for


def card_keys(cards: list[str]) -> list[str]:
    """Lookup keys of an entry's cards: each full name and each face of ``A // B``."""
    keys = set()
    for card in cards:
        keys.add(card_key(card))
        for face in card.split("//"):
            keys.add(card_key(face))
    return sorted(k for k in keys if k)


def search_texts(entry_json: dict) -> tuple[str, list[str]]:
    """(main text, other distinct variant texts) to index; repaired texts replace the originals."""
    searchable = {v["text"]: v.get("repaired_text") or v["text"] for v in entry_json["variants"]}
    main = searchable.get(entry_json["text"], entry_json["text"])
    others = sorted(set(searchable.values()) - {main})
    return main, others


# An entry's card texts: those of its first cards only (a ruling printed on dozens of cards, a reminder
# of a keyword, would otherwise gather every card that has the keyword).
CARD_TEXT_CARDS = 8


def card_text(variants) -> str:
    """The rules texts of an entry's cards, one line per card, for the ``card_text`` field:
    variants, an Entry's (ingest/model.py Variant, oldest first); each distinct card's first
    ``Ruling.card_text`` (the source's type line and rules text), for at most CARD_TEXT_CARDS cards.
    "" when no variant's source printed its card's text (every source but MTGJSON)."""
    texts: dict[str, str] = {}
    for variant in variants:
        ruling = variant.ruling
        if ruling.card_text and ruling.card not in texts and len(texts) < CARD_TEXT_CARDS:
            texts[ruling.card] = ruling.card_text
    return "\n".join(texts.values())


def document(entry_json: dict, stored: str | None = None, card_text: str = "") -> dict:
    """The Whoosh document of one entry in its JSON shape (stored: its JSON text, when already made;
    card_text: its cards' rules texts, card_text(), which the JSON shape does not hold; indexed for
    an English entry only: in Chinese they lowered the known-item benchmark's dev half, docs/search-quality.md).

    The canonical text goes to the text field of the entry's language
    (search/languages.py field_for); other variant texts go to ``variants`` for
    English and, after the canonical text, to the language's own field otherwise.
    """
    main, others = search_texts(entry_json)
    field = field_for(entry_json["lang"])
    texts = {field: main, "variants": "\n".join(others)} if field == "text" else \
        {field: "\n".join([main, *others])}
    return {
        "id": entry_json["id"],
        **texts,
        "cards": "\n".join(entry_json["cards"]),
        "card_text": card_text if field == "text" else "",
        "card_keys": ",".join(card_keys(entry_json["cards"])),
        "card_names": ",".join(sorted({card_key(c) for c in entry_json["cards"]} - {""})),
        "mechanics": ",".join(entry_json["mechanics"]),
        "sets": ",".join(s.lower() for s in entry_json["sets"]),
        "lang": entry_json["lang"].lower(),
        "date": entry_json["date"] or "",
        "dates": ",".join(entry_json["dates"]),
        "entry": stored if stored is not None else json.dumps(entry_json, ensure_ascii=False),
    }


def spelling_words(entry_json: dict) -> set[str]:
    """The entry's words for "did you mean": folded, unstemmed words of its searched texts that start
    with a letter (search/analysis.py terms(), hyphenated words as their parts)."""
    main, others = search_texts(entry_json)
    return set().union(*(unstemmed_words(text) for text in [main, *others]))

