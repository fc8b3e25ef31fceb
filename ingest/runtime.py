"""How a pipeline run uses the machine: the cyclic garbage collector paused, freed C heap returned to
the system, equal strings made one object, and the language and tag stages run in worker processes.

Nothing here decides what an entry is; every function keeps the values it is given (tests/test_pipeline.py).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Callable

from rulings.ingest.language import decided_languages, detect_languages
from rulings.ingest.model import Ruling
from rulings.ingest.tag import mechanics_of_keys, tag_key


@contextmanager
def gc_paused():
    """Pause Python's cyclic garbage collector for a pipeline run (reference counting still frees memory).

    The stages hold millions of live objects (rulings, comparison forms, LSH
    tables) and create almost no reference cycles, yet each full (generation 2)
    collection walks every live object: with the collector on, a million-ruling
    ingest spends a growing share of its time in collections that free nothing.
    The objects alive on entry are frozen (gc.freeze) so later collections skip
    them. On exit the objects made meanwhile are frozen too before all are
    unfrozen into the oldest generation, so that the next young collection does
    not walk everything the run made. Usable as a decorator (``@gc_paused()``).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def release_free_memory() -> bool:
    """Give the C heap's free pages back to the system (glibc ``malloc_trim(0)``; a memory saving).

    Python returns its small-object arenas to the system when they empty, but
    larger blocks (big lists, dict tables, long texts) come from
    the C heap, whose freed pages stay resident in the process: after dedup frees
    its tables the process would keep them while the entries are made, and every
    Whoosh worker forked later counts them again in its resident size. Values
    are untouched. Returns False where there is no glibc (then it does nothing).
    """
    global _malloc_trim
    if _malloc_trim is None:
        try:
            import ctypes
            _malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _malloc_trim = False
    if not _malloc_trim:
        return False
    _malloc_trim(0)
    return True


_malloc_trim = None


TAG_BATCH = 2048       # rulings tagged per task in the worker processes
LANGUAGE_BATCH = 2048  # texts whose language is detected per task in the worker processes


def languages_in_workers(workers, added: dict[int, list[Ruling]]) -> Callable[[], dict[str, str | None]]:
    """Start detecting the language of every distinct added text that lingua has not decided before
    in the worker processes (language.detect_languages, LANGUAGE_BATCH texts a task); returns a
    function that waits for the results and gives them as normalise()'s ``languages``, after
    remembering lingua's answers in this process (language.decided_languages) as detecting here would."""
    decided = decided_languages()
    texts = list(dict.fromkeys(r.text for rulings in added.values() for r in rulings if r.text not in decided))
    starts = range(0, len(texts), LANGUAGE_BATCH)
    tasks = [workers.apply_async(detect_languages, (texts[start:start + LANGUAGE_BATCH],)) for start in starts]

    def results() -> dict[str, str | None]:
        found: dict[str, str | None] = {}
        codes: dict[str | None, str | None] = {}       # one object per language code, not one per text
        for start, task in zip(starts, tasks):
            for text, (code, by_lingua) in zip(texts[start:start + LANGUAGE_BATCH], task.get()):
                code = found[text] = codes.setdefault(code, code)
                if by_lingua:
                    decided[text] = code
        return found
    return results


def tags_in_workers(workers, added: dict[int, list[Ruling]]) -> Callable[[], dict]:
    """Start tagging every distinct tag_key of the added, kept rulings in the worker processes
    (tag.mechanics_of_keys, TAG_BATCH keys a task); returns a function that waits for the
    results and gives them as tag()'s ``known`` (tag_key -> mechanics)."""
    keys = list(dict.fromkeys(tag_key(r) for rulings in added.values() for r in rulings if r.match))
    tasks = [workers.apply_async(mechanics_of_keys, (keys[start:start + TAG_BATCH],))
             for start in range(0, len(keys), TAG_BATCH)]

    def results() -> dict:
        return dict(zip(keys, (found for task in tasks for found in task.get())))
    return results


def share_strings(rulings: list[Ruling], table: dict, normalised: bool = False) -> None:
    """Make equal string values of the rulings' fields one object (in place; a memory saving).

    Rulings arrive from the readers (and from worker processes, through pickle)
    with a string object per ruling and field, although most values repeat: a
    few hundred set codes and dates, a card name and oracle id per printing, and
    the same text on every printing of a card (about 4 rulings per entry at a
    million rulings). table maps a value to the object kept for it (one table
    per ingest); values are equal before and after, so nothing downstream
    changes. normalised=False: the fields as read (text, date, set code, card,
    oracle id, publisher, declared language); True: the fields normalise()
    fills (match, repaired_text).
    """
    keep = table.setdefault
    if normalised:
        for r in rulings:
            r.match = keep(r.match, r.match)
            if r.repaired_text is not None:
                r.repaired_text = keep(r.repaired_text, r.repaired_text)
        return
    for r in rulings:
        r.text = keep(r.text, r.text)
        r.date = keep(r.date, r.date)
        r.set_code = keep(r.set_code, r.set_code)
        r.card = keep(r.card, r.card)
        r.oracle_id = keep(r.oracle_id, r.oracle_id)
        r.publisher = keep(r.publisher, r.publisher)
        r.declared_lang = keep(r.declared_lang, r.declared_lang)
