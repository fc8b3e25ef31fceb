"""Fuzz and time the query language on an index (not collected by pytest).

Runs N queries drawn from the index's own data (single words, 2-4 word phrases
from entry texts, field filters card:/set:/mechanic:/lang:/date: alone and with
words, OR / NOT / -word) and M random strings (printable ASCII with query
syntax characters, and any Unicode), then reports every exception that is not a
QueryError, the QueryError count, and latency (median, p95, max in ms).

    python bench/query_fuzz.py --index ~/.local/share/rulings/index
    python bench/query_fuzz.py --index DIR --queries 200 --random 5000 --seed 7

Exit code 1 when any query raised anything but QueryError.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rulings.ingest.errors import QueryError  # noqa: E402
from rulings.search import index, query  # noqa: E402
from rulings.search.analysis import TOKEN_PATTERN  # noqa: E402

SYNTAX = ' "()-+:/{}*?~^<>=!\'’'
WORDS = ["OR", "NOT", "AND", "card:", "set:", "mechanic:", "lang:", "date:", "T:", "{T}", "+1/+1", "-1/-1"]


def data_queries(entries: list[dict], count: int, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, query) pairs drawn from the entries' texts, cards, sets, mechanics, languages and dates."""
    texts = [e["text"] for e in entries]
    cards = sorted({c for e in entries for c in e["cards"]}) or ["Fire // Ice"]
    sets = sorted({s for e in entries for s in e["sets"]}) or ["ONE"]
    mechanics = sorted({m for e in entries for m in e["mechanics"]}) or ["proliferate"]
    langs = sorted({e["lang"] for e in entries})
    dates = sorted({d for e in entries for d in e["dates"]}) or ["2019-01-01"]

    def words_of(text):
        return [m.group() for m in TOKEN_PATTERN.finditer(text)]

    def word():
        return rng.choice(words_of(rng.choice(texts)) or ["rule"])

    def phrase():
        found = words_of(rng.choice(texts))
        if len(found) < 2:
            return '"' + " ".join(found) + '"'
        size = rng.randint(2, min(4, len(found)))
        start = rng.randrange(len(found) - size + 1)
        return '"' + " ".join(found[start:start + size]) + '"'

    def card():
        name = rng.choice(cards)
        face = rng.choice(name.split(" // "))
        return f'card:"{face if rng.random() < 0.5 else name}"'

    makers = {
        "word": word,
        "words": lambda: f"{word()} {word()}",
        "phrase": phrase,
        "card": card,
        "card+word": lambda: f"{card()} {word()}",
        "set": lambda: f"set:{rng.choice(sets)} {word()}",
        "mechanic": lambda: f"mechanic:{rng.choice(mechanics)}",
        "lang": lambda: f"lang:{rng.choice(langs)} {word()}",
        "date": lambda: f"date:{rng.choice(['>=', '<', '>', '<=', ''])}{rng.choice(dates)} {word()}",
        "or": lambda: f"{word()} OR {word()}",
        "not": lambda: f"{word()} {rng.choice(['-', 'NOT '])}{word()}",
    }
    kinds = list(makers)
    return [(kind, makers[kind]()) for kind in (rng.choice(kinds) for _ in range(count))]


def random_strings(count: int, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, query) pairs: syntax-heavy ASCII, query keywords glued together, and any Unicode."""
    out = []
    for number in range(count):
        size = rng.randint(0, 30)
        if number % 3 == 0:
            text = "".join(rng.choice(SYNTAX + "abcXT0123456789") for _ in range(size))
        elif number % 3 == 1:
            text = " ".join(rng.choice(WORDS + ["x", '"', "(", ")", "-"]) for _ in range(rng.randint(1, 6)))
        else:
            text = "".join(chr(rng.choice([rng.randint(32, 0x2FF), rng.randint(0x300, 0xD7FF),
                                           rng.randint(0xE000, 0x10FFFF)])) for _ in range(size))
        out.append(("random", text))
    return out


def run(index_dir: Path, cases: list[tuple[str, str]]) -> dict:
    """Run each query; returns counts, QueryErrors, crashes (query, exception) and latencies in ms by kind."""
    report = {"ran": 0, "hits": 0, "query_errors": 0, "crashes": [], "ms": {}}
    for kind, text in cases:
        started = time.perf_counter()
        try:
            hits = query.search(index_dir, text, limit=20)
            report["hits"] += bool(hits)
        except QueryError:
            report["query_errors"] += 1
        except Exception as err:  # the point of the fuzzer: anything else is a bug to report
            report["crashes"].append((text, "".join(traceback.format_exception_only(type(err), err)).strip()))
        report["ms"].setdefault(kind, []).append((time.perf_counter() - started) * 1000)
        report["ran"] += 1
    return report


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"n={len(ordered)} median={statistics.median(ordered):.1f} p95={p95:.1f} max={ordered[-1]:.1f} ms"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="index folder (made by rulings ingest)")
    parser.add_argument("--queries", type=int, default=200, help="queries drawn from the data")
    parser.add_argument("--random", type=int, default=5000, help="random strings")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    entries = list(index.all_entries(args.index))
    cases = data_queries(entries, args.queries, rng) + random_strings(args.random, rng)
    report = run(args.index, cases)
    all_ms = [ms for values in report["ms"].values() for ms in values]
    if args.json:
        print(json.dumps({**report, "ms": {k: summary(v) for k, v in report["ms"].items()},
                          "entries": len(entries)}, ensure_ascii=False, indent=1))
    else:
        print(f"index: {args.index} ({len(entries)} entries)")
        print(f"ran {report['ran']} queries: {report['hits']} with hits, "
              f"{report['query_errors']} answered with QueryError, {len(report['crashes'])} crashed")
        print("latency, all:", summary(all_ms))
        for kind, values in sorted(report["ms"].items()):
            print(f"  {kind:10} {summary(values)}")
        for text, error in report["crashes"][:50]:
            print(f"CRASH {text!r}: {error}")
    return 1 if report["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
