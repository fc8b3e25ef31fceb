"""The front door, rulings.Index (rulings/api.py), on an index of the bundled corpus it ingests itself: the
4 seed documents, 54 rulings, 43 entries. Every answer is what the CLI prints with --format json."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import rulings
from rulings.corpus import corpus_files
from rulings.search.cli import cli

ROOT = Path(__file__).resolve().parents[1]
ENTRY_KEYS = {"id", "text", "lang", "mechanics", "cards", "sets", "date", "dates", "variants", "related",
              "translations"}
SEED_MECHANICS = [("evolve", 7), ("deathtouch", 1), ("lifelink", 1), ("proliferate", 7), ("regenerate", 1),
                  ("shield-counters", 6), ("plus-one-counters", 5), ("minus-one-counters", 1),
                  ("phyrexian-mana", 4), ("x-costs", 2), ("crime", 5), ("mana-abilities", 5),
                  ("state-based-actions", 3)]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(index folder, the IngestReport): the bundled corpus ingested through Index.ingest()."""
    folder = tmp_path_factory.mktemp("api") / "ix"
    with rulings.Index.open(folder) as index:
        report = index.ingest()
    return folder, report


@pytest.fixture
def index(built):
    with rulings.Index.open(built[0]) as opened:
        yield opened


def cli_json(runner, *args):
    result = runner.invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# ---------------------------------------------------------------- the package


def test_front_door_names():
    for name in ("Index", "Selection", "RulingsError", "QueryError", "UnknownEntry", "UnknownMechanic",
                 "DamagedIndex", "NoIndex", "IndexBusy", "IndexWriteError", "ReadError", "UpdateError"):
        assert name in rulings.__all__ and getattr(rulings, name) is not None
    assert rulings.Selection.__module__ == "rulings.search.export"
    assert issubclass(rulings.UnknownMechanic, rulings.QueryError)
    for name in ("QueryError", "UnknownEntry", "UnknownMechanic", "DamagedIndex", "NoIndex", "IndexBusy",
                 "IndexWriteError", "ReadError", "UpdateError"):
        assert issubclass(getattr(rulings, name), rulings.RulingsError)


def test_the_package_is_one_import_package_mapped_onto_the_folders():
    """rulings.search is search/, rulings.ingest is ingest/, rulings.corpus is corpus/ (pyproject.toml)."""
    import rulings.corpus
    import rulings.ingest
    import rulings.search
    assert Path(rulings.search.__file__).resolve().parent == ROOT / "search"
    assert Path(rulings.ingest.__file__).resolve().parent == ROOT / "ingest"
    assert Path(rulings.corpus.__file__).resolve().parent == ROOT / "corpus"
    assert [path.name for path in corpus_files()] == sorted(path.name for path in (ROOT / "corpus").glob("*.txt"))


IMPORT_ONLY = """
import json, sys
import rulings
tops = {m: m.split(".")[0] for m in sys.modules}
print(json.dumps({"whoosh": sorted(m for m, top in tops.items() if top == "whoosh"),
                  "ours": sorted(m for m, top in tops.items() if top in ("rulings", "search", "ingest", "corpus"))}))
"""


def test_importing_rulings_imports_no_whoosh_and_nothing_at_the_top_level(tmp_path):
    done = subprocess.run([sys.executable, "-c", IMPORT_ONLY], capture_output=True, text=True, timeout=120,
                          check=True, cwd=tmp_path)
    loaded = json.loads(done.stdout)
    assert loaded["whoosh"] == []
    assert loaded["ours"] == ["rulings", "rulings.api", "rulings.ingest", "rulings.ingest.errors"]


def _absolute_imports_of_old_names(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
        found += [name for name in names if name.split(".")[0] in ("search", "ingest", "corpus")]
    return found


MODULES = sorted(path for folder in ("rulings", "search", "ingest", "corpus", "tests", "bench", "scripts")
                 for path in (ROOT / folder).rglob("*.py") if "generated" not in path.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_import_names_the_one_package(path):
    """``from search.x import y`` would load a second copy of a module under another name (or fail in a
    plain install): every module is imported as rulings.*."""
    assert _absolute_imports_of_old_names(path) == []


# ---------------------------------------------------------------- ingest and figures


def test_ingest_report(built):
    summary = built[1].to_json()
    assert (summary["rulings"], summary["entries"]) == (54, 43)
    assert summary["formats"] == {"text": {"files": 4, "rulings": 54}}
    assert summary["skipped"] == summary["rejected"] == [] and summary["rejected_rulings"] == {}


def test_stats(index, runner):
    assert index.stats() == {"rulings": 54, "entries": 43, "rejected_rulings": 0, "languages": {"en": 54},
                             "formats": {"text": {"files": 4, "rulings": 54}}, "mechanics": 13, "sources": 4,
                             "warnings": {}}
    assert index.stats() == cli_json(runner, "stats", "--format", "json", "--index", str(index.path))
    assert index.summary()["variants"] == 54 and index.summary()["ingested"][:2] == "20"


def test_sources(index):
    rows = [(s.path, s.result.format, len(s.result.rulings), s.entries) for s in index.sources()]
    assert rows == [("rulings:corpus/000_4791008fab4c9afc.txt", "text", 17, 17),
                    ("rulings:corpus/002_cb6211493364d1de.txt", "text", 11, 11),
                    ("rulings:corpus/003_14c4c19089e5e67c.txt", "text", 9, 9),
                    ("rulings:corpus/004_d033d17d83505c11.txt", "text", 17, 17)]


def test_remove_shrinks_the_index(tmp_path):
    with rulings.Index.open(tmp_path / "ix") as index:
        index.ingest()
        removed = index.remove(corpus_files()[0])
        assert [s.path for s in removed.sources] == ["rulings:corpus/000_4791008fab4c9afc.txt"]
        assert (removed.rulings, removed.entries) == (17, 30)
        assert (index.stats()["rulings"], index.stats()["entries"]) == (37, 30)
        with pytest.raises(rulings.RulingsError, match="not an ingested source"):
            index.remove(tmp_path / "never-ingested.txt")
        with pytest.raises(rulings.RulingsError, match="an empty path"):
            index.remove("")


# ---------------------------------------------------------------- questions


def test_search(index, runner):
    hits = index.search("proliferate")
    assert len(hits) == 7
    assert [(h["id"], h["score"]) for h in hits[:3]] == [("r-4f8432cc25", 13.563), ("r-70c58bf9fa", 13.563),
                                                         ("r-a9ab18aa8d", 12.83)]
    assert hits[0]["text"] == ('An ability that triggers "Whenever you proliferate" triggers even if you chose no '
                               'permanents or players while doing so.')
    assert hits[0]["snippet"] == ('An ability that triggers "Whenever you **proliferate**" triggers even if you '
                                  'chose no permanents or players while doing so.')
    assert set(hits[0]) >= ENTRY_KEYS | {"score", "snippet"}
    assert hits == cli_json(runner, "search", "proliferate", "--format", "json", "--index", str(index.path))
    assert [h["id"] for h in index.search("proliferate", limit=2)] == ["r-4f8432cc25", "r-70c58bf9fa"]


def test_search_filters(index, runner):
    listed = index.search(mechanics="Proliferated", limit=50)          # a name, as --mechanic takes it
    assert sorted(h["id"] for h in listed) == sorted(h["id"] for h in index.search("proliferate"))
    assert index.search("proliferate", lang="zh") == []
    assert len(index.search(mechanics=["evolve"], limit=3)) == 3
    both = index.search(mechanics=["plus-one-counters", "proliferate"], limit=50)
    assert both == cli_json(runner, "search", "--mechanic", "plus-one-counters", "--mechanic", "proliferate",
                            "--limit", "50", "--format", "json", "--index", str(index.path))
    assert {"plus-one-counters", "proliferate"} <= set(both[0]["mechanics"])


def test_search_errors(index):
    with pytest.raises(rulings.UnknownMechanic) as caught:
        index.search("counter", mechanics=["prolifrate"])
    assert str(caught.value) == "unknown mechanic 'prolifrate'; closest: proliferate, populate, replicate"
    with pytest.raises(rulings.QueryError, match="^empty query: give words to search for or a filter$"):
        index.search("   ")


def test_search_limit_must_be_one_or_more(index):
    """As the CLI's --limit: 0, -1, 2.5 or True is an error, never a silent empty answer."""
    for limit in (0, -1, 2.5, True):
        with pytest.raises(rulings.QueryError, match="^limit must be a whole number of 1 or more"):
            index.search("proliferate", limit=limit)
    with pytest.raises(rulings.QueryError, match="^limit must be"):
        index.suggestions("prolifirate", limit=0)
    assert len(index.search("proliferate", limit=1)) == 1


def test_reading_a_folder_without_an_index_is_no_index(tmp_path):
    """A missing or empty folder holds no index: every read says NoIndex (how to make one), not DamagedIndex."""
    empty = tmp_path / "empty"
    empty.mkdir()
    for folder in (tmp_path / "missing", empty):
        opened = rulings.Index.open(folder)
        reads = [(opened.search, ("flying",)), (opened.stats, ()), (opened.sources, ()), (opened.mechanics, ()),
                 (opened.entry, ("r-0000000000",)), (opened.card, ("Rhox Faithmender",))]
        for read, arguments in reads:
            with pytest.raises(rulings.NoIndex, match=f"^{re.escape(str(folder))}: no rulings index here"):
                read(*arguments)
    assert not (tmp_path / "missing").exists() and not any(empty.iterdir())


def test_suggestions(index):
    assert index.suggestions("prolifirate") == ["proliferate", "proliferatelink", "proliferating"]
    assert index.suggestions("proliferate") == []


def test_entry(index, runner):
    entry = index.entry(" R-4F8432CC25 ")
    assert entry["id"] == "r-4f8432cc25" and set(entry) >= ENTRY_KEYS
    assert entry == cli_json(runner, "show", "r-4f8432cc25", "--format", "json", "--index", str(index.path))
    with pytest.raises(rulings.UnknownEntry, match=r"^no entry has the id 'r-nope'$"):
        index.entry("r-nope")


def test_card(index, runner):
    found = index.card("巡逻和平使者")
    assert [(m.card, m.exact, len(m.entries)) for m in found.cards] == [("巡逻和平使者", True, 9)]
    assert not found.begins and found.close == []
    assert [e["id"] for e in found.entries][:3] == ["r-1d50e1d184", "r-96962f2521", "r-32dfceb9c4"]
    assert found.entries == cli_json(runner, "card", "巡逻和平使者", "--format", "json", "--index", str(index.path))
    missing = index.card("Zzyzx")
    assert (missing.cards, missing.begins, missing.entries) == ([], True, [])


def test_mechanics(index, runner):
    rows = index.mechanics()
    assert [(r["id"], r["count"]) for r in rows] == SEED_MECHANICS
    assert rows[0] == {"id": "evolve", "name": "Evolve", "kind": "keyword ability", "count": 7}
    assert rows == cli_json(runner, "mechanics", "--format", "json", "--index", str(index.path))
    assert index.mechanics(lang="zh") == []


def test_mechanic(index, runner):
    found = index.mechanic("增殖")                      # a Chinese name: the one resolver
    assert (found.id, found.name, found.kind, found.zh, found.rule) == ("proliferate", "Proliferate",
                                                                       "keyword action", ("增殖",), "701.34")
    assert [e["id"] for e in found.entries] == ["r-4f8432cc25", "r-98e22c9af3", "r-a959c69e66", "r-a9ab18aa8d",
                                                "r-d5dd01cb5f", "r-70c58bf9fa", "r-d2bf1b9fca"]   # oldest first
    assert found.entries == cli_json(runner, "mechanics", "Proliferated", "--format", "json",
                                     "--index", str(index.path))
    assert index.mechanic_id("double strike") == "double-strike" and index.mechanic_id("totem armor") == "umbra-armor"
    with pytest.raises(rulings.UnknownMechanic, match="^'threshold' is an ability word, not a mechanic"):
        index.mechanic("threshold")


# ---------------------------------------------------------------- exports


def test_export_is_the_clis_bytes(index, runner, tmp_path):
    data = index.export()
    out = tmp_path / "cli.jsonl"
    assert runner.invoke(cli, ["export", "--index", str(index.path), "-o", str(out)]).exit_code == 0
    assert data == out.read_bytes()
    lines = data.decode("utf-8").splitlines()
    assert len(lines) == 44 and json.loads(lines[0])["meta"]["entries"] == 43
    written = index.export(fmt="csv", out=tmp_path / "api.csv", variants=True)
    assert (tmp_path / "api.csv").read_bytes() == written
    assert runner.invoke(cli, ["export", "--format", "csv", "--variants", "--index", str(index.path)]).stdout_bytes \
        == written


def test_export_selection(index):
    selection = rulings.Selection(mechanics=["Proliferated"])
    lines = index.export(selection).decode("utf-8").splitlines()
    meta = json.loads(lines[0])["meta"]
    assert meta["selected"] == {"mechanic": ["proliferate"]} and meta["entries"] == 7
    assert [json.loads(line)["id"] for line in lines[1:]] == [e["id"] for e in index.mechanic("proliferate").entries]


def test_export_errors_and_pages(index, tmp_path):
    with pytest.raises(rulings.RulingsError, match="lies inside the index folder"):
        index.export(out=index.path / "export.jsonl")
    with pytest.raises(rulings.RulingsError, match="format must be one of"):
        index.export(fmt="xml")
    names = index.export_pages(None, tmp_path / "pages", "mechanic")
    assert names[0] == "index.html" and names[-1] == "014-none.html" and len(names) == 15
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == sorted(names)


# ---------------------------------------------------------------- opening, closing, threads


def test_ready(tmp_path, monkeypatch):
    with pytest.raises(rulings.NoIndex, match="no rulings index here; make one with 'rulings ingest"):
        rulings.Index.open(tmp_path / "typo").ready()
    default = tmp_path / "default"
    monkeypatch.setenv("RULINGS_INDEX", str(default))
    notes = []
    index = rulings.Index.open().ready(on_note=notes.append)          # the default place: the demo corpus
    assert index.path == default and index.stats()["entries"] == 43
    assert notes == [f"{default}: no index yet, so it was built from the bundled demo corpus (54 rulings); "
                     "'rulings update' brings every official ruling, 'rulings ingest PATH' your own files"]


def test_close_releases_the_kept_searcher(built):
    from rulings.search import index as whoosh_index

    folder = str(built[0].resolve())
    index = rulings.Index.open(built[0])
    index.search("proliferate")
    assert any(key.startswith(folder) for key in whoosh_index._OPEN)
    index.close()
    assert not any(key.startswith(folder) for key in whoosh_index._OPEN)
    assert len(index.search("proliferate")) == 7                   # usable again: it reopens
    index.close()


def test_threads_share_an_index(index):
    """The threading rule: an Index may be shared by threads; its calls run one at a time, and each answers
    what it answers alone."""
    queries = ["proliferate", "counter", "evolve", "can I respond to proliferate"]
    alone = {q: index.search(q) for q in queries}
    answers, failures = [], []

    def work(number):
        try:
            for q in queries[number % 4:] + queries[:number % 4]:
                answers.append((q, index.search(q)))
                if number == 0:
                    index.close()                               # one thread also releases the searcher
        except Exception as err:                                # reported by the assertion below
            failures.append(err)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == [] and len(answers) == 24
    assert all(hits == alone[q] for q, hits in answers)


def test_readme_example_runs(tmp_path):
    """README.md's "Python API" example, run as it is: it prints what its comments say."""
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme[readme.index("## Python API"):]
    code = section[section.index("```python\n") + len("```python\n"):section.index("\n```\n")]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True,
                          cwd=tmp_path)
    lines = done.stdout.splitlines()
    assert lines[0] == "43 entries"
    assert lines[1].startswith("r-") and len(lines) == 8
    assert lines[4:] == ["Proliferate 7", "['巡逻和平使者']", "['evolve', 'deathtouch', 'lifelink']",
                         "no entry has the id 'r-nope'"]


COMMANDS = sorted((ROOT / "search" / "commands").glob("*.py"))
# What a command may import of ours besides the front door: the other command modules, the error classes
# and control-character helpers, the export's format names and Selection, and the servers serve (with its
# workers) and mcp run.
COMMAND_IMPORTS = ("rulings.api", "rulings.search.commands", "rulings.ingest.errors", "rulings.ingest.controls",
                   "rulings.search.export.FORMATS", "rulings.search.export.GROUPS",
                   "rulings.search.export.SPLIT_INDEX", "rulings.search.export.Selection",
                   "rulings.search.web.app", "rulings.search.web.workers", "rulings.search.mcp_server.run")


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: path.name)
def test_commands_call_only_the_front_door(path):
    """search/commands/* reach the index through rulings.Index only, never catalog, query, index or cards."""
    ours = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rulings"):
            ours |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            ours |= {alias.name for alias in node.names if alias.name.startswith("rulings")}
    assert {name for name in ours if not name.startswith(COMMAND_IMPORTS)} == set()


@pytest.mark.parametrize("bad", ["2019-13", "garbage", "2019-02-30", "20190101", "2019-1", "", "٢٠١٩"])
def test_search_refuses_a_since_or_until_that_is_no_date(index, bad):
    """Index.search(since='2019-13') quietly read 2020-01 and 'garbage' found nothing, where the CLI,
    ``date:`` and /api/search refuse (a new user's finding)."""
    if not bad:      # empty is no filter, as None
        assert index.search("proliferate", since=bad) == index.search("proliferate")
        return
    for name in ("since", "until"):
        with pytest.raises(rulings.QueryError, match=f"{name} '{bad}' is not a date"):
            index.search("proliferate", **{name: bad})


def test_search_since_and_until_take_a_year_a_month_or_a_day(index):
    dated = {hit["id"] for hit in index.search("proliferate", limit=100) if hit["dates"]}
    assert len(dated) == 5
    for since in ("2000", "2000-01", "2000-01-01"):
        assert {hit["id"] for hit in index.search("proliferate", since=since, limit=100)} == dated
    assert index.search("proliferate", until="1999-12", limit=100) == []
