"""How a pipeline run uses the machine: the worker processes (a pool forked from multiprocessing's fork
server) that form dedup's texts and run the language and tag stages, the cyclic garbage collector
paused, freed C heap returned to the system, and equal strings made one object.

Nothing here decides what an entry is; every function keeps the values it is given (tests/test_pipeline.py,
tests/test_dedup.py).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections import deque
from contextlib import contextmanager
from itertools import islice
from multiprocessing.pool import Pool
from typing import Callable, Iterator

from rulings.ingest import candidates
from rulings.ingest.candidates import form_batch
from rulings.ingest.compare import Form
from rulings.ingest.language import decided_languages, detect_languages
from rulings.ingest.model import Ruling
from rulings.ingest.tag import mechanics_of_keys, tag_key

FORM_WORKERS = min(os.cpu_count() or 1, 4) if (os.cpu_count() or 1) > 1 else 0   # see form_workers
POOL_MIN_BATCHES = 6           # fewer batches than this are formed in this process (starting workers costs more)
POOL_AHEAD = 2                 # batches in flight per worker (results wait in memory until placed)


@contextmanager
def form_workers(texts: int) -> Iterator[Pool | None]:
    """A pool of FORM_WORKERS worker processes for an ingest of ``texts`` texts to place, or None
    when they are too few to pay for starting workers (fewer than POOL_MIN_BATCHES batches of
    candidates.ADD_BATCH), FORM_WORKERS is 0, or the platform has no ``forkserver``.

    The workers are forked from multiprocessing's fork server, a small process that has
    imported only what ingest/workers.py imports (FORK_SERVER_PRELOAD), not from this process:
    a worker forked from a process holding a million rulings would copy the memory pages it
    writes into (Python's allocator and reference counts write all over the heap) and add
    hundreds of MB to the peak.
    On exit the pool is ended, whatever work is still outstanding (collect every result inside
    the block).
    """
    if (FORM_WORKERS < 1 or texts < POOL_MIN_BATCHES * candidates.ADD_BATCH
            or "forkserver" not in multiprocessing.get_all_start_methods()):
        yield None
        return
    start_fork_server()
    pool = multiprocessing.get_context("forkserver").Pool(FORM_WORKERS)
    try:
        yield pool
    finally:
        pool.terminate()
        pool.join()


FORK_SERVER_PRELOAD = ["rulings.ingest.workers"]     # what the fork server loads before forking workers


def start_fork_server() -> bool:
    """Start multiprocessing's fork server, which loads FORK_SERVER_PRELOAD (ingest/workers.py: the
    workers' modules and lingua's models, a second or two), unless it runs already; returns at once,
    the loading goes on in the server meanwhile. False where there is no ``forkserver`` or no
    workers are used (FORM_WORKERS 0). Called early in a large ingest (search/catalog.py) so that the
    loading overlaps the reading, and by form_workers()."""
    if FORM_WORKERS < 1 or "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload(FORK_SERVER_PRELOAD)
    forkserver.ensure_running()
    return True


def formed_batches(batches: list[list[str]], pool: Pool | None = None) -> Iterator[tuple[list[Form], list[bytes]]]:
    """candidates.form_batch() of each batch of matching texts, yielded in order.

    Forming is independent per text and is most of dedup's work, while placing
    texts (Grouper._place) must be sequential: the batches are formed in the
    worker processes of ``pool`` (or of form_workers(), when it gives a pool for
    this many texts), at most POOL_AHEAD batches per worker in flight, while
    this process places the batches already formed. The results are the same as
    in one process (same functions, same inputs; tests/test_dedup.py compares them).
    """
    if pool is None:
        with form_workers(sum(len(batch) for batch in batches)) as own:
            if own is not None:
                yield from formed_batches(batches, own)
            else:
                for batch in batches:
                    yield form_batch(batch)
        return
    waiting = iter(batches)
    pending = deque(pool.apply_async(form_batch, (batch,)) for batch in islice(waiting, FORM_WORKERS * POOL_AHEAD))
    while pending:
        result = pending.popleft().get()
        batch = next(waiting, None)
        if batch is not None:
            pending.append(pool.apply_async(form_batch, (batch,)))
        yield result


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
