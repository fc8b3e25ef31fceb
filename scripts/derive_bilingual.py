"""Derive search/data/bilingual-words.json: rules words of English and Chinese rulings that translate each other.

Read from an index of ../shared/realdata, whose entries link a ruling to its translation (the same
card's ruling in the other language; ingest/translate.py). Over those parallel pairs, each English
word (stemmed as search/analysis.py stems it, function words left out) and each Chinese word (jieba's
words of two or more characters, function words left out) is counted in how many pairs it occurs; a
word pair is kept when it occurs together in at least MIN_PAIRS pairs, its Dice coefficient
(2 * together / (English + Chinese)) is at least MIN_DICE, each is the other's best partner (mutual
best), neither names a mechanic (search/data/names.json translates those already) and neither occurs
in more than MAX_SHARE of its language's entries (a word in most rulings, 生物 "creature", finds nothing
in particular and would make every query score most of the other language's entries).

A query's word then also finds rulings that exist only in the other language (search/terms.py;
issue 20, item 4), with less weight than the literal words and after same-language matches.

    rulings ingest --index /tmp/real ../shared/realdata
    python scripts/derive_bilingual.py /tmp/real [--out search/data/bilingual-words.json]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIN_PAIRS = 12
MIN_DICE = 0.65
MAX_SHARE = 0.05
_HAN = re.compile(r"[\u4e00-\u9fff]")
_ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")


def parallel_pairs(entries: list[dict]) -> list[tuple[str, str]]:
    """(English text, Chinese text) of each pair of entries linked as translations, once each."""
    seen, pairs = set(), []
    for entry in entries:
        for other in entry.get("translations") or []:
            english, chinese = (entry, other) if entry["lang"] == "en" else (other, entry)
            key = (english["id"], chinese["id"])
            if key not in seen and english["lang"] == "en" and chinese["lang"].startswith("zh"):
                seen.add(key)
                pairs.append((english["text"], chinese["text"]))
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir", type=Path, help="an index of ../shared/realdata")
    parser.add_argument("--out", type=Path, default=ROOT / "search" / "data" / "bilingual-words.json")
    args = parser.parse_args(argv)

    import jieba

    from rulings.search import index
    from rulings.search.analysis import fold, stem
    from rulings.search.bestmatch import _mechanic_names
    from rulings.search.terms import FUNCTION_WORDS_EN, FUNCTION_WORDS_ZH

    jieba.setLogLevel(60)
    surface: dict[str, Counter] = {}

    def english_words(text: str) -> set[str]:
        found = set()
        for word in _ENGLISH_WORD.findall(text):
            folded = fold(word)
            if folded not in FUNCTION_WORDS_EN and len(folded) > 2:
                found.add(stem(folded))
                surface.setdefault(stem(folded), Counter())[folded] += 1
        return found

    def chinese_words(text: str) -> set[str]:
        return {w for w in jieba.cut(text) if _HAN.search(w) and len(w) >= 2 and w not in FUNCTION_WORDS_ZH}

    entries = list(index.all_entries(args.index_dir))
    share = {"en": Counter(), "zh": Counter()}
    totals = Counter()
    for entry in entries:
        lang = "en" if entry["lang"] == "en" else "zh"
        totals[lang] += 1
        share[lang].update(english_words(entry["text"]) if lang == "en" else chinese_words(entry["text"]))
    mechanics = _mechanic_names()
    english, chinese, together = Counter(), Counter(), Counter()
    pairs = parallel_pairs(entries)
    for english_text, chinese_text in pairs:
        words_en, words_zh = english_words(english_text), chinese_words(chinese_text)
        english.update(words_en)
        chinese.update(words_zh)
        together.update((e, z) for e in words_en for z in words_zh)
    best_en: dict[str, tuple[float, str]] = {}
    best_zh: dict[str, tuple[float, str]] = {}
    for (e, z), count in together.items():
        if count < MIN_PAIRS:
            continue
        dice = 2 * count / (english[e] + chinese[z])
        if dice > best_en.get(e, (0.0, ""))[0]:
            best_en[e] = (dice, z)
        if dice > best_zh.get(z, (0.0, ""))[0]:
            best_zh[z] = (dice, e)
    rows = []
    for e, (dice, z) in sorted(best_en.items(), key=lambda item: (-item[1][0], item[0])):
        if dice < MIN_DICE or best_zh[z][1] != e or e in mechanics or z in mechanics:
            continue
        if share["en"][e] > MAX_SHARE * totals["en"] or share["zh"][z] > MAX_SHARE * totals["zh"]:
            continue
        word = surface[e].most_common(1)[0][0]
        rows.append({"en": word, "zh": z, "pairs": together[(e, z)], "dice": round(dice, 3)})
    about = (f"English and Chinese rules words that translate each other, derived by scripts/derive_bilingual.py "
             f"from the {len(pairs)} pairs of translated rulings of ../shared/realdata (mutual best Dice >= "
             f"{MIN_DICE}, in >= {MIN_PAIRS} pairs, each in at most {MAX_SHARE:.0%} of its language's entries). "
             "A query's word also finds the other language's rulings that use its translation, with less weight "
             "and after same-language matches (search/terms.py).")
    args.out.write_text(json.dumps({"about": about, "rows": rows}, ensure_ascii=False, indent=1) + "\n", "utf-8")
    print(f"{len(rows)} word pairs from {len(pairs)} translated pairs -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
