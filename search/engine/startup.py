"""Import Whoosh without two standard-library packages it names but a search never uses, so that a cold
``rulings search`` does not pay for them (docs/scaling.md gives the cold-search figure):
whoosh-reloaded 2.7.5's ``whoosh/compat.py`` imports ``urllib.request`` (with http.client, email and
ssl) only to alias ``urlretrieve``, which Whoosh never calls, and its dependency cached-property imports
``asyncio`` only to ask ``asyncio.iscoroutinefunction`` about each property it caches (Whoosh has one, a
plain method). While
those two modules import, ``urllib.request`` and ``asyncio`` are stand-ins (_Deferred) that hand every
name to the real module, imported when a name is first used; afterwards the names are the real modules
again. Nothing changes when Whoosh or those modules were imported first, nor on a Whoosh version outside
version.TESTED (whose modules may differ: whoosh-reloaded 3 has no ``whoosh.compat``).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


class _Deferred(ModuleType):
    """Stands in for a module while Whoosh imports: any name is looked up in the real module, imported then."""

    def __getattr__(self, name: str):
        if name.startswith("__"):            # the import system's questions (__path__, ...): a plain module's answer
            raise AttributeError(name)
        return getattr(importlib.import_module(self.__name__), name)


def _urlretrieve(*args, **kwargs):
    from urllib.request import urlretrieve
    return urlretrieve(*args, **kwargs)


def _iscoroutinefunction(func) -> bool:
    """asyncio.iscoroutinefunction without importing asyncio: until asyncio is imported, nothing can carry
    its legacy coroutine marker, so the answer is inspect's."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is not None and not isinstance(asyncio, _Deferred):
        return asyncio.iscoroutinefunction(func)
    import inspect
    return inspect.iscoroutinefunction(func)


def import_whoosh() -> None:
    """Import whoosh.compat and cached_property with the stand-ins (once; see the module docstring)."""
    if "whoosh.compat" in sys.modules or "cached_property" in sys.modules:
        return
    from rulings.search.engine import version

    if not version.tested(version.running()):
        return
    stand_ins = {}
    if "urllib.request" not in sys.modules:
        stand_ins["urllib.request"] = _Deferred("urllib.request")
        stand_ins["urllib.request"].urlretrieve = _urlretrieve
    if "asyncio" not in sys.modules:
        stand_ins["asyncio"] = _Deferred("asyncio")
        stand_ins["asyncio"].iscoroutinefunction = _iscoroutinefunction
    sys.modules.update(stand_ins)
    try:
        import cached_property  # noqa: F401
        import whoosh.compat  # noqa: F401
    finally:
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]

