"""Small Whoosh indexes built in code for the engine-equivalence tests (tests/test_engine_*.py,
tests/test_index.py, tests/test_query.py, tests/test_analysis.py), so the proofs that our search code
gives Whoosh's own results run on every clone in seconds; conftest.py builds them once per session. The
real-data versions of the same tests use conftest's real_index (or the ruling texts of ../shared).

build_small writes 2,000 entries of random rules words (long posting lists); build_rulings writes
RULINGS, 32 made-up rulings written as rulings are (symbols, P/T modifiers, hyphenated and accented
names, long texts of many sentences, Chinese with and without punctuation)."""

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


# (text, lang, cards, set, mechanics, date): made up for the tests, in the style of real rulings.
RULINGS = (
    ("Players can respond to a spell or ability that will proliferate. When that spell or ability resolves, "
     "you choose which permanents and players get counters.", "en", ["Contentious Plan"], "WAR",
     ["proliferate"], "2019-05-03"),
    ("To proliferate, choose any number of permanents and/or players, then give each another counter of each "
     "kind already there. You can't choose cards in any zone other than the battlefield, even if they have "
     "counters on them. If a permanent chosen this way has both a +1/+1 counter and a -1/-1 counter on it, "
     "+1/+1 and -1/-1 counters are not put on it. Instead, the counters are removed as a state-based action "
     "(see rule 704.5q).", "en", ["Contentious Plan", "Thrummingbird"], "ONE", ["proliferate", "plus-one-counters"],
     "2023-02-04"),
    ("{T}: Add {G}. This is a mana ability and doesn't use the stack.", "en", ["Llanowar Elves"], "DOM", [],
     "2018-04-27"),
    ("Each +1/+1 counter on a creature gives it an extra point of power and toughness.", "en",
     ["Ajani Goldmane"], "XLN", ["plus-one-counters"], "2017-09-29"),
    ("If Lim-Dûl's Vault's ability is activated, you look at the top five cards of your library. You may "
     "pay 1 life any number of times; each time, shuffle those cards and look at the new top five.", "en",
     ["Lim-Dûl's Vault"], "ALL", [], "2004-10-04"),
    ("Trample doesn't affect how combat damage is dealt to blocking creatures. If the creature with trample "
     "is blocked, but there are no creatures blocking it when damage is assigned, all its damage is assigned "
     "to the player, planeswalker or battle it's attacking. Assigning lethal damage to a blocker takes into "
     "account damage already dealt to it this turn, including damage dealt by a creature with first strike "
     "or double strike during the first combat damage step.", "en", ["Giant Ox", "Colossal Dreadmaw"], "XLN",
     ["trample"], "2017-09-29"),
    ("A creature with flying can't be blocked except by creatures with flying or reach. A creature with "
     "flying can block a creature with or without flying.", "en", ["Sea Serpent of the Deep"], "RIX",
     ["flying"], "2018-01-19"),
    ("If the target creature is an illegal target by the time Strike Bolt tries to resolve, the spell doesn't "
     "resolve. You won't gain life. It can't be countered by spells or abilities.", "en", ["Strike Bolt"],
     "XLN", [], "2017-09-29"),
    ("Whenever a creature you control explores, reveal the top card of your library. If it's a land card, "
     "put it into your hand. Otherwise, put a +1/+1 counter on the creature, then you may put the revealed "
     "card into your graveyard. If a creature explores while it's not on the battlefield, you still reveal "
     "the card and may put it into your graveyard, but you won't put a +1/+1 counter on anything. A "
     "creature that explores more than once a turn checks each time; the lands revealed this way go to "
     "your hand one by one.", "en", ["Jadelight Ranger", "Merfolk Branchwalker"], "XLN",
     ["explore", "plus-one-counters"], "2017-09-29"),
    ("Sacrifice a creature: Target creature gets -1/-1 until end of turn. You can sacrifice the creature "
     "with that ability even if it's the target.", "en", ["Carrion Feeder"], "ONE", [], "2023-02-04"),
    ("If a token is copied, the copy is a token too. A copy of a token that's not on the battlefield ceases "
     "to exist the next time state-based actions are checked (rule 704.5d); it's still a token while it's "
     "on the stack.", "en", ["Wave", "Twincast"], "WAR", [], "2019-05-03"),
    ("If you cast a copy of a spell, you don't pay its mana cost. If it has {X} in its cost, X is 0 unless "
     "the effect that let you cast it says otherwise. The copy's mana value takes X into account only while "
     "it's on the stack. Once the copy resolves, it's put into its owner's graveyard, unless it's a "
     "permanent spell, in which case it enters the battlefield as a token. Spells cast this way can be "
     "countered like any other spell; abilities that trigger when a spell is cast trigger for them.", "en",
     ["Jace, the Mind Sculptor", "Twincast"], "RIX", [], "2018-01-19"),
    ("Jace, the Mind Sculptor's first ability lets you look at the top card of target player's library, "
     "then you may put that card on the bottom of that library. The player may be you or an opponent. "
     "Its second ability draws three cards, then you put two cards from your hand on top of your library "
     "in any order; you can put cards you just drew. Its third ability returns target creature to its "
     "owner's hand. Its last ability exiles all cards from target player's library, then that player "
     "shuffles their hand into their library.", "en", ["Jace, the Mind Sculptor"], "WAR", [], "2019-05-03"),
    ("The damage dealt by Æther Vial's ability isn't combat damage, even if the creature deals it during "
     "combat.", "en", ["Æther Vial"], "DST", [], "2004-10-04"),
    ("Double strike makes a creature deal first strike damage and regular combat damage. Removing double "
     "strike from a creature during the first combat damage step will stop it from dealing regular combat "
     "damage. Giving double strike to a creature with first strike after it has already dealt combat damage "
     "in the first combat damage step will allow the creature to deal damage in the second combat damage "
     "step, but giving it first strike after that step has no effect at all on it.", "en",
     ["Ajani Goldmane"], "ONE", ["double-strike"], "2023-02-04"),
    ("Shield counters: if a permanent with a shield counter on it would be dealt damage or destroyed, "
     "instead remove a shield counter from it.", "en", ["Ajani Goldmane"], "SNC", ["shield-counters"],
     "2022-04-29"),
    ("You choose the value of {X} as you cast the spell. If X is 0, the spell still resolves and does "
     "nothing else.", "en", ["Wave"], "RIX", ["x-costs"], "2018-01-19"),
    ("A land that enters the battlefield tapped can't be tapped for mana that turn. If an effect untaps it, "
     "you may tap it for mana again.", "en", ["Giant Ox"], "ONE", [], "2023-02-04"),
    ("Two-Headed Giant: each team shares a life total, and damage dealt to a player is dealt to that team's "
     "life total. An ability that says you lose life means your team loses that much life.", "en",
     ["Sea Serpent of the Deep"], "WAR", ["two-headed-giant"], "2019-05-03"),
    ("Kicker is an optional additional cost. If you pay the kicker cost of a spell, that spell is kicked; "
     "copies of a kicked spell are kicked too. A sacrificed creature's last known information is used.",
     "en", ["Strike Bolt"], "DOM", ["kicker"], "2018-04-27"),
    ("当你增殖时，你可以选择任意数目的永久物和/或牌手，然后在其上放置一个已有之各类指示物。", "zh-Hans",
     ["争议计划"], "WAR", ["proliferate"], "2019-05-03"),
    ("如果在你施放该咒语后，但在其结算之前，其中任一目标已不合法，则另一个目标仍会受到相应的影响。", "zh-Hans",
     ["闪电击"], "XLN", [], "2017-09-29"),
    ("每个+1/+1指示物会让该生物得+1/+1。进入战场的生物上面有三个+1/+1指示物。", "zh-Hans",
     ["阿耆尼金鬃"], "XLN", ["plus-one-counters"], "2017-09-29"),
    ("践踏异能不影响战斗伤害如何分配给进行阻挡的生物", "zh-Hans", ["巨牛"], "XLN", ["trample"], "2017-09-29"),
    ("横置此生物：抓一张牌。你可以在对手的回合中使用此异能。如果该生物在异能结算前离开战场，你仍会抓牌。",
     "zh-Hans", ["深海海蛇"], "RIX", [], "2018-01-19"),
    ("在双头巨人游戏中，此异能会让对手队伍失去2点生命", "zh-Hans", ["深海海蛇"], "WAR", ["two-headed-giant"],
     "2019-05-03"),
    ("你可以从坟墓场施放此咒语。若你以此法施放此咒语，则当它结算时，将它放逐而不是置入其拥有者的坟墓场。"
     "如果此咒语被反击，它会进入坟墓场，之后你可以再次施放它。", "zh-Hans", ["浪潮"], "ONE", [], "2023-02-04"),
    ("目标生物获得飞行异能直到回合结束", "zh-Hans", ["深海海蛇"], "RIX", ["flying"], "2018-01-19"),
    ("当你施放咒语时，检视你牌库顶的三张牌。将其中一张置于你手上，其余则以任意顺序置于你的牌库底。", "zh-Hans",
     ["杰斯"], "WAR", [], "2019-05-03"),
    ("护盾指示物：如果具有护盾指示物的永久物将受到伤害或被消灭，则改为从其上移去一个护盾指示物。", "zh-Hans",
     ["阿耆尼金鬃"], "SNC", ["shield-counters"], "2022-04-29"),
    ("The copied spell has the same value of X as the original, and its targets may be changed. If the "
     "copied spell is modal, the copy has the same mode; you can't choose a different one.", "en",
     ["Twincast"], "RIX", ["x-costs"], "2018-01-19"),
    ("If Sea Serpent of the Deep leaves the battlefield before its triggered ability resolves, you still "
     "draw the cards. Damage that would be dealt to it this turn is prevented only if it's still there.",
     "en", ["Sea Serpent of the Deep"], "RIX", [], "2018-01-19"),
)


def ruling_entry(number: int, ruling: tuple) -> dict:
    """The entry JSON shape (PRODUCT.md) of one of RULINGS: one variant, its own text."""
    text, lang, cards, set_code, mechanics, date = ruling
    return {"id": f"r-{number:010x}", "text": text, "lang": lang, "mechanics": sorted(mechanics),
            "cards": sorted(cards), "sets": [set_code], "date": date, "dates": [date],
            "variants": [{"text": text}], "related": [], "translations": [], "aliases": [], "repairs": []}


def build_rulings(folder: Path) -> list[dict]:
    """A full build of RULINGS' entries in folder (a generation folder); returns their shapes."""
    shapes = [ruling_entry(number, ruling) for number, ruling in enumerate(RULINGS)]
    index.write_documents(folder, iter(rows(shapes)), create=True)
    return shapes
