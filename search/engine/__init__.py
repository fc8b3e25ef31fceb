"""The wall around Whoosh's internals: everything of ours that reads or writes Whoosh below its public API.

Only this package imports ``whoosh.codec``, ``whoosh.matching``, ``whoosh.multiproc``, ``whoosh.filedb``,
``whoosh.reading`` or ``whoosh.writing`` or uses a private Whoosh name (tests/test_engine_wall.py checks
the imports). The rest of the project uses Whoosh's public API (analysis, fields, qparser, query,
searching, highlight) and, for what it needs below it, this interface:

- ``open_searcher(folder) -> EngineSearcher``: a searcher of the Whoosh index in folder, scoring by BM25F
  with full length normalisation (reading.py weighting());
- ``top(searcher, query, limit) -> Results``: the ``limit`` best-scored documents (scoring.py);
- ``entry_writer(ix, full=False)``: a writer with ``add_entry(stored, entry_json, card_text)``,
  ``delete_by_term``, ``mergetype`` and ``spelling_words()`` (writing.py); ``merge_tiers`` its merge policy;
- ``Unscored``, ``DateRange``, ``listed(scores)``, ``scores_of(query, searcher, context)``,
  ``merge_matched_tokens`` (queries.py): query nodes and helpers built on Whoosh's public matcher seams;
- ``segment_sizes(ix)``, ``memo(searcher, key, make)``, ``TermNotFound`` (reading.py);
- ``internals() -> bool`` (version.py): whether the running Whoosh is one the equivalence tests passed on.

Importing this package changes nothing of Whoosh's. What the engine needs it installs when an index is
opened or written, on objects it makes: a codec whose posting lists skip by bisection and whose
per-document reader keeps field lengths in memory, a storage that maps segment files, writers that make
documents themselves. On a Whoosh version outside the tested range (version.TESTED) every step takes
Whoosh's plain public path instead, with the same results, and says so once on stderr.

Importing it also imports Whoosh without two standard-library packages it names but never uses
(startup.py; only on a tested version).
"""

from __future__ import annotations

import importlib

from rulings.search.engine import startup

startup.import_whoosh()

# name -> module of the interface, imported on first use (PEP 562), so that importing the package stays cheap
_INTERFACE = {
    "open_searcher": "reading", "EngineSearcher": "reading", "segment_sizes": "reading", "memo": "reading",
    "TermNotFound": "reading", "forget_lengths": "reading",
    "top": "scoring",
    "entry_writer": "writing", "merge_tiers": "writing",
    "Unscored": "queries", "DateRange": "queries", "listed": "queries", "scores_of": "queries",
    "merge_matched_tokens": "queries",
    "internals": "version",
}

__all__ = sorted(_INTERFACE)


def __getattr__(name: str):
    module = _INTERFACE.get(name)
    if module is None:
        raise AttributeError(f"module 'rulings.search.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"rulings.search.engine.{module}"), name)
    globals()[name] = value
    return value
