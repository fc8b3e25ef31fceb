"""The tagger (ingest/tag.py): vocabulary, whole-word forms, masked card names, keyword uses, symbols, Chinese."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rulings.ingest.model import Entry, Ruling, Source, Variant
from rulings.ingest.tag import find_mechanic, mechanics_in, tag, vocabulary


def ruling(text, card=None, lang="en"):
    return Ruling(text=text, source=Source("test.txt", "text"), card=card, lang=lang)


def test_vocabulary_covers_cr_keywords_and_named_mechanics(shared):
    ids = {m.id for m in vocabulary()}
    # 701.2-701.68 are 67 keyword actions, 15 of them generic; 702.2-702.189 are 188 keyword abilities;
    # PRODUCT.md names 12 more mechanics.
    kinds = [m.kind for m in vocabulary()]
    assert kinds.count("keyword action") == 67 - 15
    assert kinds.count("keyword ability") == 188
    assert len(ids) == len(kinds) == 52 + 188 + 12
    for generic in ("activate", "counter", "destroy", "exile", "sacrifice", "tap-and-untap"):
        assert generic not in ids
    for wanted in ("double-strike", "venture-into-the-dungeon", "for-mirrodin", "daybound-and-nightbound",
                   "jump-start", "living-weapon", "x-costs", "two-headed-giant", "crime"):
        assert wanted in ids
    assert all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", i) for i in ids)


def test_derive_script_reproduces_the_committed_table(shared):
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("derive", root / "scripts/derive_mechanics.py")
    derive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(derive)
    committed = json.loads((root / "ingest/data/mechanics.json").read_text("utf-8"))
    assert derive.build(shared) == committed


def test_derive_script_reproduces_the_committed_glossary_names(shared):
    """ingest/data/mechanic_names.json is what scripts/derive_mechanics.py --glossary makes of the real CR."""
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("derive", root / "scripts/derive_mechanics.py")
    derive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(derive)
    lines = derive.cr_lines(shared / "realdata/comprules-rulesraker/MagicCompRules.txt")
    names = derive.glossary_names(lines, derive.build(shared))
    assert names == json.loads((root / "ingest/data/mechanic_names.json").read_text("utf-8"))
    # the CR glossary's renamed, variant and related names (checked by hand against MagicCompRules.txt)
    assert {k: names["aliases"][k] for k in ("totem armor", "vehicle", "swampwalk", "wizardcycling",
                                             "megamorph", "equipment", "trample over planeswalkers")} == {
        "totem armor": "umbra-armor", "vehicle": "crew", "swampwalk": "landwalk", "wizardcycling": "cycling",
        "megamorph": "morph", "equipment": "equip", "trample over planeswalkers": "trample"}
    assert "face down" not in names["aliases"] and "phase" not in names["aliases"]      # general game terms
    assert sorted(names["ability_words"]) == ["imprint", "threshold"]


@pytest.mark.parametrize("name,mechanic", [
    ("totem-armor", "umbra-armor"), ("Totem Armor", "umbra-armor"), ("umbra_armor", "umbra-armor"),
    ("Proliferated", "proliferate"), ("vehicle", "crew"), ("Vehicles", "crew"), ("Swampwalk", "landwalk"),
    ("City's Blessing", "ascend"), ("phased out", "phasing"), ("飛行", "flying"), ("threshold", None),
])
def test_find_mechanic_by_old_and_glossary_names(name, mechanic):
    found = find_mechanic(name)
    assert (found.id if found else None) == mechanic


@pytest.mark.parametrize("name,message", [
    ("prolifrate", "unknown mechanic 'prolifrate'; closest: proliferate, populate, replicate"),
    ("flyng", "unknown mechanic 'flyng'; closest: flying, flanking"),
    ("xyzzy", "unknown mechanic 'xyzzy'; 'rulings mechanics' lists them"),
    ("--", "'--' names no mechanic; give an id, a printed name or a Chinese name"),
    ("Threshold", "'Threshold' is an ability word, not a mechanic: it used to be a keyword ability and now has "
                  "no rules meaning (CR glossary); search for the word: rulings search threshold"),
])
def test_resolve_mechanic_explains_what_it_cannot_resolve(name, message):
    from rulings.ingest.errors import QueryError, UnknownMechanic
    from rulings.ingest.tag import resolve_mechanic

    with pytest.raises(UnknownMechanic) as raised:
        resolve_mechanic(name)
    assert str(raised.value) == message and isinstance(raised.value, QueryError)


def test_chinese_names_from_the_bilingual_rules():
    zh = {m.id: m.zh for m in vocabulary()}
    assert "增殖" in zh["proliferate"]
    assert "进化" in zh["evolve"]
    assert "飞行" in zh["flying"]
    assert {"能量", "{能}"} <= set(zh["energy"])
    assert "犯罪" in zh["crime"]
    assert sum(1 for names in zh.values() if names) >= 200


def test_card_names_are_masked():
    assert mechanics_in("Evolving Wilds's ability puts a basic land onto the battlefield tapped.",
                        ["Evolving Wilds"]) == ()
    assert "unearth" not in mechanics_in(
        "Unearthly Power — The creature gains indestructible until end of turn.", ["Unearthly Power"])
    assert "crime" not in mechanics_in("Crime and Punishment each have their own mana cost.",
                                       ["Crime // Punishment"])
    assert mechanics_in("If Kestia's ability triggers, you draw a card.", ["Kestia, the Cultivator"]) == ()


def test_other_card_names_in_mid_sentence_are_not_keywords():
    assert "evolve" not in mechanics_in("You may sacrifice a land such as Evolving Wilds to pay the cost.")


def test_keywords_capitalised_as_older_rulings_write_them_are_keywords():
    assert {"flying", "reach"} <= set(mechanics_in(
        "Creatures with the Reach ability (such as Giant Spider) don't actually have Flying, so they can't block it."))
    assert "morph" in mechanics_in("The trigger occurs when you use the Morph ability to turn the card face up.")
    assert "trample" in mechanics_in("Each creature you control gains Trample and haste until end of turn.")
    # a capitalised word had by an object but going on as a name stays a name
    assert "storm" not in mechanics_in("If you have Storm Crow, you may tap it.")
    assert "evolve" not in mechanics_in("You may sacrifice a land with Evolving Wilds to pay the cost.")


def test_flash_and_flashback_are_different_words():
    flashback = mechanics_in("A spell cast using flashback will always be exiled afterward.")
    assert "flashback" in flashback and "flash" not in flashback
    assert "flash" in mechanics_in("Because Swift Elk has flash, you can cast it any time you could cast an instant.")


def test_keyword_uses_of_plain_words():
    assert "reach" in mechanics_in("A creature with reach can block creatures with flying.")
    assert "reach" not in mechanics_in("If the library's top card is out of reach, nothing happens.")
    assert "persist" in mechanics_in("If a creature with persist dies, it returns.")
    assert "persist" not in mechanics_in("These effects persist until end of turn.")
    assert "convert" not in mechanics_in("Trophy Mage finds an artifact card with converted mana cost exactly 3.")
    assert "double" not in mechanics_in("The creature gains double strike until end of turn.")
    assert "double" not in mechanics_in("A double-faced card enters the battlefield front face up.")


def test_symbols():
    assert "energy" in mechanics_in("Pay {E}{E}: Target creature gets +1/+1 until end of turn.")
    assert "phyrexian-mana" in mechanics_in("You may pay 2 life rather than {W/P} to cast it.")
    assert "phyrexian-mana" not in mechanics_in("Phyrexian Obliterator is a Phyrexian creature with trample.")
    assert "hybrid-mana" in mechanics_in("{R/G} can be paid with either red or green mana.")
    assert "hybrid-mana" not in mechanics_in("{G/P} can be paid with {G} or 2 life.")
    assert "x-costs" in mechanics_in("If you cast it for {X}{R}, X is 0 in every other zone.")


def test_counter_target_spell_is_not_a_counter_kind():
    assert mechanics_in("Counter target spell. Its controller puts it on the bottom of their library.") == ()
    assert mechanics_in("Put a +1/+1 counter on target creature.") == ("plus-one-counters",)


def test_reminder_phrases_describe_proliferate():
    text = ("If a permanent or player has more than one kind of counter on them, and you choose for that "
            "permanent or player to get additional counters, that permanent or player must get one of each "
            "kind of counter they already have.")
    assert "proliferate" in mechanics_in(text)


def test_mills_oracle_wording_before_the_keyword_action_is_mill():
    # fresh tag set 4, U0044 (Vicious Rumors): "puts the top card of their library into their graveyard"
    assert "mill" in mechanics_in("Each of those players discards a card and puts the top card of their library "
                                  "into their graveyard, and you gain 1 life.")
    assert "mill" in mechanics_in("After putting the top three cards of your library into your graveyard, you may "
                                  "choose a creature card there.")
    # a card looked at and put there by choice is not mill (Search for Azcanta)
    assert "mill" not in mechanics_in("If you don't put the top card of your library into your graveyard, you'll "
                                      "leave it on top of your library.")
    assert "mill" not in mechanics_in("You may put the top card of your library into your graveyard.")


def test_a_space_between_latin_and_han_in_a_chinese_name():
    # fresh tag set 4, U0037: the release notes also write "+1/+1 指示物" with a typesetter's space
    assert "plus-one-counters" in mechanics_in("此时再在其上放置一个或多个+1/+1 指示物，也不会使其成为未受阻挡。")
    assert "plus-one-counters" in mechanics_in("此时再在其上放置一个或多个+1/+1指示物，也不会使其成为未受阻挡。")
    assert "plus-one-counters" not in mechanics_in("该生物得+1/+1 直到回合结束。")


def test_old_name_totem_armor_is_umbra_armor():
    assert "umbra-armor" in mechanics_in("Totem armor doesn't destroy the Aura.")


def test_chinese_rulings():
    assert "proliferate" in mechanics_in("你可以在增殖时选择任何具有指示物的永久物。", ["灭绝的阴影"])
    assert "evolve" in mechanics_in("如果具进化异能的生物离开战场，进化异能不会结算。")
    assert "energy" in mechanics_in("你可以支付{能}{能}。")
    assert "plus-one-counters" in mechanics_in("该生物上面会有额外的＋１/＋１指示物。")
    assert "crime" in mechanics_in("牌手犯罪时，此异能触发。")
    assert "jump-start" not in mechanics_in("你可以在其结算之后再起动其异能。")


def test_seed_crime_rulings(shared):
    seed = (shared / "seeds" / "003_14c4c19089e5e67c.txt").read_text("utf-8")
    crime_texts = [line for line in seed.splitlines() if "crime" in line]
    assert len(crime_texts) == 5
    for text in crime_texts:
        assert "crime" in mechanics_in(text, ["巡逻和平使者"])


def test_tag_unions_variant_tags():
    a = ruling("Players can respond to a spell whose effect includes proliferating.", "Contentious Plan")
    b = ruling("Players can respond to a spell whose effect includes proliferating. Pay {E}.", "Aether Gust")
    entry = Entry(id="r-1", text=a.text, lang="en", variants=[Variant(a), Variant(b, 0.9)])
    tag([entry])
    assert entry.mechanics == ["energy", "proliferate"]


def test_find_mechanic_by_any_name():
    assert find_mechanic("proliferate").id == "proliferate"
    assert find_mechanic("Proliferated").id == "proliferate"
    assert find_mechanic("增殖").id == "proliferate"
    assert find_mechanic("double strike").id == "double-strike"
    assert find_mechanic("Totem Armor").id == "umbra-armor"
    assert find_mechanic("+1/+1 counters").id == "plus-one-counters"
    assert find_mechanic("prolifrate") is None


def test_traditional_chinese_names_resolve():
    from rulings.ingest.tag import find_mechanic
    assert find_mechanic("飛行").id == "flying"
    assert find_mechanic("飞行").id == "flying"
    assert find_mechanic("增殖").id == "proliferate"


# --- the prefilter (mechanics_in tries only mechanics whose required strings occur) ------------------------

def _varied_texts(shared) -> list[tuple[str, list[str]]]:
    """(text, cards) of the gold file and the seeds, plus case, width and Unicode variants of some."""
    from rulings.ingest.read import read_file, walk
    pairs = []
    for line in (shared / "gold" / "mechanic-tags.jsonl").read_text("utf-8").splitlines():
        item = json.loads(line)
        pairs.append((item["text"], [item["card"]] if item.get("card") else []))
    for path in walk(shared / "seeds"):
        pairs += [(r.text, [r.card] if r.card else []) for r in read_file(path).rulings]
    odd = str.maketrans({"i": "ı", "s": "ſ", "I": "İ"})
    for text, cards in pairs[:200:4]:
        pairs += [(text.upper(), cards), (text.lower(), [c.upper() for c in cards]), (text.translate(odd), cards),
                  ("".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text), cards)]
    return pairs


def test_prefiltered_tagger_equals_trying_every_mechanic(shared):
    from rulings.ingest.tag import mechanics_in_plain
    pairs = _varied_texts(shared)
    assert len(pairs) > 400
    tagged = 0
    for text, cards in pairs:
        expected = mechanics_in_plain(text, cards)
        assert mechanics_in(text, cards) == expected, text
        tagged += bool(expected)
    assert tagged > 200                   # the comparison covers texts that do get tags


def test_prefiltered_tagger_on_one_long_text_equals_trying_every_mechanic(shared):
    """A whole file read as one ruling (hostile input): each required string is looked for once, not once per
    distinct word, and the result is still every mechanic's own answer."""
    from rulings.ingest.tag import mechanics_in_plain
    texts = [text for text, _ in _varied_texts(shared)[:400]]
    long_text = " ".join(texts)
    assert len(long_text) > 50_000
    expected = mechanics_in_plain(long_text)
    assert mechanics_in(long_text) == expected
    assert len(expected) > 40


def test_card_masking_equals_the_case_insensitive_regex(shared):
    from rulings.ingest.tag import CARD_MASK, _card_names, _zh_names, mask_cards, matching_text
    for text, cards in _varied_texts(shared) + [("Ætherize a Jötun; ÆTHER JÖTUN", ["Jötun", "Æther"])]:
        text = matching_text(text)
        expected = text
        for name in _card_names(tuple(cards)):
            if name not in _zh_names():
                expected = re.sub(re.escape(name), CARD_MASK, expected, flags=re.IGNORECASE)
        assert mask_cards(text, cards) == expected


def test_lowering_agrees_with_ignorecase_except_the_odd_characters():
    """The claims behind _candidates and _mask_name, checked on every code point."""
    import sys

    from rulings.ingest.tag import _CASE_ODD
    every = "".join(chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i < 0xE000)
    odd = set(_CASE_ODD.pattern.strip("[]"))
    lowering_to = {}
    for c in every:
        lowering_to.setdefault(c.lower(), set()).add(c)
    for code in range(128):
        char = chr(code)
        matched = set(re.findall(re.escape(char), every, re.IGNORECASE))
        lowers_alike = lowering_to[char.lower()]
        assert lowers_alike <= matched and matched - lowers_alike <= odd, char
    # lowering keeps the length except for an odd character, and never makes a caseless character
    assert [c for c in every if len(c.lower()) != 1] == ["\u0130"]
    assert not [c for c in every if c.lower() != c and c.lower() == c.lower().upper()]


def test_prefilter_strings_are_ascii_or_caseless_and_every_mechanic_has_some():
    from rulings.ingest.tag import _matcher_literals, _matchers, _plain_case
    literals = [_matcher_literals(m) for m in _matchers()]
    assert all(found for found in literals)
    assert all(_plain_case(s) for found in literals for s in found)
    by_id = dict(zip((m.id for m in _matchers()), literals))
    assert "proliferat" in by_id["proliferate"] and "增殖" in by_id["proliferate"]
    assert "{e}" in by_id["energy"]


def test_everyday_chinese_names_need_keyword_context(shared):
    """终止 is abandon's Chinese name and the everyday word "ends": the real corpus's translations
    (scripts/learn_zh_context.py) make it keyword-only, so an effect that ends is not abandon."""
    learned = json.loads((Path(__file__).resolve().parents[1] / "ingest/data/zh_context.json").read_text("utf-8"))
    assert "abandon" in learned["keyword_only"]
    assert learned["evidence"]["abandon"]["both"] == 0
    assert "abandon" not in mechanics_in("若这样会令此类效应的条件不再满足，则该效应便会终止。")
    assert "abandon" not in mechanics_in("就算导灵僧离开战场，其效应也不会终止。")
    assert "abandon" in mechanics_in("你可以「终止」一个持续性阴谋。")


def test_only_a_chinese_name_that_is_an_everyday_word_needs_keyword_context():
    """A name of jieba's general dictionary (投票 "vote", 伪装 "disguise") needs a keyword's context; a coined
    name (行侣 companion, 乘驾 saddle, 逸脱 escape) is the mechanic wherever it stands (scripts/derive_mechanics.py)."""
    keyword_only = {m.id: m.zh_keyword_only for m in vocabulary()}
    assert keyword_only["vote"] and keyword_only["disguise"] and keyword_only["abandon"]
    assert not keyword_only["companion"] and not keyword_only["saddle"] and not keyword_only["escape"]
    assert "companion" in mechanics_in("要满足乌墨理的行侣要求，你起始套牌中的每一张非地牌之间都必须有"
                                       "一个相同的牌张类别。")
    assert "saddle" in mechanics_in("如果某永久物成为一个已乘驾坐骑的复制品，则所成的复制品不会是已乘驾。")
    # quoted card text is rules text: there an everyday name is the keyword
    assert "vote" in mechanics_in("注记于「每当所有牌手完成投票时」触发的异能，会于所有牌手都已投票时触发一次。")
    assert "vote" not in mechanics_in("会于所有牌手都已投票时触发一次。")
    assert "abandon" not in mechanics_in("「直到回合结束」的效应终止。")
    # a name listed with another mechanic's (未匿伏或伪装: "neither cloaked nor disguised")
    assert "disguise" in mechanics_in("由于它未匿伏或伪装，因此不会具有守护{二}。")
    assert "disguise" not in mechanics_in("由于它未伪装，因此不会具有守护{二}。")


def test_a_chinese_name_before_a_time_word_is_not_a_keyword():
    """X之前 / X之后 ("before / after X") is the everyday word, not X之 (X's): 期限终止之前 is "before the
    duration ends" (not abandon), 受斥责结附之后 "after it is enchanted" (not the enchant keyword)."""
    assert "abandon" not in mechanics_in("泰菲力的最后一个异能会让已跃离的永久在所述期限终止之前不能跃回。")
    assert "enchant" not in mechanics_in("如果在受斥责结附之后，所结附的生物才获得异能，则它会保留该异能。")
    assert "enchant" in mechanics_in("斥责之结附异能只能指定生物为目标。")


def test_chinese_words_of_a_keywords_states_from_the_translated_rules():
    """跃离 / 跃回 are phase out / phase in (CR 702.26) and 已遭疑 is suspected (CR 701.58a) in the CR translation."""
    assert "phasing" in mechanics_in("跃离不会触发任何「离开战场」异能。类似地，跃回时也不会触发任何「进战场」异能。")
    assert "suspect" in mechanics_in("「已遭疑」此事并非可复制特征值。如果有永久物成为某个已遭疑生物的复制品，"
                                     "则它不会是已遭疑。")
    assert "phasing" not in mechanics_in("该生物离开战场时，此异能不会触发。")


def test_a_chinese_keyword_that_is_also_a_verb_is_the_verb_before_its_particle_or_object():
    """结附 (enchant) and 佩带 (equip) are also the verbs "attached" and "equipped": a list of states
    (有没有指示物、结附了灵气) or 佩带此武具的生物 is not about the keyword; quoted, it is the keyword."""
    copy_state = "它不会复制下列状态：该生物是否为横置，它上面有没有指示物、结附了灵气、装备了武具。"
    assert "enchant" not in mechanics_in(copy_state)
    assert "equip" not in mechanics_in("它攻击的对象与佩带此武具的生物可以不一样。")
    assert "enchant" in mechanics_in("每个魔符都是具有「结附于由你操控的生物」的灵气。")
    assert "equip" in mechanics_in("你可以于任何你能施放法术的时机起动佩带异能。")
    assert "support" in mechanics_in("你以支援此动作在单一目标上放置的+1/+1指示物仅限一个。")


def test_x_in_a_cost_or_effect_is_x_costs():
    """Tag guidelines: x-costs is X in a cost or effect, the variable written as a capital X."""
    assert "x-costs" in mechanics_in("The copy remembers the value chosen for X.")
    assert "x-costs" in mechanics_in("Ribbons causes the opposing team to lose two times X life.")
    assert "x-costs" in mechanics_in("That creature gets -X/-0, where X is how much less than 0 its power is.")
    assert "x-costs" in mechanics_in("X的数值会随着你坟墓场中牌张数量的变化而更新。")
    assert "x-costs" not in mechanics_in("Exile target creature. Its controller gains 3 life.")
    assert "x-costs" not in mechanics_in("The X-Men team up.")


def test_chinese_protection_from_a_quality_is_protection():
    # CR 702.16 in the Chinese translation: protection from X is 反X保护 (real rulings of 伊莫库 and 纳雅, 光辉之)
    imoku = "反瞬间保护意指：伊莫库不能成为瞬间咒语或瞬间牌来源之起动式或触发式异能的目标。"
    assert "protection" in mechanics_in(imoku)
    assert "protection" in mechanics_in("该生物具有反绿或反白保护，直到回合结束。")
    # 反击 is "counter" (a spell countered), never the protection template
    assert "protection" not in mechanics_in("如果该咒语被反击，则其他咒语都不会受影响。")


@pytest.mark.parametrize("text, card, expected", [
    # 预示成真 is the card As Foretold, not foretell (预示); seen on a real MH3 ruling of 司兽维齐尔
    ("你还可以支付替代性费用，例如化身费用或预示成真之效应的费用。", "司兽维齐尔", ()),
    ("预示成真的效应可以让你施放牌。", "", ()),
    ("大通联仆从的异能不会触发。", "", ()),              # 大通联仆从 holds 通联 (splice)
    # the mechanic beside the card name is still found
    ("预示成真的效应不能用来支付预示费用。", "", ("foretell",)),
    ("具有预示异能的牌被预示后，预示成真不会受影响。", "", ("foretell",)),
])
def test_a_chinese_card_name_holding_a_mechanic_name_makes_no_tag(text, card, expected):
    assert mechanics_in(text, [card] if card else []) == expected


def test_a_chinese_perfect_participle_before_a_noun_is_the_keywords_state():
    """已X的 + noun is the state a keyword gives (已融合的永久物 "a melded permanent", 已遭疑的生物 "a suspected
    creature"), tagged as the English participle is (``melded`` is a form of meld); the predicate 已X
    ("has ended", "has voted") and a name that is no participle stay untagged. Sentences from the real MH3 and
    MKM release notes."""
    assert "meld" in mechanics_in("如果以此法将一个已融合的永久物移回你手上，你会因此抓两张牌。")
    assert "suspect" in mechanics_in("你可以为冲动控官内莉博卡的第二个异能指定已遭疑的生物为目标。")
    assert "abandon" not in mechanics_in("如果该效应已终止，则该永久物会留在战场上。")
    assert "vote" not in mechanics_in("会于所有牌手都已投票时触发一次。")
    # enchant's English forms hold no participle: an Aura already attached is not the enchant keyword
    assert "enchant" not in mechanics_in("该生物上已结附的所有其他灵气会被置入坟墓场。")


def test_an_everyday_name_listed_with_another_keyword_is_the_keyword():
    """rebound and shadow are plain English words too, so alone they need a keyword's context; listed with
    a keyword's name ("such as suspend and rebound do", "such as shadow and flying") they are keywords
    (real BFZ and Magic Origins rulings); the everyday word beside a rules word that is no keyword is not."""
    assert "rebound" in mechanics_in("If a spell or ability lets an opponent cast a spell as part of its effect "
                                     "(such as suspend and rebound do), that opponent can't cast that spell.")
    assert "shadow" in mechanics_in("If an attacking creature has multiple evasion abilities, such as shadow and "
                                    "flying, a creature can block it only if it satisfies all of them.")
    assert "rebound" not in mechanics_in("The ball may rebound and hit the creature.")
