"""Derive ingest/data/zh_types.json: the Chinese subtypes (creature, planeswalker, artifact, enchantment,
land types; CR 205.3) that the Chinese release notes of ../shared/realdata print on their cards' type lines.

A type line of the release notes (Word documents, one paragraph) is the supertypes and card types, then
``～`` and the subtypes joined by ``／``: 传奇生物～人类／法术师. Every subtype is kept, most printed first,
also one of one character (猫 "Cat", 龙 "Dragon"): a card's own name is ``~`` in the comparison form, and
another card's name swapped for it is told apart before guard words are looked for. The verifier treats
them as a guard class of Chinese rulings (ingest/compare.py guard_words: 天使 against 吸血鬼 is another
creature, not a rewording).

    python scripts/derive_zh_types.py [--shared ../shared] [--out ingest/data/zh_types.json]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

import docx

ROOT = Path(__file__).resolve().parent.parent
NOTES = Path("realdata/zh-cn-release-notes-athenacykes/release_notes")
_CARD_TYPES = "(?:神器|结界|生物|地|鹏洛客|瞬间|法术|部族|战役|时空|异象|魔王|阴谋)"
_TYPE_LINE = re.compile(f"^(?:传奇|基本|雪境|世界|持续)*({_CARD_TYPES}+)～(.+)$")
MIN_CHARS = 1


def subtypes(paragraphs: list[str]) -> tuple[Counter, set[str]]:
    """({subtype: type lines printing it}, the planeswalker subtypes among them) of the type-line
    paragraphs among ``paragraphs``. A planeswalker's subtype is its character's name (CR 205.3j:
    Jace, 杰斯), which a ruling also calls the card by."""
    found, planeswalkers = Counter(), set()
    for text in paragraphs:
        line = _TYPE_LINE.match(text.strip())
        if line:
            for name in re.split(r"[／/]", line.group(2)):
                name = name.strip()
                if len(name) >= MIN_CHARS and re.fullmatch(r"[\u4e00-\u9fff]+", name):
                    found[name] += 1
                    if "鹏洛客" in line.group(1):
                        planeswalkers.add(name)
    return found, planeswalkers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--out", type=Path, default=ROOT / "ingest" / "data" / "zh_types.json")
    args = parser.parse_args(argv)
    documents = sorted((args.shared / NOTES).glob("*.docx"))
    if not documents:
        parser.error(f"{args.shared / NOTES}: no Chinese release notes (.docx) there; {args.out} left as it is")
    found, planeswalkers = Counter(), set()
    for path in documents:
        counts, names = subtypes([p.text for p in docx.Document(str(path)).paragraphs])
        found += counts
        planeswalkers |= names
    rows = sorted(found.items(), key=lambda row: (-row[1], row[0]))
    table = {"types": [name for name, _ in rows], "planeswalker_types": sorted(planeswalkers)}
    args.out.write_text(json.dumps(table, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(rows)} Chinese subtypes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
