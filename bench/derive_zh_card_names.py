"""Derive ingest/data/zh_card_names.json: Simplified Chinese card name -> English card name, per set.

Source: MTGJSON v3 set files (``cards[].foreignNames`` with language "Chinese Simplified"),
e.g. ../shared/realdata/mtgjson3-sets/*.json. Card names are facts; the files themselves are
not copied. A split or double-faced card maps each face's Chinese name to ``Face A // Face B``
when the English card lists ``names``.

Usage: python bench/derive_zh_card_names.py ../shared/realdata/mtgjson3-sets > ingest/data/zh_card_names.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def names_of_set(data: dict) -> dict[str, str]:
    """Chinese Simplified name -> English full card name for one MTGJSON v3 set."""
    table = {}
    for card in data.get("cards", []):
        english = " // ".join(card["names"]) if len(card.get("names") or []) > 1 else card["name"]
        for foreign in card.get("foreignNames", []):
            if foreign.get("language") == "Chinese Simplified" and foreign.get("name"):
                table.setdefault(foreign["name"].strip(), english)
    return dict(sorted(table.items()))


def main(folder: str) -> None:
    sets = {}
    for path in sorted(Path(folder).glob("*.json")):
        if path.name.count(".") > 1:            # SOI.jp.json, SOI.de.json: translated text, no names
            continue
        data = json.loads(path.read_text("utf-8"))
        names = names_of_set(data)
        if names:
            sets[data["code"]] = names
    json.dump(sets, sys.stdout, ensure_ascii=False, indent=0, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
