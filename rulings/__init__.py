"""rulings: find, browse and export deduplicated Magic: The Gathering rulings.

The Python API is ``rulings.Index`` (rulings/api.py), the front door every ``rulings`` command uses::

    import rulings

    with rulings.Index.open("my-index") as index:
        index.ingest(["my-rulings/"])
        for hit in index.search("can I respond to proliferate", limit=3):
            print(hit["id"], hit["score"], hit["text"])

This is the one import package of the distribution. The design card's folders are mapped into it
(pyproject.toml ``[tool.setuptools] package-dir``): ``rulings.search`` is ``search/``, ``rulings.ingest``
is ``ingest/``, ``rulings.corpus`` is ``corpus/``; this folder holds only the front door, so that the
repository keeps the card's layout while nothing named search, ingest or corpus is installed at the top
of site-packages. Importing it imports no Whoosh and changes nothing of any other module.
"""

from rulings.api import CardRulings, Index, MechanicRulings, Removal, default_index
from rulings.ingest import __version__
from rulings.ingest.errors import (
    DamagedIndex,
    IndexBusy,
    IndexWriteError,
    NoIndex,
    QueryError,
    ReadError,
    RulingsError,
    UnknownEntry,
    UnknownMechanic,
)

__all__ = ["CardRulings", "DamagedIndex", "Index", "IndexBusy", "IndexWriteError", "MechanicRulings", "NoIndex",
           "QueryError", "ReadError", "Removal", "RulingsError", "Selection", "UnknownEntry", "UnknownMechanic",
           "UpdateError", "__version__", "default_index"]


def __getattr__(name: str):
    """Selection (search/export.py) and UpdateError (search/fetch.py), imported when first asked for, so that
    importing rulings stays light (PEP 562)."""
    if name == "Selection":
        from rulings.search.export import Selection
        return Selection
    if name == "UpdateError":
        from rulings.search.fetch import UpdateError
        return UpdateError
    raise AttributeError(f"module 'rulings' has no attribute {name!r}")
