"""search/export.py: order, grouping, metadata and each format, on entries built by the real pipeline."""

import csv
import io
import json

from bs4 import BeautifulSoup

from rulings.ingest.model import Ruling, Source, entry_to_dict
from rulings.ingest.pipeline import build_entries
from rulings.search.export import Selection, export_order, grouped, md_escape, render

SAME = "Players can respond to a spell or ability whose effect includes proliferating."


def entries():
    """Five rulings forming four entries: SAME on two cards in two sets, one undated, one with markup."""
    rulings = [
        Ruling(SAME, Source("/d/ONE.json", "mtgjson"), 0, date="2023-02-04", card="Thrummingbird", set_code="ONE"),
        Ruling(SAME, Source("/d/MOM.json", "mtgjson"), 3, date="2023-04-14", card="Evolution Sage", set_code="MOM"),
        Ruling("Evolve compares power to power, “as written”.", Source("/d/MOM.json", "mtgjson"), 1,
               date="2023-04-14", card="Evolution Sage", set_code="MOM"),
        Ruling("A *shield* counter [see 122.1] uses <b>bold</b> &amp; `code`.", Source("/d/s.txt", "text"), 0),
        Ruling("If power <3 or >5 & X — nothing • happens.", Source("/d/ONE.json", "mtgjson"), 7,
               date="2023-02-04", card="Thrummingbird", set_code="ONE"),
    ]
    return [entry_to_dict(e) for e in build_entries(rulings).entries]


def test_export_order_is_oldest_first_then_id_undated_last():
    ordered = sorted(entries(), key=export_order)
    assert [e["dates"][:1] for e in ordered] == [["2023-02-04"], ["2023-02-04"], ["2023-04-14"], []]
    assert ordered[0]["id"] < ordered[1]["id"]
    assert render(list(reversed(ordered)), "json") == render(ordered, "json")


def test_jsonl_meta_first_then_entries():
    lines = render(entries(), "jsonl", Selection(set_code="ONE"), created="2026-01-02T03:04:05+00:00").splitlines()
    meta = json.loads(lines[0])["meta"]
    assert meta == {"selected": {"set": "ONE"}, "created": "2026-01-02T03:04:05+00:00",
                    "sources": ["/d/MOM.json", "/d/ONE.json", "/d/s.txt"], "entries": 4, "variants": 5}
    assert [json.loads(line)["id"] for line in lines[1:]] == [e["id"] for e in sorted(entries(), key=export_order)]


def test_group_by_set_lists_shared_entry_under_each_set():
    groups = dict((h, [e["text"] for e in es]) for h, es in grouped(sorted(entries(), key=export_order), "set"))
    assert list(groups) == ["MOM", "ONE", "(none)"]
    assert SAME in groups["MOM"] and SAME in groups["ONE"]
    assert len(groups["MOM"]) == 2 and len(groups["ONE"]) == 2 and len(groups["(none)"]) == 1


def test_selected_set_scopes_card_headings():
    picked = [e for e in entries() if "ONE" in e["sets"]]
    headings = [h for h, _ in grouped(picked, "card", Selection(set_code="one"))]
    assert headings == ["Thrummingbird"]
    assert [h for h, _ in grouped(picked, "card")] == ["Evolution Sage", "Thrummingbird"]


def test_md_escapes_markup_but_keeps_plain_signs():
    assert md_escape("<3 or >5 & X") == "<3 or >5 & X"
    assert md_escape("A *shield* [x] <b> &amp; `c` snake_case _u_") == \
        "A \\*shield\\* \\[x\\] \\<b> \\&amp; \\`c\\` snake_case \\_u\\_"
    md = render(entries(), "md", group_by="card", created="c")
    assert "If power <3 or >5 & X — nothing • happens." in md
    assert "“as written”" in md
    assert md.splitlines()[0] == "# Rulings export"
    assert "- **entries:** 4" in md and "- **variants:** 5" in md


def test_html_escapes_every_text():
    page = render(entries(), "html", Selection(card="<Thrummingbird>"), created="<now>", group_by="card")
    soup = BeautifulSoup(page, "html.parser")
    assert soup.find("b", string="bold") is None
    texts = [d.get_text() for d in soup.select("li > div[lang]")]
    assert "A *shield* counter [see 122.1] uses <b>bold</b> &amp; `code`." in texts
    assert "If power <3 or >5 & X — nothing • happens." in texts
    header = soup.select_one("dl.meta").get_text()
    assert "card <Thrummingbird>" in header and "<now>" in header


def test_csv_quotes_and_joins():
    rows = list(csv.reader(io.StringIO(render(entries(), "csv"))))
    assert rows[0] == ["id", "text", "lang", "date", "dates", "mechanics", "cards", "sets", "variants"]
    same = next(r for r in rows if r[1] == SAME)
    assert same[4:] == ["2023-02-04; 2023-04-14", "proliferate", "Thrummingbird; Evolution Sage", "MOM; ONE", "2"]
    variant_rows = list(csv.DictReader(io.StringIO(render(entries(), "csv", variants=True))))
    assert len(variant_rows) == 5
    assert [(r["set"], r["source"], r["position"]) for r in variant_rows if r["text"] == SAME] == \
        [("ONE", "/d/ONE.json", "0"), ("MOM", "/d/MOM.json", "3")]
