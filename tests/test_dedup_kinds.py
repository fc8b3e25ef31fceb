"""Kinds of restatement the verifier merges (issue 22), each beside a close pair of that kind that
must stay apart. Texts are rulings of ../shared/realdata (a refused twin is the real text with the
deciding word changed, named in its comment)."""

import json
from pathlib import Path

from rulings.ingest import compare
from rulings.ingest.compare import same_ruling
from rulings.ingest.normalise import fold, mask_card

ROOT = Path(__file__).resolve().parents[1]


def verdict(a, b, card_a=None, card_b=None):
    return same_ruling(mask_card(fold(a), card_a, a), mask_card(fold(b), card_b, b))


FREE_CAST = ('If you cast a card "without paying its mana cost," you can\'t choose to cast it for any alternative '
             'costs, such as {alt}. You can, however, pay additional costs. If the card has any mandatory '
             'additional costs, such as that of {card}, {tail}')


def test_example_card_swapped_is_the_same_but_the_card_acted_on_is_not():
    assert verdict(FREE_CAST.format(alt="emerge costs", card="Cathartic Reunion",
                                    tail="you must pay those to cast the card."),
                   FREE_CAST.format(alt="evoke costs", card="Tormenting Voice", tail="those must be paid to cast it."),
                   "Hazoret's Undying Fury", "Yennett, Cryptic Sovereign").same
    assert verdict("Dawn of Hope's first ability triggers just once for each life-gaining event, whether it's 1 life "
                   "from Vicious Rumors or 3 life from Creeping Chill.",
                   "The ability of Ajani's Pridemate triggers just once for each life-gaining event, whether it's 1 "
                   "life from Ajani's Welcome or 3 life from Revitalize.", "Dawn of Hope", "Ajani's Pridemate").same
    # the card searched for is what the effect does: another card there is another ruling
    assert not verdict("If the target creature becomes an illegal target for Ral's Outburst, the spell doesn't "
                       "resolve. You don't search for Ral, Caller of Storms.",
                       "If the target creature becomes an illegal target for Ral's Outburst, the spell doesn't "
                       "resolve. You don't search for Chandra, Pyrogenius.", "Ral's Outburst", "Ral's Outburst").same
    # the example pair's amounts are the example's (fresh pair L0047: both readers "same", 3 life against 7);
    # a number outside the example still guards
    assert verdict("Dawn of Hope's first ability triggers just once for each life-gaining event, whether it's 1 "
                   "life from Vicious Rumors or 3 life from Creeping Chill.",
                   "Dawn of Hope's first ability triggers just once for each life-gaining event, whether it's 2 "
                   "life from Ajani's Welcome or 3 life from Revitalize.", "Dawn of Hope", "Dawn of Hope").same
    assert not verdict("Dawn of Hope's first ability triggers just once for each life-gaining event, whether it's 1 "
                       "life from Vicious Rumors or 3 life from Creeping Chill.",
                       "Dawn of Hope's first ability triggers two times for each life-gaining event, whether it's 1 "
                       "life from Vicious Rumors or 3 life from Creeping Chill.", "Dawn of Hope", "Dawn of Hope").same


def test_card_names_table():
    """TABLES["names"]: other cards' names, never ordinary words or rules words."""
    names = set(json.loads((ROOT / "ingest/data/dedup_tables.json").read_text("utf-8"))["names"])
    assert {"tormenting voice", "creeping chill", "vicious rumors", "ajani's welcome"} <= names
    assert not {"spirit", "island", "flying", "finality", "fight"} & names
    assert compare._mask_other_cards("1 life from vicious rumors, a card named vicious rumors") == \
        "1 life from @, a card named vicious rumors"


def test_card_names_are_left_out_when_a_ruling_writes_them_in_lower_case():
    import importlib.util

    from rulings.ingest.model import Ruling, Source

    spec = importlib.util.spec_from_file_location("derive_dedup", ROOT / "scripts/derive_dedup_tables.py")
    derive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(derive)
    src = Source("t.txt", "text")
    rulings = [Ruling(text="You may hold the line until end of turn.", source=src, card="Hold the Line"),
               Ruling(text="Tormenting Voice has an additional cost.", source=src, card="Tormenting Voice"),
               Ruling(text="It is a Spirit.", source=src, card="Spirit")]
    assert derive.card_names(rulings, {"Cast Out"}, {"spirit"}) == ["cast out", "tormenting voice"]


def test_controller_named_by_role_against_you():
    assert verdict('If the spell that\'s copied is modal (that is, it says "Choose one —" or the like), the copy '
                   "will have the same mode. Its controller can't choose a different one.",
                   'If the spell Twincast copies is modal (that is, it says "Choose one —" or the like), the copy '
                   "will have the same mode. You can't choose a different one.", "Bonus Round", "Twincast").same
    assert verdict("The controller of the copy can't choose to pay any additional costs for the copy.",
                   "You can't choose to pay any additional costs for the copy.").same
    # another player is not the subject's controller: opponent stays apart (guard class: players)
    assert not verdict("The controller of the copy can't choose to pay any additional costs for the copy.",
                       "Each opponent can't choose to pay any additional costs for the copy.").same
    assert verdict("如果该咒语是模式咒语，则复制品的模式与之相同。其操控者不能选择不同的模式。",
                   "如果该咒语是模式咒语，则复制品的模式与之相同。你不能选择不同的模式。").same
    assert not verdict("如果该咒语是模式咒语，则复制品的模式与之相同。对手不能选择不同的模式。",
                       "如果该咒语是模式咒语，则复制品的模式与之相同。你不能选择不同的模式。").same



def test_its_controller_is_you_only_when_it_is_the_card_its_copy_or_spell():
    # Real rulings (fresh pair H0004, both readers: different): "its" is the exiled creature, anyone's.
    assert not verdict("If the creature's power is negative, its controller doesn't lose or gain life.",
                       "If Attendant of Vraska's power was negative, you don't lose or gain life.",
                       "Swords to Plowshares", "Attendant of Vraska").same
    assert not verdict("如果该生物的力量为负数，则其操控者不会失去或获得生命。",
                       "如果该生物的力量为负数，则你不会失去或获得生命。").same
    # after the copy or the spell, its controller is the one who controls the card: the same ruling
    assert verdict("If the copy's power is negative, its controller doesn't lose or gain life.",
                   "If the copy's power is negative, you don't lose or gain life.").same
    assert verdict("如果该复制品的力量为负数，则其操控者不会失去或获得生命。",
                   "如果该复制品的力量为负数，则你不会失去或获得生命。").same


def test_copied_object_named_another_way():
    assert verdict("However, effects based on any additional costs that were paid for the original spell are "
                   "copied as though those same costs were paid for the copy too.",
                   "However, effects based on any additional costs paid for the targeted spell are copied as "
                   "though those same costs were paid for the copy too.").same
    assert not verdict("However, effects based on any additional costs that were paid for the original spell are "
                       "copied as though those same costs were paid for the copy too.",
                       "However, effects based on any additional costs that were paid for the first spell are "
                       "copied as though those same costs were paid for the copy too.").same   # "first": content


def test_will_and_can_but_not_may():
    assert verdict("Doublecast's ability will copy any instant or sorcery spell, not just one with targets.",
                   "Geistblast's ability can copy any instant or sorcery spell, not just one with targets.",
                   "Doublecast", "Geistblast").same
    assert not verdict("Doublecast's ability will copy any instant or sorcery spell, not just one with targets.",
                       "Geistblast's ability may copy any instant or sorcery spell, not just one with targets.",
                       "Doublecast", "Geistblast").same


def test_emblem_ability_named_for_the_card():
    assert verdict("Ral's emblem's ability resolves before the spell that caused it to trigger.",
                   "Season of Growth's first ability resolves before the spell that caused it to trigger.",
                   "Ral, Izzet Viceroy", "Season of Growth").same
    assert not verdict("Ral's emblem's ability resolves before the creature spell that caused it to trigger.",
                       "Season of Growth's first ability resolves before the spell that caused it to trigger.",
                       "Ral, Izzet Viceroy", "Season of Growth").same                        # creature spell
    assert verdict("成长季节的最后一个异能会比触发它的咒语先一步结算。就算该咒语被反击，此异能仍会结算。",
                   "拉尔徽记的触发式异能都会比触发它的咒语先一步结算。就算该咒语被反击，此异能仍会结算。",
                   "成长季节", "伊捷总督拉尔").same


def test_illegal_target_template_but_either_is_not_both():
    stomp = ("If either target is an illegal target as Savage Stomp resolves, neither creature will deal or be "
             "dealt damage.")
    assert verdict("If either or both targets are illegal when Fight tries to resolve, no creature will deal or "
                   "be dealt damage.", stomp, "Prepare // Fight", "Savage Stomp").same
    assert not verdict("If both targets are illegal when Fight tries to resolve, no creature will deal or be dealt "
                       "damage.", stomp, "Prepare // Fight", "Savage Stomp").same


def test_cast_this_way_and_cast_from_exile_but_not_another_zone():
    this_way = "You must follow the normal timing permissions and restrictions for cards you cast this way."
    assert verdict(this_way, "You must follow the normal timing permissions and restrictions of the cards you cast "
                   "from exile.", "Magus of the Mind", "Rona, Disciple of Gix").same
    assert not verdict(this_way, "You must follow the normal timing permissions and restrictions of the cards you "
                       "cast from your graveyard.", "Magus of the Mind", "Rona, Disciple of Gix").same


def test_non_prefix_typography_and_learned_function_word():
    text = ("It doesn't copy whether that creature is tapped or untapped, or any {} effects that have changed its "
            "power, toughness, types, color, or so on.")
    assert verdict(text.format("noncopy"), text.format("non-copy")).same
    assert not verdict(text.format("noncopy"), text.format("copy")).same
    assert verdict('If a spell or ability causes you to put cards in your hand without specifically using the word '
                   '"draw," the ability won\'t trigger.',
                   'If a spell or ability causes you to put cards into your hand without specifically using the '
                   'word "draw," the ability won\'t trigger.').same


def test_chinese_pronoun_and_choose_in_one_character():
    assert verdict("当此衍生物进战场时，所复制的永久物之任何进战场异能都会触发。所选择的永久物上面任何异能也都会生效。",
                   "当此衍生物进战场时，所复制的永久物之任何进战场异能都会触发。所选永久物上面任何异能也都会生效。").same
    assert verdict("即使该咒语被反击，它仍会结算。", "即使该咒语被反击，此异能仍会结算。").same
    assert not verdict("即使该咒语被反击，此生物仍会结算。", "即使该咒语被反击，此异能仍会结算。").same


def test_moved_condition_and_pronoun_for_that_player():
    assert verdict("If the target creature leaves the battlefield, you won't gain life.",
                   "You won't gain life if the target creature leaves the battlefield.").same
    assert not verdict("If the target creature leaves the battlefield, you won't gain life.",
                       "You won't gain life if the target creature enters the battlefield.").same
    assert verdict("If that player controls no creatures, the ability does nothing.",
                   "If he or she controls no creatures, the ability does nothing.").same
    assert not verdict("If that opponent controls no creatures, the ability does nothing.",
                       "If you control no creatures, the ability does nothing.").same


def test_number_in_words_or_digits_and_the_emblem_of_the_card():
    assert verdict("If the copied creature had {X} in its mana cost, X is 0.",
                   "If the copied creature has {X} in its mana cost, X is considered to be zero.").same
    assert not verdict("If the copied creature had {X} in its mana cost, X is 1.",
                       "If the copied creature has {X} in its mana cost, X is considered to be zero.").same
    assert verdict("The triggered ability of Ral's emblem resolves before the spell that caused it to trigger.",
                   "Ral's ability resolves before the spell that caused it to trigger.",
                   "Ral, Izzet Viceroy", "Ral, Izzet Viceroy").same


def test_chinese_subject_by_place_and_keyword_ability_but_never_a_token_or_another_keyword():
    # a creature (某生物) for the card, and its second ability (第二个异能) for the card's own
    assert verdict("将某生物的力量加倍之流程是：该生物得+X/+0，X 为它于教团引领结算时的力量。",
                   "将超频电流术士的力量加倍之流程是：该生物得+X/+0，X 为它于第二个异能结算时的力量。",
                   "教团引领", "超频电流术士").same
    # the heroic ability (灵技异能) for the card's ability, in a ruling that names heroic for that card too
    assert verdict("只要你施放的咒语不含生物此类别，魂刃巨灵的异能便会触发。对于具多个类别的"
                   "咒语而言，只要此咒语诸类别中包含生物（例如神器生物），该异能便不会在你施放"
                   "此咒语时触发。使用地同样不会触发灵技异能。",
                   "只要你施放的咒语不含生物此类别，灵技异能便会触发。对于具多个类别的咒语而言，"
                   "只要此咒语诸类别中包含生物（例如神器生物），灵技异能便不会在你施放此咒语时"
                   "触发。使用地同样不会触发灵技异能。",
                   "魂刃巨灵", None).same
    # ... but a card's ability is not another keyword's (Tarmogoyf's is no devoid ability)
    assert not verdict("塔莫耶夫的异能在所有区域都会生效，而不只是在战场上。",
                       "虚色异能在所有区域都生效，而不只是在战场上。", "塔莫耶夫", None).same
    # a token entering is not the card entering (public pair P0196: the object type)
    assert not verdict("当此衍生物进战场时，所复制的生物之任何进战场异能都会触发。",
                       "当另我离影进战场时，它所复制的生物之任何进战场异能都会触发。", "军团之盔", "另我离影").same


def test_renamed_keyword_and_resolution_said_another_way_in_chinese():
    # totem armor (替身甲) renamed umbra armor (本影甲), CR 702.89
    assert verdict("替身甲的效应为强制性。如果所结附的生物将被消灭，则你必须改为移除它上面的"
                   "所有伤害，并消灭这个具有替身甲异能的灵气。",
                   "本影甲的效应为强制性。如果所结附的生物将被消灭，则你必须改为移除它上面的"
                   "所有伤害（如有），并消灭这个具有本影甲异能的灵气。").same
    assert not verdict("本影甲的效应为强制性。如果所结附的生物将被消灭，则你必须改为移除它上面的所有伤害。",
                       "不灭的效应为强制性。如果所结附的生物将被消灭，则你必须改为移除它上面的所有伤害。").same
    # "while it resolves": 结算过程中 / 正在结算时
    assert verdict("你是于装配异能结算过程中，才选择是要在生物上放置+1/+1 指示物或派出自动机衍生物。",
                   "你是于装配异能正在结算时，才选择是要在该生物上放置+1/+1指示物或派出自动机衍生物。").same
    assert not verdict("你是于装配异能结算过程中，才选择是要在生物上放置+1/+1 指示物或派出自动机衍生物。",
                       "你是于装配异能结算之后，才选择是要在该生物上放置+1/+1指示物或派出自动机衍生物。").same


def test_card_possessive_is_the_card():
    assert verdict("If Attendant of Vraska's power was negative, you don't lose or gain life.",
                   "If the creature's power is negative, you don't lose or gain life.",
                   "Attendant of Vraska", "Infernal Reckoning").same
    assert not verdict("If Attendant of Vraska's toughness was negative, you don't lose or gain life.",
                       "If the creature's power is negative, you don't lose or gain life.",
                       "Attendant of Vraska", "Infernal Reckoning").same


def test_characteristic_said_with_of_is_the_possessive():
    gained = "The amount of life gained is equal to {what} as it last existed on the battlefield."
    cards = ("Infernal Reckoning", "Attendant of Vraska")
    assert verdict(gained.format(what="the power of the creature"),
                   gained.format(what="Attendant of Vraska's power"), *cards).same
    # another characteristic is another ruling
    assert not verdict(gained.format(what="the toughness of the creature"),
                       gained.format(what="Attendant of Vraska's power"), *cards).same


def test_an_example_named_in_passing_may_hold_a_number_but_a_worked_example_may_not():
    # "such as paying {3} to cast a morph card face down": the {3} is the example's, not the rule's
    paid = "those must be paid to cast the card."
    assert verdict(FREE_CAST.format(alt="emerge costs", card="Tormenting Voice", tail=paid),
                   FREE_CAST.format(alt="paying {3} to cast a morph card face down", card="Cathartic Reunion",
                                    tail=paid),
                   "Oracle's Vault", "Treasure Keeper").same
    land = ("An ability that turns a land into a creature also sets that creature's power and toughness. For example, "
            "if {card} has been made a 0/0 creature with three +1/+1 counters on it, activating its last ability will "
            "turn it into a {pt} creature that's still a land.")
    assert not verdict(land.format(card="Lumbering Falls", pt="6/6"), land.format(card="Shambling Vent", pt="5/6"),
                       "Lumbering Falls", "Shambling Vent").same


def test_a_repeated_subject_said_with_a_for_a_pronoun():
    lich = ("Phylactery Lich's last ability is a \"state trigger.\" Once a state trigger triggers, it won't trigger "
            "again as long as the ability is on the stack. If the ability is countered and the trigger condition is "
            "still true, it will immediately trigger again.")
    endrek = ("The second ability is a state trigger. Once it triggers, it won't trigger again as long as the ability "
              "is on the stack. If the ability is countered and the trigger condition is still true, it will "
              "immediately trigger again.")
    assert verdict(endrek, lich, "Endrek Sahr, Master Breeder", "Phylactery Lich").same
    # a noun phrase the text has not said before names something else ("a delayed trigger")
    assert not verdict(endrek, lich.replace("Once a state trigger", "Once a delayed trigger"),
                       "Endrek Sahr, Master Breeder", "Phylactery Lich").same


def test_a_kind_of_object_added_is_never_a_slip():
    chest = ("In a multiplayer game, if a player leaves the game, all cards that player owns leave as well. If you "
             "leave the game, any {what} you control from Dead Man's Chest's ability are exiled.")
    tomb = chest.replace("Dead Man's Chest's", "Tomb of the Dusk Rose's")
    assert not verdict(chest.format(what="spells or permanents"), tomb.format(what="permanents"),
                       "Dead Man's Chest", "Profane Procession // Tomb of the Dusk Rose").same
    assert verdict(chest.format(what="permanents"), tomb.format(what="permanents"),
                   "Dead Man's Chest", "Profane Procession // Tomb of the Dusk Rose").same


def test_a_creature_near_the_word_token_is_not_a_token_made():
    clone = ('Any enters-the-battlefield abilities of the copied creature will trigger when Clone enters the '
             'battlefield. Any "as [this creature] enters the battlefield" or "[this creature] enters the battlefield '
             'with" abilities of the chosen creature will also work.')
    inalla = ('Any enters-the-battlefield abilities of the copied creature will trigger when the token enters the '
              'battlefield. Any “As [this creature] enters the battlefield” or “[This creature] enters the '
              'battlefield with” abilities of the copied creature will also work.')
    assert verdict(clone, inalla, "Clone", "Inalla, Archmage Ritualist").same
    made = compare.compare_form(fold("Create a 1/1 white Soldier creature token. Put a 2/2 token onto the "
                                     "battlefield."))
    assert "token" in made.effects
    named = compare.compare_form(fold("If the chosen creature is a token, the effect put the token onto the "
                                      "battlefield."))
    assert "token" not in named.effects


def test_target_added_to_a_definite_noun_phrase_and_merely_in_chinese():
    pod = ("如果你想要施放{what}，则你是在聚合荚异能结算的中途一并施放之。你不能等到稍后时段再施放。"
           "以此法施放的牌不会受到牌张类别的施放时机限制。")
    assert verdict(pod.format(what="该牌"), pod.format(what="该目标牌"), "聚合荚", "聚合荚").same
    # without a determiner, a target card is not the card already named
    assert not verdict(pod.format(what="牌"), pod.format(what="目标牌"), "聚合荚", "聚合荚").same
    assert verdict("If the creature is an illegal target, you don't gain life.",
                   "If the target creature is an illegal target, you don't gain life.").same
    phelddagrif = ("{card}不是复制该触发式异能；它{how}让这异能再触发一次。对于在异能进入堆叠时作出的选择，"
                   "例如选择模式和目标，你是在这两个异能进堆叠时分别作决定。")
    assert verdict(phelddagrif.format(card="菲利斯的最后一个异能", how="只是"),
                   phelddagrif.format(card="远古育碧灵的效应", how="是"), "五靴菲利斯", "远古育碧灵").same
    # "can only" (只能) is a guard, "merely" (只是) is not
    assert not verdict(phelddagrif.format(card="菲利斯的最后一个异能", how="只能"),
                       phelddagrif.format(card="远古育碧灵的效应", how="是"), "五靴菲利斯", "远古育碧灵").same


def test_the_object_named_by_this_way_against_that_but_not_against_a():
    field = ("You'll still pay all costs for {who}, including additional costs. You may also pay alternative costs "
             "such as {alt}.")
    assert verdict(field.format(who="that spell", alt="that granted by Jodah, Archmage Eternal"),
                   field.format(who="a spell cast this way", alt="evoke costs"),
                   "Precognition Field", "Primordial Mist").same
    # "a spell" is any spell, not the one the effect cast
    assert not verdict(field.format(who="a spell", alt="evoke costs"),
                       field.format(who="a spell cast this way", alt="evoke costs"),
                       "Precognition Field", "Primordial Mist").same
    returned = "如果{who}生物原本进战场时上面没有+1/+1指示物，则它会以上面有一个+1/+1指示物的状态进战场。"
    assert verdict(returned.format(who="以此法移回的"), returned.format(who="该"), "泰菲力的曲时术", "鼎镬赋礼").same
    assert not verdict(returned.format(who="以此法移回的"), returned.format(who="某"),
                       "泰菲力的曲时术", "鼎镬赋礼").same


def test_equipment_equipping_is_attached_and_phyrexian_is_no_negation():
    exiled = ("{aura}于所放逐永久物上的灵气会进入其拥有者的坟墓场。{equip}所放逐生物上的武具会被卸装并留在战场上。"
              "所放逐永久物上的任何指示物将会消失。")
    assert verdict(exiled.format(aura="贴附", equip="贴附于"), exiled.format(aura="结附", equip="装备在"),
                   "地脉束缚", "隔绝力场").same
    # an Equipment that stays attached is another ruling
    assert not verdict(exiled.format(aura="贴附", equip="贴附于").replace("会被卸装并留在", "会留在"),
                       exiled.format(aura="结附", equip="装备在"), "地脉束缚", "隔绝力场").same
    assert compare.compare_form("非瑞人／病菌衍生物").guards == compare.compare_form("病菌衍生物").guards
    assert compare.compare_form("非地牌").guards != compare.compare_form("地牌").guards


def test_a_chinese_modifier_both_texts_say_elsewhere_restates_the_object():
    exiled = ("结附于所放逐生物上的灵气将被置入其拥有者的坟墓场。{equipment}武具则会被卸装并留在战场上。"
              "所放逐生物上的任何指示物都会消失。")
    assert verdict(exiled.format(equipment=""), exiled.format(equipment="装备在所放逐生物上的"),
                   "镇魂主教", "丝缎缚身").same
    # a modifier saying what neither text says elsewhere picks other Equipment ("your Equipment")
    assert not verdict(exiled.format(equipment=""), exiled.format(equipment="由你操控的"),
                       "镇魂主教", "丝缎缚身").same
    x_free = "如果{spell}咒语的法术力费用中包含{{X}}，则你在以「不需支付其法术力费用」的方式施放它时必须将X的值选为0。"
    assert verdict(x_free.format(spell=""), x_free.format(spell="你施放的"), "祈愿巨灵", "任性龙煞").same
    assert not verdict(x_free.format(spell=""), x_free.format(spell="你未施放的"), "祈愿巨灵", "任性龙煞").same


def test_before_against_after_is_never_a_slip():
    # tokens are stemmed ("before" is "befor"): the timing words must be found as stems too.
    # Real ruling of Rashmi, Eternities Crafter: one "before" turned "after" is another rule.
    text = ("Rashmi's ability resolves before the spell that caused it to trigger. If you cast a spell "
            "using the ability, it will also resolve before the initial spell.")
    swapped = text.replace("resolves before", "resolves after")
    assert not same_ruling(fold(text), fold(swapped)).same
    assert not same_ruling(fold(swapped), fold(text)).same
    assert same_ruling(fold(text), fold(text.replace("will also", "also will"))).same


def test_a_chinese_ability_by_its_kind_said_with_or_without_its_noun_is_the_cards_own():
    state_trigger = ("一旦触发之后，只要此异能还在堆叠中，便不会再度触发。"
                     "如果此异能被反击、且触发条件依然符合，则它会立刻再度触发。")
    lich = "避邪符巫妖的最后一个异能为「状态触发式异能」。" + state_trigger
    # 状态触发式 (the noun 异能 left out at the end of the clause) for 「状态触发式异能」, 第二个 for 最后一个
    assert verdict("第二个异能为状态触发式。" + state_trigger, lich, "培育师恩德瑞克萨尔", "避邪符巫妖").same
    # ... but a static ability is not a state trigger
    assert not verdict("第二个异能为静止式。" + state_trigger, lich, "培育师恩德瑞克萨尔", "避邪符巫妖").same
    # putting the card's triggered ability on the stack (将~放进堆叠) is its going there (该异能进入堆叠)
    targets = "便一并为该异能选择目标数量，同时决定伤害的分配方式。每个目标至少要分配1点伤害。"
    assert verdict("你在将博卡登残虐者的触发式异能放进堆叠时，" + targets, "你于该异能进入堆叠时，" + targets,
                   "博卡登残虐者", "龙王安塔卡").same
    # "this triggered ability" (该触发式异能) for the card's; a player or another object is not the card
    untap = "追踪的是该生物，而非其操控者。如果该生物改变了操控者，则它于其新任操控者的下一个重置步骤中不能重置。"
    assert verdict("该触发式异能" + untap, "天际瀑布的触发式异能" + untap, None, "天际瀑布").same
    assert not verdict("该牌手" + untap, "天际瀑布的触发式异能" + untap, None, "天际瀑布").same
    # another card's ability named where the card field names this card (圣阳圣所的异能 for ~的异能) ...
    upkeep = "的异能会在你的维持开始时触发。"
    assert verdict("圣阳圣所" + upkeep, "天际瀑布" + upkeep, "天际瀑布", "天际瀑布").same


def test_a_players_graveyard_is_not_your_graveyard():
    # 你 ("you") is a soft word, so 你坟墓场 reads as 坟墓场; 牌手坟墓场 (a player's) must not join them
    assert not verdict("如果你坟墓场中某张牌的法术力费用包括{X}，则X视为0。",
                       "如果牌手坟墓场中某张牌的法术力费用中包括{X}，则该牌的X视为0。", "再生", "艾格丁觉醒").same
    assert not verdict("如果牌库中某张牌的法术力费用包括{X}，则X视为0。",
                       "如果牌手牌库中某张牌的法术力费用中包括{X}，则该牌的X视为0。", "再生", "艾格丁觉醒").same


def test_a_chinese_colour_said_in_a_colour_pair_is_a_guard():
    lords = "双色的生物会因前两个异能同时受益并得+2/+2。"
    assert not verdict("同为黑绿" + lords, "同为白绿" + lords, "响枝林王侯", "枯叶王侯").same
    assert not verdict("黑色生物不能阻挡。", "白色生物不能阻挡。").same
    # the same colours, an example added (例如…): the same ruling
    assert verdict("同为白绿" + lords, "同为白绿" + lords.replace("的生物", "的生物（例如枯叶王侯产生之蠕虫衍生物）"),
                   "枯叶王侯", "枯叶王侯").same


def test_a_list_member_dropped_is_never_a_word_that_alternates_with_nothing():
    leave = ("在多人游戏中，如果有牌手离开游戏，则由该牌手拥有的所有牌也会一同离开。"
             "如果你离开了游戏，则所有你因{card}的异能而操控{what}都会被放逐。")
    # 咒语 alone alternates with nothing in the corpus (生物咒语 / 生物), but "spells or permanents" is not "permanents"
    assert not verdict(leave.format(card="死魂棺", what="的咒语或永久物"),
                       leave.format(card="暮影蔷薇之墓", what="之永久物"), "死魂棺", "暮影蔷薇之墓").same
    assert verdict(leave.format(card="死魂棺", what="之永久物"), leave.format(card="暮影蔷薇之墓", what="之永久物"),
                   "死魂棺", "暮影蔷薇之墓").same
    assert not verdict("Each spell or permanent you control this way is exiled if you leave the game.",
                       "Each permanent you control this way is exiled if you leave the game.").same


def test_colours_of_a_swapped_worked_example_are_no_guard():
    hybrid = ("若一张牌的法术力费用中有混血法术力符号，则该牌具有法术力费用中展示的每个颜色，"
              "不论你是支付哪种法术力来施放它。")
    assert verdict(hybrid + "举例来说，细语密探为蓝色和黑色，即使你仅支付蓝色法术力来施放它也是如此。",
                   hybrid + "举例来说，参议院狮鹫为白色和蓝色，即使你仅支付白色法术力来施放它也是如此。").same


def test_a_few_short_chinese_content_spans_are_a_rewording_but_never_a_type_number_or_clause():
    # translators' rewordings of one rule: a word dropped (到来), a verb said two ways (完毕 / 完成, 选 / 决定)
    untap = ("该触发式异能追踪的是该生物，而非其操控者。如果该生物于其原先操控者的下一个重置步骤{x}前改变了操控者，"
             "则它于其新任操控者的下一个重置步骤中不能重置。")
    assert verdict(untap.format(x="到来"), untap.format(x="")).same
    karn = ("在游戏前流程处理完毕之后、且在第一个回合开始之前，卡恩的第三个异能会结算{x}，并将留在放逐区的牌放进战场。"
            "若这会触发任何触发式异能，则这些异能会在第一个维持步骤开始时进入堆叠。")
    assert verdict(karn.format(x="完毕"), karn.format(x="完成")).same
    order = "所有复制品都由你操控。由你{x}这些复制品进入堆叠的顺序。原版咒语会在所有这些复制品的下方，且会最后结算。"
    assert verdict(order.format(x="选择"), order.format(x="决定")).same
    # a creature type (ingest/data/zh_types.json) or a supertype names other objects however short the span
    lord = "其他由你操控的{x}生物得+1/+1。这包括在此异能生效之后才进入战场的生物，也包括不在战场上时不是这类生物的牌。"
    assert not verdict(lord.format(x="天使"), lord.format(x="吸血鬼")).same
    assert not verdict(lord.format(x="传奇"), lord.format(x="")).same
    # a number, or a clause added with 并 (the Equipment is also unattached), is never a rewording
    assert not verdict(untap.format(x="两个"), untap.format(x="")).same
    equip = "所放逐生物上的武具会{x}留在战场上。所放逐永久物上的任何指示物将会消失，而该牌会进入其拥有者的坟墓场。"
    assert not verdict(equip.format(x="被卸装并"), equip.format(x="")).same
    # the zh types table is derived, not written by hand: it holds the type lines' subtypes
    types = json.loads((Path(compare.__file__).parent / "data" / "zh_types.json").read_text(encoding="utf-8"))["types"]
    assert {"天使", "吸血鬼", "人类", "法术师"} <= set(types) and {"猫", "狼"} <= set(types)


def test_colour_words_and_two_colour_pairs_are_chinese_guards():
    # "how many colours of mana were spent" is not "how much mana was spent"; a colour pair said with 两色
    copy = ("如果有其他生物是以「当作会盟堂哨卫之复制品」的形式来进战场，则根据施放该生物时支付的法术力{x}，"
            "来决定它进战场时上面的+1/+1指示物数量。")
    assert not verdict(copy.format(x="颜色种类"), copy.format(x="数量")).same
    devotion = ("于~进战场时，会利用你的{x}两色之献力来决定其他会影响生物进战场之替代性效应是否会对其生效。"
                "由于替代性效应在~进到战场前就会生效，因此其本身法术力费用当中的法术力符号不会增加你的该色献力。")
    assert not verdict(devotion.format(x="绿白"), devotion.format(x="红绿")).same
    assert verdict(devotion.format(x="绿白"), devotion.format(x="绿白")).same


def test_a_one_character_type_the_commander_and_a_change_of_quantity_are_no_rewording():
    damage = ("由于标记在生物上的伤害要到回合结束时才会移除，因此由你操控的{x}受到之非致命伤害，"
              "可能会因为在该回合中~离开战场而变成致命伤害。")
    assert not verdict(damage.format(x="狗"), damage.format(x="指挥官"), "犬群领袖", "灵狼佣兽阿纳拉").same
    assert not verdict(damage.format(x="狗"), damage.format(x="猫"), "犬群领袖", "灵猫君王").same
    assert verdict(damage.format(x="猫"), damage.format(x="猫"), "灵猫君王", "灵猫君王").same
    cost = ("{x}施放咒语所需费用的效应不会影响咒语的总法术力费用，因此某咒语是否会因~的异能之影响而不能施放，"
            "不会因此类效应的存在而改变。")
    assert not verdict(cost.format(x="增加或减少"), cost.format(x="改变或替代")).same


def test_an_ability_named_by_what_it_does_is_not_the_cards_own_ability():
    # fresh pair J0053: "the damage-dealing ability" names what the ability does, not where it is
    control = ("If another player gains control of {card}, the artifact will no longer have the {what} ability, "
               "even if you regain control of {card}.")
    assert not verdict(control.format(card="Quicksmith Rebel", what="damage-dealing"),
                       control.format(card="Quicksmith Spy", what="card-drawing"),
                       "Quicksmith Rebel", "Quicksmith Spy").same
    assert verdict(control.format(card="Quicksmith Rebel", what="damage-dealing"),
                   control.format(card="Quicksmith Spy", what="damage-dealing"),
                   "Quicksmith Rebel", "Quicksmith Spy").same
    # an ability named by its kind is still the card's own: "~'s triggered ability" is "~'s ability"
    assert verdict("When Quicksmith Spy's triggered ability resolves, you draw a card.",
                   "When Quicksmith Spy's ability resolves, you draw a card.", "Quicksmith Spy", "Quicksmith Spy").same


def test_derive_script_reproduces_the_committed_chinese_types(shared, tmp_path):
    """ingest/data/zh_types.json is what scripts/derive_zh_types.py reads from the real release notes' type
    lines; with no release notes it refuses and leaves the table alone."""
    import importlib.util

    import pytest

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("derive_zh_types", root / "scripts/derive_zh_types.py")
    derive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(derive)
    out = tmp_path / "zh_types.json"
    assert derive.main(["--shared", str(shared), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == (root / "ingest/data/zh_types.json").read_text(encoding="utf-8")
    lines = ["传奇生物～人类／法术师", "结界～灵气", "生物～鸟", "如果某个生物～", "传奇鹏洛客～杰斯"]
    assert derive.subtypes(lines) == ({"人类": 1, "法术师": 1, "灵气": 1, "鸟": 1, "杰斯": 1}, {"杰斯"})
    with pytest.raises(SystemExit):
        derive.main(["--shared", str(tmp_path / "nothing"), "--out", str(out)])


def test_a_lower_case_rules_word_is_not_the_cards_short_name():
    # fresh pair J0002: "the spell's" in a ruling of Spell Swindle is the rules word, not Spell Swindle
    value = "For spells with {{X}} in their mana costs, use the value chosen for X to determine the spell's {v}."
    assert verdict(value.format(v="mana value"), value.format(v="converted mana cost"),
                   "Draining Whelk", "Spell Swindle").same
    assert mask_card(fold("the spell's mana value"), "Spell Swindle", "the spell's mana value") == \
        "the spell's mana value"
    # the card's short name, written as a name, is still the card
    assert mask_card(fold("Jaya's ability deals 1 damage."), "Jaya Ballard", "Jaya's ability deals 1 damage.") == \
        "~'s ability deals 1 damage."
    assert verdict("Jaya's ability deals 1 damage.", "Chandra's ability deals 1 damage.",
                   "Jaya Ballard", "Chandra Nalaar").same


def test_a_hedge_is_never_a_slip():
    # fresh pair J0082: "usually can't" is a rule of thumb, "can't" a rule; one added word is not wording
    base = ("Notably, an Aura attached to an illegal permanent is {h}put into its owner's graveyard the next "
            "time a player would receive priority.")
    for hedge in ("usually ", "normally ", "generally ", "typically "):
        assert not verdict(base.format(h=""), base.format(h=hedge)).same, hedge
    zh = "由你操控的生物{h}不能被其他牌手选为咒语或异能的目标，即使该咒语或异能由你的队友操控也是如此。"
    assert not verdict(zh.format(h=""), zh.format(h="通常")).same
    # one hedge against another is wording ("often written as" / "usually written as", a real pair)
    assert verdict(base.format(h="often "), base.format(h="usually ")).same
    assert verdict(zh.format(h="经常"), zh.format(h="通常")).same
    # a one-word rewording with no hedge is still the same ruling
    assert verdict(base.format(h="").replace("receive", "get"), base.format(h="")).same


def test_a_bracketed_chinese_condition_is_not_an_example():
    # fresh pair J0084: （如果该生物是传奇） adds a condition; 如 alone before a bracket's words is "such as"
    rule = "如果该咒语的所有目标在其试图结算时都已成为不合法目标，则它不会结算，且其效应都不会发生{p}。"
    assert not verdict(rule.format(p=""), rule.format(p="（如果它有目标）")).same
    assert not verdict(rule.format(p=""), rule.format(p="（如若它是传奇）")).same
    assert verdict(rule.format(p=""), rule.format(p="（如抓牌或造成伤害）")).same


def test_regardless_said_three_ways_and_chinese_bulun_is_not_a_negation():
    # fresh pair K0082 (Lightning Axe): "independent of" / "no matter" are "regardless of"
    axe = "The {v} of Lightning Axe is 1, {r} which additional cost you paid."
    assert verdict(axe.format(v="converted mana cost", r="independent of"), axe.format(v="mana value", r="no matter"),
                   "Lightning Axe", "Lightning Axe").same
    assert verdict(axe.format(v="mana value", r="regardless of"), axe.format(v="mana value", r="irrespective of")).same
    # "no" elsewhere is still a negation
    assert not verdict("No player may respond to the ability once it has started resolving, regardless of timing.",
                       "A player may respond to the ability once it has started resolving, regardless of timing.").same
    # 不论 / 不管 are 无论 ("regardless"), not a 不 negation
    zh = "{r}你支付了哪一项额外费用，该咒语的法术力值都是1，且它在堆叠上时也是如此。"
    assert verdict(zh.format(r="不论"), zh.format(r="无论")).same
    assert verdict(zh.format(r="不管"), zh.format(r="无论")).same
    assert not verdict(zh.format(r="无论"), zh.format(r="无论").replace("都是1", "都不是1")).same


def test_a_keywords_trigger_is_its_triggered_ability():
    # fresh pair I0029: "that card's madness trigger" is "that card's madness triggered ability"
    madness = ("If you discard a card with madness to pay the cost of a spell or activated ability, that card's "
               "madness {t} (and the spell that card becomes, if you choose to cast it) will resolve before the "
               "spell or ability the discard paid for.")
    assert verdict(madness.format(t="trigger"), madness.format(t="triggered ability")).same
    assert verdict("Both evoke triggers go on the stack after the creature enters and you may order them.",
                   "Both evoke triggered abilities go on the stack after the creature enters and you may order "
                   "them.").same
    # the word "triggered" is not dropped: a trigger is not any ability
    assert not verdict(madness.format(t="trigger"), madness.format(t="ability")).same
    # the verb is left as it is
    assert compare._keyword_triggers("madness triggers when you discard it") == "madness triggers when you discard it"


def test_a_creature_type_inside_a_chinese_card_name_is_not_the_card():
    # fresh pair L0017: 坏物鬼怪's ruling says 鬼怪 ("Goblins"), the other card's says 其他吸血鬼 ("other Vampires")
    rule = ("由于标记在生物上的伤害要到回合结束时才会移除，因此由你操控的{t}受到之非致命伤害，"
            "可能会因为在该回合中{c}离开战场而变成致命伤害。")
    assert mask_card(fold(rule.format(t="鬼怪", c="坏物鬼怪")), "坏物鬼怪") == fold(rule.format(t="鬼怪", c="~"))
    assert not verdict(rule.format(t="其他吸血鬼", c="切望血领"), rule.format(t="鬼怪", c="坏物鬼怪"),
                       "切望血领", "坏物鬼怪").same
    assert verdict(rule.format(t="鬼怪", c="坏物鬼怪"), rule.format(t="鬼怪", c="鬼怪酋长"),
                   "坏物鬼怪", "鬼怪酋长").same
    # a planeswalker's subtype is its character's name, which a ruling calls its card by
    assert mask_card(fold("薇薇安的第一个异能"), "神弓游侠薇薇安") == "~的第一个异能"


def test_a_chinese_colour_after_fan_is_a_guard():
    # fresh pair L0059: 反白辟邪 is "hexproof from white", 反黑辟邪 "from black" (CR 702.11d); 反绿保护 protection
    rule = "如果有效应注明某生物失去辟邪异能，或能视同不具辟邪异能地被指定为目标，则此效应也会对反{c}辟邪生效。"
    assert not verdict(rule.format(c="白"), rule.format(c="黑")).same
    reworded = rule.format(c="白").replace("能视同", "能被视同").replace("地被指定", "地指定")
    assert verdict(rule.format(c="白"), reworded).same
    assert not verdict("具有反绿保护的生物不能被绿色生物阻挡。", "具有反红保护的生物不能被红色生物阻挡。").same


def test_the_card_and_another_object_swapped_between_two_places_is_another_ruling():
    # real corpus: 英勇骑士 (damage dealt to Knights you control may become lethal if ~ leaves) had merged
    # with 冬霜沼指挥官 (damage dealt to ~ may become lethal if a Knight you control leaves)
    zh = ("由于标记在生物上的伤害要到回合结束时才会移除，因此{a}受到之非致命伤害，"
          "可能会因为在该回合中{b}离开战场而变成致命伤害。")
    knights = "由你操控的骑士"
    assert not verdict(zh.format(a=knights, b="英勇骑士"), zh.format(a="冬霜沼指挥官", b=knights),
                       "英勇骑士", "冬霜沼指挥官").same
    en = "Nonlethal damage dealt to {a} may become lethal if {b} leaves the battlefield during that turn."
    assert not verdict(en.format(a="another Knight you control", b="Valiant Knight"),
                       en.format(a="Frostmarsh Commander", b="another Knight you control"),
                       "Valiant Knight", "Frostmarsh Commander").same
    # a swap across "at the same time as" or "and" says the same (Murder of Crows / Demon of Dark Schemes)
    assert verdict("If another creature dies at the same time as Murder of Crows, its last ability triggers.",
                   "If Demon of Dark Schemes dies at the same time as another creature, its last ability triggers.",
                   "Murder of Crows", "Demon of Dark Schemes").same
    assert verdict("Each time ~ and another creature deal combat damage, you gain 1 life.",
                   "Each time another creature and ~ deal combat damage, you gain 1 life.").same
    # words moved together, the card among them, cancel: a clause said earlier or later
    assert verdict("You draw a card if ~ dies this turn, and you lose 1 life.",
                   "If ~ dies this turn, you draw a card, and you lose 1 life.").same
    # one referent alone is still the subject named another way
    assert verdict(zh.format(a=knights, b="英勇骑士"), zh.format(a=knights, b="该生物"), "英勇骑士", None).same


def test_the_affected_creature_is_the_enchanted_creature_or_that_creature():
    # fresh pairs L0046 (所结附的生物 / 受影响的生物) and J0029 (该生物 / 受影响的生物);
    # the "the enchanted creature"
    zh = "{s}原本所具有的颜色和生物类别都会被~盖掉。它就只是一个绿色麋鹿。该生物会保留其拥有的超类别（例如传奇）。"
    assert verdict(zh.format(s="所结附的生物"), zh.format(s="受影响的生物")).same
    assert verdict(zh.format(s="该生物"), zh.format(s="受影响的生物")).same
    assert not verdict(zh.format(s="所结附的生物"), zh.format(s="所装备的生物")).same      # an Aura's, an Equipment's
    assert not verdict(zh.format(s="该生物"), zh.format(s="目标生物")).same
    en = "If {s} changes controllers, it still doesn't untap during its controller's untap step."
    assert verdict(en.format(s="the enchanted creature"), en.format(s="the affected creature")).same
    assert verdict(en.format(s="that creature"), en.format(s="the affected creature")).same
    assert not verdict(en.format(s="the enchanted creature"), en.format(s="the equipped creature")).same
    assert not verdict(en.format(s="the enchanted creature"), en.format(s="a creature")).same
    assert not verdict(en.format(s="that creature"), en.format(s="each creature")).same


def test_the_chinese_respond_to_proliferate_ruling_is_one_entry():
    # the example: four Chinese "players can respond to proliferate" rulings listed apart;
    # 来不及 ("too late") / 无法, 均 / 就 (soft adverbs), 哪些 / 那些, 已着手选择 / 选择
    old = ("牌手可以回应效应中包含了增殖的咒语或异能。不过，一旦该咒语或异能开始结算，并且其操控者选择那些永久物"
           "与牌手将新得到指示物，则任何牌手均已无法去回应此事。")
    new = ("牌手可以回应效应中包含增殖的咒语或异能。不过，一旦该咒语或异能开始结算，并且其操控者已着手选择哪些永久物"
           "与牌手将得到新的指示物，则任何牌手就已{s}去回应此事。")
    assert verdict(new.format(s="来不及"), new.format(s="无法")).same
    assert verdict(old, new.format(s="来不及")).same
    # a negation against none is still a guard
    assert not verdict(old, old.replace("均已无法去回应", "均可以回应")).same
    assert compare.compare_form("平均分配").tokens == tuple("平均分配")          # 平均 ("evenly") is no 都


def test_the_life_gain_templates_example_pair_may_be_swapped():
    # fresh pair L0047 and three real entries: "whether it's 1 life from Drana's Emissary or 7 life from
    # Nissa's Renewal" against "… 1 life from Vicious Rumors or 3 life from Creeping Chill"
    en = ("The ability triggers just once for each life-gaining event, "
          "whether it's 1 life from {a} or {n} life from {b}.")
    assert verdict(en.format(a="Drana's Emissary", n=7, b="Nissa's Renewal"),
                   en.format(a="Vicious Rumors", n=3, b="Creeping Chill")).same
    assert not verdict(en.format(a="Drana's Emissary", n=7, b="Nissa's Renewal"),
                       en.format(a="Vicious Rumors", n=3, b="Creeping Chill").replace("just once", "twice")).same
    kept = compare.compare_form("it checks whether it's a creature in its new zone.").tokens
    assert kept[-3:] == ("it", "new", "zone")
    zh = "每有一个获得生命的事件，此异能只会触发一次，无论是由于{a}获得1点生命，还是由于{b}获得{n}点生命。"
    assert verdict(zh.format(a="哲娜的密使", b="妮莎重光", n=7), zh.format(a="恶毒谣言", b="爬行寒意", n=3)).same
    assert not verdict(zh.format(a="哲娜的密使", b="妮莎重光", n=7),
                       zh.format(a="恶毒谣言", b="爬行寒意", n=3).replace("只会触发一次", "会触发两次")).same


def test_chinese_not_only_said_four_ways_is_one_wording_and_never_not():
    """不只是 / 不是只 / 不仅是 / 不仅仅是 all say "not only" (the real MH3 ruling of 烈焰耶夫 against 银翼小队's,
    fresh pair M0002); 而不是 alone is "rather than", another rule, although "merely" (只是) is 是."""
    only = "设定~的力量与防御力之异能会在所有区域生效,而不只是在战场上."
    for other in ("设定~的力量和防御力之异能会在所有区域生效,而不是只在战场上.",
                  "设定~的力量与防御力之异能会在所有区域生效,而不仅仅是在战场上."):
        assert same_ruling(only, other).same
    assert not same_ruling(only, "设定~的力量与防御力之异能会在所有区域生效,而不是在战场上.").same


def test_a_bare_chinese_noun_is_the_general_subject_unless_the_card_is_named_beside_it():
    """Chinese has no article: 让生物失去先攻 is "make a creature lose first strike", the general rule of
    妄念教区精兵's own (fresh pair M0002's set, M0012), as English "a creature" is for ``~``. Where the same
    text names the card elsewhere, the creature is another object (the real 灵刃腐化师 ruling: a creature
    attacking does not trigger ~'s last ability, not "if ~ attacks")."""
    own = "在造成先攻伤害之后,再让~失去或获得先攻异能,并不能让其造成两次战斗伤害,或是让其完全不造成战斗伤害."
    assert same_ruling(own, own.replace("~", "生物")).same
    assert not same_ruling("如果~攻击鹏洛客,则其异能不会触发.", "如果生物攻击鹏洛客,则~的异能不会触发.").same
    # a creature type alone is no card's name (once 天使 against ~ read as another card's): "an Angel"
    assert not same_ruling(own, own.replace("~", "人类")).same
    assert not same_ruling("如果~攻击鹏洛客,则其异能不会触发.", "如果天使攻击鹏洛客,则其异能不会触发.").same


def test_an_illegal_target_said_with_or_without_the_time_it_is_checked():
    """A target is checked as its spell or ability resolves (CR 608.2b): "becomes illegal", "is an illegal
    target by the time ~ tries to resolve" and "are illegal when it resolves" are one template (the real
    Roil's Retribution and Monstrous Onslaught rulings, fresh pair M0040; Cone of Flame and Serpentine
    Spike); a target illegal for another reason than the spell's resolution is still told apart."""
    a = ("if some, but not all, of the targets become illegal by the time ~ tries to resolve, the original division "
         "of damage still applies, but no damage is dealt to illegal targets. if all the targets are illegal, the "
         "spell won't resolve.")
    b = ("if some (but not all) of the targets become illegal, the original division of damage still applies, but "
         "no damage is dealt to illegal targets. if all targets become illegal, ~ won't resolve.")
    assert same_ruling(a, b).same
    assert same_ruling("if one or two of ~'s targets are illegal when it resolves, you can't change how much damage "
                       "will be dealt to the remaining legal targets.",
                       "if one or two of those targets become illegal by the time ~ resolves, you can't change how "
                       "much damage will be dealt to the remaining legal targets.").same
    assert not same_ruling("if the target creature is an illegal target by the time ~ resolves, you draw a card.",
                           "if the target creature is an illegal target by the time ~ resolves, you don't draw a "
                           "card.").same


def test_a_likely_cause_in_parentheses_is_illustrative():
    """"(most likely because it was dealt lethal damage)" / （最有可能的原因是…） gives a cause in passing, like an
    example: with it, without it or with another wording it is one ruling (the real Trapjaw Tyrant and Seal
    Away rulings; 点穴手 and 宣敕, fresh pair K0025); the statement outside the parentheses still counts."""
    seal = "if ~ leaves the battlefield before its triggered ability resolves, the target creature won't be exiled."
    trapjaw = seal.replace("resolves,", "resolves (most likely because it was dealt lethal damage),")
    assert same_ruling(seal, trapjaw).same
    assert not same_ruling(trapjaw, trapjaw.replace("won't be exiled", "will be exiled")).same
    a = "如果该目标仍合法,但未被横置(最有可能的原因是它已横置),你仍会抓一张牌."
    assert same_ruling(a, "如果该目标仍合法但未被横置(最有可能是因为它已横置),你仍会抓一张牌.").same
    assert not same_ruling(a, "如果该目标仍合法,但未被横置(最有可能的原因是它已横置),你不会抓牌.").same
