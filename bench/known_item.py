"""Known-item search quality: can a person who read one ruling find it again?

Each query in ``bench/known_item/queries.jsonl`` was written by someone who had read only its
target ruling (never search results, never our code), in one of three styles: ``keyword`` (1-4
words), ``question`` (as asked at a judge's table), ``paraphrase`` (the situation in their own
words); English and Simplified Chinese. A target is named by ``target_hash`` of the ruling's text,
so the set survives id changes and merges: a hit is the target when any of its variants has that
text.

Run after ``pip install -e '.[bench]'``::

    python bench/known_item.py                     # builds an index of ../shared/realdata in bench/out/
    python bench/known_item.py --index DIR         # an existing index of ../shared/realdata
    python bench/known_item.py --misses            # also print the queries whose target is not in the top 10
    python bench/known_item.py --held-out          # the held-out queries instead (bench/known_item/heldout.jsonl)
    python bench/known_item.py --queries bench/known_item/round4.jsonl   # any other file of queries

The files: queries.jsonl (375, rules tuned on its dev half), heldout.jsonl (135, a fourth reader),
round3.jsonl (180, readers G and H, 60 more targets; its misses were read while tuning), round4.jsonl
(180, readers K and L, 60 more targets; measured, never read), round5/6/7/8/9/10.jsonl (60 targets each, measured once,
never read; round 7's writers kept the ruling's wording out), round11/12/13.jsonl
(60 targets each, two writers, measured once): docs/search-quality.md has the figures.

Prints success@1/3/10 and MRR@10 per style and language for rulings (``search.query.search``,
limit 10) and for bm25s (plain BM25: English Snowball stemmer, jieba words for Chinese) over the
same entries' texts and card names, in the same run, on all queries and on the two halves
``dev`` / ``test`` (target hash even / odd): rules and weights are tuned looking at ``dev`` only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"
QUERIES = HERE / "known_item" / "queries.jsonl"
# 135 more, written after the rules were fixed by a fourth reader from 45 other targets: never tuned on.
HELD_OUT = HERE / "known_item" / "heldout.jsonl"
OUT = HERE / "out"
K = 10

sys.path.insert(0, str(ROOT))


def target_hash(text: str) -> str:
    """The name of a target ruling: the first 16 hex digits of the SHA-1 of its whitespace-collapsed text."""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


def entry_hashes(entry: dict) -> set[str]:
    """The target names an entry answers: its text's and each variant's."""
    return {target_hash(entry["text"])} | {target_hash(v["text"]) for v in entry["variants"]}


def half(query: dict) -> str:
    return "dev" if int(query["target"], 16) % 2 == 0 else "test"


def load_queries(path: Path = QUERIES) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def ensure_index(index_dir: Path | None) -> Path:
    """The index to measure: the given folder, or bench/out/known-item-index built from ../shared/realdata."""
    if index_dir is not None:
        return index_dir
    built = OUT / "known-item-index"
    if not (built / "CURRENT").exists():
        OUT.mkdir(exist_ok=True)
        cli = [sys.executable, "-c", "from rulings.search.cli import main; main()"]
        subprocess.run([*cli, "ingest", "--index", str(built), "--rebuild", str(SHARED / "realdata")],
                       check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return built


def rulings_ranks(index_dir: Path, queries: list[dict]) -> list[int | None]:
    """The 1-based rank of each query's target among rulings' top K, or None."""
    from rulings.ingest.errors import QueryError
    from rulings.search import query as q
    ranks = []
    for item in queries:
        try:
            hits = q.search(index_dir, item["query"], limit=K)
        except QueryError:
            hits = []
        ranks.append(next((i + 1 for i, hit in enumerate(hits) if item["target"] in entry_hashes(hit)), None))
    return ranks


_WORD = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|\w+(?:'\w+)*")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def bm25s_tokens(text: str, stemmer) -> list[str]:
    """bm25s's peer tokenization: lower-case words stemmed (Snowball English), Han runs cut by jieba."""
    import jieba
    tokens = []
    for match in _WORD.finditer(text.lower()):
        word = match.group()
        if _HAN.match(word):
            tokens += [w for w in jieba.lcut(word) if w.strip()]
        else:
            tokens.append(stemmer.stemWord(word))
    return tokens


def bm25s_ranks(entries: list[dict], queries: list[dict]) -> list[int | None]:
    """The rank of each target among plain BM25's top K (bm25s) over the entries' texts and card names."""
    import bm25s
    import jieba
    import Stemmer

    from rulings.search.index import search_texts
    jieba.setLogLevel(60)
    stemmer = Stemmer.Stemmer("english")
    corpus = []
    for entry in entries:
        main, others = search_texts(entry)
        corpus.append(bm25s_tokens(" ".join([main, *others, *entry["cards"]]), stemmer) or ["\0"])
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    hashes = [entry_hashes(entry) for entry in entries]
    ranks = []
    for item in queries:
        tokens = bm25s_tokens(item["query"], stemmer) or ["\0"]
        found, _ = retriever.retrieve([tokens], k=K, show_progress=False)
        ranks.append(next((i + 1 for i, doc in enumerate(found[0]) if item["target"] in hashes[doc]), None))
    return ranks


def figures(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    return {"n": len(ranks),
            **{f"s@{k}": sum(1 for r in ranks if r and r <= k) / n for k in (1, 3, 10)},
            "mrr": sum(1 / r for r in ranks if r) / n}


def table(queries: list[dict], systems: dict[str, list[int | None]]) -> str:
    groups: dict[str, list[int]] = defaultdict(list)
    for i, item in enumerate(queries):
        lang = "zh" if item["lang"].startswith("zh") else item["lang"]
        for key in ("all", item["style"], lang, f"{lang} {item['style']}", half(item),
                    f"{half(item)} {item['style']}"):
            groups[key].append(i)
    lines = [f"{'group':<18}{'n':>4}  " + "  ".join(f"{name + ' ' + m:>14}" for name in systems
                                                 for m in ("s@1", "s@10", "MRR"))]
    order = ["all", "keyword", "question", "paraphrase", "en", "zh", "en keyword", "en question",
             "en paraphrase", "zh keyword", "zh question", "zh paraphrase", "dev", "test",
             "test keyword", "test question", "test paraphrase"]
    for key in [k for k in order if k in groups]:
        row = f"{key:<18}{len(groups[key]):>4}  "
        for ranks in systems.values():
            f = figures([ranks[i] for i in groups[key]])
            row += "  ".join(f"{f[m]:>14.3f}" for m in ("s@1", "s@10", "mrr")) + "  "
        lines.append(row)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, help="an index of ../shared/realdata (built when not given)")
    parser.add_argument("--misses", action="store_true", help="print the queries rulings misses")
    parser.add_argument("--no-peer", action="store_true", help="skip bm25s")
    parser.add_argument("--held-out", action="store_true", help="measure on the held-out queries")
    parser.add_argument("--queries", type=Path, help="measure on this JSON-lines file of queries instead")
    args = parser.parse_args(argv)
    from rulings.search import index
    index_dir = ensure_index(args.index)
    queries = load_queries(args.queries or (HELD_OUT if args.held_out else QUERIES))
    systems = {"rulings": rulings_ranks(index_dir, queries)}
    if not args.no_peer:
        systems["bm25s"] = bm25s_ranks(list(index.all_entries(index_dir)), queries)
    print(table(queries, systems))
    if args.misses:
        for item, rank in zip(queries, systems["rulings"]):
            if rank is None or rank > 3:
                print(f"{rank!s:>4} {half(item)} {item['style']:<10} {item['target']} {item['query']}")
    OUT.mkdir(exist_ok=True)
    (OUT / "known_item.json").write_text(json.dumps(
        {name: figures(ranks) for name, ranks in systems.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
