"""Search side: the Whoosh index, queries, exports and the command line.

Importing it imports search.engine first, which imports Whoosh without two standard-library packages
Whoosh names but a search never uses (search/engine/startup.py).
"""

import rulings.search.engine  # noqa: F401
