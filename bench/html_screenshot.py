"""Render an HTML export in headless Chromium and save a PNG screenshot (a test-only check, not collected by pytest).

Usage::

    python bench/html_screenshot.py OUT.png [--index DIR] [export options ...]

Without ``--index`` it builds a small index in a temporary folder from seed-layout
text documents that include the ruling ``... power <3 or >5 & X ...``, em dashes,
bullets, curly quotes and a CJK card name. It then runs ``rulings export --format
html`` (default ``--group-by card``), loads the page with Chromium (Debian package
``chromium``), prints the DOM text of the ruling, and writes the screenshot.
Chromium runs with ``--headless --no-sandbox --disable-gpu`` and a fresh profile.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

from rulings.search import catalog
from rulings.search.cli import cli

LITERAL = "If a creature with power <3 or >5 & X enters, nothing happens."
DOCS = {
    "a.txt": "Thrummingbird\n\n04/02/2023\n\nTo proliferate, you can choose any permanent that has a counter — "
             f"including ones controlled by opponents.\n\n05/02/2023\n\n{LITERAL}\n",
    "b.txt": "Evolution Sage\n\n04/02/2023\n\nTo proliferate, you can choose any permanent that has a counter — "
             "including ones controlled by opponents.\n\n01/01/2020\n\nWhenever you proliferate, evolve doesn’t "
             "trigger • it checks “power” and ‘toughness’ only.\n",
    "c.txt": "巡逻和平使者\n\n01/03/2019\n\n"
             "A creature with evolve compares power to power and toughness to toughness.\n",
}
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--no-first-run", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def chromium() -> str:
    """Path of the Chromium binary; exits with a message when it is not installed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("chromium not found: apt-get install chromium")


def small_index(folder: Path) -> Path:
    """An index built from DOCS under folder."""
    docs = folder / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    catalog.ingest(folder / "ix", [docs])
    return folder / "ix"


def run_chromium(page: Path, profile: Path, *flags: str) -> subprocess.CompletedProcess:
    """Run headless Chromium on a local page with a fresh profile folder."""
    command = [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *flags, page.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def main(argv: list[str]) -> int:
    if not argv:
        sys.exit(__doc__)
    out = Path(argv[0]).resolve()
    rest = argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        if "--index" not in rest:
            rest += ["--index", str(small_index(tmp_path))]
        if "--group-by" not in rest:
            rest += ["--group-by", "card"]
        page = tmp_path / "export.html"
        result = CliRunner().invoke(cli, ["export", "--format", "html", "-o", str(page), *rest])
        if result.exit_code:
            sys.exit(result.output)
        dom = run_chromium(page, tmp_path / "profile-dom", "--dump-dom").stdout
        from bs4 import BeautifulSoup
        texts = [div.get_text() for div in BeautifulSoup(dom, "html.parser").select("li > div[lang]")]
        print(f"{len(texts)} rulings in the rendered DOM; literal ruling present: {LITERAL in texts}")
        shot = run_chromium(page, tmp_path / "profile-shot", f"--screenshot={out}", "--window-size=1100,1400")
        if not out.exists():
            sys.exit(f"no screenshot written: {shot.stderr.strip()[-500:]}")
        print(f"screenshot: {out} ({out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
