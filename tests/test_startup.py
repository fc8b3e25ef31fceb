"""A query pays only for what it needs (issue 9): an English search imports no reader, pipeline,
download or Chinese segmenter module."""

import json
import subprocess
import sys

# What a word search must not load. The mechanic vocabulary (ingest/tag.py) and rapidfuzz (about 20 ms
# of a cold search together) load only for a mechanic filter, a suggestion or the mechanics command.
HEAVY = ("jieba", "opencc", "lingua", "datasketch", "docx", "pypdf", "bs4", "ijson", "httpx", "rich",
         "rulings.ingest.pipeline", "rulings.ingest.dedup", "rulings.ingest.compare", "rulings.ingest.candidates",
         "rulings.ingest.read",
         "rulings.search.update", "rulings.search.fetch",
         "rulings.ingest.tag", "rapidfuzz",
         # the catalog, the bundled corpus and platformdirs load only to build an index or find the default
         # one; the other commands' modules (export's renderer among them) only when that command runs
         "rulings.search.catalog", "rulings.corpus", "platformdirs", "rulings.search.export",
         # Whoosh names these but a search never uses them (search/__init__.py)
         "urllib.request", "http.client", "asyncio",
         # only jieba's log level needs it (search/languages.py)
         "logging")

PROGRAM = """
import contextlib, io, json, sys
from rulings.search.cli import cli
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        cli(["search", sys.argv[1], "--format", "json", "--index", sys.argv[2]])
    except SystemExit as done:
        code = done.code
print(json.dumps({"code": code, "hits": len(json.loads(out.getvalue())), "modules": sorted(sys.modules)}))
"""


def run_search(query, index_dir):
    done = subprocess.run([sys.executable, "-c", PROGRAM, query, str(index_dir)],
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def test_english_search_imports_nothing_heavy(seed_index):
    result = run_search("proliferate", seed_index)
    assert result["code"] == 0 and result["hits"] == 7          # the seeds: 7 proliferate entries
    loaded = [name for name in HEAVY if name in result["modules"]]
    assert loaded == []
    commands = [name for name in result["modules"] if name.startswith("rulings.search.commands.")]
    assert commands == ["rulings.search.commands.options", "rulings.search.commands.search"]


def test_chinese_search_needs_no_segmenter(seed_index):
    """A Chinese query is cut by the index's own words (search/bestmatch.py): jieba, whose dictionary
    took 1-2 s of a cold Chinese search, is not loaded; opencc folds Traditional characters."""
    result = run_search("增殖", seed_index)
    assert result["code"] == 0 and result["hits"] >= 1
    assert "jieba" not in result["modules"]
    assert "httpx" not in result["modules"] and "rulings.ingest.pipeline" not in result["modules"]


STAND_INS = """
import json, sys
import rulings.search, cached_property, whoosh.compat
loaded = [name for name in ("asyncio", "urllib.request") if name in sys.modules]
async def coroutine():
    pass
def plain():
    pass
answers = [cached_property.asyncio.iscoroutinefunction(f) for f in (coroutine, plain)]
filename, _ = whoosh.compat.urlretrieve("file://" + sys.argv[1], sys.argv[2])    # a local file: no network
print(json.dumps({"loaded": loaded, "answers": answers, "copied": open(filename).read(),
                  "real": "urllib.request" in sys.modules and sys.modules["urllib.request"].urlretrieve.__module__,
                  "ensure_future": cached_property.asyncio.ensure_future.__module__}))
"""


def test_whoosh_imports_without_urllib_request_or_asyncio(tmp_path):
    """search/__init__.py imports Whoosh with stand-ins for urllib.request and asyncio; what Whoosh and
    cached-property then use of them answers as the real modules do, importing them only then."""
    source = tmp_path / "page.txt"
    source.write_text("a ruling", "utf-8")
    done = subprocess.run([sys.executable, "-c", STAND_INS, str(source), str(tmp_path / "copy.txt")],
                          capture_output=True, text=True, timeout=120, check=True)
    result = json.loads(done.stdout)
    assert result["loaded"] == []
    assert result["answers"] == [True, False]
    assert result["copied"] == "a ruling"
    assert result["real"] == "urllib.request"
    assert result["ensure_future"] == "asyncio.tasks"
