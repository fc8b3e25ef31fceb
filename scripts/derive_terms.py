"""Derive search/data/obsolete-terms.json from the Comprehensive Rules glossary in ../shared/realdata.

Every glossary entry headed ``Name (Obsolete)`` whose definition names its current term in one of the
CR's own phrasings becomes a row: ``An obsolete term for X``, ``A term that meant "X"``, ``is an
obsolete term for "X"``, ``An older name for X``, ``... has been renamed. See rule N, "X"``. A
row works both ways at query time (search/terms.py): a query with the old term also finds rulings
that use the new one and the reverse, with less weight than the literal words. Entries in other
phrasings (mana burn, phase abilities) are listed on stderr as not derived.

    python scripts/derive_terms.py [--shared ../shared] [--out search/data/obsolete-terms.json]
    python scripts/derive_terms.py --names     # search/data/names.json from ingest/data (no ../shared)

``--names`` writes the lookup tables best match reads at every cold search, made from the committed
mechanic vocabulary and Chinese card names by search/bestmatch.py's own functions.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CR = Path("realdata/comprules-rulesraker/MagicCompRules.txt")
_QUOTED = r"[“\"]([^”\"]+?)[.,]?[”\"]"
_PATTERNS = [
    re.compile(r"is an obsolete term for " + _QUOTED),
    re.compile(r"^An obsolete term for (?:an? |the )?([^.“]+?)\."),
    re.compile(r"^A term that meant " + _QUOTED),
    re.compile(r"^An older name for (?:an? |the )?([^.]+?)\."),
    re.compile(r"renamed\. See rule [\d.]+, " + _QUOTED),
]
_TRAILING = re.compile(r"\s+(?:casual variant|card type|keyword ability)$")


def glossary(lines: list[str]) -> list[tuple[str, str]]:
    """(heading, definition) of each glossary entry: the lines after the last ``Glossary`` line, a heading
    being a line followed by its definition line."""
    start = max(i for i, line in enumerate(lines) if line.strip() == "Glossary")
    body = [line.strip() for line in lines[start + 1:]]
    return [(body[i], body[i + 1]) for i in range(len(body) - 1) if body[i] and body[i + 1]]


def current_term(definition: str) -> str | None:
    """The current term an obsolete entry's definition names, lower case, without placeholders; None."""
    for pattern in _PATTERNS:
        found = pattern.search(definition)
        if found:
            term = re.sub(r"\s*\[[^\]]*\]\s*", " ", found.group(1)).strip().lower()
            return _TRAILING.sub("", term) or None
    return None


def rows(lines: list[str]) -> tuple[list[dict], list[str]]:
    """(rows for the table, headings not derived)."""
    out, missed = [], []
    for heading, definition in glossary(lines):
        if not heading.endswith("(Obsolete)"):
            continue
        old = heading.removesuffix("(Obsolete)").split(",")[0].strip().lower()
        old = re.sub(r"\s*\[[^\]]*\]\s*", " ", old).strip()
        new = current_term(definition)
        if not old or not new or new == old:
            missed.append(heading)
            continue
        out.append({"lang": "en", "terms": old.split(), "means": [new], "both": True,
                    "source": f"CR glossary: {heading}"})
    return out, missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--out", type=Path, default=ROOT / "search" / "data" / "obsolete-terms.json")
    parser.add_argument("--names", action="store_true", help="write search/data/names.json instead")
    args = parser.parse_args(argv)
    if args.names:
        sys.path.insert(0, str(ROOT))
        from rulings.search import bestmatch
        table = {"mechanics": bestmatch.mechanic_name_table(), "cards": bestmatch.card_name_table()[0]}
        out = ROOT / "search" / "data" / "names.json"
        out.write_text(json.dumps(table, ensure_ascii=False, sort_keys=True) + "\n", "utf-8")
        print(f"{len(table['mechanics'])} mechanic names, {len(table['cards'])} card names -> {out}")
        return 0
    text = (args.shared / CR).read_bytes().decode("utf-8-sig")
    found, missed = rows(re.split(r"\r\n|\r|\n", text))
    about = ("Obsolete and renamed terms of the Comprehensive Rules glossary with the term that replaced them, "
             "derived by scripts/derive_terms.py from " + str(CR) + "; each row works both ways.")
    args.out.write_text(json.dumps({"about": about, "rows": found}, ensure_ascii=False, indent=1) + "\n", "utf-8")
    for heading in missed:
        print(f"not derived: {heading}", file=sys.stderr)
    print(f"{len(found)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
