"""Synthetic ruling corpora for the benchmarks, built deterministically from real rulings.

Datasets (written under ``bench/generated/<name>/``, which git ignores):

- ``scryfall50k``: one Scryfall-shaped bulk file (a bare JSON array of ruling
  objects, the shape of Scryfall's "rulings" bulk data) holding 50,000 rulings,
  plus ``extra/extra-set.json``, a small Scryfall rulings list used to time
  adding one file.
- ``million``: 1,000,000 rulings forming about 250,000 entries: four
  Scryfall-shaped bulk files of 150,000 rulings and forty MTGJSON v5 set files
  (``{"meta", "data": {"code", "cards": [{"name", "rulings"}]}}``) of 10,000.

Every ruling comes from a real one (the MTGJSON files of ``../shared/realdata``):
each entry is a real statement, or a real statement joined with a sentence of
another one (so that there are enough distinct statements); each entry then
gets 1..8 variants (about 4 on average for ``million``, like MTGJSON repeating a
ruling on every printing): exact repeats on other sets and dates, typography
noise (curly quotes, dashes, doubled spaces, a missing final period) and
card-name substitution (the ruling's own card replaced by another printing's
name). Sets and dates are spread over real set codes and 1993..2025. The same
seed always gives byte-identical files.

Usage: ``python bench/generate.py --dataset scryfall50k|million [--seed N] [--out DIR]``
"""

from __future__ import annotations

import argparse
import json
import random
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared"
GENERATED = HERE / "generated"
NAMESPACE = uuid.UUID("6f1c4f9e-0b7e-4c8e-9a51-5d1f3b0c2a77")

SIZES = {
    # dataset: (rulings, relative weights of 1..8 variants per entry)
    "scryfall50k": (50_000, (60, 22, 9, 4, 2, 1, 1, 1)),      # mean 1.78 variants per entry
    "million": (1_000_000, (20, 14, 13, 12, 11, 10, 10, 10)),  # mean 4.0: about 250,000 entries
}


@dataclass(frozen=True)
class Seed:
    """One real ruling: its text, the card it was printed for, its set code and date."""

    text: str
    card: str
    set_code: str
    date: str


def real_rulings(shared: Path = SHARED) -> list[Seed]:
    """The distinct real rulings of the MTGJSON v3 and v5 files in ../shared/realdata, in a stable order."""
    seeds: dict[str, Seed] = {}
    files = sorted((shared / "realdata" / "mtgjson3-sets").glob("*.json"))
    files += sorted((shared / "realdata" / "mtgjson5-TSP").glob("*.json"))
    for path in files:
        data = json.loads(path.read_text("utf-8"))
        data = data.get("data", data)
        for card in data.get("cards", []):
            for ruling in card.get("rulings") or []:
                text = " ".join(ruling["text"].split())
                if text and text not in seeds:
                    seeds[text] = Seed(text, card["name"], data["code"], ruling["date"])
    if not seeds:
        raise SystemExit(f"no real rulings found under {shared / 'realdata'}")
    return list(seeds.values())


def sentences(text: str) -> list[str]:
    """The sentences of a ruling (split after . ! ? followed by a space)."""
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s]


def noisy(text: str, rng: random.Random) -> str:
    """Typography noise that normalisation folds away: quotes, dashes, spaces, final period."""
    choice = rng.randrange(4)
    if choice == 0:
        return text.replace("'", "\u2019")
    if choice == 1:
        return text.replace(" - ", " \u2014 ").replace("-", "\u2013", 1) if "-" in text else text + " "
    if choice == 2:
        words = text.split(" ")
        at = rng.randrange(len(words))
        return " ".join(words[:at] + [""] + words[at:])
    return text[:-1] if text.endswith(".") else text + "."


def substituted(text: str, card: str, other: str) -> str:
    """The ruling with its own card's name (or short name before a comma) replaced by another card's."""
    for name in (card, card.split(",")[0]):
        if len(name) > 3 and name in text:
            return text.replace(name, other)
    return text


class Corpus:
    """Deterministic stream of (entry number, ruling dict) built from real rulings."""

    def __init__(self, seeds: list[Seed], rng: random.Random):
        self.seeds = seeds
        self.rng = rng
        self.cards = sorted({s.card for s in seeds})
        self.sets = sorted({s.set_code for s in seeds})

    def statement(self, j: int) -> Seed:
        """Entry j's statement: a real ruling, or (beyond the pool) one joined with another's sentence."""
        base = self.seeds[j % len(self.seeds)]
        round_ = j // len(self.seeds)
        if round_ == 0:
            return base
        donor = self.seeds[(j * 7919 + round_ * 104729) % len(self.seeds)]
        extra = sentences(donor.text)
        pick = extra[round_ % len(extra)]
        if round_ % 2:
            text = base.text + " " + pick
        else:
            text = pick + " " + base.text
        return Seed(text, base.card, base.set_code, base.date)

    def variants(self, j: int, count: int):
        """count variant rulings of entry j as dicts: text, card, set, date, source."""
        rng = self.rng
        statement = self.statement(j)
        for k in range(count):
            text, card = statement.text, statement.card
            roll = rng.random()
            if k and roll < 0.25:
                text = noisy(text, rng)
            elif k and roll < 0.40:
                card = self.cards[rng.randrange(len(self.cards))]
                text = substituted(text, statement.card, card)
            year = rng.randrange(1993, 2026)
            date = statement.date if k == 0 else f"{year}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
            set_code = statement.set_code if k == 0 else self.sets[rng.randrange(len(self.sets))]
            yield {"text": text, "card": card, "set": set_code, "date": date,
                   "source": "scryfall" if rng.random() < 0.05 else "wotc"}


def variant_counts(total: int, weights: tuple[int, ...], rng: random.Random) -> list[int]:
    """Variants per entry (1..len(weights), drawn with these weights) summing to exactly total."""
    sizes = list(range(1, len(weights) + 1))
    counts, left = [], total
    while left > 0:
        n = min(rng.choices(sizes, weights)[0], left)
        counts.append(n)
        left -= n
    return counts


def oracle_id(card: str) -> str:
    """A stable UUID for a card name (Scryfall rulings carry oracle ids, not names)."""
    return str(uuid.uuid5(NAMESPACE, card))


def scryfall_object(ruling: dict) -> dict:
    """A Scryfall ruling object (the bulk file's element shape)."""
    return {"object": "ruling", "oracle_id": oracle_id(ruling["card"]), "source": ruling["source"],
            "published_at": ruling["date"], "comment": ruling["text"]}


class BulkWriter:
    """Writes a bare JSON array one object at a time (a bulk file is never held whole)."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(path, "w", encoding="utf-8")
        self.handle.write("[")
        self.count = 0

    def add(self, obj: dict) -> None:
        self.handle.write(("," if self.count else "") + "\n" + json.dumps(obj, ensure_ascii=False))
        self.count += 1

    def close(self) -> None:
        self.handle.write("\n]\n")
        self.handle.close()


def mtgjson_set(code: str, cards: dict[str, list[dict]]) -> dict:
    """An MTGJSON v5 set file with meta; cards carry name, setCode, oracle id and rulings."""
    return {"meta": {"date": "2025-01-01", "version": "5.2.2+synthetic"},
            "data": {"code": code, "name": f"Synthetic {code}", "type": "expansion",
                     "cards": [{"name": name, "setCode": code,
                                "identifiers": {"scryfallOracleId": oracle_id(name)},
                                "rulings": [{"date": r["date"], "text": r["text"]} for r in rulings]}
                               for name, rulings in sorted(cards.items())]}}


def generate(dataset: str, seed: int = 20240607, out: Path = GENERATED, shared: Path = SHARED) -> Path:
    """Write one dataset under out/<dataset>; returns its folder. Deterministic from seed."""
    total, weights = SIZES[dataset]
    rng = random.Random(seed)
    corpus = Corpus(real_rulings(shared), rng)
    folder = out / dataset
    counts = variant_counts(total, weights, rng)
    if dataset == "scryfall50k":
        bulk = BulkWriter(folder / "rulings.json")
        for j, count in enumerate(counts):
            for ruling in corpus.variants(j, count):
                bulk.add(scryfall_object(ruling))
        bulk.close()
        extra = [scryfall_object(r) for j in range(len(counts), len(counts) + 150)
                 for r in corpus.variants(j, 2)]
        (folder / "extra").mkdir(parents=True, exist_ok=True)
        (folder / "extra" / "extra-set.json").write_text(
            json.dumps({"object": "list", "has_more": False, "data": extra}, ensure_ascii=False, indent=1),
            "utf-8")
        return folder
    bulks = [BulkWriter(folder / f"scryfall-bulk-{i + 1}.json") for i in range(4)]
    sets: list[dict[str, list[dict]]] = [{} for _ in range(40)]
    slots = [("bulk", i) for i in range(4) for _ in range(15)] + [("set", i) for i in range(40)]
    for j, count in enumerate(counts):
        for ruling in corpus.variants(j, count):
            kind, i = slots[rng.randrange(len(slots))]
            if kind == "bulk" and bulks[i].count < 150_000:
                bulks[i].add(scryfall_object(ruling))
                continue
            target = min(range(40), key=lambda s: sum(map(len, sets[s].values()))) \
                if kind == "bulk" or sum(map(len, sets[i].values())) >= 10_000 else i
            sets[target].setdefault(ruling["card"], []).append(ruling)
    for bulk in bulks:
        bulk.close()
    (folder / "mtgjson").mkdir(parents=True, exist_ok=True)
    for i, cards in enumerate(sets):
        code = f"S{i:02d}"
        (folder / "mtgjson" / f"{code}.json").write_text(
            json.dumps(mtgjson_set(code, cards), ensure_ascii=False), "utf-8")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", choices=sorted(SIZES), required=True)
    parser.add_argument("--seed", type=int, default=20240607)
    parser.add_argument("--out", type=Path, default=GENERATED)
    args = parser.parse_args()
    folder = generate(args.dataset, args.seed, args.out)
    print(folder)


if __name__ == "__main__":
    main()
