"""MTGJSON reader on the real v3, v5, deck and card files (SOURCES.md sections 3-5)."""

from __future__ import annotations

import json

import pytest

from rulings.ingest.dates import INVALID_DATE
from rulings.ingest.errors import ReadError
from rulings.ingest.normalise import normalise
from rulings.ingest.read import read_file
from rulings.ingest.readers import mtgjson

V3 = {  # SOURCES.md section 5, rulings per set file (10,094 in all)
    "10E": 283, "A25": 404, "AER": 772, "AKH": 695, "BBD": 863, "BFZ": 904, "C18": 810, "DOM": 483,
    "GRN": 578, "HOU": 575, "KLD": 813, "M19": 325, "RIX": 428, "SOI": 751, "UST": 932, "XLN": 478,
}
V5 = {"mtgjson5-TSP/TSP.json": 921, "mightstone-samples/mtgjson/set.json": 874,
      "mightstone-samples/mtgjson/deck.json": 18, "mightstone-samples/mtgjson/cardset.json": 1}


@pytest.mark.parametrize("code,count", sorted(V3.items()))
def test_v3_set_files(shared, code, count):
    result = read_file(shared / f"realdata/mtgjson3-sets/{code}.json")
    assert result.format == "mtgjson" and len(result.rulings) == count
    assert {r.set_code for r in result.rulings} == {code}
    assert all(r.card and r.date and r.publisher == "wotc" for r in result.rulings)


@pytest.mark.parametrize("path,count", sorted(V5.items()))
def test_v5_files(shared, path, count):
    result = read_file(shared / "realdata" / path)
    assert result.format == "mtgjson" and len(result.rulings) == count


def test_all_mtgjson_rulings_add_up_to_11908(shared):
    total = sum(len(read_file(shared / f"realdata/mtgjson3-sets/{c}.json").rulings) for c in V3)
    assert total == 10_094
    assert total + sum(V5.values()) == 11_908


@pytest.mark.parametrize("name,lang", [("SOI.jp.json", "jp"), ("SOI.de.json", "de")])
def test_language_files_are_skipped(shared, name, lang):
    result = read_file(shared / "realdata/mtgjson3-sets" / name)
    assert result.rulings == [] and f"{lang} language file" in result.skipped


def test_okaun_in_bbd_has_13_rulings(shared):
    rulings = read_file(shared / "realdata/mtgjson3-sets/BBD.json").rulings
    okaun = [r for r in rulings if r.card == "Okaun, Eye of Chaos"]
    # BBD holds two card records of Okaun (two printings), each with the same 13 rulings.
    assert len(okaun) == 26 and len({r.text for r in okaun}) == 13
    assert {r.set_code for r in okaun} == {"BBD"}


def test_tsp_dates_and_oracle_ids(shared):
    result = read_file(shared / "realdata/mtgjson5-TSP/TSP.json")
    dates = [r.date for r in result.rulings]
    assert dates.count("2024-02-02") == 376 and dates.count("2006-09-25") == 84
    assert all(r.oracle_id for r in result.rulings) and {r.set_code for r in result.rulings} == {"TSP"}
    assert len(result.card_names) == 286


def test_bro_set_without_meta_wrapper(shared):
    result = read_file(shared / "realdata/mightstone-samples/mtgjson/set.json")
    assert sum(r.date == "2022-10-14" for r in result.rulings) == 834
    assert {r.set_code for r in result.rulings} == {"BRO"}


def test_v3_double_faced_card_has_full_name(shared):
    cards = {r.card for r in read_file(shared / "realdata/mtgjson3-sets/SOI.json").rulings}
    assert "Archangel Avacyn // Avacyn, the Purifier" in cards


def test_allprintings_and_atomic_shapes(shared, tmp_path):
    card = json.loads((shared / "realdata/mightstone-samples/mtgjson/cardset.json").read_text("utf-8"))
    bro = json.loads((shared / "realdata/mightstone-samples/mtgjson/set.json").read_text("utf-8"))
    all_printings = tmp_path / "AllPrintings.json"
    all_printings.write_text(json.dumps({"meta": {"version": "5"}, "data": {"BRO": bro}}), "utf-8")
    assert len(list(mtgjson.read(all_printings))) == 874
    atomic = tmp_path / "AtomicCards.json"
    atomic.write_text(json.dumps({"meta": {}, "data": {card["name"]: [card]}}), "utf-8")
    (ruling,) = mtgjson.read(atomic)
    assert ruling.card == card["name"] == "Sphinx of the Final Word"
    assert ruling.oracle_id == card["identifiers"]["scryfall_oracle_id"]


def test_truncated_set_file_is_rejected(shared, tmp_path):
    raw = (shared / "realdata/mtgjson3-sets/BBD.json").read_bytes()
    cut = tmp_path / "BBD.json"
    cut.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ReadError, match="truncated JSON"):
        list(mtgjson.read(cut))


def _no_whole_file_load(monkeypatch):
    def refuse(path):
        raise AssertionError(f"{path} was loaded whole")
    monkeypatch.setattr(mtgjson.jsontext, "load", refuse)


def test_allprintings_is_streamed_per_set(shared, tmp_path, monkeypatch):
    bro = json.loads((shared / "realdata/mightstone-samples/mtgjson/set.json").read_text("utf-8"))
    tsp = json.loads((shared / "realdata/mtgjson5-TSP/TSP.json").read_text("utf-8"))["data"]
    all_printings = tmp_path / "AllPrintings.json"
    all_printings.write_text(json.dumps({"meta": {"version": "5"}, "data": {"BRO": bro, "TSP": tsp}}), "utf-8")
    all_sets = tmp_path / "AllSets.json"              # v3: sets keyed by code at the top
    all_sets.write_text(json.dumps({"BRO": bro, "TSP": tsp}), "utf-8")
    _no_whole_file_load(monkeypatch)
    for path in (all_printings, all_sets):
        result = read_file(path)
        assert result.format == "mtgjson" and len(result.rulings) == 874 + 921
        sets = [r.set_code for r in result.rulings]
        assert sets.count("BRO") == 874 and sets.count("TSP") == 921
        assert [r.position for r in result.rulings] == list(range(874 + 921))
        assert len(result.card_names) >= 286


def test_atomic_cards_are_streamed_per_card(shared, tmp_path, monkeypatch):
    card = json.loads((shared / "realdata/mightstone-samples/mtgjson/cardset.json").read_text("utf-8"))
    atomic = tmp_path / "AtomicCards.json"
    other = {"name": "Other", "rulings": [{"date": "2020-01-01", "text": "Another ruling."}]}
    atomic.write_text(json.dumps({"meta": {}, "data": {card["name"]: [card], "Other": [other]}}), "utf-8")
    _no_whole_file_load(monkeypatch)
    rulings = list(mtgjson.read(atomic))
    assert [r.card for r in rulings] == ["Sphinx of the Final Word", "Other"]


def test_set_files_are_still_loaded_whole(shared, monkeypatch):
    _no_whole_file_load(monkeypatch)
    with pytest.raises(AssertionError, match="loaded whole"):
        list(mtgjson.read(shared / "realdata/mtgjson5-TSP/TSP.json"))


def test_truncated_allprintings_is_rejected(shared, tmp_path):
    bro = json.loads((shared / "realdata/mightstone-samples/mtgjson/set.json").read_text("utf-8"))
    raw = json.dumps({"meta": {"version": "5"}, "data": {"BRO": bro, "BR2": bro}}).encode("utf-8")
    for cut in (len(raw) // 4, len(raw) * 3 // 4):      # inside the first set, inside the second
        path = tmp_path / f"AllPrintings-{cut}.json"
        path.write_bytes(raw[:cut])
        result = read_file(path)
        assert result.rulings == [] and result.rejected.startswith("truncated JSON"), result.rejected


def test_ruling_without_text_is_kept_for_rejection_and_bad_date_is_a_warning(tmp_path):
    card = {"name": "Okaun, Eye of Chaos", "setCode": "BBD", "uuid": "u", "rulings": [
        {"date": "2018-06-08", "text": "A real ruling."}, {"date": "2018-06-08", "text": None},
        {"date": "2018-06-08"}, {"date": "2018-06-08", "text": ""}, {"date": "2019-13-45", "text": "Undated."},
        {"date": "", "text": "No date given."}]}
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card), "utf-8")
    rulings = read_file(path).rulings
    assert [r.text for r in rulings] == ["A real ruling.", "", "", "", "Undated.", "No date given."]
    assert [r.date for r in rulings] == ["2018-06-08"] * 4 + [None, None]
    assert [r.warnings for r in rulings] == [()] * 4 + [(INVALID_DATE,), ()]
    kept, rejections = normalise(rulings)
    assert len(kept) == 3 and [r.reason for r in rejections] == ["empty text"] * 3


def test_rulings_carry_their_cards_type_line_and_rules_text(shared):
    """MTGJSON prints each card's ``type`` and ``text`` beside its rulings (v3 and v5): every ruling keeps
    them for search (search/documents.py card_text()), never in its own text."""
    c18 = read_file(shared / "realdata/mtgjson3-sets/C18.json").rulings
    citadel = [r for r in c18 if r.card == "Darksteel Citadel"]
    assert [r.card_text for r in citadel] == ["Artifact Land Indestructible\n{T}: Add {C}."]
    assert "indestructible" not in citadel[0].text.lower()
    tsp = read_file(shared / "realdata/mtgjson5-TSP/TSP.json").rulings
    assert sum(1 for r in tsp if r.card_text) == len(tsp) == 921
    vision = next(r for r in tsp if r.card == "Ancestral Vision")
    assert vision.card_text.startswith("Sorcery Suspend 4—{U} (Rather than cast this card")
    assert vision.card_text.endswith("\nTarget player draws three cards.")


def test_a_card_without_type_or_text_has_no_card_text():
    assert mtgjson.card_text({"name": "Plains", "type": "  ", "text": None}) is None
    assert mtgjson.card_text({"name": "Vanilla", "type": "Creature — Bear"}) == "Creature — Bear"
