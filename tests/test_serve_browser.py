"""The pages of ``rulings serve`` in a real headless Chromium (Debian's package, driven by Playwright).

The search flow, an entry page, the mechanic browser with its filter box, the pages without JavaScript,
the static HTML export's filter box and wrapping navigation, and every page at phone width (390 px)
without horizontal overflow. Skipped with a reason when Chromium or Playwright is missing; in CI
(CI=true) they fail instead (.ci/run installs Chromium).
"""

from __future__ import annotations

import os
import re
import shutil
from urllib.parse import quote

import pytest
import serving

from rulings.search.cli import cli

CHROMIUM = "/usr/bin/chromium"
# The network is closed here: nothing of Chromium's own may try to reach out.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def _missing(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; in CI the browser tests never skip (.ci/run installs chromium)")
    pytest.skip(f"{reason}; these tests run in CI")


@pytest.fixture(scope="module")
def browser():
    executable = CHROMIUM if os.access(CHROMIUM, os.X_OK) else shutil.which("chromium")
    if executable is None:
        _missing("Chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory):
    return serving.build_index(tmp_path_factory.mktemp("browser"))


@pytest.fixture(scope="module")
def server(index_dir):
    running = serving.Server(index_dir)
    yield running
    running.stop()


@pytest.fixture
def open_page(browser):
    """open_page(viewport, javascript=True, answers_errors=False) -> a new page; every page and context is
    closed afterwards. A script that fails fails the test, and so does a console error (a resource not
    loaded, a refused script) unless the test visits error pages on purpose (answers_errors)."""
    contexts, problems = [], []

    def make(viewport=DESKTOP, javascript=True, answers_errors=False):
        context = browser.new_context(viewport=viewport, java_script_enabled=javascript)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda err: problems.append(f"page error: {err}"))
        if not answers_errors:
            page.on("console", lambda msg: problems.append(f"console: {msg.text}") if msg.type == "error" else None)
        return page

    yield make
    for context in contexts:
        context.close()
    assert problems == []


def expect(locator):
    from playwright.sync_api import expect as playwright_expect  # polls from here: no eval in the page (CSP)

    return playwright_expect(locator)


def overflow(page) -> list:
    """Elements reaching past the right edge of the window, and the document's scroll width past it."""
    return page.evaluate("""() => {
        const width = document.documentElement.clientWidth, found = [];
        const page = document.documentElement.scrollWidth;
        if (page > width) found.push(['document', page]);
        for (const el of document.querySelectorAll('body *')) {
            const box = el.getBoundingClientRect();
            if (box.width > 0 && box.right > width + 0.5) found.push([el.tagName, el.className, Math.round(box.right)]);
        }
        return found.slice(0, 10);
    }""")


def test_search_flow(server, open_page):
    page = open_page()
    page.goto(server.url + "/")
    page.fill("input[name=q]", "can I respond to proliferate")
    page.press("input[name=q]", "Enter")
    page.wait_for_selector("#results li.entry")
    assert "q=can+I+respond+to+proliferate" in page.url
    assert page.locator("#results li.entry mark").count() >= 1
    first = page.locator("#results li.entry").first
    assert "proliferat" in first.locator("mark").first.inner_text().lower()
    page.click("details.filters summary")
    page.fill("input[name=mechanic] >> nth=0", "proliferate")
    page.fill("input[name=card]", "Evolution")
    page.click("form.search button[type=submit]")
    page.wait_for_selector("#results li.entry")
    assert "mechanic=proliferate" in page.url and "card=Evolution" in page.url
    assert page.locator("#results li.entry").count() >= 1
    page.locator("#results li.entry a[href^='/entries/']").first.click()
    page.wait_for_selector("#text")
    assert re.search(r"/entries/r-[0-9a-f]+$", page.url)
    assert page.locator("ol.variants li").count() >= 1


def test_nothing_found_offers_the_cli_suggestion(server, open_page):
    page = open_page()
    page.goto(server.url + "/?q=prolifirate")
    assert page.inner_text("#none").startswith("No rulings found.")
    page.click("#none a")
    page.wait_for_selector("#results li.entry")
    assert page.locator("#results li.entry").count() >= 2


def test_entry_page(server, open_page):
    page = open_page()
    page.goto(server.url + "/entries/r-serve-gone")                  # an alias: redirected to its entry
    assert page.url.endswith("/entries/r-serve-keep")
    assert page.inner_text("#text") == serving.ALIAS_TEXT
    assert page.locator("ol.variants li").count() == 3
    assert "r-serve-gone" in page.inner_text("dl.about")
    page.click("ol.variants a:text('Gyre Sage')")
    page.wait_for_selector("#results li.entry")
    assert page.url.endswith("/cards/Gyre%20Sage")


def test_a_ruling_holding_markup_is_shown_as_text(server, open_page):
    page = open_page()
    page.goto(server.url + "/?q=bold")
    page.wait_for_selector("#results li.entry")
    assert "<script>window.__pwned = 1</script>" in page.inner_text("#results")
    page.locator("#results a[href^='/entries/']").first.click()
    page.wait_for_selector("#text")
    assert page.inner_text("#text") == serving.SCRIPT_RULING
    assert page.evaluate("window.__pwned") is None
    assert page.locator("main img, main b:text('bold')").count() == 0


def test_chinese_renders(server, open_page):
    page = open_page()
    page.goto(server.url + "/cards/" + quote(serving.CJK_CARD))
    text = page.locator("#results div[lang='zh-Hans']")
    assert text.inner_text() == serving.CJK_RULING
    assert page.inner_text("h1").startswith(serving.CJK_CARD)
    box = text.bounding_box()
    assert box["width"] > 100 and box["height"] > 10


def test_mechanic_browser(server, open_page):
    page = open_page()
    page.goto(server.url + "/mechanics")
    assert page.locator("#filter").is_visible()                       # shown once its script runs
    every = page.locator("li[data-filter]").count()
    page.fill("#filter", "增殖")
    expect(page.locator("#filter-count")).to_contain_text("shown")
    assert page.locator("li[data-filter]:visible").count() == 1
    assert page.inner_text("#filter-count") == f"1 of {every} shown"
    assert page.locator("section[data-filter-group]:visible").count() == 1
    page.click("li[data-filter]:visible a")
    page.wait_for_selector("#results li.entry")
    assert page.url.endswith("/mechanics/proliferate")
    assert page.locator("#results li.entry").count() == 3
    page.click("a:text('search within these rulings')")
    page.wait_for_selector("#results li.entry")
    assert "mechanic=proliferate" in page.url


def test_pages_work_without_javascript(server, open_page):
    page = open_page(javascript=False)
    page.goto(server.url + "/")
    page.fill("input[name=q]", "proliferate")
    page.press("input[name=q]", "Enter")
    page.wait_for_selector("#results li.entry")
    assert page.locator("#results li.entry").count() >= 2
    page.goto(server.url + "/mechanics")
    assert not page.locator("#filter").is_visible()                   # the filter box needs its script
    page.click("a[href='/mechanics/evolve']")
    page.wait_for_selector("#results li.entry")


def test_phone_width_has_no_horizontal_overflow(server, open_page):
    page = open_page(PHONE, answers_errors=True)
    page.goto(server.url + "/?q=proliferate")
    entry = page.locator("#results a[href^='/entries/']").first.get_attribute("href")
    paths = ["/", "/?q=proliferate&mechanic=proliferate&card=Thrummingbird&since=2020", entry,
             "/entries/r-serve-keep", "/mechanics", "/mechanics/proliferate",
             "/cards/" + quote("Fire // Ice", safe=""), "/cards/" + quote(serving.CJK_CARD), "/cards/Evolution",
             "/entries/r-nothing", "/?q=flying^5"]
    for path in paths:
        page.goto(server.url + path)
        assert overflow(page) == [], path
    page.goto(server.url + "/?q=proliferate&mechanic=proliferate")
    assert page.locator("details.filters").get_attribute("open") is not None
    box = page.locator("input[name=q]").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


def test_export_page_filter_box_and_wrapping_navigation(index_dir, runner, tmp_path, open_page):
    out = tmp_path / "export.html"
    result = runner.invoke(cli, ["export", "--format", "html", "--group-by", "card", "-o", str(out),
                                 "--index", str(index_dir)])
    assert result.exit_code == 0, result.output
    page = open_page(PHONE)
    page.goto(out.as_uri())
    assert overflow(page) == []
    links = page.locator("nav.groups a")
    tops = {round(links.nth(i).bounding_box()["y"]) for i in range(links.count())}
    assert len(tops) > 1                                             # the group links wrap onto more lines
    every = page.locator("li.entry").count()
    page.fill("#filter", "fire")
    expect(page.locator("#filter-count")).to_contain_text("shown")
    assert page.locator("li.entry:visible").count() == 1
    assert page.inner_text("#filter-count") == f"1 of {every} shown"
    assert page.locator("nav.groups a:visible").count() == 1        # the links of hidden groups go too
    assert page.evaluate("window.__pwned") is None
    page.fill("#filter", "")
    expect(page.locator("#filter-count")).to_have_text("")
    assert page.locator("li.entry:visible").count() == every


def test_split_export_pages(index_dir, runner, tmp_path, open_page):
    folder = tmp_path / "split"
    result = runner.invoke(cli, ["export", "--format", "html", "--group-by", "mechanic", "--split", str(folder),
                                 "--index", str(index_dir)])
    assert result.exit_code == 0, result.output
    page = open_page(PHONE)
    page.goto((folder / "index.html").as_uri())
    assert overflow(page) == []
    page.click("nav.groups a:text('Proliferate')")
    page.wait_for_selector("li.entry")
    assert page.url.endswith("-proliferate.html")
    assert page.locator("li.entry").count() == 3 and overflow(page) == []
    page.click("a:text('All groups')")
    assert page.url.endswith("/index.html")
