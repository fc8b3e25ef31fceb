"""MTGJSON files (https://mtgjson.com/data-models/): every card's ``rulings: [{date, text}]``.

Shapes read (PRODUCT.md "Inputs"):

- v3 set file ``{"code", "cards": [card]}`` (mtgjson3 ``json/<CODE>.json``); its language
  files (``SOI.jp.json``, with ``"language"``) hold no rulings and are skipped;
- v4/v5 set file, with or without the ``{"meta", "data"}`` wrapper;
- AllPrintings / AllSets (``data`` keyed by set code, each a set);
- AtomicCards (``data`` keyed by card name, each a list of card faces);
- a deck (``commander`` / ``mainBoard`` / ``sideBoard`` card lists);
- a single card object.

Each ruling keeps the card name (the full ``Face A // Face B`` name), the set code
(the set's ``code``, else the card's ``setCode``), the card's
``identifiers.scryfallOracleId`` as oracle_id, and the ruling date. Files are
loaded whole with json (set files are a few MB).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ingest.dates import parse_date
from ingest.errors import NoRulings, ReadError
from ingest.model import Ruling, Source
from ingest.readers import jsontext

FORMAT = "mtgjson"

_KEYS = re.compile(r'"(cards|rulings|mainBoard|sideBoard|commander|uuid|foreignNames|foreignData|'
                   r'setCode|manaCost|convertedManaCost|identifiers)"\s*:')
_DECK_BOARDS = ("commander", "displayCommander", "mainBoard", "sideBoard", "planes", "schemes", "tokens")
# v3 layouts whose ``names`` are faces of one card. Not "flip": v3 BBD labels the
# partner pairs (Okaun and Zndrsplt, two separate cards) as "flip".
_MULTI_FACE = {"split", "double-faced", "aftermath", "transform", "modal_dfc", "adventure"}


def looks_like(head: bytes, suffix: str) -> bool:
    """True for a JSON object whose first keys include MTGJSON card or set fields."""
    return jsontext.looks_like_json(head) == "{" and _KEYS.search(jsontext.head_text(head)) is not None


def read(path: Path) -> Iterator[Ruling]:
    """Yield every ruling of every card of an MTGJSON file.

    Raises NoRulings for files whose cards carry no rulings (language files),
    ReadError for damaged JSON or a JSON that is not an MTGJSON shape.
    """
    rulings, _ = read_with_names(path)
    return iter(rulings)


def read_with_names(path: Path) -> tuple[list[Ruling], dict[str, str]]:
    """The rulings and the oracle_id -> card name map (from ``identifiers.scryfallOracleId``)."""
    data = jsontext.load(path)
    if not isinstance(data, dict):
        raise ReadError(str(path), "JSON is not an MTGJSON object")
    source = Source(str(path), FORMAT)
    rulings: list[Ruling] = []
    names: dict[str, str] = {}
    found_cards = False
    for card, set_code in cards(data):
        found_cards = True
        name = card_name(card)
        identifiers = card.get("identifiers") or {}
        oracle_id = identifiers.get("scryfallOracleId") or identifiers.get("scryfall_oracle_id")
        if oracle_id and name:
            names.setdefault(oracle_id, name)
        for item in card.get("rulings") or []:
            if not isinstance(item, dict) or not item.get("text"):
                continue
            parsed = parse_date(str(item.get("date") or ""))
            rulings.append(Ruling(
                text=str(item["text"]), source=source, position=len(rulings), lang="en",
                date=parsed.iso if parsed else None, card=name,
                set_code=(set_code or card.get("setCode") or card.get("set_code") or "").upper() or None,
                oracle_id=oracle_id, publisher="wotc",
            ))
    if not found_cards:
        raise ReadError(str(path), "JSON object holds no MTGJSON cards")
    if not rulings:
        inner = data.get("data") if isinstance(data.get("data"), dict) else {}
        language = data.get("language") or inner.get("language")
        reason = f"MTGJSON {language} language file: card text, no rulings" if language \
            else "MTGJSON cards without rulings"
        raise NoRulings(str(path), reason, names)
    return rulings, names


def cards(data, set_code: str | None = None) -> Iterator[tuple[dict, str | None]]:
    """Yield (card object, set code or None) for every card in any MTGJSON shape."""
    if isinstance(data, list):
        for item in data:
            if isinstance(item, dict):
                yield from cards(item, set_code)
        return
    if not isinstance(data, dict):
        return
    if "data" in data and "meta" in data:
        yield from cards(data["data"], set_code)
    elif isinstance(data.get("cards"), list):
        code = data.get("code") if isinstance(data.get("code"), str) else set_code
        for card in data["cards"]:
            if isinstance(card, dict):
                yield card, code
    elif any(isinstance(data.get(board), list) for board in _DECK_BOARDS):
        for board in _DECK_BOARDS:
            for card in data.get(board) or []:
                if isinstance(card, dict):
                    yield card, None
    elif isinstance(data.get("name"), str) and any(k in data for k in ("rulings", "uuid", "layout", "type")):
        yield data, None
    else:
        for key, value in data.items():
            if isinstance(value, (dict, list)):
                yield from cards(value, set_code)


def card_name(card: dict) -> str | None:
    """The full card name: v5 ``name`` already is ``A // B``; v3 multi-face cards join ``names``."""
    name = card.get("name")
    names = card.get("names")
    if isinstance(names, list) and len(names) > 1 and card.get("layout") in _MULTI_FACE \
            and " // " not in (name or ""):
        return " // ".join(str(n) for n in names)
    return name
