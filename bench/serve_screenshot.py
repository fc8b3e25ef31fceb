"""The README's screenshots of ``rulings serve``, made from the bundled demo corpus in headless Chromium.

Usage: python bench/serve_screenshot.py [OUT_DIR]     (default docs/)

Builds an index of the bundled corpus in a temporary folder, starts ``rulings serve --port 0`` on it,
and saves ``serve-search.png`` (a search at desktop width) and ``serve-phone.png`` (an entry page at
390 px) with Debian's Chromium (/usr/bin/chromium) through Playwright.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from serving import Server  # noqa: E402
from test_serve_browser import ARGS, CHROMIUM  # noqa: E402

from rulings.corpus import corpus_files  # noqa: E402
from rulings.search import catalog  # noqa: E402


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    out = Path(argv[0]) if argv else ROOT / "docs"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        index_dir = Path(work) / "ix"
        catalog.ingest(index_dir, corpus_files())
        server = Server(index_dir)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(viewport={"width": 1100, "height": 820})
                page.goto(server.url + "/?q=can+I+respond+to+proliferate")
                page.screenshot(path=str(out / "serve-search.png"))
                link = page.locator("#results a[href^='/entries/']").first.get_attribute("href")
                phone = browser.new_page(viewport={"width": 390, "height": 900}, device_scale_factor=1)
                phone.goto(server.url + link)
                phone.screenshot(path=str(out / "serve-phone.png"))
                browser.close()
        finally:
            server.stop()
    print(f"wrote {out / 'serve-search.png'} and {out / 'serve-phone.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
