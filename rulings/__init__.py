"""rulings: find, browse and export deduplicated Magic: The Gathering rulings.

The one import package of the distribution. The design card's folders are mapped into it (pyproject.toml
``[tool.setuptools] package-dir``): ``rulings.search`` is ``search/``, ``rulings.ingest`` is ``ingest/``,
``rulings.corpus`` is ``corpus/``; this folder holds only the front door.
"""
