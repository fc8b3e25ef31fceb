"""A small index for the server tests, and a real ``rulings serve`` process on a free loopback port.

The documents (seed layouts) hold: a ruling shared by two cards (one entry, two variants), a split card
``Fire // Ice``, a ruling whose text holds ``<script>`` markup and an ``&``, a Chinese card and ruling, and
rulings of two years; ``alias_export()`` adds two JSONL entries of the same text under two ids, which
merge into one entry keeping the other id as an alias.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from rulings.search import catalog

SHARED_RULING = ("To proliferate, you can choose any permanent that has a counter — "
                 "including ones controlled by opponents.")
SCRIPT_RULING = ("If a card says <script>window.__pwned = 1</script> & <b>bold</b> "
                 "or <img src=x onerror=\"window.__pwned = 2\">, nothing happens.")
CJK_CARD = "巡逻和平使者"
CJK_RULING = "你可以选择任何有指示物的永久物来增殖，包括由对手操控的永久物。"
ALIAS_TEXT = "Evolve checks the creature's power and toughness only as the ability resolves."

DOCS = {
    "a.txt": f"Thrummingbird\n\n04/02/2023\n\n{SHARED_RULING}\n\n05/02/2023\n\n{SCRIPT_RULING}\n",
    "b.txt": f"Evolution Sage\n\n04/02/2023\n\n{SHARED_RULING}\n\n01/01/2020\n\n"
             "Whenever you proliferate, evolve doesn’t trigger • it checks “power” and ‘toughness’ only.\n",
    "c.txt": f"{CJK_CARD}\n\n01/03/2019\n\n{CJK_RULING}\n",
    "d.txt": "Fire // Ice\n\n01/06/2018\n\nFire deals 2 damage divided as you choose among one or two targets.\n",
    "e.txt": "Rulings\n\n• 2021-06-07\n  A player can commit only one crime per spell or ability they control.\n",
}


def write_docs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def alias_export(path: Path) -> Path:
    """A JSONL export of one ruling under two ids (r-serve-keep with two variants, r-serve-gone with one):
    ingested, they form one entry r-serve-keep whose alias is r-serve-gone."""
    def variant(card: str, position: int) -> dict:
        return {"text": ALIAS_TEXT, "card": card, "set": "MOM", "date": "2023-04-14", "date_ambiguous": False,
                "lang": "en", "oracle_id": None, "publisher": "wotc", "similarity": 1.0, "position": position,
                "source": {"path": str(path.with_suffix(".src")), "format": "text"}}

    def entry(entry_id: str, variants: list[dict]) -> dict:
        return {"id": entry_id, "text": ALIAS_TEXT, "lang": "en", "mechanics": ["evolve"],
                "cards": sorted({v["card"] for v in variants}), "sets": ["MOM"], "date": "2023-04-14",
                "dates": ["2023-04-14"], "variants": variants, "related": [], "translations": [],
                "aliases": [], "repairs": []}

    lines = [{"meta": {"selected": {}, "created": None, "sources": [], "entries": 2, "variants": 3}},
             entry("r-serve-keep", [variant("Evolution Sage", 0), variant("Gyre Sage", 1)]),
             entry("r-serve-gone", [variant("Experiment One", 2)])]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), "utf-8")
    return path


def build_index(root: Path) -> Path:
    """The index folder root/ix of DOCS and the alias export."""
    docs = write_docs(root / "docs")
    catalog.ingest(root / "ix", [docs, alias_export(root / "alias.jsonl")])
    return root / "ix"


def rulings_command(*args: str) -> list[str]:
    return [sys.executable, "-c", "from rulings.search.cli import main; main()", *args]


class Server:
    """``rulings serve --port 0`` in a child process; ``url`` is where it listens."""

    def __init__(self, index_dir: Path, *options: str, timeout: float = 60.0):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(rulings_command("serve", "--index", str(index_dir), "--port", "0", *options),
                                        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
        line = self.process.stderr.readline()
        if not line.startswith("Serving "):
            self.stop()
            raise RuntimeError(f"rulings serve did not start: {line!r}")
        self.url = line.split(" at ", 1)[1].split(" ", 1)[0].rstrip("/")
        self.log: list[str] = []            # what it writes on stderr afterwards, read so the pipe never fills
        threading.Thread(target=lambda: self.log.extend(self.process.stderr), daemon=True).start()
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(self.url + "/api/stats", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise RuntimeError("rulings serve did not answer")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
