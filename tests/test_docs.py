"""README and help text stay true: every command has help and appears in README.md."""

from pathlib import Path

import pytest

from search.cli import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_command_documented(name, runner):
    command = cli.commands[name]
    assert command.help and command.help.strip(), f"{name} has no help text"
    assert f"rulings {name}" in README
    result = runner.invoke(cli, [name, "--help"])
    assert result.exit_code == 0
    assert "--index" in result.stdout


def test_readme_gives_the_two_setup_commands():
    assert "pip install . && rulings search proliferate" in README
    assert "pip install -e '.[test]' && python -m pytest" in README
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text("utf-8")
    assert "pip install -e '.[test]' && python -m pytest" in ci
