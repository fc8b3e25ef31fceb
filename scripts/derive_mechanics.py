"""Derive ``ingest/data/mechanics.json``, the mechanic vocabulary, from the Comprehensive Rules.

Usage::

    python scripts/derive_mechanics.py [SHARED_DIR] > ingest/data/mechanics.json
    python scripts/derive_mechanics.py --glossary [SHARED_DIR] > ingest/data/mechanic_names.json

SHARED_DIR defaults to ``../shared`` beside the repository. Inputs (read in place, never copied):

- ``realdata/comprules-rulesraker/MagicCompRules.txt``: keyword actions are the headings ``701.N. Name``
  (701.2 onward), keyword abilities ``702.N. Name`` (702.2 onward). The file starts with a UTF-8 BOM and
  ends its lines mostly with a lone CR, so lines are split on CR, LF or CRLF.
- ``realdata/zh-cn-release-notes-athenacykes/scripts/20240607.json``: the translators' bilingual CR; the
  ``zh`` of each 701/702 heading is the Chinese name of that keyword, and the glossary gives the Chinese
  names of the non-keyword mechanics (state-based actions, mana abilities, ...).
- ``realdata/zh-cn-release-notes-athenacykes/plain_text/translatedterms.txt``: provisional names
  (``English: 中文`` lines) for keywords the CR translation had not named yet.

Names are facts; the tables below (inflections, reminder phrases, symbols, older Chinese names seen in
release notes) are ours. Each output record: ``{"id", "name", "kind", "rule", "forms", "symbols",
"reminders", "keyword_only", "zh", "zh_patterns", "zh_keyword_only"}`` where forms, symbols and reminders
are regular expression sources matched case-insensitively as whole words, zh are plain Chinese strings and
zh_patterns Chinese regular expressions.

With ``--glossary`` it prints the other names the CR glossary gives those mechanics (renamed and obsolete
ones such as Totem Armor, variants such as Swampwalk, the subtypes a keyword is about such as Vehicle) and
the former keywords that are now ability words (glossary_names()): what a person may type for a mechanic.
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path

# PRODUCT.md, "Mechanics": generic keyword actions that are never tags.
GENERIC_ACTIONS = {"activate", "attach", "cast", "counter", "create", "destroy", "discard", "exchange",
                   "exile", "play", "reveal", "sacrifice", "search", "shuffle", "tap-and-untap"}

KIND_ACTION, KIND_ABILITY = "keyword action", "keyword ability"

# Irregular or extra English forms, beyond the generated inflections.
EXTRA_FORMS: dict[str, list[str]] = {
    "umbra-armor": ["totem armor"],
    "landwalk": [r"(?:land|swamp|island|forest|mountain|plains|desert)walk(?:s)?",
                 r"(?:nonbasic|legendary|snow) (?:land|swamp|island|forest|mountain|plains)walk"],
    "cycling": ["cycle", "cycles", "cycled", r"(?:basic )?\w+cycling"],
    "kicker": ["kicked", "kicker costs?", "multikicker"],
    "morph": ["morphs", "morphed", "megamorph"],
    "unearth": ["unearthed"],
    "evolve": ["evolves", "evolved", "evolving"],
    "dredge": ["dredges", "dredged", "dredging"],
    "cascade": ["cascades", "cascaded", "cascading"],
    "suspend": ["suspended", "suspends", "suspending"],
    "regenerate": ["regeneration", "regeneration shields?"],
    "proliferate": ["proliferation"],
    "first-strike": ["first-strike"],
    "double-strike": ["double-strike"],
    "daybound-and-nightbound": ["daybound", "nightbound"],
    "partner": ["partners", "partner with"],
    "monstrosity": ["monstrous"],
    "venture-into-the-dungeon": [r"ventur(?:e|es|ed|ing) into (?:the dungeon|the undercity)"],
    "the-ring-tempts-you": ["ring-bearer", r"the ring tempt(?:s|ed)"],
    "hidden-agenda": ["double agenda"],
    "fight": ["fought"],
    "behold": ["beheld"],
    "foretell": ["foretold"],
    "bestow": ["bestowed", "bestows"],
    "mutate": ["mutates", "mutated", "mutating"],
    "phasing": [r"phas(?:e|es|ed|ing) (?:in|out)"],
    "escape": ["escaped"],
    "crew": ["crews", "crewed", "crewing"],
    "embalm": ["embalmed"],
    "eternalize": ["eternalized"],
    "exploit": ["exploits", "exploited"],
    "devour": ["devoured", "devours"],
    "champion": ["championed"],
    "haunt": ["haunted", "haunts", "haunting"],
    "splice": ["spliced", "splicing"],
    "convoke": ["convoked"],
    "delve": ["delved"],
    "improvise": ["improvised"],
    "emerge": ["emerged"],
    "surge": ["surged"],
    "dash": ["dashed"],
    "plot": ["plotted", "plots"],
    "disguise": ["disguised"],
    "cloak": ["cloaked"],
    "manifest": ["manifested"],
    "blitz": ["blitzed"],
    "enlist": ["enlisted"],
    "saddle": ["saddled", "saddles"],
    "bargain": ["bargained"],
    "training": ["trains", "trained"],
    "mentor": ["mentored"],
    "prototype": ["prototyped"],
    "craft": ["crafted"],
    "reconfigure": ["reconfigured"],
    "overload": ["overloaded"],
    "scavenge": ["scavenged"],
    "unleash": ["unleashed"],
    "cipher": ["encoded"],
    "fuse": ["fused"],
    "level-up": ["level counters?"],
    "fading": ["fade counters?"],
    "poisonous": [],
    "warp": ["warped"],
    "station": ["stations", "stationed"],
    "exhaust": ["exhausted"],
    "impending": [],
    "decayed": [],
    "compleated": [],
    "infinity": ["∞"],
    "start-your-engines": ["start your engines"],
    "for-mirrodin": ["for mirrodin"],
    "web-slinging": ["web-slinging", "web slinging"],
    "learn": ["learned", "learns"],
    "enchant": [],
}

# Forms that replace the generated ones (ambiguous plain words kept to their keyword spelling).
ONLY_FORMS: dict[str, list[str]] = {
    "enchant": [r"(?-i:Enchant) (?:creature|permanent|player|artifact|land|planeswalker|enchantment|"
                r"Forest|Island|Mountain|Plains|Swamp|Equipment|Vehicle|\w+ (?:creature|permanent))",
                r"enchant abilit(?:y|ies)"],
    "equip": ["equip", r"equip (?:abilit(?:y|ies)|costs?)"],
    "double": [r"double(?! strike| agenda|-faced| team)", "doubles", "doubled", "doubling"],
    "triple": [r"triple(?! strike)", "triples", "tripled", "tripling"],
    "protection": ["protection"],
    "vanishing": ["vanishing"],
    "echo": ["echo"],
    "storm": ["storm"],
    "epic": ["epic"],
    "shadow": ["shadow"],
    "reach": ["reach"],
    "fear": ["fear"],
    "flash": ["flash"],
    "ward": ["ward"],
    "infinity": ["∞"],
    "solved": ["solved", "solve", "solves"],
    "gift": ["gift", "gifts", "gifted"],
    "convert": [r"convert(?:s|ed|ing)?(?! mana)"],
}

# Words that are also plain English: only a keyword use counts (has/with/gains X, X ability/cost, X 2, ...).
KEYWORD_ONLY = {"reach", "shadow", "fear", "echo", "support", "learn", "visit", "convert", "discover",
                "suspect", "harness", "endure", "behold", "abandon", "assemble", "champion", "haunt",
                "recover", "epic", "offering", "entwine", "frenzy", "absorb", "persist", "rebound",
                "miracle", "fuse", "dash", "tribute", "surge", "assist", "riot", "escape", "companion",
                "training", "backup", "prototype", "craft", "station", "warp", "gift", "spree", "blight",
                "cleave", "boast", "decayed", "disturb", "demonstrate", "encore", "exhaust", "impending",
                "offspring", "squad", "ravenous", "casualty", "bargain", "disguise", "cloak", "forage",
                "solved", "plot", "saddle", "tiered", "mayhem", "mobilize", "harmonize", "graft",
                "replicate", "forecast", "ripple", "hideaway", "prowl", "reinforce", "conspire",
                "retrace",
                "unleash", "overload", "cipher", "extort", "outlast", "exploit", "renown", "ingest",
                "emerge", "escalate", "melee", "undaunted", "improvise", "aftermath", "mentor",
                "afterlife",
                "spectacle", "mutate", "foretell", "blitz", "enlist", "read-ahead", "toxic",
                "compleated", "incubate", "manifest", "detain", "planeswalk",
                "clash", "vote", "amplify", "provoke", "modular", "splice", "transfigure", "soulbond",
                "bestow", "partner", "changeling", "devour", "evoke", "dredge", "delve",
                "phasing", "rampage", "horsemanship", "banding", "bushido", "soulshift", "ninjutsu",
                "flanking", "buyback", "fading", "vanishing", "kicker", "madness", "storm",
                "affinity", "sunburst", "convoke", "transmute", "bloodthirst", "poisonous", "myriad",
                "skulk", "fabricate", "embalm", "eternalize", "afflict", "ascend", "jump-start",
                "double", "triple", "infinity", "start-your-engines", "max-speed",
                "job-select", "space-sculptor", "web-slinging", "firebending", "airbend", "earthbend",
                "waterbend", "collect-evidence"} - {
    # distinctive enough in rulings to count on any mention
    "kicker", "madness", "storm", "affinity", "sunburst", "convoke", "transmute", "bloodthirst",
    "myriad", "skulk", "fabricate", "embalm", "eternalize", "afflict", "ascend", "jump-start",
    "buyback", "flanking", "ninjutsu", "bushido", "soulshift", "horsemanship", "dredge", "delve",
    "evoke", "changeling", "bestow", "soulbond", "extort", "outlast", "renown", "ingest", "emerge",
    "escalate", "improvise", "aftermath", "mentor", "afterlife", "spectacle", "mutate", "foretell",
    "blitz", "toxic", "compleated", "incubate", "detain", "planeswalk", "clash", "vote",
    "amplify", "provoke", "modular", "splice", "transfigure", "replicate", "forecast", "ripple",
    "hideaway", "prowl", "reinforce", "conspire", "retrace", "unleash", "overload", "cipher",
    "exploit", "melee", "undaunted", "fading", "vanishing", "poisonous", "graft", "rampage",
    "phasing", "banding", "manifest", "double", "collect-evidence", "read-ahead", "web-slinging",
    "firebending", "airbend", "earthbend", "waterbend", "partner", "devour", "echo"}

# Symbols (regex sources) that name a mechanic by themselves.
SYMBOLS: dict[str, list[str]] = {
    "energy": [r"\{E\}"],
    "phyrexian-mana": [r"\{(?:[WUBRGC0-9]/)?(?:[WUBRG]/)?P\}"],
    "hybrid-mana": [r"\{(?:[WUBRG]|2|C)/[WUBRG]\}"],
    "x-costs": [r"\{X\}"],
    "infinity": [r"∞"],
}

# Phrases that describe a mechanic without naming it (regex sources, English).
REMINDERS: dict[str, list[str]] = {
    "proliferate": [r"choose any number of permanents and/or players",
                    r"another counter of each kind",
                    r"one of each kind of counter",
                    r"(?:get|gets|getting) additional counters",
                    r"add another counter to"],
    "mana-abilities": [r"tapped for mana",
                       r"produc(?:e|es|ed|ing) (?:\w+ ){0,5}mana\b",
                       r"mana of an undefined type"],
    # the variable X itself, written as a capital letter on its own (tag guidelines: X in a cost or effect)
    "x-costs": [r"\bX in (?:its|the|a|that|their) (?:mana )?costs?", r"\bX is (?:0|zero)\b", r"the value of X\b",
                r"(?-i:X)"],
    "ascend": [r"city['’]s blessing"],
    # mill's Oracle wording before the keyword action (CR 701.17, 2020): "puts the top two cards of their
    # library into their graveyard"; not a choice to put a card looked at there ("you may put", "don't put":
    # Search for Azcanta)
    "mill": [r"(?<!n't )(?<!not )(?<!may )(?<!to )put(?:s|ting)? the top (?:\w+ ){0,2}cards? of "
             r"(?:his or her|their|your|its owner['’]s|that player['’]s) library into "
             r"(?:his or her|their|your|its owner['’]s|that player['’]s) graveyard"],
    "crime": [r"commit(?:s|ted|ting)? (?:a )?crimes?"],
    "daybound-and-nightbound": [r"it (?:becomes|became) (?:day|night)\b"],
    "venture-into-the-dungeon": [r"complet(?:e|es|ed|ing) a dungeon"],
}

# The named non-keyword mechanics of PRODUCT.md, "Mechanics" (id, printed name, kind, forms).
NAMED = [
    ("plus-one-counters", "+1/+1 counters", "counters", [r"\+1/\+1 counters?"]),
    ("minus-one-counters", "-1/-1 counters", "counters", [r"-1/-1 counters?"]),
    ("shield-counters", "Shield counters", "counters", [r"shield counters?"]),
    ("poison-counters", "Poison counters", "counters", [r"poison counters?", "poisoned"]),
    ("energy", "Energy", "counters", [r"energy", r"energy counters?"]),
    ("phyrexian-mana", "Phyrexian mana", "mana", [r"phyrexian mana", r"phyrexian (?:mana )?symbols?",
                                                  r"phyrexian hybrid"]),
    ("hybrid-mana", "Hybrid mana", "mana", [r"hybrid", r"hybrid mana", r"hybrid (?:mana )?symbols?"]),
    ("x-costs", "X costs", "mana", [r"X costs?"]),
    ("crime", "Crime", "other", [r"crime(?!\s*//)", r"crimes"]),
    ("mana-abilities", "Mana abilities", "other", [r"mana abilit(?:y|ies)"]),
    ("state-based-actions", "State-based actions", "other", [r"state-based actions?"]),
    ("two-headed-giant", "Two-Headed Giant", "other", [r"two-headed giant"]),
]

# Glossary entries of the bilingual CR that name the non-keyword mechanics in Chinese.
GLOSSARY_ZH = {
    "Shield Counter": "shield-counters", "Poison Counter": "poison-counters", "Poisoned": "poison-counters",
    "Energy Symbol": "energy", "Phyrexian Mana Symbol": "phyrexian-mana",
    "Hybrid Mana Symbols": "hybrid-mana", "Crime": "crime", "Mana Ability": "mana-abilities",
    "State-Based Actions": "state-based-actions", "Two-Headed Giant Variant": "two-headed-giant",
    "City’s Blessing": "ascend", "Totem Armor (Obsolete)": "umbra-armor", "Daybound": "daybound-and-nightbound",
    "Nightbound": "daybound-and-nightbound",
}

# Chinese names used by the release notes (2014-2024) beside the CR translation's, and short forms.
ZH_EXTRA: dict[str, list[str]] = {
    "plus-one-counters": ["+1/+1指示物"], "minus-one-counters": ["-1/-1指示物"],
    "shield-counters": ["盾指示物"], "energy": ["能量", "{能}"], "crime": ["犯罪"],
    "poison-counters": ["中毒指示物"], "phyrexian-mana": ["非瑞克西亚法术力"], "hybrid-mana": ["混血法术力", "混血"],
    "mana-abilities": ["法术力异能"], "two-headed-giant": ["双头巨人"], "x-costs": ["{X}"],
    "umbra-armor": ["图腾铠甲", "替身甲"], "explore": ["探险"], "landwalk": ["沼泽行者", "海岛行者", "森林行者",
                                                                   "山脉行者", "平原行者"],
    "monstrosity": ["已蛮化"], "daybound-and-nightbound": ["昼形", "夜形"],
    "venture-into-the-dungeon": ["地城"], "ascend": ["城市祝福"],
    # the CR translation's words for a keyword's states: phase out / phase in (702.26), suspected (701.58a 已遭疑)
    "phasing": ["跃离", "跃回"], "suspect": ["遭疑"],
}

# Chinese names as regular expressions where a plain string would match inside other words.
ZH_PATTERNS: dict[str, list[str]] = {
    "x-costs": [r"(?<![A-Za-z])X(?![A-Za-z]|-[A-Za-z])"],     # the variable X in Chinese text (X数值, X为3)
    "mill": [r"(?<!折)磨(?:[0-9X一二两三四五六七八九十数]|牌)"],
    "jump-start": [r"再起(?!动)"],          # 再起动 is "activate again"
    "explore": [r"探险(?!家)"],             # 探险家 is "explorer"
    "ward": [r"守护(?:异能|\s*[{0-9]|～)"],  # 守护者 is "guardian"
    # protection from X is 反X保护 in the CR translation (702.16: 反白保护, 反瞬间保护, 反绿或反白保护)
    "protection": [r"反(?!击)[^\s，。；、：「」（）]{1,6}?保护"],
}
ZH_DROP = {"mill": {"磨"}, "jump-start": {"再起"}, "explore": {"探险"}, "ward": {"守护"}}

# Chinese names that may be ordinary words: only a keyword use counts (具有/获得/失去 X, X异能/费用, 「X」),
# when the name is a word of the general dictionary (everyday_words) or learned so (learned_keyword_only).
ZH_KEYWORD_ONLY = {"enchant", "protection", "ward", "banding", "rampage", "amplify", "offering", "conspire",
                   "persist", "fear", "convert", "suspect", "foretell", "demonstrate", "assist", "prototype",
                   "bargain", "disguise", "plot", "squad", "visit", "support", "meld", "recover", "forecast",
                   "level-up", "miracle", "devour", "set-in-motion", "mill", "vote", "equip",
                   "learn", "discover", "manifest", "adapt", "training", "backup", "escape", "riot", "surge", "emerge",
                   "partner", "mentor", "craft", "solved", "ravenous", "encore", "companion", "undaunted",
                   "aftermath", "fabricate", "epic", "champion", "haunt", "absorb", "frenzy", "hideaway",
                   "cleave", "exploit", "dash", "tribute", "afflict", "spree", "saddle", "casualty",
                   "reconfigure", "harness", "incubate", "bolster", "fading", "vanishing", "echo", "clash"}


def learned_keyword_only() -> frozenset[str]:
    """The mechanics whose Chinese name is an everyday word, learned from the real corpus's
    translations by scripts/learn_zh_context.py (ingest/data/zh_context.json)."""
    path = Path(__file__).resolve().parents[1] / "ingest" / "data" / "zh_context.json"
    return frozenset(json.loads(path.read_text("utf-8"))["keyword_only"])


def cr_lines(path: Path) -> list[str]:
    """The lines of the CR text: BOM dropped, split on CR, LF or CRLF."""
    text = path.read_bytes().decode("utf-8-sig")
    return re.split(r"\r\n|\r|\n", text)


def keyword_headings(lines: list[str]) -> list[tuple[str, str, str]]:
    """(rule number, printed name, kind) of every 701.N / 702.N heading from 701.2 / 702.2 on, in order.

    The contents list near the top repeats section titles only (``701. Keyword Actions``), so headings are
    the lines ``70[12].N. Name`` whose text is short (a name, not a rule sentence).
    """
    seen, out = set(), []
    for line in lines:
        m = re.match(r"^(70[12])\.(\d+)\. (.+?)\s*$", line)
        if not m or int(m.group(2)) < 2 or len(m.group(3)) > 45 or m.group(3).endswith("."):
            continue
        number = f"{m.group(1)}.{m.group(2)}"
        if number in seen:
            continue
        seen.add(number)
        out.append((number, m.group(3), KIND_ACTION if m.group(1) == "701" else KIND_ABILITY))
    return out


def mechanic_id(name: str) -> str:
    """Lowercase hyphenated id: ``For Mirrodin!`` -> ``for-mirrodin``, ``∞ (Infinity)`` -> ``infinity``."""
    paren = re.search(r"\(([^)]+)\)", name)
    if paren and not re.sub(r"\([^)]*\)", "", name).strip(" ∞"):
        name = paren.group(1)
    name = re.sub(r"[!?.,’']", "", name).strip().lower()
    return re.sub(r"[\s/]+", "-", name)


IRREGULAR = {"fight": ["fights", "fought", "fighting"], "surveil": ["surveils", "surveilled", "surveilling"],
             "set": ["sets", "setting"], "open": ["opens", "opened", "opening"], "behold": ["beholds", "beheld"],
             "monstrosity": [], "travel": ["travels", "traveled", "travelled", "traveling"]}


def inflect(verb: str) -> list[str]:
    """A verb's third person, past and -ing forms (``scry`` -> scries, scried, scrying)."""
    if verb in IRREGULAR:
        return [verb] + IRREGULAR[verb]
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return [verb, verb[:-1] + "ies", verb[:-1] + "ied", verb + "ing"]
    if verb.endswith("e"):
        return [verb, verb + "s", verb + "d", verb[:-1] + "ing"]
    if re.search(r"(?:s|sh|ch|x|z)$", verb):
        return [verb, verb + "es", verb + "ed", verb + "ing"]
    if re.search(r"[^aeiou][aeiou][bdgmnpt]$", verb) and verb not in {"manifest", "abandon", "open"}:
        return [verb, verb + "s", verb + verb[-1] + "ed", verb + verb[-1] + "ing"]
    return [verb, verb + "s", verb + "ed", verb + "ing"]


def english_forms(mid: str, name: str, kind: str) -> list[str]:
    """Regex sources for the printed name and its inflections (keyword actions inflect their first word)."""
    if mid in ONLY_FORMS:
        return ONLY_FORMS[mid]
    base = re.sub(r"\s*\([^)]*\)", "", name).rstrip("!").lower()
    forms = [re.escape(base).replace(r"\ ", " ")]
    if kind == KIND_ACTION:
        words = base.split(" ")
        at = len(words) - 1 if words[0] == "time" else 0     # "time travel" inflects its verb, the last word
        if words[0] != "the":
            for form in inflect(words[at])[1:]:
                inflected = words[:at] + [form] + words[at + 1:]
                forms.append(re.escape(" ".join(inflected)).replace(r"\ ", " "))
    forms += EXTRA_FORMS.get(mid, [])
    return list(dict.fromkeys(forms))


def chinese_names(bilingual: dict, terms_text: str) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(English keyword name -> Chinese name from CR 701/702 headings, mechanic id -> Chinese glossary names)."""
    names: dict[str, str] = {}
    for chapter in bilingual["main"]:
        for section in chapter.get("subrules", []):
            if section.get("chapter") in ("701.", "702."):
                for rule in section["subrules"][1:]:
                    if rule["zh"] and rule["zh"] != rule["en"]:
                        names[rule["en"].strip()] = rule["zh"].strip().rstrip("！!")
    for line in terms_text.splitlines():
        m = re.match(r"^([A-Za-z][^:：]+)[:：]\s*(\S+)", line)
        if m:
            names.setdefault(m.group(1).strip(), re.sub(r"（.*", "", m.group(2)))
    glossary: dict[str, list[str]] = {}
    for term in bilingual.get("glossary", []):
        mid = GLOSSARY_ZH.get(term["enname"].strip())
        if mid:
            for zh in re.split(r"/", re.sub(r"（[^）]*）", "", term["zhname"])):
                if zh.strip():
                    glossary.setdefault(mid, []).append(zh.strip())
    return names, glossary


def build(shared: Path) -> list[dict]:
    """The vocabulary records, keyword actions first, then abilities, then the named mechanics."""
    lines = cr_lines(shared / "realdata/comprules-rulesraker/MagicCompRules.txt")
    zh_root = shared / "realdata/zh-cn-release-notes-athenacykes"
    bilingual = json.loads((zh_root / "scripts/20240607.json").read_text("utf-8"))
    terms = (zh_root / "plain_text/translatedterms.txt").read_text("utf-8")
    zh_names, glossary = chinese_names(bilingual, terms)
    records = []
    for rule, name, kind in keyword_headings(lines):
        mid = mechanic_id(name)
        if mid in GENERIC_ACTIONS:
            continue
        zh = [zh_names[name]] if name in zh_names else []
        records.append(record(mid, re.sub(r"\s*\([^)]*\)", "", name) if mid != "infinity" else "Infinity",
                              kind, rule, english_forms(mid, name, kind), zh + glossary.get(mid, [])))
    for mid, name, kind, forms in NAMED:
        records.append(record(mid, name, kind, "", forms, glossary.get(mid, [])))
    return records


def record(mid: str, name: str, kind: str, rule: str, forms: list[str], zh: list[str]) -> dict:
    """One output record with the symbol, reminder and Chinese tables merged in."""
    zh_all = [z for z in dict.fromkeys(zh + ZH_EXTRA.get(mid, []))
              if z and z != "X" and z not in ZH_DROP.get(mid, set())]
    return {"id": mid, "name": name, "kind": kind, "rule": rule, "forms": forms,
            "symbols": SYMBOLS.get(mid, []), "reminders": REMINDERS.get(mid, []),
            "keyword_only": mid in KEYWORD_ONLY, "zh": zh_all, "zh_patterns": ZH_PATTERNS.get(mid, []),
            "zh_keyword_only": mid in learned_keyword_only()
            or mid in ZH_KEYWORD_ONLY and any(z in everyday_words() for z in zh_all)}


@lru_cache(maxsize=1)
def everyday_words() -> frozenset[str]:
    """The words of jieba's general Chinese dictionary (jieba/dict.txt, one ``word frequency tag`` per
    line): a mechanic's Chinese name found there is also an everyday word (投票 "vote", 保护 "protect"),
    so only a keyword use tags it; a coined name (行侣 companion, 逸脱 escape, 乘驾 saddle) is not."""
    import jieba

    path = Path(jieba.__file__).parent / "dict.txt"
    return frozenset(line.split(" ", 1)[0] for line in path.read_text("utf-8").splitlines() if line)


def glossary_entries(lines: list[str]) -> dict[str, str]:
    """Term -> definition (its lines joined) of the CR glossary: from the last ``Glossary`` line to
    ``Credits``; an entry is a term line, then its definition lines, then a blank line."""
    start = max(i for i, line in enumerate(lines) if line.strip() == "Glossary")
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == "Credits")
    entries: dict[str, str] = {}
    term = None
    for line in lines[start + 1:end]:
        if not line.strip():
            term = None
        elif term is None:
            term = line.strip()
            entries[term] = ""
        else:
            entries[term] = (entries[term] + " " + line.strip()).strip()
    return entries


def _cited_mechanic(definition: str, by_rule: dict[str, str]) -> str | None:
    """The mechanic id of the only CR 701/702 rule a definition cites, or None (none, or several)."""
    cited = {by_rule[r] for r in re.findall(r"\brules? (70[12]\.\d+)\b", definition) if r in by_rule}
    return cited.pop() if len(cited) == 1 else None


def glossary_names(lines: list[str], records: list[dict]) -> dict:
    """Names the CR glossary gives a vocabulary mechanic besides its own, and former keywords.

    ``aliases``: lower-case name -> mechanic id, for each glossary term that is not a mechanic's name
    and whose definition cites exactly one CR 701/702 rule of the vocabulary (``Totem Armor (Obsolete)``
    -> umbra-armor, rule 702.89; ``Vehicle`` -> crew, 702.122), or is ``See X.`` for such a term
    (``Swampwalk: See Landwalk.``). A term with numbered senses (``Face Down``: 1. ... 2. ...) is a
    general game term and is left out; a term naming several names (``Kicker, Kicked``) gives each,
    bracketed placeholders (``Venture into [Quality]``) none. ``ability_words``: lower-case name -> the
    glossary's sentence, for keywords that are now ability words with no rules meaning (Threshold).
    """
    entries = glossary_entries(lines)
    by_rule = {r["rule"]: r["id"] for r in records if r["rule"]}
    own = {r["id"] for r in records} | {r["name"].lower() for r in records}
    aliases: dict[str, str] = {}
    former: dict[str, str] = {}
    for term, definition in entries.items():
        word = re.fullmatch(r"“(.+?)” used to be a keyword ability\. It is now an ability word.*", definition)
        if word:
            former[word.group(1).lower()] = definition
            continue
        if re.search(r"(?:^|\s)1\. ", definition):
            continue
        see = re.fullmatch(r"See ([^.]+)\.", definition)
        target = _cited_mechanic(entries.get(see.group(1), "") if see else definition, by_rule)
        if see and target is None:
            target = next((r["id"] for r in records if r["name"] == see.group(1)), None)
        if target is None:
            continue
        for name in re.split(r",\s*", re.sub(r"\s*\(Obsolete\)", "", term)):
            name = name.strip("“”\"").lower()
            if name and "[" not in name and name not in own and mechanic_id(name) not in own:
                aliases[name] = target
    return {"aliases": dict(sorted(aliases.items())), "ability_words": dict(sorted(former.items()))}


def main(argv: list[str]) -> int:
    """Print the vocabulary JSON on stdout; with --glossary, the glossary's other names of mechanics."""
    glossary = "--glossary" in argv
    argv = [a for a in argv if a != "--glossary"]
    shared = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[2] / "shared"
    records = build(shared)
    if glossary:
        lines = cr_lines(shared / "realdata/comprules-rulesraker/MagicCompRules.txt")
        records = glossary_names(lines, records)
    json.dump(records, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
