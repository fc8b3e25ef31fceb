"""What a query's words mean beyond their letters: function words, player words, obsolete and renamed terms.

Three tables in ``search/data/``:

- ``player-words.json``: words people search with that rulings do not use (ETB, fizzle, sac,
  进场, 攻击力) and what rulings write instead; reviewed by hand, each row tested in
  tests/test_terms.py;
- ``obsolete-terms.json``: the Comprehensive Rules glossary's obsolete and renamed terms
  (converted mana cost -> mana value, totem armor -> umbra armor, tribal -> kindred), derived
  by scripts/derive_terms.py from ../shared/realdata; each row works both ways;
- ``bilingual-words.json``: English and Chinese rules words that translate each other (respond /
  回应), derived by scripts/derive_bilingual.py from the translated rulings of ../shared/realdata: a
  word also finds the rulings that exist only in the other language.

Query time only (search/bestmatch.py): a meaning is searched with less weight than the words
typed, and nothing here changes a ruling's text or its snippet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from rulings.search.analysis import fold, stem

# Words that carry the grammar of a question or a sentence, not its subject: never required,
# weighted low (search/bestmatch.py). English: pronouns, auxiliaries, prepositions, question words
# and the filler of questions ("what happens if", "how does it work"); MTG words that look like
# function words (may, can't, not, no, each, all, other, only, until, first) are not among them.
FUNCTION_WORDS_EN = frozenset("""
a an the i me my mine you your yours we us our they them their he him his she her it its itself
is are am was were be been being do does did doing done can could will would should shall might
what whats what's which who whom whose where why how if then than that thats that's this these those
there here of to in on at by for with from into onto about as so just also still ever really
happen happens happened happening work works working rule rules ruling rulings mean means meant
question get gets got getting go goes going thing things someone something anything and or but
some please know tell explain way does doesnt i'm im i've ive you're youre isn't isnt whether
when while happen? anyway able
""".split())

# Chinese particles, pronouns and question words (segmented words of a query, Simplified).
FUNCTION_WORDS_ZH = frozenset("""
的 了 吗 呢 吧 啊 呀 么 会 能 能不能 可以 可不可以 是 是不是 是否 有没有 在 时 时候 的话 如果 那么 怎么
怎么办 怎样 怎么样 什么 为什么 哪 哪个 这 那 这个 那个 这张 那张 我 你 他 她 它 我的 你的 还 还是 就 都
也 和 与 或 或者 一个 一张 请问 问 问题 规则 情况 发生 算 算不算 要 需要 该 得 地 着 过 会不会 能否 吗？
呢？ 之 被 把 给 让 对 到 里 中 上 下 后 之后 以后 时候 当 而 并 且 所以 因为 然后 现在 还能 还会 不会
又 有 别的 另 另外 其他 其它 以 为准 到底 究竟 一下 这样 这种 这时 那时 就是 只是 还算 算是 怎么算 会怎样
会怎么样 怎么处理 行不行 行吗 对吗 对不对 可能 应该 一般 通常 呀 嘛 咋 咋办 啥
""".split())


def is_function_word(word: str) -> bool:
    """True for a function or question word (folded English, or Simplified Chinese)."""
    return word in FUNCTION_WORDS_EN or word in FUNCTION_WORDS_ZH


@dataclass(frozen=True)
class Meaning:
    """One row of a table read for a query: ``terms`` (what the user types, as stems or Chinese
    words) mean each of ``means`` (what rulings write; text as written in the table, in language
    ``lang``), whose words may have up to ``near`` other words between them."""

    terms: tuple[str, ...]
    means: tuple[str, ...]
    near: int
    lang: str
    across: bool = False         # a translation (bilingual-words.json): means are in the other language


def key_of(words: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The comparison form of a sequence of query words: folded and stemmed (English), as they are (Chinese)."""
    return tuple(stem(fold(w)) if w.isascii() else w for w in words)


def _phrase_words(text: str) -> list[str]:
    return text.split() if text.isascii() or " " in text else [text]


@lru_cache(maxsize=1)
def meanings() -> dict[tuple[str, ...], tuple[Meaning, ...]]:
    """Every row of player-words.json and obsolete-terms.json by the key_of() of its terms (a ``both`` row
    also by the key of each meaning, which then means the row's terms), and each word pair of
    bilingual-words.json both ways, as a meaning in the other language (``across``). Raises
    FileNotFoundError or ValueError when a table of the installed package is missing or damaged."""
    found: dict[tuple[str, ...], list[Meaning]] = {}
    for name in ("player-words.json", "obsolete-terms.json"):
        table = json.loads(resources.files("rulings.search").joinpath("data", name).read_text("utf-8"))
        for row in table["rows"]:
            terms, means = tuple(row["terms"]), tuple(row["means"])
            near = int(row.get("near", 2))
            key = key_of(terms)
            found.setdefault(key, []).append(Meaning(key, means, near, row["lang"]))
            if row.get("both"):
                for meaning in means:
                    back = key_of(_phrase_words(fold(meaning)))
                    found.setdefault(back, []).append(Meaning(back, (" ".join(terms),), near, row["lang"]))
    table = json.loads(resources.files("rulings.search").joinpath("data", "bilingual-words.json").read_text("utf-8"))
    for row in table["rows"]:
        english, chinese = key_of([row["en"]]), (row["zh"],)
        found.setdefault(english, []).append(Meaning(english, (row["zh"],), 0, "zh", across=True))
        found.setdefault(chinese, []).append(Meaning(chinese, (row["en"],), 0, "en", across=True))
    return {key: tuple(rows) for key, rows in found.items()}


@lru_cache(maxsize=1)
def longest_key() -> int:
    """The most words in any key of meanings()."""
    return max((len(key) for key in meanings()), default=1)
