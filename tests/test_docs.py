"""README and help text stay true: every command has help and appears in README.md."""

from pathlib import Path

import pytest

from rulings.search.cli import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")


@pytest.mark.parametrize("name", cli.list_commands(None))
def test_command_documented(name, runner):
    command = cli.get_command(None, name)
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


def test_every_package_is_installed():
    """pip install . must ship every package folder (search.commands was once left out), each mapped into
    the one import package rulings (pyproject.toml package-dir): rulings.search is search/, and so on."""
    import tomllib
    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert config["package-dir"] == {"rulings": "rulings", "rulings.search": "search", "rulings.ingest": "ingest",
                                     "rulings.corpus": "corpus"}
    folders = {"rulings." + str(p.parent.relative_to(root)).replace("/", ".") for p in root.glob("*/**/__init__.py")
               if p.parent.relative_to(root).parts[0] in ("ingest", "search", "corpus")}
    assert folders | {"rulings"} == set(config["packages"])
    assert all(name == "rulings" or name.startswith("rulings.") for name in config["packages"])
