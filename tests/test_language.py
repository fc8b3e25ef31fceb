import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulings.ingest.language import (
    canonical_symbols,
    chinese_script,
    declared_disagrees,
    detect_language,
    fold_chinese,
    zh_number,
)
from rulings.ingest.model import Ruling, Source
from rulings.ingest.normalise import normalise
from rulings.ingest.pipeline import build_entries
from rulings.ingest.read import read_file

SAMPLES = {
    "en": "If a creature with flying attacks, it can't be blocked except by creatures with flying or reach.",
    "de": "Wenn eine Kreatur mit Flugfähigkeit angreift, kann sie nur von Kreaturen mit Reichweite geblockt werden.",
    "fr": "Si une créature avec le vol attaque, elle ne peut être bloquée que par des créatures avec la portée.",
    "it": "Se una creatura con volare attacca, può essere bloccata solo da creature con raggiungere.",
    "es": "Si una criatura con la habilidad de volar ataca, solo puede ser bloqueada por criaturas con alcance.",
    "pt": "Se uma criatura com voar atacar, ela só pode ser bloqueada por criaturas com alcance.",
    "ja": "飛行を持つクリーチャーが攻撃した場合、飛行か到達を持つクリーチャーでしかブロックできない。",
    "ko": "비행을 가진 생물이 공격하면, 비행이나 도달을 가진 생물만 그 생물을 방어할 수 있다.",
    "ru": "Если существо с Полетом атакует, его могут блокировать только существа с Полетом или Захватом.",
    "zh-Hans": "如果具有飞行异能的生物进行攻击，则只有具有飞行或延势异能的生物能阻挡它。",
    "zh-Hant": "如果具有飛行異能的生物進行攻擊，則只有具有飛行或延勢異能的生物能阻擋它。",
}


@pytest.mark.parametrize("lang", sorted(SAMPLES))
def test_detects_each_language(lang):
    assert detect_language(SAMPLES[lang]) == lang


def test_detection_ignores_a_few_foreign_words():
    # a Chinese ruling naming an English card, an English ruling quoting a Chinese name
    assert detect_language("本系列牌张 Precise Strike的中文版名称与精准一击(Clear Shot)名称重复。") == "zh-Hans"
    assert detect_language("巡逻和平使者's ability triggers whenever you commit a crime, not when it resolves.") == "en"


def test_no_letters_keeps_the_default():
    assert detect_language("+1/+1 {2}", default="de") == "de"


def test_chinese_script_by_opencc():
    assert chinese_script("横置这个永久物") == "zh-Hans"
    assert chinese_script("橫置這個永久物") == "zh-Hant"
    assert chinese_script("生物") == "zh-Hans"        # the same in both scripts


def test_seed_003_is_english_although_its_card_name_is_chinese(shared):
    rulings = read_file(shared / "seeds/003_14c4c19089e5e67c.txt").rulings
    assert rulings and all(r.card == "巡逻和平使者" for r in rulings)
    kept, _ = normalise(rulings)
    assert {r.lang for r in kept} == {"en"}


@pytest.mark.parametrize("text, folded", [
    ("{一}{红}，{横置}：目标生物得＋１/＋１直到回合结束。", "{1}{R},{T}:目标生物得+1/+1直到回合结束."),
    ("支付{能能}：放逐乙太岩矿工", "支付{E}{E}:放逐乙太岩矿工"),
    ("{白/黑}{蓝/非}{二/绿}{无/白}{红/白/非}", "{W/B}{U/P}{2/G}{C/W}{R/W/P}"),
    ("{十五}{X}{零}{雪}{无}{重置}", "{15}{X}{0}{S}{C}{Q}"),
    ("具有「此生物不能进行阻挡。」～", '具有"此生物不能进行阻挡."~'),
    ("橫置：加{綠}、{藍}", "横置:加{G},{U}"),
    ("{横\n置}", "{T}"),
])
def test_fold_chinese(text, folded):
    assert fold_chinese(text) == folded


@given(st.text(alphabet="{}/一二红白黑横置能非十＋１／「」～、橫綠ab"))
def test_fold_chinese_is_idempotent(text):
    once = fold_chinese(text)
    assert fold_chinese(once) == once


def test_unknown_symbol_words_are_kept():
    assert canonical_symbols("{牌名}{一}") == "{牌名}{1}"


def test_zh_numbers():
    assert [zh_number(w) for w in ("零", "九", "十", "十二", "二十", "二十一", "百")] == [0, 9, 10, 12, 20, 21, None]


def test_chinese_rulings_match_on_folded_form():
    source = Source("zh.txt", "text")
    kept, _ = normalise([Ruling("{横置}：加{绿}。", source), Ruling("{橫置}：加{綠}。", source, position=1)])
    assert [r.lang for r in kept] == ["zh-Hans", "zh-Hant"]
    assert kept[0].match == kept[1].match == "{t}:加{g}."


def test_declared_language_that_disagrees_is_reported_and_detection_wins():
    source = Source("mixed.json", "scryfall")
    rulings = [Ruling(SAMPLES["en"], source, declared_lang="de"),
               Ruling(SAMPLES["zh-Hans"], source, position=1, declared_lang="zh"),
               Ruling(SAMPLES["fr"], source, position=2, declared_lang="fr")]
    result = build_entries(rulings)
    assert [(r.position, r.declared_lang, r.lang) for r in result.language_mismatches] == [(0, "de", "en")]
    assert sorted(e.lang for e in result.entries) == ["en", "fr", "zh-Hans"]


def test_declared_disagrees():
    assert declared_disagrees("zh", "zh-Hant") is False
    assert declared_disagrees("zh-Hans", "zh-Hant") is True
    assert declared_disagrees(None, "en") is False


def test_obvious_english_skips_the_detector():
    from rulings.ingest.language import looks_english
    assert looks_english("If Consulate Crackdown leaves the battlefield before its triggered ability "
                         "resolves, no artifacts will be exiled.")
    assert looks_english("You can’t respond to this ability—it’s a mana ability.")
    assert looks_english("Æther Vial lets you put creature cards onto the battlefield.")
    assert looks_english("Lim-Dûl's Vault lets you look at the top five cards of your library.")
    assert not looks_english("Cette capacité se déclenche à chaque fois qu’une créature arrive.")
    assert not looks_english(SAMPLES["de"])
    assert not looks_english("Die Karte ist ein Artefakt und die Kreatur ist tot.")


def test_stats_count_languages_per_ruling(runner, seed_index):
    import json

    from rulings.search.cli import cli
    result = runner.invoke(cli, ["stats", "--format", "json", "--index", str(seed_index)])
    assert json.loads(result.stdout)["languages"] == {"en": 54}


def test_ingest_json_reports_language_mismatches(runner, tmp_path):
    # a release-notes document whose Word default language (en-US) and English title declare English
    # over Chinese rulings: each ruling is reported, and the detected language wins
    import json

    import docx

    from rulings.search.cli import cli
    document = docx.Document()
    intro = ["Guilds of Ravnica Release Notes", "Compiled by Eli Shiffrin", "Last modified on September 24, 2018",
             "General Notes", "Release Dates", "The Guilds of Ravnica set contains 259 cards.",
             "Card-Specific Notes", "-----"]
    for line in intro + ["灵魂转移"]:
        document.add_paragraph(line)
    rulings = ["＊如果目标生物在此咒语结算时已成为不合法的目标，则此咒语将不会结算。",
               "＊你可以横置任何未横置的生物来支付召集费用，包括当回合才受你操控的生物。"]
    for text in rulings:
        document.add_paragraph(text)
    path = tmp_path / "faq_grn.docx"
    document.save(path)
    result = runner.invoke(cli, ["ingest", str(path), "--format", "json", "--index", str(tmp_path / "ix")])
    assert result.exit_code == 0, result.output
    mismatches = json.loads(result.stdout)["language_mismatches"]
    assert [(m["declared"], m["detected"], m["position"]) for m in mismatches] == \
        [("en", "zh-Hans", 0), ("en", "zh-Hans", 1)]
    stats = json.loads(runner.invoke(cli, ["stats", "--format", "json", "--index", str(tmp_path / "ix")]).stdout)
    assert stats["languages"] == {"zh-Hans": 2}


def test_chinese_release_notes_declare_and_detect_zh_hans(tmp_path, shared):
    from rulings.ingest.normalise import normalise
    from rulings.ingest.read import read_file
    doc = shared / "realdata/zh-cn-release-notes-athenacykes/release_notes/faq_grn.docx"
    kept, _ = normalise(read_file(doc).rulings)
    assert len(kept) == 349
    assert {(r.declared_lang, r.lang) for r in kept} == {("zh-Hans", "zh-Hans")}
