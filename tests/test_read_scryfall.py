"""Scryfall reader on the real rulings files (SOURCES.md sections 1-3)."""

from __future__ import annotations

import json

import pytest

from rulings.ingest.dates import INVALID_DATE
from rulings.ingest.errors import NoRulings, ReadError
from rulings.ingest.read import read_file
from rulings.ingest.readers import scryfall
from rulings.search.cli import cli

DECODED = "realdata/scryfall-cassette-mtgjson/decoded_bodies"
# Rulings per decoded /rulings body, from SOURCES.md section 1 (67 in all).
PER_FILE = {
    "rulings_02d6d693-f1f3-4317-bcc0-c21fa8490d38.json": 16,
    "rulings_5d131784-c1a3-463e-a37b-b720af67ab62.json": 13,
    "rulings_b751cf69-0a02-4cd2-abd4-cdb65ca620a8.json": 13,
    "rulings_94eea6e3-20bc-4dab-90ba-3113c120fb90.json": 13,
    "rulings_d5dfd236-b1da-4552-b94f-ebf6bb9dafdf.json": 11,
    "rulings_d9631cb2-d53b-4401-b53b-29d27bdefc44.json": 1,
}
OKAUN = "7dec219b-96d1-4d4c-b3ac-15eda9d2ccc6"


@pytest.mark.parametrize("name,count", sorted(PER_FILE.items()))
def test_decoded_rulings_lists(shared, name, count):
    result = read_file(shared / DECODED / name)
    assert result.format == "scryfall" and not result.skipped and not result.rejected
    assert len(result.rulings) == count
    assert all(r.oracle_id and r.date and r.publisher in ("wotc", "scryfall") for r in result.rulings)


def test_seven_lists_hold_67_rulings_with_their_sources(shared):
    results = [read_file(p) for p in sorted((shared / DECODED).glob("rulings_*.json"))]
    rulings = [r for result in results for r in result.rulings]
    assert len(results) == 7 and len(rulings) == 67
    assert sum(r.publisher == "wotc" for r in rulings) == 64
    assert sum(r.publisher == "scryfall" for r in rulings) == 3
    empty = [result for result in results if not result.rulings]
    assert len(empty) == 1 and "no rulings" in empty[0].skipped


def test_okaun_has_13_rulings_with_iso_dates(shared):
    rulings = read_file(shared / DECODED / "rulings_94eea6e3-20bc-4dab-90ba-3113c120fb90.json").rulings
    assert len(rulings) == 13 and {r.oracle_id for r in rulings} == {OKAUN}
    assert rulings[0].date == "2018-07-13" and rulings[1].date == "2018-06-08"


def test_aioscryfall_list_and_single_ruling(shared):
    deathrite = read_file(shared / "realdata/scryfall-aioscryfall/single-card.json").rulings
    assert [r.date for r in deathrite] == ["2016-06-08", "2016-06-08"]
    assert deathrite[0].oracle_id.startswith("22f1a4a4-")
    (derevi,) = read_file(shared / "realdata/mightstone-samples/scryfall/ruling.json").rulings
    assert derevi.publisher == "scryfall" and derevi.date == "2015-01-19"
    assert derevi.text.startswith("Derevi, Empyrial Tactician is banned")


def test_card_list_is_skipped_but_names_its_oracle_id(shared):
    result = read_file(shared / DECODED / f"search_langany_{OKAUN}.json")
    assert result.rulings == [] and "card list" in result.skipped and not result.rejected
    assert result.card_names == {OKAUN: "Okaun, Eye of Chaos"}


def test_bare_array_is_streamed_and_read(shared, tmp_path):
    data = json.loads((shared / DECODED / "rulings_02d6d693-f1f3-4317-bcc0-c21fa8490d38.json").read_text("utf-8"))
    bulk = tmp_path / "rulings-bulk.json"
    bulk.write_text(json.dumps(data["data"] * 3), "utf-8")
    rulings = list(scryfall.read(bulk))
    assert len(rulings) == 48 and [r.position for r in rulings] == list(range(48))
    assert rulings[16].text == rulings[0].text


def test_truncated_bare_array_is_rejected(shared, tmp_path):
    raw = (shared / DECODED / "rulings_02d6d693-f1f3-4317-bcc0-c21fa8490d38.json").read_text("utf-8")
    items = json.dumps(json.loads(raw)["data"])
    cut = tmp_path / "cut.json"
    cut.write_text(items[: len(items) // 2], "utf-8")
    with pytest.raises(ReadError, match="truncated"):
        list(scryfall.read(cut))
    result = read_file(cut)
    assert result.rejected and "truncated" in result.rejected and result.rulings == []


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "cp1252"])
def test_encodings_read(tmp_path, encoding):
    ruling = {"object": "ruling", "oracle_id": "x", "source": "wotc", "published_at": "2019-05-03",
              "comment": "Its “owner” can’t choose é."}
    path = tmp_path / f"one-{encoding}.json"
    path.write_bytes(json.dumps([ruling], ensure_ascii=False).encode(encoding))
    (read,) = read_file(path).rulings
    assert read.text == ruling["comment"] and read.date == "2019-05-03"


def test_empty_list_is_no_rulings(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text('{"object":"list","has_more":false,"data":[]}', "utf-8")
    with pytest.raises(NoRulings):
        list(scryfall.read(path))


def _ruling_object(**fields):
    ruling = {"object": "ruling", "oracle_id": OKAUN, "source": "wotc", "published_at": "2018-06-08",
              "comment": "Okaun's ability triggers."}
    ruling.update(fields)
    return {k: v for k, v in ruling.items() if v is not ...}


def test_ruling_without_text_is_a_rejected_ruling_not_the_text_none(tmp_path, runner):
    items = [_ruling_object(), _ruling_object(comment=None), _ruling_object(comment=...),
             _ruling_object(comment=""), _ruling_object(comment="   "), _ruling_object(comment=42),
             _ruling_object(comment="Zndrsplt's ability triggers too.", published_at="2019-13-45")]
    path = tmp_path / "rulings.json"
    path.write_text(json.dumps({"object": "list", "has_more": False, "data": items}), "utf-8")
    result = read_file(path)
    assert not result.rejected and len(result.rulings) == 7
    assert [r.text for r in result.rulings[1:6]] == [""] * 5
    assert not any(r.text in ("None", "42") for r in result.rulings)
    undated = result.rulings[6]
    assert undated.date is None and undated.warnings == (INVALID_DATE,)
    assert [r.date for r in result.rulings[:6]] == ["2018-06-08"] * 6

    index = tmp_path / "ix"
    report = json.loads(runner.invoke(cli, ["ingest", str(path), "--index", str(index), "--format", "json"]).stdout)
    assert report["rulings"] == 7 and report["rejected_rulings"] == {"empty text": 5}
    assert report["warnings"] == {INVALID_DATE: 1} and report["rejected"] == []
    stats = json.loads(runner.invoke(cli, ["stats", "--index", str(index), "--format", "json"]).stdout)
    assert stats["rulings"] == 7 and stats["rejected_rulings"] == 5 and stats["warnings"] == {INVALID_DATE: 1}
    assert stats["entries"] == 2


def test_item_that_is_not_a_ruling_rejects_the_file(tmp_path):
    path = tmp_path / "rulings.json"
    path.write_text(json.dumps([_ruling_object(), {"object": "card", "name": "Okaun"}]), "utf-8")
    assert read_file(path).rejected == "item 1 is not a Scryfall ruling object"
