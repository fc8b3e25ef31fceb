"""The bundled default ruling documents (installed as package data)."""

from importlib import resources
from pathlib import Path


def corpus_path() -> Path:
    """Folder holding the bundled seed documents."""
    return Path(str(resources.files("corpus")))


def corpus_files() -> list[Path]:
    """The bundled seed documents (``*.txt``), sorted by name."""
    return sorted(corpus_path().glob("*.txt"))
