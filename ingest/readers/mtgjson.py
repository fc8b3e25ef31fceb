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
``identifiers.scryfallOracleId`` as oracle_id, and the ruling date.

AllPrintings (``data`` keyed by set code) and AtomicCards (``data`` keyed by card
name) are streamed with ijson one set / one card at a time, so a file of hundreds
of MB is never one object in memory; so is a v3 AllSets file (sets keyed by code
at the top). Other shapes (a set file, a deck, a card; a few MB) and files not in
UTF-8 are loaded whole with json.

A ruling whose ``text`` is null, missing, empty or not a string is read as a Ruling
with empty text, which normalisation rejects as ``empty text`` (counted); a
``date`` that is not a real date leaves it undated with the warning
``dates.INVALID_DATE``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import ijson

from rulings.ingest.dates import source_date
from rulings.ingest.errors import NoRulings, ReadError
from rulings.ingest.model import Ruling, Source
from rulings.ingest.readers import jsontext

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
    """The rulings and the oracle_id -> card name map (from ``identifiers.scryfallOracleId``).

    Raises ReadError for damaged or truncated JSON and for JSON without MTGJSON
    cards, NoRulings (with the name map) when no card carries a ruling.
    """
    streamed = _streamed_cards(path)
    if streamed is not None:
        meta: dict = {}
        card_stream = streamed
    else:
        data = jsontext.load(path)
        if not isinstance(data, dict):
            raise ReadError(str(path), "JSON is not an MTGJSON object")
        inner = data.get("data") if isinstance(data.get("data"), dict) else {}
        meta = {"language": data.get("language") or inner.get("language")}
        card_stream = cards(data)
    source = Source(str(path), FORMAT)
    rulings: list[Ruling] = []
    names: dict[str, str] = {}
    found_cards = False
    for card, set_code in card_stream:
        found_cards = True
        name = card_name(card)
        identifiers = card.get("identifiers") or {}
        oracle_id = identifiers.get("scryfallOracleId") or identifiers.get("scryfall_oracle_id")
        if oracle_id and name:
            names.setdefault(oracle_id, name)
        items = card.get("rulings") or []
        for item in items if isinstance(items, list) else []:
            rulings.append(card_ruling(item, card, name, set_code, oracle_id, source, len(rulings)))
    if not found_cards:
        raise ReadError(str(path), "JSON object holds no MTGJSON cards")
    if not rulings:
        language = meta.get("language")
        reason = f"MTGJSON {language} language file: card text, no rulings" if language \
            else "MTGJSON cards without rulings"
        raise NoRulings(str(path), reason, names)
    return rulings, names


def card_ruling(item, card: dict, name: str | None, set_code: str | None, oracle_id: str | None,
                source: Source, position: int) -> Ruling:
    """One ``{date, text}`` ruling of a card; text "" when it is not a non-empty string."""
    item = item if isinstance(item, dict) else {}
    text = item.get("text")
    parsed, warnings = source_date(item.get("date"))
    return Ruling(
        text=text if isinstance(text, str) and text.strip() else "", source=source, position=position,
        lang="en", date=parsed.iso if parsed else None, card=name,
        set_code=(set_code or card.get("setCode") or card.get("set_code") or "").upper() or None,
        oracle_id=oracle_id, publisher="wotc", warnings=warnings, card_text=card_text(card),
    )


def card_text(card: dict) -> str | None:
    """The card's type line and rules text, ``"Artifact Land Darksteel Citadel is indestructible. ..."``
    (MTGJSON card ``type`` and ``text``, both strings in v3 and v5; a face of a multi-face card has its
    own); None when the card has neither."""
    parts = [card.get(key) for key in ("type", "text")]
    text = " ".join(part.strip() for part in parts if isinstance(part, str) and part.strip())
    return text or None


def _streamed_cards(path: Path) -> Iterator[tuple[dict, str | None]] | None:
    """The cards of a keyed file (AllPrintings, AtomicCards, v3 AllSets) streamed with ijson,
    or None when the file has another shape or is not UTF-8 (then it is loaded whole).

    Raises ReadError when the file is damaged or cut inside its first keyed value; later
    damage raises ReadError while the returned iterator is consumed."""
    if not jsontext.streams(path):
        return None
    prefix = _keyed_prefix(path)
    if prefix is None:
        return None
    items = _kvitems(path, prefix)
    first = next(items, None)    # ReadError when the first value is already damaged or cut
    if first is None or _kind(first[1]) is None:
        items.close()
        return None
    return _keyed_cards(first, items)


def _keyed_prefix(path: Path) -> str | None:
    """``"data"`` when the top-level object's first key is ``meta`` or ``data``; ``""`` when its
    first value is an object (a set keyed by code, v3 AllSets); None otherwise or on damage."""
    with jsontext.open_stream(path) as handle:
        try:
            # basic events, not ijson.parse: its path strings cost the square of the depth of a
            # deeply nested file within the first buffer
            events = ijson.basic_parse(handle)
            if next(events)[0] != "start_map":
                return None
            event, value = next(events)
            if event != "map_key":
                return None
            if value in ("meta", "data"):
                return "data"
            return "" if next(events)[0] == "start_map" else None
        except (ijson.JSONError, UnicodeDecodeError, StopIteration):
            return None
    return None


def _kvitems(path: Path, prefix: str) -> Iterator[tuple[str, object]]:
    """(key, value) pairs of the object at prefix, parsed one value at a time; ReadError on damage
    and on nesting deeper than jsontext.MAX_DEPTH."""
    jsontext.check_depth(path)
    with jsontext.open_stream(path) as handle:
        try:
            yield from ijson.kvitems(handle, prefix, use_float=True)
        except ijson.JSONError as err:
            raise jsontext.stream_error(path, err) from None
        except UnicodeDecodeError:
            raise ReadError(str(path), "JSON is not valid UTF-8") from None


def _kind(value) -> str | None:
    """``"set"`` for a set object (has a ``cards`` list), ``"atomic"`` for a list of card faces, else None."""
    if isinstance(value, dict) and isinstance(value.get("cards"), list):
        return "set"
    if isinstance(value, list) and value and all(isinstance(v, dict) and "name" in v for v in value):
        return "atomic"
    return None


def _keyed_cards(first: tuple[str, object], rest: Iterator[tuple[str, object]]
                 ) -> Iterator[tuple[dict, str | None]]:
    """Cards of each keyed value in turn: a set (its code, else its key) or an AtomicCards face list."""
    key, value = first
    while True:
        if _kind(value) == "set":
            yield from cards(value, key if isinstance(key, str) else None)
        elif isinstance(value, list):
            for card in value:
                if isinstance(card, dict):
                    yield card, None
        try:
            key, value = next(rest)
        except StopIteration:
            return


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
        for value in data.values():
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
