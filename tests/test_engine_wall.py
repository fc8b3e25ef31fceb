"""The wall around Whoosh's internals (search/engine): nothing else imports them, importing and using our
package changes none of Whoosh's classes, and a Whoosh outside the tested versions gets the public path,
said once, with the same output."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INTERNAL = ("whoosh.codec", "whoosh.matching", "whoosh.multiproc", "whoosh.filedb", "whoosh.reading",
            "whoosh.writing")
OUTSIDE = sorted(path for folder in ("rulings", "search", "ingest", "corpus", "scripts", "bench")
                 for path in (ROOT / folder).rglob("*.py") if "engine" not in path.relative_to(ROOT).parts)


def imported(path: Path) -> set[str]:
    """Modules a Python file imports, and module.name for each name it imports from one."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda path: str(path.relative_to(ROOT)))
def test_only_the_engine_imports_whoosh_internals(path):
    """No module outside search/engine imports whoosh.codec, .matching, .multiproc, .filedb, .reading or
    .writing (or a name from them), nor a private name of any Whoosh module."""
    modules = imported(path)
    assert {m for m in modules if m.startswith(INTERNAL)} == set()
    assert {m for m in modules if m.startswith("whoosh.") and m.rsplit(".", 1)[-1].startswith("_")} == set()


def test_the_wall_is_checked_on_every_module():
    assert len(OUTSIDE) > 60
    assert ROOT / "search" / "query.py" in OUTSIDE and ROOT / "search" / "engine" / "scoring.py" not in OUTSIDE


UNCHANGED = """
import importlib, json, pkgutil, sys
import whoosh
names = [m.name for m in pkgutil.walk_packages(whoosh.__path__, "whoosh.")
         if not m.name.startswith(("whoosh.support", "whoosh.lang.paicehusk"))]

def classes():
    found = {}
    for name in names:
        try:
            module = importlib.import_module(name)
        except Exception:
            continue
        for attr, value in vars(module).items():
            if isinstance(value, type) and value.__module__ == name:
                for key, member in vars(value).items():
                    found[f"{name}.{attr}.{key}"] = id(member)
    return found

before = classes()
from rulings.search.cli import main
sys.argv = ["rulings", "search", "counter", "--index", sys.argv[1]]
try:
    main()
except SystemExit:
    pass
after = classes()
print(json.dumps({"changed": sorted(k for k in before if after.get(k) != before[k]),
                  "added": sorted(set(after) - set(before))}))
"""


def test_importing_and_searching_changes_no_whoosh_class(seed_index):
    """Every class of every Whoosh module has the same members before our package is imported and
    after a search has opened and read an index: the engine installs nothing on Whoosh's classes."""
    done = subprocess.run([sys.executable, "-c", UNCHANGED, str(seed_index)], capture_output=True, text=True,
                          timeout=120, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    assert result == {"changed": [], "added": []}


UNTESTED = """
import sys
import whoosh
if sys.argv.pop(1) == "untested":
    whoosh.__version__ = (3, 0, 0)
from rulings.search.cli import main
main()
"""


@pytest.mark.parametrize("words", [["search", "proliferate"], ["search", "can I respond to proliferate"],
                                   ["search", "counter", "--lang", "en", "--format", "json"],
                                   ["mechanics", "proliferate"]])
def test_an_untested_whoosh_takes_the_public_path_said_once(seed_index, words):
    """With a Whoosh version outside version.TESTED the commands print what they print on a tested one,
    and stderr says once that Whoosh's public API is used."""
    args = [*words, "--index", str(seed_index)]
    tested, untested = (subprocess.run([sys.executable, "-c", UNTESTED, which, *args], capture_output=True,
                                       text=True, timeout=120, check=False) for which in ("tested", "untested"))
    assert (tested.returncode, tested.stderr) == (0, "")
    assert untested.returncode == 0 and untested.stdout == tested.stdout and tested.stdout
    assert untested.stderr == ("rulings: Whoosh 3.0.0 is outside the versions tested with rulings' engine "
                               "(2.7.5 to before 2.7.6); using Whoosh's public API (same results, slower)\n")
