"""Scryfall rulings (https://scryfall.com/docs/api/rulings), in three shapes:

1. a rulings list ``{"object": "list", "data": [ruling, ...]}`` (the ``/cards/{id}/rulings`` response);
2. a bare array of ruling objects (the ``rulings`` bulk file, streamed with ijson so a
   large file is never loaded as one object);
3. a single ruling object ``{"object": "ruling", "oracle_id", "source", "published_at", "comment"}``.

A ruling object whose ``comment`` is null, missing, empty or not a string is read
as a Ruling with empty text, which normalisation rejects as ``empty text`` (counted
in ``rejected_rulings``), so one such record neither drops nor rejects its file.
A ``published_at`` that is not a real date (``2019-13-45``) leaves the ruling
undated with the warning ``dates.INVALID_DATE``. An item that is not a ruling
object at all (a card, a number) rejects the file.

A Scryfall card list (``{"object": "list", "data": [card, ...]}``) holds no rulings:
it is skipped (NoRulings), but its oracle_id -> card name map is kept so that the
pipeline can name the cards of rulings that carry only an oracle_id.
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

FORMAT = "scryfall"

_OBJECT = re.compile(r'"object"\s*:\s*"(ruling|list|card)"')
_PUBLISHERS = {"wotc": "wotc", "scryfall": "scryfall"}


def looks_like(head: bytes, suffix: str) -> bool:
    """True for JSON whose first object is a Scryfall ``ruling``, ``list`` or ``card`` object."""
    if not jsontext.looks_like_json(head):
        return False
    m = _OBJECT.search(jsontext.head_text(head)[:4096])
    return m is not None


def read(path: Path) -> Iterator[Ruling]:
    """Yield the rulings of a Scryfall rulings file (any of the three shapes).

    Raises NoRulings for a card list (carrying its card names) or an empty list,
    ReadError for damaged JSON or a JSON shape that is not Scryfall's.
    """
    rulings, _ = read_with_names(path)
    return iter(rulings)


def read_with_names(path: Path) -> tuple[list[Ruling], dict[str, str]]:
    """The rulings of the file and its oracle_id -> card name map (empty for ruling files)."""
    with open(path, "rb") as handle:
        head = handle.read(4096)
    if jsontext.looks_like_json(head) == "[" and jsontext.streams(path):
        rulings = list(_stream_array(path))
    else:
        rulings = list(_from_json(path, jsontext.load(path)))
    if not rulings:
        raise NoRulings(str(path), "Scryfall rulings list with no rulings")
    return rulings, {}


def _stream_array(path: Path) -> Iterator[Ruling]:
    jsontext.check_depth(path)
    source = Source(str(path), FORMAT)
    with jsontext.open_stream(path) as handle:
        try:
            for position, item in enumerate(ijson.items(handle, "item")):
                yield _ruling(item, source, position, path)
        except ijson.JSONError as err:
            raise jsontext.stream_error(path, err) from None
        except UnicodeDecodeError:
            raise ReadError(str(path), "JSON array is not valid UTF-8") from None


def _from_json(path: Path, data) -> Iterator[Ruling]:
    source = Source(str(path), FORMAT)
    if isinstance(data, dict) and data.get("object") == "ruling":
        items = [data]
    elif isinstance(data, dict) and data.get("object") == "list":
        items = data.get("data") or []
        cards = [item for item in items if isinstance(item, dict) and item.get("object") == "card"]
        if cards:
            raise NoRulings(str(path), "Scryfall card list (card text, no rulings)", card_names(cards))
    elif isinstance(data, dict) and data.get("object") == "card":
        raise NoRulings(str(path), "Scryfall card object (card text, no rulings)", card_names([data]))
    elif isinstance(data, list):
        items = data
    else:
        raise ReadError(str(path), "JSON is not a Scryfall ruling, rulings list or card list")
    for position, item in enumerate(items):
        yield _ruling(item, source, position, path)


_RULING_KEYS = ("comment", "oracle_id", "published_at")


def _ruling(item, source: Source, position: int, path: Path) -> Ruling:
    """One ruling object as a Ruling; its text is "" when ``comment`` is not a non-empty string."""
    if not isinstance(item, dict) or item.get("object", "ruling") != "ruling" \
            or not any(key in item for key in _RULING_KEYS):
        raise ReadError(str(path), f"item {position} is not a Scryfall ruling object")
    comment = item.get("comment")
    parsed, warnings = source_date(item.get("published_at"))
    oracle_id = item.get("oracle_id")
    return Ruling(
        text=comment if isinstance(comment, str) and comment.strip() else "", source=source, position=position,
        lang="en", date=parsed.iso if parsed else None,
        oracle_id=oracle_id if isinstance(oracle_id, str) and oracle_id else None,
        publisher=_PUBLISHERS.get(str(item.get("source", "")).lower()), warnings=warnings,
    )


def card_names(cards: list[dict]) -> dict[str, str]:
    """oracle_id -> card name (``Face A // Face B`` for multi-face cards) of Scryfall card objects."""
    names: dict[str, str] = {}
    for card in cards:
        name = card.get("name")
        faces = name.split(" // ") if isinstance(name, str) else []
        if len(faces) > 1 and len(set(faces)) == 1:
            name = faces[0]             # an art-series or reversible printing: "A // A"
        if card.get("oracle_id") and name:
            names.setdefault(card["oracle_id"], name)
        for face in card.get("card_faces") or []:
            if isinstance(face, dict) and face.get("oracle_id") and name:
                names.setdefault(face["oracle_id"], name)
    return names
