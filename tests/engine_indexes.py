"""Small Whoosh indexes built in code for the engine-equivalence tests (tests/test_engine_*.py), so the
proofs that search/engine gives Whoosh's own results run on every clone in seconds; conftest.py builds
them once per session. The real-data versions of the same tests use conftest's real_index."""

from __future__ import annotations

import json
import random
from pathlib import Path

from rulings.search import index

# Rules words and phrases the made-up entries are written from: common words give posting lists of many
# blocks (W3's 128 postings each), phrases give positions to check, and every shape of SHAPES matches.
WORDS = ("the a creature spell target player card ability damage counter token mana land turn control "
         "owner graveyard exile library hand battlefield trample flying untap copy cast sacrifice combat "
         "strike explore abilities creatures spells counters tokens").split()
PHRASES = ("the battlefield", "deals damage", "target creature", "end of turn", "first strike", "double strike",
           "the top of your library", "can't be countered", "it's still a", "enters the battlefield tapped",
           "+1/+1 counter", "lim-dûl's vault")
CARDS = ("Strike Bolt", "Wave", "Giant Ox", "Sea Serpent of the Deep", "Lim-Dûl's Vault", "Ajani Goldmane",
         "Jace, the Mind Sculptor")
SETS = ("RIX", "XLN", "ONE", "WAR")
MECHANICS = ("explore", "trample", "flying", "proliferate")
CHINESE = ("指示物", "生物", "战场", "进入战场", "横置", "咒语", "目标", "伤害", "牌库", "坟墓场")


def made_up_entry(number: int, rng: random.Random) -> dict:
    """One entry's JSON shape (PRODUCT.md) of random rules words and phrases; one in six is Chinese."""
    chinese = rng.random() < 1 / 6
    if chinese:
        main = "".join(rng.choice(CHINESE) for _ in range(rng.randint(3, 12))) + "。"
        others: list[str] = []
    else:
        main = _sentence(rng)
        others = [_sentence(rng) for _ in range(rng.randint(0, 2))]
    year = rng.choice(("2016", "2017", "2018", "2019", "2020"))
    date = f"{year}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"
    return {"id": f"r-{number:010x}", "text": main, "lang": "zh-Hans" if chinese else "en",
            "mechanics": sorted({rng.choice(MECHANICS) for _ in range(rng.randint(0, 2))}),
            "cards": sorted({rng.choice(CARDS) for _ in range(rng.randint(1, 2))}),
            "sets": [rng.choice(SETS)], "date": date, "dates": [date],
            "variants": [{"text": t} for t in [main, *others]], "related": [], "translations": [], "aliases": [],
            "repairs": []}


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(3, 30))]
    for _ in range(rng.randint(0, 2)):
        words.insert(rng.randrange(len(words) + 1), rng.choice(PHRASES))
    return " ".join(words).capitalize() + "."


def rows(shapes: list[dict]) -> list[tuple[dict, str, bool]]:
    """write_documents()'s rows of new entries."""
    return [(shape, json.dumps(shape, ensure_ascii=False), False) for shape in shapes]


def build_small(folder: Path, entries: int = 2000, seed: int = 7) -> list[dict]:
    """A full build of made-up entries in folder (a generation folder); returns their shapes."""
    rng = random.Random(seed)
    shapes = [made_up_entry(number, rng) for number in range(entries)]
    list(index.schema()["text_zh"].analyzer(CHINESE[0]))    # the segmenter loaded once, before the workers fork
    index.write_documents(folder, iter(rows(shapes)), create=True)
    return shapes


def build_updated(folder: Path, seed: int = 8) -> tuple[list[dict], set[str]]:
    """A small index written by three updates (one process; two segments, as merge_tiers keeps them; the larger
    one holds the deletions)
    with a sixth of its entries deleted; returns (the live shapes, the deleted ids)."""
    rng = random.Random(seed)
    shapes = [made_up_entry(number, rng) for number in range(1800)]
    index.write_documents(folder, [], create=True)
    index.write_documents(folder, iter(rows(shapes[:1600])))
    index.write_documents(folder, iter(rows(shapes[1600:1750])))
    gone = {shape["id"] for shape in shapes[:1750:6]}
    index.write_documents(folder, iter(rows(shapes[1750:])), deleted=sorted(gone))
    return [shape for shape in shapes if shape["id"] not in gone], gone
