"""Which Whoosh is running, and whether the engine may use its internals.

The engine's own readers, writers and scoring reach below Whoosh's public API; tests/test_engine*.py
prove they give Whoosh's own results, and they have passed on the versions in TESTED only. On any other
version ``internals()`` is False, every step takes Whoosh's public path (the same results, slower), and
the first such step says so once on stderr.
"""

from __future__ import annotations

import sys

import whoosh

# The whoosh-reloaded versions the equivalence tests passed on: from TESTED[0] up to, not including, TESTED[1].
TESTED = ((2, 7, 5), (2, 7, 6))

_said = False


def running() -> tuple[int, ...]:
    """The running Whoosh's version as a tuple of ints, e.g. (2, 7, 5) (whoosh.__version__)."""
    return tuple(part for part in whoosh.__version__ if isinstance(part, int))


def tested(version: tuple[int, ...]) -> bool:
    """True when the version lies in TESTED."""
    return TESTED[0] <= tuple(version[:3]) < TESTED[1]


def internals() -> bool:
    """True when the running Whoosh is in TESTED; else False, said once per process on stderr."""
    global _said
    if tested(running()):
        return True
    if not _said:
        _said = True
        low, high = (".".join(map(str, v)) for v in TESTED)
        print(f"rulings: Whoosh {whoosh.versionstring()} is outside the versions tested with rulings' "
              f"engine ({low} to before {high}); using Whoosh's public API (same results, slower)",
              file=sys.stderr)
    return False
