"""``rulings export`` on a small index built in tmp_path from seed-layout text documents.

The five documents below hold 7 rulings that form 6 entries (counted by hand): the
proliferate ruling is printed for two cards and merges; every other ruling is its own entry.
"""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from rulings.search import catalog
from rulings.search.cli import cli

SHARED_RULING = ("To proliferate, you can choose any permanent that has a counter — "
                 "including ones controlled by opponents.")
ESCAPED = "If a creature with power <3 or >5 & X enters, nothing happens."
TYPOGRAPHY = "Whenever you proliferate, evolve doesn’t trigger • it checks “power” and ‘toughness’ only."
CJK_CARD = "巡逻和平使者"

DOCS = {
    "a.txt": f"Thrummingbird\n\n04/02/2023\n\n{SHARED_RULING}\n\n05/02/2023\n\n{ESCAPED}\n",
    "b.txt": f"Evolution Sage\n\n04/02/2023\n\n{SHARED_RULING}\n\n01/01/2020\n\n{TYPOGRAPHY}\n",
    "c.txt": f"{CJK_CARD}\n\n01/03/2019\n\n"
             "A creature with evolve compares power to power and toughness to toughness.\n",
    "d.txt": "Rulings\n\n• 2021-06-07\n  A player can commit only one crime per spell or ability they control.\n",
    "e.txt": "Search\n\nProliferate twice and each chosen permanent gets two more counters of each kind.\n",
}


@pytest.fixture(scope="module")
def small_index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("export")
    docs = root / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    catalog.ingest(root / "ix", [docs])
    return root / "ix"


def export(runner, index_dir, *args):
    result = runner.invoke(cli, ["export", *args, "--index", str(index_dir)])
    assert result.exit_code == 0, result.output
    return result.stdout


def jsonl_entries(text):
    lines = [json.loads(line) for line in text.splitlines()]
    assert "meta" in lines[0]
    return lines[0]["meta"], lines[1:]


def test_everything_in_export_order(runner, small_index):
    meta, entries = jsonl_entries(export(runner, small_index))
    assert [e["dates"][:1] for e in entries] == [["2019-03-01"], ["2020-01-01"], ["2021-06-07"],
                                                 ["2023-02-04"], ["2023-02-05"], []]
    assert (meta["entries"], meta["variants"]) == (6, 7)
    assert [Path(p).name for p in meta["sources"]] == ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"]
    assert meta["selected"] == {}
    assert meta["created"] == catalog.summary(small_index)["ingested"]
    shared = entries[3]
    assert shared["text"] == SHARED_RULING
    assert shared["cards"] == ["Thrummingbird", "Evolution Sage"]
    assert [Path(v["source"]["path"]).name for v in shared["variants"]] == ["a.txt", "b.txt"]


def test_same_index_same_bytes(runner, small_index):
    for fmt in ("jsonl", "json", "csv", "md", "html"):
        first = export(runner, small_index, "--format", fmt, "--group-by", "card")
        assert export(runner, small_index, "--format", fmt, "--group-by", "card") == first


def test_mechanics_all_by_default_any_with_flag(runner, small_index):
    _, both = jsonl_entries(export(runner, small_index, "--mechanic", "proliferate", "--mechanic", "Evolve"))
    assert [e["text"] for e in both] == [TYPOGRAPHY]
    meta, either = jsonl_entries(export(runner, small_index, "--mechanic", "proliferate",
                                        "--mechanic", "evolve", "--any-mechanic"))
    assert len(either) == 4
    assert meta["selected"] == {"mechanic": ["proliferate", "evolve"], "any_mechanic": True}
    assert all({"proliferate", "evolve"} & set(e["mechanics"]) for e in either)


def test_selectors_combine(runner, small_index):
    _, since = jsonl_entries(export(runner, small_index, "--since", "2021-01-01"))
    assert [e["dates"] for e in since] == [["2021-06-07"], ["2023-02-04"], ["2023-02-05"]]
    _, until = jsonl_entries(export(runner, small_index, "--until", "2020-12-31"))
    assert [e["dates"] for e in until] == [["2019-03-01"], ["2020-01-01"]]
    _, card = jsonl_entries(export(runner, small_index, "--card", "thrummingbird", "--mechanic", "proliferate"))
    assert [e["text"] for e in card] == [SHARED_RULING]
    meta, counter = jsonl_entries(export(runner, small_index, "--query", "counter", "--until", "2024-01-01"))
    assert [e["text"] for e in counter] == [SHARED_RULING]
    assert meta["selected"] == {"until": "2024-01-01", "query": "counter"}


def test_csv_one_row_per_entry_or_variant(runner, small_index):
    rows = list(csv.DictReader(io.StringIO(export(runner, small_index, "--format", "csv"))))
    assert len(rows) == 6
    shared = next(r for r in rows if r["text"] == SHARED_RULING)
    assert (shared["cards"], shared["mechanics"], shared["variants"]) == \
        ("Thrummingbird; Evolution Sage", "proliferate", "2")
    variant_rows = list(csv.DictReader(io.StringIO(export(runner, small_index, "--format", "csv", "--variants"))))
    assert len(variant_rows) == 7
    assert [r["card"] for r in variant_rows if r["text"] == SHARED_RULING] == ["Thrummingbird", "Evolution Sage"]


def test_group_by_card_lists_every_entry_of_each_card(runner, small_index):
    md = export(runner, small_index, "--format", "md", "--group-by", "card")
    headings = [line[3:] for line in md.splitlines() if line.startswith("## ")]
    assert headings == ["Evolution Sage", "Thrummingbird", CJK_CARD, "(none)"]
    sections = md.split("\n## ")[1:]
    thrumming = sections[1]
    assert thrumming.index(SHARED_RULING) < thrumming.index(ESCAPED)
    sage = sections[0]
    assert sage.index(TYPOGRAPHY.replace("*", "\\*")) < sage.index(SHARED_RULING)
    scoped = export(runner, small_index, "--format", "md", "--group-by", "card", "--card", "Evolution Sage")
    assert [line[3:] for line in scoped.splitlines() if line.startswith("## ")] == ["Evolution Sage"]


def test_group_by_mechanic_uses_printed_names(runner, small_index):
    md = export(runner, small_index, "--format", "md", "--group-by", "mechanic")
    headings = [line[3:] for line in md.splitlines() if line.startswith("## ")]
    # "... >5 & X enters" names the variable X: tagged x-costs (tag guidelines: X in a cost or effect)
    assert headings == ["Crime", "Evolve", "Proliferate", "X costs (x-costs)"]


def test_html_escapes_and_keeps_typography(runner, small_index):
    page = export(runner, small_index, "--format", "html", "--group-by", "card")
    assert "&lt;3 or &gt;5 &amp; X" in page
    soup = BeautifulSoup(page, "html.parser")
    texts = [div.get_text() for div in soup.select("li > div[lang]")]
    assert ESCAPED in texts and TYPOGRAPHY in texts and SHARED_RULING in texts
    assert [h.contents[0].strip() for h in soup.find_all("h2")] == \
        ["Evolution Sage", "Thrummingbird", CJK_CARD, "(none)"]
    # self-contained: no external resource; the one script is the filter box's, inline (issue 24)
    assert not soup.find_all(["link", "img"]) and not soup.find_all(src=True)
    assert [bool(s.string and "filter" in s.string) for s in soup.find_all("script")] == [True]


def test_every_format_keeps_unicode(runner, small_index):
    for fmt in ("jsonl", "json", "csv", "md", "html"):
        out = export(runner, small_index, "--format", fmt)
        for text in (TYPOGRAPHY, SHARED_RULING, CJK_CARD, ESCAPED if fmt != "html" else "&lt;3 or &gt;5"):
            assert text in out, (fmt, text)


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "md", "html"])
def test_utf8_whatever_the_locale(small_index, tmp_path, fmt):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LANG", "LANGUAGE")}
    env.update(LC_ALL="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    command = [sys.executable, "-c", "from rulings.search.cli import main; main()", "export", "--format", fmt,
               "--index", str(small_index)]
    piped = subprocess.run(command, env=env, capture_output=True, check=True)
    written = tmp_path / f"out.{fmt}"
    subprocess.run(command + ["-o", str(written)], env=env, capture_output=True, check=True)
    assert written.read_bytes() == piped.stdout
    text = piped.stdout.decode("utf-8")
    assert CJK_CARD in text and "“power”" in text and "—" in text and "•" in text


def test_jsonl_round_trip_gives_same_entries(runner, small_index, tmp_path):
    first = tmp_path / "all.jsonl"
    export(runner, small_index, "-o", str(first))
    again = tmp_path / "ix"
    result = runner.invoke(cli, ["ingest", str(first), "--index", str(again), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["formats"] == {"jsonl": {"files": 1, "rulings": 7}}
    second = tmp_path / "again.jsonl"
    export(runner, again, "-o", str(second))
    assert first.read_text("utf-8").splitlines()[1:] == second.read_text("utf-8").splitlines()[1:]


def test_selection_round_trip_keeps_ids_and_sources(runner, small_index, tmp_path):
    part = tmp_path / "proliferate.jsonl"
    export(runner, small_index, "--mechanic", "proliferate", "-o", str(part))
    runner.invoke(cli, ["ingest", str(part), "--index", str(tmp_path / "ix")])
    before = [json.loads(line) for line in part.read_text("utf-8").splitlines()[1:]]
    after = jsonl_entries(export(runner, tmp_path / "ix"))[1]
    assert [(e["id"], e["mechanics"], e["variants"]) for e in after] == \
        [(e["id"], e["mechanics"], e["variants"]) for e in before]
    assert {v["source"]["format"] for e in after for v in e["variants"]} == {"text"}


def test_bad_input_is_one_line(runner, small_index, tmp_path):
    result = runner.invoke(cli, ["export", "--mechanic", "prolifrate", "--index", str(small_index)])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: unknown mechanic 'prolifrate'; closest: proliferate")
    target = tmp_path / "missing" / "out.csv"
    result = runner.invoke(cli, ["export", "-o", str(target), "--index", str(small_index)])
    assert (result.exit_code, result.stderr.count("\n")) == (1, 1)
    assert result.stderr.startswith(f"Error: {target}: cannot be written")
    meta, entries = jsonl_entries(export(runner, small_index, "--query", "phyrexian"))
    assert (meta["entries"], meta["variants"], meta["sources"], entries) == (0, 0, [], [])


PROLIFERATE_TWICE = DOCS["e.txt"].split("\n\n")[1].strip()


def search_texts(runner, index_dir, query):
    result = runner.invoke(cli, ["search", query, "--format", "jsonl", "--limit", "50", "--index", str(index_dir)])
    assert result.exit_code == 0, result.output
    return [json.loads(line)["text"] for line in result.stdout.splitlines()]


def test_query_is_read_as_search_reads_it(runner, small_index):
    # A question: its question words are not required; the entries holding every word that matters
    # (proliferate, twice) are selected, not search's tail of entries holding one of them.
    _, asked = jsonl_entries(export(runner, small_index, "--query", "can I proliferate twice?"))
    assert [e["text"] for e in asked] == [PROLIFERATE_TWICE]
    found = search_texts(runner, small_index, "can I proliferate twice?")
    assert found[0] == PROLIFERATE_TWICE and SHARED_RULING in found[1:]
    # Any form of a word: "proliferates counters" holds proliferate + counter(s) in both texts.
    _, forms = jsonl_entries(export(runner, small_index, "--query", "proliferates counters"))
    assert sorted(e["text"] for e in forms) == sorted([SHARED_RULING, PROLIFERATE_TWICE])
    # A required word and a filter select as in search; an exclusion narrows a filter's set.
    _, required = jsonl_entries(export(runner, small_index, "--query", "+evolve power", "--until", "2019-12-31"))
    assert [e["cards"] for e in required] == [[CJK_CARD]]
    _, left = jsonl_entries(export(runner, small_index, "--query", "-crime", "--since", "2021-01-01"))
    assert [e["dates"] for e in left] == [["2023-02-04"], ["2023-02-05"]]


def test_query_selection_is_search_first_tier(runner, small_index):
    # Whatever export selects, search lists those entries first (they hold every word).
    for query in ("proliferate counter kind", "power toughness", "evolve", "counters opponents"):
        _, picked = jsonl_entries(export(runner, small_index, "--query", query))
        found = search_texts(runner, small_index, query)
        assert picked, query
        assert sorted(e["text"] for e in picked) == sorted(found[:len(picked)]), query


def test_query_errors_as_search_does(runner, small_index):
    for query, start in (("flying^5", "Error: boosts (flying^5) are not supported"),
                         ("-crime", "Error: query '-crime' only excludes"),
                         ("   ", "Error: --query is empty")):
        result = runner.invoke(cli, ["export", "--query", query, "--index", str(small_index)])
        assert (result.exit_code, result.stderr.count("\n")) == (1, 1), query
        assert result.stderr.startswith(start), result.stderr


def test_help_documents_order(runner):
    result = runner.invoke(cli, ["export", "--help"])
    assert "oldest date first (undated last), then id" in result.stdout
    assert "--any-mechanic" in result.stdout


# --- the real corpus (../shared/realdata) -------------------------------------------------------

def mtgjson3_cards_by_ruling(shared, *codes) -> dict[str, set[str]]:
    """{ruling text: card names (as the MTGJSON reader names them)} over MTGJSON v3 set files."""
    from rulings.ingest.readers.mtgjson import card_name
    cards: dict[str, set[str]] = {}
    for code in codes:
        data = json.loads((shared / "realdata" / "mtgjson3-sets" / f"{code}.json").read_text("utf-8"))
        for card in data["cards"]:
            for ruling in card.get("rulings", []):
                cards.setdefault(ruling["text"], set()).add(card_name(card))
    return cards


def test_real_energy_csv_holds_each_ruling_once(runner, real_index, shared):
    from rulings.ingest.normalise import fold
    rows = list(csv.DictReader(io.StringIO(export(runner, real_index, "--mechanic", "energy", "--format", "csv"))))
    assert len({r["id"] for r in rows}) == len(rows)
    assert len({(r["lang"], fold(r["text"])) for r in rows}) == len(rows)
    _, entries = jsonl_entries(export(runner, real_index, "--mechanic", "energy"))
    entry_of = {v["text"]: e["id"] for e in entries for v in e["variants"]}
    by_id = {r["id"]: r for r in rows}
    seventy = {t: c for t, c in mtgjson3_cards_by_ruling(shared, "KLD", "AER").items() if len(c) == 70}
    assert len(seventy) == 6
    assert len({entry_of[text] for text in seventy}) == 6
    for text, cards in seventy.items():
        row = by_id[entry_of[text]]
        assert set(row["cards"].split("; ")) == cards
        assert len(row["cards"].split("; ")) == 70


def test_real_bbd_by_card_lists_each_distinct_ruling(runner, real_index, shared):
    from rulings.ingest.normalise import fold
    from rulings.search.export import md_escape
    md = export(runner, real_index, "--set", "BBD", "--group-by", "card", "--format", "md")
    shown = {}
    for block in md.split("\n## ")[1:]:
        heading, *lines = block.splitlines()
        shown[heading] = sum(1 for line in lines if line.startswith("- "))
    distinct: dict[str, set[str]] = {}
    for text, cards in mtgjson3_cards_by_ruling(shared, "BBD").items():
        for card in cards:
            distinct.setdefault(md_escape(card), set()).add(fold(text))
    assert len(distinct) == 155
    assert {card: shown.get(card) for card in distinct} == {card: len(t) for card, t in distinct.items()}
    assert shown["Will Kenrith"] == 23


def test_real_corpus_jsonl_round_trip(runner, real_index, tmp_path):
    first = tmp_path / "all.jsonl"
    export(runner, real_index, "-o", str(first))
    again = tmp_path / "ix"
    result = runner.invoke(cli, ["ingest", str(first), "--index", str(again)])
    assert result.exit_code == 0, result.output
    second = tmp_path / "again.jsonl"
    export(runner, again, "-o", str(second))
    before, after = first.read_text("utf-8").splitlines(), second.read_text("utf-8").splitlines()
    assert len(before) == catalog.summary(real_index)["entries"] + 1
    assert before[1:] == after[1:]
    meta_before, meta_after = json.loads(before[0])["meta"], json.loads(after[0])["meta"]
    assert {k: meta_before[k] for k in ("sources", "entries", "variants")} == \
        {k: meta_after[k] for k in ("sources", "entries", "variants")}


def test_csv_cells_never_start_a_spreadsheet_formula(runner, shared, tmp_path):
    """Issue 21, item 9 (OWASP "CSV Injection"): a real UST ruling starts "+1/+1 counters and -1/-1
    counters ..."; a spreadsheet reads a cell starting with = + - @ (or a tab or carriage return) as a
    formula, so such a cell gets a leading apostrophe, which keeps the text readable."""
    from rulings.ingest.read import read_file

    ust = shared / "realdata/mtgjson3-sets/UST.json"
    (plus,) = {r.text for r in read_file(ust).rulings if r.text.startswith("+")}
    assert plus.startswith("+1/+1 counters and -1/-1 counters on permanents you control")
    catalog.ingest(tmp_path / "ix", [ust])
    for extra in ([], ["--variants"]):
        rows = list(csv.reader(io.StringIO(export(runner, tmp_path / "ix", "--format", "csv", *extra))))
        column = rows[0].index("text")
        assert ["'" + plus] == [row[column] for row in rows[1:] if row[column].lstrip("'") == plus]
        assert [cell for row in rows for cell in row if cell[:1] in ("=", "+", "-", "@", "\t", "\r")] == []
    from rulings.search.export import csv_cell
    assert [csv_cell(v) for v in ("=1+2", "@SUM(A1)", "-2+3", "\tx", "\rx", "＋1", "a=b", 0.97, 3)] == \
        ["'=1+2", "'@SUM(A1)", "'-2+3", "'\tx", "'\rx", "'＋1", "a=b", "0.97", "3"]


def index_files(index_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(index_dir)): p.read_bytes() for p in sorted(index_dir.rglob("*"))
            if p.is_file() and p.name != "lock"}


def test_output_inside_an_index_folder_is_refused(runner, seed_index, tmp_path):
    """Issue 21, item 6: ``-o`` into an index folder overwrote its files."""
    from rulings.search import folder

    live = folder.live(seed_index)
    other = tmp_path / "other-ix"
    catalog.ingest(other, [sorted((Path(__file__).parents[1] / "corpus").glob("*.txt"))[0]])
    link = tmp_path / "link"
    link.symlink_to(live)
    before = index_files(seed_index)
    for target in (live / "summary.json", seed_index / "CURRENT", seed_index / "new.jsonl",
                   live / "whoosh" / "x.seg", link / "state.pkl", folder.live(other) / "summary.json"):
        result = runner.invoke(cli, ["export", "-o", str(target), "--index", str(seed_index)])
        holder = folder.live(other) if str(target).startswith(str(other)) else \
            live if target.parent != seed_index else seed_index
        assert result.exit_code == 1, (target, result.output)
        assert result.stderr == (f"Error: {target}: lies inside the index folder {holder}; an export would "
                                 "overwrite the index's files, write it elsewhere\n")
    assert index_files(seed_index) == before
    assert not (seed_index / "new.jsonl").exists()
    hits = runner.invoke(cli, ["search", "proliferate", "--format", "json", "--index", str(seed_index)])
    assert hits.exit_code == 0 and len(json.loads(hits.stdout)) > 0


def test_output_dash_is_standard_output(runner, seed_index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plain = export(runner, seed_index, "--format", "csv")
    assert export(runner, seed_index, "--format", "csv", "-o", "-") == plain
    assert list(tmp_path.iterdir()) == []                      # no file named "-"
    export(runner, seed_index, "--format", "csv", "-o", "./-")   # a file named "-" is written as ./-
    assert (tmp_path / "-").read_text("utf-8") == plain


@pytest.mark.parametrize("existing", [True, False], ids=["over-a-previous-export", "new-file"])
def test_failed_export_leaves_no_truncated_file(runner, seed_index, tmp_path, monkeypatch, existing):
    """A disk that fills up halfway (ENOSPC from write) leaves the previous export whole, or no file."""
    import errno

    from rulings.search import output

    target = tmp_path / "out.md"
    if existing:
        export(runner, seed_index, "--format", "md", "-o", str(target))
        target.chmod(0o640)
    before = target.read_bytes() if existing else None
    real_write, written = os.write, []

    def full_disk(fd, data):
        if written:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written.append(real_write(fd, bytes(data[:len(data) // 2])))
        return written[0]

    monkeypatch.setattr(output.os, "write", full_disk)
    result = runner.invoke(cli, ["export", "--format", "jsonl", "-o", str(target), "--index", str(seed_index)])
    assert result.exit_code == 1 and written
    assert result.stderr == f"Error: {target}: cannot be written (No space left on device)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == (["out.md"] if existing else [])
    if existing:
        assert target.read_bytes() == before and (target.stat().st_mode & 0o777) == 0o640
    monkeypatch.setattr(output.os, "write", real_write)
    export(runner, seed_index, "--format", "jsonl", "-o", str(target))
    assert target.read_bytes().decode("utf-8") == export(runner, seed_index, "--format", "jsonl")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.md"]


def test_html_split_by_group(runner, small_index, tmp_path):
    """--split DIR: an index.html linking one page per group; names made of the group's number and a-z0-9-."""
    import re

    folder = tmp_path / "pages"
    result = runner.invoke(cli, ["export", "--format", "html", "--group-by", "card", "--split", str(folder),
                                 "--index", str(small_index)])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in folder.iterdir())
    assert names[-1] == "index.html" and len(names) == 5
    assert all(re.fullmatch(r"\d{3}-[a-z0-9-]+\.html", n) for n in names[:-1]), names
    assert names[:-1] == ["001-evolution-sage.html", "002-thrummingbird.html", "003-group.html", "004-none.html"]
    index_page = BeautifulSoup((folder / "index.html").read_text("utf-8"), "html.parser")
    assert [a["href"] for a in index_page.select("nav.groups a")] == names[:-1]
    assert [a.contents[0].strip() for a in index_page.select("nav.groups a")] == \
        ["Evolution Sage", "Thrummingbird", CJK_CARD, "(none)"]
    thrumming = BeautifulSoup((folder / "002-thrummingbird.html").read_text("utf-8"), "html.parser")
    assert {d.get_text() for d in thrumming.select("li > div[lang]")} == {SHARED_RULING, ESCAPED}
    assert "&lt;3 or &gt;5 &amp; X" in (folder / "002-thrummingbird.html").read_text("utf-8")
    assert thrumming.find("a", href="index.html")


def test_html_split_needs_html_and_a_grouping(runner, small_index, tmp_path):
    for args in (["--format", "md", "--group-by", "card"], ["--format", "html"],
                 ["--format", "html", "--group-by", "card", "-o", str(tmp_path / "x.html")]):
        result = runner.invoke(cli, ["export", *args, "--split", str(tmp_path / "d"), "--index", str(small_index)])
        assert result.exit_code == 2 and "--split DIR goes with --format html and --group-by" in result.stderr
    inside = runner.invoke(cli, ["export", "--format", "html", "--group-by", "set", "--split",
                                 str(small_index / "pages"), "--index", str(small_index)])
    assert inside.exit_code == 1 and "lies inside the index folder" in inside.stderr
    assert not (small_index / "pages").exists()


@pytest.mark.parametrize("name, first", [
    ("rulings.csv", "id,text,lang"), ("rulings.JSON", "["), ("rulings.md", "# Rulings"),
    ("rulings.html", "<!DOCTYPE html>"), ("rulings.jsonl", '{"meta"'), ("rulings.txt", '{"meta"')])
def test_the_output_files_extension_names_the_format_when_format_is_not_given(runner, small_index, tmp_path, name,
                                                                               first):
    """``export -o crew.csv`` wrote JSON lines into a .csv file (a new user's finding)."""
    out = tmp_path / name
    export(runner, small_index, "-o", str(out))
    assert out.read_text(encoding="utf-8").startswith(first)
    # --format still decides
    export(runner, small_index, "--format", "jsonl", "-o", str(out))
    assert out.read_text(encoding="utf-8").startswith('{"meta"')
