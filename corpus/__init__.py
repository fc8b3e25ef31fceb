"""The bundled default ruling documents (installed as package data), and their stable identity.

The folder they are installed in changes with every install (site-packages, an editable checkout, a
new virtual environment), so an index does not remember them by path: a bundled document is the source
``rulings:corpus/<file name>`` wherever it is installed (bundled_name()).
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

BUNDLED = "rulings:corpus"         # the source name of the bundled folder; its files are BUNDLED + "/" + name


def corpus_path() -> Path:
    """Folder holding the bundled seed documents."""
    return Path(str(resources.files("rulings.corpus")))


def corpus_files() -> list[Path]:
    """The bundled seed documents (``*.txt``), sorted by name."""
    return sorted(corpus_path().glob("*.txt"))


def bundled_name(path: Path) -> str | None:
    """The stable source name of a bundled document (``rulings:corpus/000_4791008fab4c9afc.txt``) or of the
    bundled folder itself (``rulings:corpus``), for its path as installed now (links resolved); a name
    already in that form is returned as given. None for any other path."""
    text = os.fspath(path)
    if text == BUNDLED or text.startswith(BUNDLED + "/"):
        return text.rstrip("/")
    resolved, home = Path(path).resolve(), corpus_path().resolve()
    if resolved == home:
        return BUNDLED
    if resolved.parent == home and resolved.suffix == ".txt":
        return f"{BUNDLED}/{resolved.name}"
    return None


def former_copy(key: str) -> bool:
    """True when a remembered absolute source path was a bundled document at another install location
    (what an index made before bundled_name() remembered): a file named like one of today's bundled
    documents in a folder named ``corpus`` that is gone or is a Python package (holds ``__init__.py``)."""
    path = Path(key)
    if not path.is_absolute() or path.parent.name != "corpus":
        return False
    if path.name not in {file.name for file in corpus_files()}:
        return False
    return not path.parent.exists() or (path.parent / "__init__.py").is_file()
