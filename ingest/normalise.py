"""Normalise stage: the folded form of a ruling used for matching only.

The display text is never changed, except that control characters are removed from it and from
the card name (ingest/controls.py; the readers' rulings have none left, ingest/read.py removes
them, this keeps rulings made elsewhere to the same rule). ``Ruling.match`` receives the folded form:
NFKC (full-width to ASCII), curly quotes to straight, dashes to ``-``, U+2212
to ``-``, whitespace collapsed, lower case. A ruling whose first word is a
known corpus word minus its first letter ("hield", "hen") has that letter
restored in the matching form, and the repair is noted on the ruling.
The ruling's own card name (full name, short name before a comma, each face of
``A // B``; for Chinese names also any 2+ character run of the name, since
Chinese rulings shorten names to the personal name) is replaced by one
placeholder, ``~``, so that the same ruling printed for two cards can match.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from rulings.ingest.controls import without_controls
from rulings.ingest.language import detect_language, match_text
from rulings.ingest.model import Ruling

_QUOTES = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u02bc": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-", "\u00a0": " ", "\u3000": " ",
})
_WORD = re.compile(r"[a-z]+")
_FIRST_WORD = re.compile(r"^([a-z]+)\b")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_NAME_NOTE = re.compile(r"\s*[(\uff08][^)\uff09]*[)\uff09]\s*")
CARD_PLACEHOLDER = "~"
# Chinese rules words that also occur inside card names; never masked on their own.
_ZH_GENERIC = frozenset("""生物 异能 咒语 神器 结界 永久物 衍生物 牌手 对手 战场 坟墓 坟墓场 玩家 伤害 生命
指示物 法术 法术力 武具 灵气 鹏洛客 地 触发 起动 进战场 所有 目标 守护 力量 防御力 本身 其他 一个""".split())


@lru_cache(maxsize=1)
def zh_subtypes() -> frozenset[str]:
    """Chinese subtypes that are rules words inside a card name (坏物鬼怪's 鬼怪 is "Goblin", CR 205.3m), from
    ingest/data/zh_types.json (scripts/derive_zh_types.py). A planeswalker's subtype is left out: it is the
    character's name (杰斯, CR 205.3j), which a ruling also calls its card by."""
    table = json.loads((Path(__file__).parent / "data" / "zh_types.json").read_text(encoding="utf-8"))
    return frozenset(table["types"]) - frozenset(table["planeswalker_types"])


@dataclass
class Rejection:
    """A ruling dropped by normalisation, with the reason counted in stats."""

    ruling: Ruling
    reason: str


def fold(text: str) -> str:
    """Return the matching form of a text: NFKC, straight quotes, ASCII dashes, collapsed space, lower case.

    Idempotent: fold(fold(t)) == fold(t). Whitespace runs are joined with str.split(), which splits
    on exactly the characters the regex whitespace class matches (str.isspace); ASCII text skips
    NFKC and the quote table, which change no ASCII character.
    """
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return " ".join(text.split()).lower()


def corpus_words(rulings: Iterable[Ruling]) -> Counter:
    """The repair vocabulary: how many distinct folded texts hold each lower-case word.

    A text counts once however many copies of it are given, so that copies never change a
    repair (two copies of "hield counters ..." would make the misspelling "hield" a corpus word)."""
    words: Counter = Counter()
    for text in {fold(ruling.text) for ruling in rulings}:
        words.update(text_words(text))
    return words


def text_words(folded: str) -> set[str]:
    """The distinct lower-case words of one folded text (one text's share of corpus_words)."""
    return set(_WORD.findall(folded))


def repair_first_letter(ruling: Ruling, folded: str, words: Counter) -> tuple[str, str | None, str | None]:
    """Restore a dropped first letter of a ruling's first word.

    A text whose original starts with a lower-case word that is not a corpus word
    (in at least two distinct texts, corpus_words) but becomes one with a letter in front ("hield" ->
    "shield") is repaired in its folded form. Returns (folded text, repair note
    or None, display text with the letter restored or None).
    """
    if not ruling.text[:1].islower():
        return folded, None, None
    m = _FIRST_WORD.match(folded)
    if not m or words.get(m.group(1), 0) > 1:
        return folded, None, None
    word = m.group(1)
    best = max(((words.get(c + word, 0), c + word) for c in "abcdefghijklmnopqrstuvwxyz"),
               default=(0, ""))
    if best[0] < 2:
        return folded, None, None
    letter = best[1][0]
    return (best[1] + folded[len(word):], f"first letter restored: {word!r} -> {best[1]!r}",
            letter.upper() + ruling.text)


def card_names(card: str | None) -> list[str]:
    """Folded names a ruling may call its own card, longest first.

    card: full card name, ``Face A // Face B`` for split and double-faced cards.
    Gives the full name, each face, the short name before a comma
    ("Naru Meha, Master Wizard" -> "naru meha") and its first word ("naru").
    A trailing note in parentheses ("时间计谋（仅出现在鹏洛客套牌中）") is dropped.
    """
    if not card:
        return []
    names = set()
    for face in [card] + card.split("//"):
        face = fold(_NAME_NOTE.sub(" ", face)).strip()
        if not face:
            continue
        names.add(face)
        if "," in face:
            short = face.split(",")[0].strip()
            names.add(short)
            first = short.split(" ")[0]
            if len(first) >= 3:
                names.add(first)
    return sorted(names, key=lambda n: (-len(n), n))


def mask_card(folded: str, card: str | None, original: str = "") -> str:
    """Replace the ruling's own card name in a folded text with ``~``.

    English names are replaced as whole words; the first word of a multi-word
    name also where the original text writes it capitalised and possessive ("Jaya's"
    for Jaya Ballard, but not "the spell's" for Spell Swindle: a lower-case word is a
    rules word), and for titled names ("Daxos of Meletis", "Ruric Thar the Unbowed")
    where the original text writes it capitalised. Chinese names
    are replaced as they stand, then every run of 2+ of their characters left in
    the text (the personal name of a titled card) unless the run is a rules word or a subtype
    other than a planeswalker's (坏物鬼怪's 鬼怪 is "Goblin", not the card: zh_subtypes()).
    """
    names = card_names(card)
    for name in names:
        if _CJK.search(name):
            folded = folded.replace(name, CARD_PLACEHOLDER)
            folded = _mask_name_runs(folded, name)
        elif name in folded:
            folded = _pattern(rf"(?<![\w-]){re.escape(name)}(?![\w-])").sub(CARD_PLACEHOLDER, folded)
    for name in names:
        words = name.split(" ")
        if _CJK.search(name) or "," in name or len(words) < 2 or len(words[0]) < 3 or words[0] not in folded:
            continue
        first = re.escape(words[0])
        if _pattern(rf"(?<![\w-]){first.capitalize()}['\u2019]s\b").search(original):
            folded = _pattern(rf"(?<![\w-]){first}(?='s\b)").sub(CARD_PLACEHOLDER, folded)
        if {"of", "the"} & set(words[1:]) and _pattern(rf"\b{first.capitalize()}\b").search(original):
            folded = _pattern(rf"(?<![\w-]){first}(?![\w-])").sub(CARD_PLACEHOLDER, folded)
    return folded


@lru_cache(maxsize=65_536)
def _pattern(pattern: str) -> re.Pattern:
    """re.compile with a cache sized for one pattern per card name (re's own cache keeps 512,
    far fewer than the card names of a large corpus, so it recompiled nearly every call)."""
    return re.compile(pattern)


def _mask_name_runs(text: str, name: str) -> str:
    for part in re.split(r"[\s\u00b7\u30fb.,]+", name):
        for length in range(len(part) - 1, 1, -1):
            for start in range(len(part) - length + 1):
                run = part[start:start + length]
                if run in text and run not in _ZH_GENERIC and run not in zh_subtypes() and _CJK.match(run):
                    text = text.replace(run, CARD_PLACEHOLDER)
    return text


def normalise(rulings: list[Ruling], words: Counter | None = None,
              languages: dict[str, str | None] | None = None) -> tuple[list[Ruling], list[Rejection]]:
    """Fill ``match`` (and ``repairs``) on each ruling; reject empty ones.

    words: the repair vocabulary (corpus_words of the whole corpus); by default
    the words of these rulings. languages: texts whose language was detected already (in worker
    processes, ingest/pipeline.py) -> what detect_language() finds for them before its default
    (ingest/language.py detect_languages); other texts are detected here. Returns (kept rulings
    in input order, rejections with reasons). Control characters are removed from text and card.
    """
    if words is None:
        words = corpus_words(rulings)
    languages = languages or {}
    kept, rejected = [], []
    for ruling in rulings:
        ruling.text = text = without_controls(ruling.text)
        if ruling.card:
            ruling.card = without_controls(ruling.card)
        ruling.lang = (languages[text] or ruling.lang) if text in languages else \
            detect_language(text, default=ruling.lang)
        folded = fold(match_text(ruling.text, ruling.lang))
        if not _WORD.search(folded) and not re.search(r"\w", folded):
            rejected.append(Rejection(ruling, "empty text"))
            continue
        folded, note, repaired = repair_first_letter(ruling, folded, words)
        ruling.match = mask_card(folded, ruling.card, ruling.text)
        if note:
            ruling.repairs, ruling.repaired_text = (note,), repaired
        kept.append(ruling)
    return kept, rejected
