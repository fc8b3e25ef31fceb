"""``rulings mcp``: the MCP server over stdio, exercised with the MCP SDK's own stdio client."""

from __future__ import annotations

import json
import os

import anyio
import pytest
import serving
from mcp import ClientSession, StdioServerParameters, stdio_client

from rulings.search.cli import cli


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory):
    return serving.build_index(tmp_path_factory.mktemp("mcp"))


def session_calls(index_dir, calls):
    """Start ``rulings mcp --index index_dir``, list its tools, make each (tool, arguments) call; returns
    (tool names, results)."""
    command = serving.rulings_command("mcp", "--index", str(index_dir))
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))

    async def run():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                results = [await session.call_tool(name, arguments) for name, arguments in calls]
                return tools.tools, results

    return anyio.run(run)


def cli_json(runner, index_dir, *args):
    result = runner.invoke(cli, [*args, "--format", "json", "--index", str(index_dir)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_tools_answer_with_the_entry_json_and_a_text(index_dir, runner):
    tools, (search, entry, alias, card, mechanics, mechanic, chinese) = session_calls(index_dir, [
        ("search_rulings", {"query": "proliferate", "limit": 5}),
        ("get_entry", {"id": "r-serve-keep"}),
        ("get_entry", {"id": "r-serve-gone"}),
        ("card_rulings", {"name": "Fire // Ice"}),
        ("list_mechanics", {}),
        ("mechanic_rulings", {"name": "proliferate"}),
        ("search_rulings", {"query": "", "lang": "zh"}),
    ])
    assert {t.name for t in tools} == {"search_rulings", "get_entry", "card_rulings", "list_mechanics",
                                       "mechanic_rulings"}
    assert all(t.annotations.read_only_hint for t in tools)
    schema = next(t for t in tools if t.name == "search_rulings").input_schema["properties"]
    assert {"query", "mechanic", "card", "set", "lang", "since", "until", "limit"} <= set(schema)
    for result in (search, entry, alias, card, mechanics, mechanic, chinese):
        assert not result.is_error
        text, data = result.content[0].text, json.loads(result.content[1].text)
        assert text and (result.structured_content == data or result.structured_content == {"results": data})
    assert search.structured_content["results"] == cli_json(runner, index_dir, "search", "proliferate",
                                                             "--limit", "5")
    assert "**proliferate**" in search.content[0].text and "id: r-" in search.content[0].text
    assert entry.structured_content == cli_json(runner, index_dir, "show", "r-serve-keep")
    assert alias.structured_content["id"] == "r-serve-keep" and "variants (3)" in alias.content[0].text
    assert card.structured_content["results"] == cli_json(runner, index_dir, "card", "Fire // Ice")
    rows = json.loads(mechanics.content[1].text)
    assert [{k: r[k] for k in ("id", "name", "kind", "count")} for r in rows] == \
        cli_json(runner, index_dir, "mechanics")
    assert "proliferate (keyword action): 3" in mechanics.content[0].text
    assert mechanic.structured_content["results"] == cli_json(runner, index_dir, "mechanics", "proliferate")
    assert chinese.structured_content["results"][0]["text"] == serving.CJK_RULING
    assert serving.CJK_RULING in chinese.content[0].text


def test_errors_are_tool_errors_with_the_cli_messages(index_dir, runner):
    _, (unknown, mechanic, empty, card, limit) = session_calls(index_dir, [
        ("get_entry", {"id": "r-nothing"}),
        ("search_rulings", {"query": "x", "mechanic": ["prolifirate"]}),
        ("search_rulings", {"query": ""}),
        ("card_rulings", {"name": "Thrumingbird"}),
        ("search_rulings", {"query": "x", "limit": 1000}),
    ])
    for result in (unknown, mechanic, empty, card, limit):
        assert result.is_error
    shown = runner.invoke(cli, ["show", "r-nothing", "--index", str(index_dir)])
    assert unknown.content[0].text == shown.stderr.strip()
    assert mechanic.content[0].text.startswith("Error: unknown mechanic 'prolifirate'; closest: proliferate")
    assert empty.content[0].text == "Error: empty query: give words to search for or a filter"
    assert card.content[0].text == "Error: No rulings for 'Thrumingbird'. Did you mean: Thrummingbird?"
