"""``rulings serve``: a real server process on 127.0.0.1 (a free port), exercised over HTTP with httpx.

Every route (pages and API), the JSON shapes against the CLI's own output, the errors (400 and 404 with the
CLI's messages, as JSON on /api and as a page elsewhere), the caps, escaping of a ruling holding
``<script>``, read-only answers, and an ingest running meanwhile (no request fails, the new generation is
answered without a restart).
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from urllib.parse import quote

import httpx
import pytest
import serving
from bs4 import BeautifulSoup

from rulings.search.cli import cli

ENTRY_KEYS = {"id", "text", "lang", "mechanics", "cards", "sets", "date", "dates", "variants", "related",
              "translations"}


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory):
    return serving.build_index(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def server(index_dir):
    running = serving.Server(index_dir)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def client(server):
    with httpx.Client(base_url=server.url, timeout=30) as opened:
        yield opened


def cli_json(runner, index_dir, *args):
    result = runner.invoke(cli, [*args, "--format", "json", "--index", str(index_dir)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def cli_error(runner, index_dir, *args) -> str:
    """The CLI's one error line for args, without 'Error: '."""
    result = runner.invoke(cli, [*args, "--index", str(index_dir)])
    assert result.exit_code == 1, result.output
    return result.stderr.strip().removeprefix("Error: ")


def error_of(response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["error"] and "\n" not in body["error"]
    return body["error"]


def soup(response) -> BeautifulSoup:
    assert response.headers["content-type"].startswith("text/html")
    return BeautifulSoup(response.text, "html.parser")


# ---------------------------------------------------------------- starting


def test_serves_on_loopback_by_default(server):
    assert server.url.startswith("http://127.0.0.1:")


def test_a_folder_without_an_index_is_an_error(tmp_path, runner):
    result = runner.invoke(cli, ["serve", "--index", str(tmp_path / "none"), "--port", "0"])
    assert result.exit_code == 1 and "no rulings index here" in result.stderr


def test_a_port_in_use_is_one_line(index_dir, server):
    port = server.url.rsplit(":", 1)[1]
    done = subprocess.run(serving.rulings_command("serve", "--index", str(index_dir), "--port", port),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith(f"Error: cannot listen on 127.0.0.1:{port}:") and "Traceback" not in done.stderr


# ---------------------------------------------------------------- API


def test_api_search_is_the_cli_search(client, runner, index_dir):
    body = client.get("/api/search", params={"q": "proliferate"}).json()
    assert set(body) >= {"query", "total", "results"} and body["query"] == "proliferate"
    assert body["total"] == len(body["results"]) >= 2 and body["more"] is False
    assert body["results"] == cli_json(runner, index_dir, "search", "proliferate")
    for entry in body["results"]:
        assert set(entry) >= ENTRY_KEYS | {"score", "snippet"}
    assert "**proliferate**" in body["results"][0]["snippet"]


def test_api_search_filters(client, runner, index_dir):
    cases = [{"mechanic": "proliferate", "card": "Thrummingbird"}, {"lang": "zh"}, {"since": "2023", "q": "card"},
             {"until": "2020-01", "mechanic": "evolve"}, {"card": "Fire"}, {"set": "MOM"}]
    for params in cases:
        body = client.get("/api/search", params=params).json()
        args = [f"--{k}" if k != "q" else k for k in params]
        command = ["search"]
        for key, value in params.items():
            command += [value] if key == "q" else [f"--{key}", value]
        assert body["results"] == cli_json(runner, index_dir, *command), params
        assert body["results"], (params, args)
    assert client.get("/api/search", params={"lang": "zh"}).json()["results"][0]["text"] == serving.CJK_RULING


def test_api_search_repeated_mechanic_requires_all(client):
    both = client.get("/api/search?mechanic=proliferate&mechanic=evolve").json()["results"]
    assert both and all({"proliferate", "evolve"} <= set(e["mechanics"]) for e in both)
    assert len(both) < len(client.get("/api/search?mechanic=proliferate").json()["results"])


def test_api_search_limit_and_more(client):
    body = client.get("/api/search", params={"q": "proliferate", "limit": 1}).json()
    assert body["total"] == len(body["results"]) == 1 and body["more"] is True


def test_api_search_nothing_found_gives_suggestions(client):
    body = client.get("/api/search", params={"q": "prolifirate"}).json()
    assert body["results"] == [] and body["total"] == 0 and "proliferate" in body["suggestions"]


def test_api_search_errors_are_the_cli_messages(client, runner, index_dir):
    assert error_of(client.get("/api/search"), 400) == cli_error(runner, index_dir, "search")
    assert error_of(client.get("/api/search", params={"q": "x", "mechanic": "prolifirate"}), 400) == \
        cli_error(runner, index_dir, "search", "x", "--mechanic", "prolifirate")
    assert error_of(client.get("/api/search", params={"q": "flying^5"}), 400) == \
        cli_error(runner, index_dir, "search", "flying^5")
    assert error_of(client.get("/api/search", params={"q": "x", "lang": "xx"}), 400) == \
        cli_error(runner, index_dir, "search", "x", "--lang", "xx")
    assert "is not a date" in error_of(client.get("/api/search", params={"q": "x", "since": "2019-13"}), 400)


def test_api_caps(client):
    assert "at most 500" in error_of(client.get("/api/search", params={"q": "a " * 300}), 400)
    assert "at most 200" in error_of(client.get("/api/search", params={"card": "x" * 201}), 400)
    assert "at most 8 mechanics" in error_of(client.get("/api/search", params=[("mechanic", "evolve")] * 9), 400)
    for limit in ("0", "101", "abc"):
        assert error_of(client.get("/api/search", params={"q": "x", "limit": limit}), 400).startswith("limit:")
    assert client.get("/api/search", params={"q": "proliferate", "limit": 100}).status_code == 200
    assert "1000" in error_of(client.get("/api/mechanics/evolve", params={"limit": 1001}), 400)


def test_api_entry_and_alias(client, runner, index_dir):
    hit = client.get("/api/search", params={"q": "proliferate"}).json()["results"][0]
    entry = client.get(f"/api/entries/{hit['id']}").json()
    assert entry == cli_json(runner, index_dir, "show", hit["id"])
    assert ENTRY_KEYS <= set(entry) and "score" not in entry
    kept = client.get("/api/entries/r-serve-gone")
    assert kept.status_code == 200 and kept.json()["id"] == "r-serve-keep"
    assert error_of(client.get("/api/entries/r-nothing"), 404) == cli_error(runner, index_dir, "show", "r-nothing")


def test_api_card(client, runner, index_dir):
    body = client.get("/api/cards/" + quote("Fire // Ice", safe="")).json()
    assert body["cards"] == [{"name": "Fire // Ice", "exact": True, "entries": 1}]
    assert body["results"] == cli_json(runner, index_dir, "card", "Fire // Ice")
    face = client.get("/api/cards/ice").json()
    assert face["cards"][0]["name"] == "Fire // Ice" and face["cards"][0]["exact"] is False
    assert client.get("/api/cards/Fire/Ice").json()["results"] == body["results"]          # '/' for '//'
    assert client.get("/api/cards/" + quote(serving.CJK_CARD)).json()["results"][0]["text"] == serving.CJK_RULING
    begun = client.get("/api/cards/Evolution").json()
    assert begun["begins"] is True and begun["cards"][0]["name"] == "Evolution Sage"
    oldest_first = [min(e["dates"]) for e in client.get("/api/cards/Thrummingbird").json()["results"]]
    assert oldest_first == sorted(oldest_first)
    assert error_of(client.get("/api/cards/Thrumingbird"), 404) == \
        "No rulings for 'Thrumingbird'. Did you mean: Thrummingbird?"


def test_api_mechanics(client, runner, index_dir):
    rows = client.get("/api/mechanics").json()
    shown = [{k: r[k] for k in ("id", "name", "kind", "count")} for r in rows]
    assert shown == cli_json(runner, index_dir, "mechanics")
    assert next(r for r in rows if r["id"] == "proliferate")["zh"] == ["增殖"]
    body = client.get("/api/mechanics/proliferate").json()
    assert body["mechanic"]["id"] == "proliferate" and body["mechanic"]["kind"] == "keyword action"
    assert body["results"] == cli_json(runner, index_dir, "mechanics", "proliferate")
    assert body["total"] == body["mechanic"]["count"] == len(body["results"])
    assert client.get("/api/mechanics/" + quote("增殖")).json()["results"] == body["results"]
    assert client.get("/api/mechanics/Proliferated").json()["mechanic"]["id"] == "proliferate"
    paged = client.get("/api/mechanics/proliferate", params={"limit": 1, "offset": 1}).json()
    assert paged["results"] == body["results"][1:2] and paged["offset"] == 1
    assert error_of(client.get("/api/mechanics/prolifirate"), 404) == \
        cli_error(runner, index_dir, "mechanics", "prolifirate")
    assert client.get("/api/mechanics", params={"lang": "zh"}).json()[0]["count"] >= 1


def test_api_stats(client, runner, index_dir):
    body = client.get("/api/stats").json()
    assert {k: v for k, v in body.items() if k != "ingested"} == cli_json(runner, index_dir, "stats")
    assert body["ingested"]


def test_api_export_is_the_cli_export(client, runner, index_dir):
    for fmt in ("jsonl", "json", "csv", "md", "html"):
        answer = client.get("/api/export", params={"format": fmt, "mechanic": "proliferate"})
        assert answer.status_code == 200
        result = runner.invoke(cli, ["export", "--format", fmt, "--mechanic", "proliferate", "--index", str(index_dir)])
        assert answer.content == result.stdout_bytes, fmt
    assert client.get("/api/export").headers["content-type"].startswith("application/x-ndjson")
    grouped = client.get("/api/export", params={"format": "md", "group_by": "card", "query": "proliferate"}).text
    assert "## Thrummingbird" in grouped
    with client.stream("GET", "/api/export", params={"format": "json"}) as streamed:
        assert streamed.headers.get("transfer-encoding") == "chunked"
        assert len(json.loads(b"".join(streamed.iter_bytes()))) == len(client.get("/api/stats").json() and
                                                                        cli_json(runner, index_dir, "export"))
    assert error_of(client.get("/api/export", params={"format": "pdf"}), 400).startswith("format:")


def test_openapi_describes_every_api_route(client):
    spec = client.get("/api/openapi.json").json()
    assert set(spec["paths"]) == {"/api/search", "/api/entries/{entry_id}", "/api/cards/{name}", "/api/mechanics",
                                  "/api/mechanics/{name}", "/api/stats", "/api/export"}
    assert {p["name"] for p in spec["paths"]["/api/search"]["get"]["parameters"]} == \
        {"q", "mechanic", "card", "set", "lang", "since", "until", "limit", "every_word"}
    assert client.get("/api", follow_redirects=True).json()["openapi"]


def test_unknown_routes_and_methods(client):
    assert error_of(client.get("/api/nothing"), 404) == "nothing at /api/nothing"
    answer = client.post("/api/search", json={"q": "x"})
    assert "read-only" in error_of(answer, 405) and answer.headers["allow"] == "GET, HEAD"
    assert client.delete("/entries/r-serve-keep").status_code == 405


def test_head_is_answered_as_get(client):
    answer = client.head("/api/stats")
    assert answer.status_code == 200 and answer.content == b""
    assert client.head("/mechanics").headers["content-type"].startswith("text/html")


def test_several_workers(index_dir):
    """--workers 2: two processes answer, and stopping the server stops them."""
    running = serving.Server(index_dir, "--workers", "2")
    try:
        with httpx.Client(base_url=running.url, timeout=30) as opened:
            answers = [opened.get("/api/search", params={"q": "proliferate"}) for _ in range(10)]
            assert {a.status_code for a in answers} == {200}
            assert len({json.dumps(a.json()) for a in answers}) == 1
    finally:
        running.stop()
    assert running.process.returncode is not None
    with pytest.raises(httpx.HTTPError):
        httpx.get(running.url + "/api/stats", timeout=5)


def test_no_request_value_reaches_a_file(client):
    for path in ("/static/..%2F..%2Fapp.py", "/static/style.css%00", "/static/app.py",
                 "/api/cards/..%2F..%2F..%2Fetc%2Fpasswd", "/entries/..%2F..%2Fstate.pkl"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert "root:" not in answer.text and "import" not in answer.text
    assert client.get("/static/style.css").headers["content-type"].startswith("text/css")


def test_other_host_names_are_refused(client):
    """A page elsewhere cannot reach the loopback server through its own name (DNS rebinding)."""
    assert client.get("/api/stats", headers={"Host": "attacker.example"}).status_code == 400
    assert client.get("/api/stats", headers={"Host": "localhost"}).status_code == 200


# ---------------------------------------------------------------- pages


def test_search_page(client):
    page = soup(client.get("/", params={"q": "proliferate", "mechanic": "proliferate"}))
    assert page.find("input", attrs={"name": "q"})["value"] == "proliferate"
    items = page.select("#results li.entry")
    assert len(items) == len(client.get("/api/search", params={"q": "proliferate",
                                                               "mechanic": "proliferate"}).json()["results"])
    first = items[0]
    assert first.find("mark") is not None
    assert first.find("a", href=lambda h: h and h.startswith("/entries/r-"))
    assert first.find("a", href="/mechanics/proliferate")
    assert "variants:" in first.get_text() and "date:" in first.get_text()
    assert page.find("a", href="/cards/Thrummingbird")
    assert page.select_one("details.filters").has_attr("open")          # filters given: shown


def test_search_page_without_a_query_is_the_form(client):
    page = soup(client.get("/"))
    assert page.find("form", attrs={"role": "search"}) and not page.select("#results")
    assert not page.select(".error")


def test_search_page_nothing_found_with_suggestions(client):
    page = soup(client.get("/", params={"q": "prolifirate"}))
    assert "No rulings found." in page.select_one("#none").get_text()
    assert page.select_one("#none a")["href"] == "/?q=proliferate"


def test_search_page_errors_are_400_pages(client, runner, index_dir):
    answer = client.get("/", params={"q": "x", "mechanic": "prolifirate"})
    assert answer.status_code == 400
    assert soup(answer).select_one(".error").get_text() == \
        cli_error(runner, index_dir, "search", "x", "--mechanic", "prolifirate")
    assert client.get("/", params={"q": "x", "limit": "abc"}).status_code == 400


def test_entry_page(client):
    hit = client.get("/api/search", params={"q": "choose any permanent"}).json()["results"][0]
    page = soup(client.get(f"/entries/{hit['id']}"))
    assert page.select_one("#text").get_text() == serving.SHARED_RULING
    variants = page.select("ol.variants li")
    assert len(variants) == 2 and "1.00" in variants[0].get_text() and "a.txt" in page.get_text()
    assert {a.get_text() for a in page.select("ol.variants a")} == {"Thrummingbird", "Evolution Sage"}


def test_entry_page_alias_redirects(client):
    answer = client.get("/entries/r-serve-gone")
    assert answer.status_code == 308 and answer.headers["location"] == "/entries/r-serve-keep"
    assert client.get("/entries/R-SERVE-KEEP").headers["location"] == "/entries/r-serve-keep"
    assert soup(client.get("/entries/r-serve-gone", follow_redirects=True)).select_one("#text").get_text() == \
        serving.ALIAS_TEXT


def test_missing_things_are_404_pages(client):
    for path in ("/entries/r-nothing", "/cards/Nothing%20Card", "/mechanics/prolifirate", "/nothing/here"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert soup(answer).select_one(".error").get_text()


def test_mechanics_pages(client):
    page = soup(client.get("/mechanics"))
    headings = [h.contents[0].strip() for h in page.find_all("h2")]
    assert headings[:2] == ["keyword abilities", "keyword actions"]
    count = next(r["count"] for r in client.get("/api/mechanics").json() if r["id"] == "proliferate")
    row = page.find("a", href="/mechanics/proliferate").parent
    assert "增殖" in row.get_text() and row.select_one(".count").get_text() == str(count) == "3"
    one = soup(client.get("/mechanics/proliferate"))
    assert len(one.select("#results li.entry")) == count and "keyword action" in one.get_text()
    moved = client.get("/mechanics/" + quote("增殖"))
    assert moved.status_code == 308 and moved.headers["location"] == "/mechanics/proliferate"
    assert len(soup(client.get("/mechanics", params={"lang": "zh"})).select("li[data-filter]")) >= 1


def test_card_pages(client):
    page = soup(client.get("/cards/" + quote("Fire // Ice", safe="")))
    assert page.find("h1").contents[0].strip() == "Fire // Ice"
    assert len(page.select("#results li.entry")) == 1
    several = soup(client.get("/cards/" + quote("Evolution")))
    assert several.find("a", href="/cards/Evolution%20Sage")
    cjk = soup(client.get("/cards/" + quote(serving.CJK_CARD)))
    assert cjk.select_one("#results div[lang]").get_text() == serving.CJK_RULING
    assert cjk.select_one("#results div[lang]")["lang"] == "zh-Hans"


def test_static_assets(client):
    assert "filter" in client.get("/static/filter.js").text
    page = client.get("/mechanics")
    assert "script-src 'self'" in page.headers["content-security-policy"]


# ---------------------------------------------------------------- escaping


def test_every_page_escapes_ruling_text(client):
    entry_id = client.get("/api/search", params={"q": "bold"}).json()["results"][0]["id"]
    pages = [client.get("/", params={"q": "bold"}), client.get(f"/entries/{entry_id}"),
             client.get("/cards/Thrummingbird"), client.get("/", params={"card": "Thrummingbird"}),
             client.get("/api/export", params={"format": "html"})]
    for answer in pages:
        assert answer.status_code == 200
        assert "<script>window.__pwned" not in answer.text and "<img src=x" not in answer.text
        assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in answer.text or \
            "&lt;script&gt;window.__pwned = 1" in answer.text.replace("<mark>", "").replace("</mark>", "")
        assert not BeautifulSoup(answer.text, "html.parser").find("b", string="bold")
    shown = soup(client.get(f"/entries/{entry_id}")).select_one("#text").get_text()
    assert shown == serving.SCRIPT_RULING
    assert client.get(f"/api/entries/{entry_id}").json()["text"] == serving.SCRIPT_RULING     # JSON is the data


def test_a_query_is_escaped_too(client):
    answer = client.get("/", params={"q": '"><script>alert(1)</script>'})
    assert "<script>alert(1)" not in answer.text
    assert soup(answer).find("input", attrs={"name": "q"})["value"] == '"><script>alert(1)</script>'


# ---------------------------------------------------------------- an ingest meanwhile


def test_an_ingest_meanwhile_breaks_no_request(tmp_path):
    """Requests keep answering 200 while `rulings ingest` and `rulings remove` run; the new generation is
    answered without a restart."""
    index_dir = serving.build_index(tmp_path)
    added = tmp_path / "new"
    added.mkdir()
    (added / "n.txt").write_text("Rulings\n\n• 2024-01-02\n  Zanzibarian counters are never removed by "
                                 "proliferate.\n", encoding="utf-8")
    bulk = serving.write_docs(tmp_path / "more")
    for number in range(40):
        (bulk / f"m{number}.txt").write_text(f"Rulings\n\n• 2022-02-{number % 28 + 1:02d}\n  Ruling number "
                                             f"{number} of the bulk says a creature with evolve number {number} "
                                             "grows.\n", encoding="utf-8")
    server = serving.Server(index_dir)
    failures, counts, stop = [], {"requests": 0}, threading.Event()

    def hammer():
        with httpx.Client(base_url=server.url, timeout=30) as client:
            paths = ["/api/search?q=proliferate", "/api/stats", "/api/mechanics", "/?q=evolve",
                     "/api/entries/r-serve-gone", "/mechanics/proliferate", "/api/cards/Thrummingbird"]
            while not stop.is_set():
                for path in paths:
                    try:
                        answer = client.get(path)
                        if answer.status_code != 200:
                            failures.append((path, answer.status_code, answer.text[:200]))
                    except httpx.HTTPError as err:
                        failures.append((path, type(err).__name__, str(err)))
                    counts["requests"] += 1

    threads = [threading.Thread(target=hammer) for _ in range(3)]
    try:
        for thread in threads:
            thread.start()
        for args in (["ingest", str(bulk)], ["ingest", str(added)], ["remove", str(bulk)]):
            done = subprocess.run(serving.rulings_command(*args, "--index", str(index_dir)), capture_output=True,
                                  text=True, timeout=300)
            assert done.returncode == 0, done.stderr
        time.sleep(0.5)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            found = client.get("/api/search", params={"q": "Zanzibarian"}).json()["results"]
            assert [e["text"] for e in found] == ["Zanzibarian counters are never removed by proliferate."]
            assert client.get("/api/search", params={"q": "bulk"}).json()["results"] == []      # removed again
            page = soup(client.get("/", params={"q": "Zanzibarian"}))
            assert page.select("#results li.entry")
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        server.stop()
    assert counts["requests"] > 20
    assert failures == []


def test_a_repeated_search_is_sent_the_same_answer(client):
    """The second GET of a query string is sent the kept bytes (search/web/app.py KeptSearch): the same body
    and headers as the first; HEAD sends none; the Host check and bad parameters still apply."""
    params = {"q": "proliferate counters", "limit": "3"}
    first, second = client.get("/api/search", params=params), client.get("/api/search", params=params)
    assert first.status_code == second.status_code == 200
    assert second.content == first.content
    assert [e["text"] for e in second.json()["results"]] == [
        serving.SHARED_RULING,
        "Whenever you proliferate, evolve doesn’t trigger • it checks “power” and ‘toughness’ only.",
        serving.CJK_RULING]
    assert {k: v for k, v in second.headers.items() if k != "date"} == \
        {k: v for k, v in first.headers.items() if k != "date"}
    head = client.head("/api/search", params=params)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == first.headers["content-length"]
    assert client.get("/api/search", params=params, headers={"Host": "attacker.example"}).status_code == 400
    for _ in range(2):                  # an error is never kept
        assert error_of(client.get("/api/search", params={"q": "proliferate", "limit": "0"}), 400).startswith("limit")
