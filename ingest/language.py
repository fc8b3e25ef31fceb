"""Language of a ruling, and the Chinese matching form.

Detection (``detect_language``) is from the ruling's text only, never from the
file or the card name (seed 003 has a Chinese card name over English rulings).
The answer is one of Magic's eleven print languages (``ingest.model.LANGUAGES``):

- script decides first: kana -> ``ja``, hangul -> ``ko``, Cyrillic -> ``ru``,
  Han characters -> Chinese, where the script (``zh-Hans`` / ``zh-Hant``) is
  decided with opencc: a text that its Traditional-to-Simplified conversion
  leaves unchanged is Simplified (lingua has no script split for Chinese);
- Latin text goes to lingua-language-detector restricted to the six Latin
  languages (en de fr it es pt); anything else to lingua restricted to the
  eleven. Detectors are built once, on first use (building takes about 1 s).

Chinese matching form (``fold_chinese``), for ``Ruling.match`` and the Chinese
index field; the display text is never changed:

- Chinese symbol words in braces to the canonical symbols, as the Simplified
  Chinese release notes print them: ``{横置}`` -> ``{T}``, ``{重置}`` -> ``{Q}``,
  ``{一}{红}`` -> ``{1}{R}``, ``{能能}`` -> ``{E}{E}``, ``{白/黑}`` -> ``{W/B}``,
  ``{蓝/非}`` -> ``{U/P}``, ``{二/绿}`` -> ``{2/G}``, ``{无}`` -> ``{C}``, ``{雪}`` -> ``{S}``;
- full-width letters, digits and signs to ASCII (NFKC: ``＋１/＋１`` -> ``+1/+1``);
- ``「」『』`` and Chinese curly quotes to ``"``, ``～`` to ``~``, ``、`` to ``,``;
- Traditional characters folded to Simplified (opencc ``t2s``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

LATIN = ("en", "de", "fr", "it", "es", "pt")
CJK_SHARE = 0.25        # share of CJK letters above which a text is read as CJK
SAMPLE = 300            # characters of a text the detector reads
# English words that are not words of de fr it es pt: a pure-ASCII text made of
# enough of them is English without asking the detector.
ENGLISH_MARKERS = frozenset(
    "the of to and is you that it if its with this be are for will won't don't doesn't can't "
    "isn't player players creature creatures card cards spell ability abilities control "
    "controls when whenever would has have your they their each any".split())
_ASCII_WORD = re.compile(r"[a-z']+")
_TYPOGRAPHY = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"',
                             "\u2014": "-", "\u2013": "-", "\u2212": "-", "\u2022": "*"})

# Chinese words inside mana/game symbol braces -> the English symbol letters (CR 107).
ZH_SYMBOLS = {
    "白": "W", "蓝": "U", "藍": "U", "黑": "B", "红": "R", "紅": "R", "绿": "G", "綠": "G",
    "无": "C", "無": "C", "非": "P", "雪": "S", "横置": "T", "橫置": "T", "重置": "Q",
    "能": "E", "X": "X", "Y": "Y", "Z": "Z",
}
ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
             "六": 6, "七": 7, "八": 8, "九": 9}

_BRACE = re.compile(r"\{([^{}]{1,16})\}")
_PUNCT = str.maketrans({
    "「": '"', "」": '"', "『": '"', "』": '"', "｢": '"', "｣": '"', "“": '"', "”": '"',
    "‘": "'", "’": "'", "〈": '"', "〉": '"', "《": '"', "》": '"',
    "～": "~", "〜": "~", "、": ",", "。": ".", "・": " ", "·": " ", "…": "...", "—": "-",
})


def zh_number(word: str) -> int | None:
    """The value of a Chinese numeral up to 99 (``十五`` 15, ``二十`` 20), or None."""
    if word in ZH_DIGITS:
        return ZH_DIGITS[word]
    if "十" in word and len(word) <= 3:
        tens, _, units = word.partition("十")
        high = ZH_DIGITS.get(tens, None) if tens else 1
        low = ZH_DIGITS.get(units, None) if units else 0
        if high is not None and low is not None:
            return high * 10 + low
    return None


def _symbol(inner: str) -> str | None:
    """The canonical braces for one Chinese symbol body (``白/黑`` -> ``{W/B}``), or None."""
    inner = inner.replace("\n", "").replace(" ", "").strip("()（）:：")
    parts = inner.split("/")
    if len(parts) == 1 and len(inner) > 1 and set(inner) == {"能"}:
        return "{E}" * len(inner)             # {能能} two energy symbols
    out = []
    for part in parts:
        if part in ZH_SYMBOLS:
            out.append(ZH_SYMBOLS[part])
        elif zh_number(part) is not None:
            out.append(str(zh_number(part)))
        elif re.fullmatch(r"[0-9A-Za-z]{1,3}", part):
            out.append(part.upper())
        else:
            return None
    return "{" + "/".join(out) + "}"


def canonical_symbols(text: str) -> str:
    """Replace Chinese symbol words in braces with canonical symbols; unknown braces are kept."""
    return _BRACE.sub(lambda m: _symbol(m.group(1)) or m.group(0), text)


@lru_cache(maxsize=2)
def _converter(config: str):
    import opencc
    return opencc.OpenCC(config)


def to_simplified(text: str) -> str:
    """Traditional Chinese characters folded to Simplified (opencc ``t2s``)."""
    return _converter("t2s").convert(text)


def fold_chinese(text: str) -> str:
    """The Chinese matching form: canonical symbols, NFKC, ASCII quotes and marks, Simplified characters.

    Case is kept (normalise.fold lower-cases after). Idempotent.
    """
    text = canonical_symbols(to_simplified(text))
    text = unicodedata.normalize("NFKC", text).translate(_PUNCT)
    return canonical_symbols(text)


def match_text(text: str, lang: str) -> str:
    """The text normalise.fold() should fold for a ruling in lang: Chinese folded, others unchanged."""
    return fold_chinese(text) if lang.startswith("zh") else text


def _script_counts(text: str) -> dict[str, int]:
    counts = {"han": 0, "kana": 0, "hangul": 0, "cyrillic": 0, "latin": 0, "other": 0}
    for ch in text:
        o = ord(ch)
        if not ch.isalpha():
            continue
        if 0x3040 <= o <= 0x30FF or 0x31F0 <= o <= 0x31FF or 0xFF66 <= o <= 0xFF9D:
            counts["kana"] += 1
        elif 0xAC00 <= o <= 0xD7AF or 0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F:
            counts["hangul"] += 1
        elif 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0xF900 <= o <= 0xFAFF or o >= 0x20000:
            counts["han"] += 1
        elif 0x0400 <= o <= 0x04FF:
            counts["cyrillic"] += 1
        elif o < 0x0250 or 0x1E00 <= o <= 0x1EFF or 0xFF21 <= o <= 0xFF5A:
            counts["latin"] += 1
        else:
            counts["other"] += 1
    return counts


def chinese_script(text: str) -> str:
    """``zh-Hans`` or ``zh-Hant`` for a Chinese text (opencc).

    Simplified when ``t2s`` leaves the text unchanged; Traditional when ``s2t``
    does; otherwise the side with more characters that the other conversion changes.
    """
    to_s = to_simplified(text)
    if to_s == text:
        return "zh-Hans"
    to_t = _converter("s2t").convert(text)
    if to_t == text:
        return "zh-Hant"
    traditional = sum(a != b for a, b in zip(text, to_s))
    simplified = sum(a != b for a, b in zip(text, to_t))
    return "zh-Hant" if traditional > simplified else "zh-Hans"


_LINGUA = {"en": "ENGLISH", "de": "GERMAN", "fr": "FRENCH", "it": "ITALIAN", "es": "SPANISH",
           "pt": "PORTUGUESE", "ja": "JAPANESE", "ko": "KOREAN", "ru": "RUSSIAN", "zh": "CHINESE"}


@lru_cache(maxsize=2)
def _detector(codes: tuple[str, ...]):
    from lingua import Language, LanguageDetectorBuilder
    languages = [getattr(Language, _LINGUA[c]) for c in codes]
    return LanguageDetectorBuilder.from_languages(*languages).build()


def _lingua_code(language) -> str | None:
    names = {v: k for k, v in _LINGUA.items()}
    return names.get(language.name) if language is not None else None


def looks_english(text: str) -> bool:
    """True for a Latin-script text of which at least a quarter of the words, and 3 or more,
    are ENGLISH_MARKERS. Accented letters and ``Æ`` (card names such as Æther Vial,
    Lim-Dûl) are folded to ASCII first; any other non-ASCII letter means not English."""
    if not text.isascii():                  # (ASCII text is its own folded form: skip the per-character work)
        text = unicodedata.normalize("NFKD", text.translate(_TYPOGRAPHY).replace("Æ", "Ae").replace("æ", "ae"))
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
        if not text.isascii():
            return False
    words = _ASCII_WORD.findall(text.lower())
    markers = sum(word in ENGLISH_MARKERS for word in words)
    return markers >= 3 and markers * 4 >= len(words)


def detect_language(text: str, default: str = "en") -> str:
    """The language code (``ingest.model.LANGUAGES``) of a ruling text; default when it has no letters.

    Script first (kana ja, hangul ko, Han zh-Hans/zh-Hant, Cyrillic ru); a
    pure-ASCII text that looks_english() is English; other Latin text goes to
    lingua restricted to the Latin languages. Results are cached by text.
    """
    return _detect(text) or default


@lru_cache(maxsize=65536)
def _detect(text: str) -> str | None:
    if looks_english(text):
        return "en"
    counts = _script_counts(text)
    letters = sum(counts.values())
    if not letters:
        return None
    cjk = counts["han"] + counts["kana"] + counts["hangul"]
    if cjk / letters >= CJK_SHARE:
        if counts["hangul"] > counts["kana"] and counts["hangul"] >= counts["han"] / 4:
            return "ko"
        if counts["kana"] * 20 >= cjk:
            return "ja"
        return chinese_script(text)
    if counts["cyrillic"] > counts["latin"]:
        return "ru"
    if text in _DECIDED:
        return _DECIDED[text]
    if counts["latin"] >= letters / 2:
        code = _lingua_code(_detector(LATIN).detect_language_of(text[:SAMPLE]))
    else:
        code = _lingua_code(_detector(tuple(_LINGUA)).detect_language_of(text[:SAMPLE]))
        code = chinese_script(text) if code == "zh" else code
    _DECIDED[text] = code
    return code


# The texts lingua decided, and its answers: kept with the corpus between ingests (remember_decisions), since
# lingua loads its language models (about 1.3 s) in each new process before its first answer.
_DECIDED: dict[str, str | None] = {}


def remember_decisions(decided: dict[str, str | None]) -> dict[str, str | None]:
    """Take earlier lingua answers (text -> language code) into this process; returns the live mapping,
    which gains every text lingua decides from now on (the same object, to be kept with the corpus)."""
    if decided is not _DECIDED:
        _DECIDED.update(decided)
    return _DECIDED


def detect_languages(texts: list[str]) -> list[tuple[str | None, bool]]:
    """For each text: (what detect_language() finds before its default, True when lingua decided it).

    Run in the ingest's worker processes (ingest/pipeline.py), whose fork server has loaded lingua's
    models already (load_models()); the caller remembers lingua's answers (remember_decisions())."""
    return [(_detect(text), text in _DECIDED) for text in texts]


def decided_languages() -> dict[str, str | None]:
    """The live mapping of the texts lingua decided in this process (text -> language code or None)."""
    return _DECIDED


def load_models() -> None:
    """Make lingua load its models of the Latin languages now (about 1 s, once per process): called
    where multiprocessing's fork server starts (ingest/workers.py), so every worker forked from it
    has them without loading them again."""
    _detector(LATIN).detect_language_of("The creature deals damage to the player who controls it.")


def declared_disagrees(declared: str | None, detected: str) -> bool:
    """True when a source declared a language the text does not have (``zh`` agrees with zh-Hans and zh-Hant)."""
    if not declared:
        return False
    declared = declared.strip()
    if declared.lower() == "zh":
        return not detected.startswith("zh")
    return declared.lower() != detected.lower()
