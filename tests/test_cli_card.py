"""``rulings card`` and card-name lookup on a small index the tests write."""

from __future__ import annotations

import json

import pytest
from rulings_fixture import SHARED, SPECIFIC, build_index

from rulings.search import query
from rulings.search.cli import cli

FIRE_ICE = ["You may cast either half of Fire // Ice but not both.",
            "Fire // Ice is both red and blue while it is in your hand."]


@pytest.fixture(scope="module")
def mtg_index(tmp_path_factory):
    return build_index(tmp_path_factory.mktemp("mtg-card"))


def card_json(runner, index_dir, name):
    result = runner.invoke(cli, ["card", name, "--format", "json", "--index", str(index_dir)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", ["Fire // Ice", "fire/ice", "Fire / Ice", "FIRE//ICE", "Fire"])
def test_split_card_names_resolve_oldest_first(runner, mtg_index, name):
    assert [e["text"] for e in card_json(runner, mtg_index, name)] == FIRE_ICE


def test_face_that_is_another_card_gives_exact_card_first(runner, mtg_index):
    assert [e["text"] for e in card_json(runner, mtg_index, "Ice")] == \
        ["Ice taps the permanent it targets and you draw a card."] + FIRE_ICE
    matches = query.card_matches(mtg_index, "ice")
    assert [(m.card, m.exact, len(m.entries)) for m in matches] == [("Ice", True, 1), ("Fire // Ice", False, 2)]
    text = runner.invoke(cli, ["card", "Ice", "--index", str(mtg_index)]).stdout
    assert text.startswith("Ice: 1 entry\n")
    assert "Also matches Fire // Ice (face 'Ice'): 2 entries" in text


@pytest.mark.parametrize("name", ["Insectile Aberration", "delver of secrets",
                                  "Delver of Secrets // Insectile Aberration"])
def test_transforming_card_either_face(runner, mtg_index, name):
    assert [e["cards"] for e in card_json(runner, mtg_index, name)] == \
        [["Delver of Secrets // Insectile Aberration"]]


@pytest.mark.parametrize("name", ["Æther Vial", "aether vial", "AETHER VIAL", "æther vial"])
def test_ae_and_case(runner, mtg_index, name):
    assert [e["text"] for e in card_json(runner, mtg_index, name)] == \
        ["Æther Vial's counter ability can be activated at instant speed."]


def test_shared_entry_kept_and_stable_within_a_date(runner, mtg_index):
    first = [e["text"] for e in card_json(runner, mtg_index, "Cloudfin Raptor")]
    assert first == [SHARED, SPECIFIC[1]]
    assert [e["text"] for e in card_json(runner, mtg_index, "cloudfin raptor")] == first
    assert [e["text"] for e in card_json(runner, mtg_index, "Pteramander")] == [SHARED]


def test_text_blocks(runner, mtg_index):
    text = runner.invoke(cli, ["card", "Fire // Ice", "--index", str(mtg_index)]).stdout
    assert text.startswith("Fire // Ice: 2 entries\n\nYou may cast either half")
    assert text.index("date: 2018-02-01") < text.index("date: 2020-06-01")


def test_unknown_card_suggests(runner, mtg_index):
    result = runner.invoke(cli, ["card", "Cloudfin Raptr", "--index", str(mtg_index)])
    assert result.exit_code == 0
    assert result.stdout == "No rulings for 'Cloudfin Raptr'. Did you mean: Cloudfin Raptor?\n"


# A name's first words find the cards that begin with them (issue 21, item 14), on real XLN and SOI rulings.
JACES = ["Jace, Cunning Castaway", "Jace, Ingenious Mind-Mage", "Jace, Unraveler of Secrets"]


@pytest.mark.parametrize("name", ["Jace", "jace", "JACE,"])
def test_first_word_lists_the_cards_that_begin_with_it(runner, ixalan_index, name):
    result = runner.invoke(cli, ["card", name, "--index", str(ixalan_index)])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (f"No card is named {name!r}; 3 cards begin with it (give one):\n"
                             "  Jace, Cunning Castaway: 5 entries\n  Jace, Ingenious Mind-Mage: 2 entries\n"
                             "  Jace, Unraveler of Secrets: 3 entries\n")
    result = runner.invoke(cli, ["card", name, "--format", "json", "--index", str(ixalan_index)])
    assert len(json.loads(result.stdout)) == 10
    assert result.stderr == f"{name!r} matches: " + "; ".join(JACES) + "\n"


def test_leading_words_of_one_card_show_it(runner, ixalan_index):
    result = runner.invoke(cli, ["card", "jace, cunning", "--index", str(ixalan_index)])
    assert result.stdout.startswith("Jace, Cunning Castaway (begins with 'jace, cunning'): 5 entries\n\n")
    assert card_json(runner, ixalan_index, "Jace, Cunning") == card_json(runner, ixalan_index,
                                                                        "Jace, Cunning Castaway")


@pytest.mark.parametrize("name,suggested", [("Jaec", "; ".join(JACES)), ("Hijak", "Hijack")])
def test_suggestions_compare_first_words_and_faces(runner, ixalan_index, name, suggested):
    result = runner.invoke(cli, ["card", name, "--index", str(ixalan_index)])
    assert result.stdout == f"No rulings for {name!r}. Did you mean: {suggested}?\n"


def test_card_selector_of_search_and_export_takes_first_words(runner, ixalan_index):
    for command in (["search", "--card", "Jace"], ["export", "--card", "Jace"]):
        result = runner.invoke(cli, [*command, "--index", str(ixalan_index)])
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == ("Error: no card is named 'Jace'; 3 cards begin with it: "
                                 + "; ".join(JACES) + " (give one)\n")
    ids = {e["id"] for e in card_json(runner, ixalan_index, "Jace, Unraveler of Secrets")}
    for command in (["search", "--card", "jace, unraveler"], ["export", "--card", "jace, unraveler"]):
        result = runner.invoke(cli, [*command, "--format", "json", "--index", str(ixalan_index)])
        assert {e["id"] for e in json.loads(result.stdout)} == ids and len(ids) == 3
