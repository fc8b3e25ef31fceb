"""The index folder on disk: numbered generations, the CURRENT pointer, and the writer lock.

Layout of an index folder (``--index DIR``)::

    CURRENT         the name of the live generation folder (one line, e.g. ``gen-000007``)
    gen-000007/     the live index files (search/catalog.py lists them)
    gen-000006/     the generation before, kept until the next update for searches still opening it
    lock            held by the one process updating the index (POSIX record lock), with its pid

A generation folder holding ``state.pkl`` was a complete index (search/catalog.py writes it last), so
generation folders holding one without ``CURRENT`` beside them are a damaged index (live() says so),
not leftovers: nothing there is removed or built over.

An update never changes the live generation: it builds the next one beside it
(Whoosh segment files and the pickled state are hard links, since both are only
ever replaced, never rewritten in place; the SQLite store is copied), then
switches ``CURRENT`` with one rename. A search reads ``CURRENT`` and opens that
folder, so it always sees a complete index; a process killed at any moment of
an update leaves ``CURRENT`` naming the previous, complete generation, and the
next update removes what the killed one left behind.

A folder with ``state.pkl`` and ``whoosh/`` directly inside was made before generations, by a version
whose state this one cannot read: every command says so in one line, and ``rulings ingest --rebuild``
builds a generation beside those files.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rulings.ingest.errors import DamagedIndex, IndexBusy, RulingsError

CURRENT = "CURRENT"
LOCK = "lock"
STATE = "state.pkl"                # search/catalog.py STATE: written last in a complete generation
SEGMENTER_CACHE = "jieba.cache"    # search/languages.py keeps jieba's dictionary cache here
GENERATION = re.compile(r"gen-(\d{6,})")
LOCK_TIMEOUT = 60.0            # seconds a second writer waits; $RULINGS_LOCK_TIMEOUT overrides


def live(root: Path) -> Path:
    """The folder that holds the live index files of the index folder root.

    root/<the name in CURRENT> when CURRENT exists; otherwise root itself (a
    generation folder given directly, a folder with no index yet, or one of
    the layout before generations, whose files then report another version). Raises DamagedIndex when CURRENT
    is unreadable or names no generation folder, and when it is missing beside
    a generation folder that holds a state (_refuse_lost_pointer()).
    """
    pointer = os.path.abspath(os.path.join(root, CURRENT))
    try:
        info = os.stat(pointer)
        version = (info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size)
        known = _LIVE.get(pointer)
        name = known[1] if known is not None and known[0] == version and _settled(info) else \
            Path(pointer).read_text("ascii").strip()
    except FileNotFoundError:
        _refuse_lost_pointer(root)
        return Path(root)
    except (OSError, UnicodeDecodeError) as err:
        raise DamagedIndex(f"{pointer}: cannot be read ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild' with your sources") from None
    folder = Path(root) / name
    if not GENERATION.fullmatch(name) or not folder.is_dir():
        raise DamagedIndex(f"{root}: the index is damaged (CURRENT names no generation folder); "
                           "run 'rulings ingest --rebuild' with your sources")
    if len(_LIVE) > 64:
        _LIVE.clear()
    _LIVE[pointer] = (version, name)
    return folder


def _refuse_lost_pointer(root: Path) -> None:
    """Raise DamagedIndex when root has no CURRENT but one of its generation folders holds a state (STATE).

    An update writes a generation's state last and only then switches CURRENT to it, so such a folder
    was a complete index: CURRENT was deleted, or a backup was restored without it. Without this, the
    folder would look like one holding no index yet, and the next command would build the bundled
    corpus over it (tidy() removing the user's generations as leftovers).
    """
    try:
        entries = os.scandir(root)
    except OSError:
        return
    with entries:
        lost = sorted(entry.name for entry in entries
                      if GENERATION.fullmatch(entry.name) and os.path.isfile(os.path.join(entry.path, STATE)))
    if lost:
        raise DamagedIndex(f"{root}: the index is damaged ({CURRENT} is missing beside {len(lost)} generation "
                           f"folder{'s' if len(lost) > 1 else ''}); run 'rulings ingest --rebuild' with your sources")


# CURRENT files read: absolute path -> ((inode, modification and change times in ns, size) when read,
# the name it held). A switch writes a new CURRENT and renames it over the old one (switch()), so any
# switch changes these; a file written in place keeps its inode and may keep its size and times (file
# times advance by the kernel's clock tick), so a name is taken from here only for a file unchanged for
# SETTLED_NS.
_LIVE: dict[str, tuple[tuple[int, int, int, int], str]] = {}
SETTLED_NS = 2_000_000_000


def _settled(info: os.stat_result) -> bool:
    """Whether a file was last changed more than SETTLED_NS ago: a later change gives it a newer time."""
    return time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) > SETTLED_NS


def is_foreign(root: Path, ours: Iterable[str]) -> bool:
    """True when root is a folder that holds files but no index of ours.

    ours: the names of index files (search/catalog.py); an index folder holds
    CURRENT, or one of them directly (a generation folder, or the layout before
    generations, which then reports another version rather than foreign). A folder
    holding only what an update makes (the lock, generation folders of a first
    build still running or killed) is not foreign.
    """
    root = Path(root)
    if not root.is_dir():
        return False
    names = {entry.name for entry in os.scandir(root)}
    own = {LOCK, CURRENT + ".tmp", SEGMENTER_CACHE} | {n for n in names if GENERATION.fullmatch(n)}
    return bool(names - own) and not names & {CURRENT, *ours}


def timeout() -> float:
    """Seconds a writer waits for the lock: $RULINGS_LOCK_TIMEOUT, else LOCK_TIMEOUT.

    Raises RulingsError when the variable is set to anything but a number of seconds >= 0.
    """
    value = os.environ.get("RULINGS_LOCK_TIMEOUT", "").strip()
    if not value:
        return LOCK_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise RulingsError(f"$RULINGS_LOCK_TIMEOUT: {value!r} is not a number of seconds (0 or more)")
    return seconds


@contextmanager
def locked(root: Path, wait: float | None = None) -> Iterator[None]:
    """Hold the writer lock of the index folder root (made if missing) for the block.

    A POSIX record lock (fcntl.lockf) on root/lock: the kernel releases it when
    the holder exits or is killed, and, unlike flock(), worker processes forked
    by the holder do not inherit it. Waits up to ``wait`` seconds (default
    timeout()), polling every 0.1 s, then raises IndexBusy naming the holder's pid.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    path = root / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    wait = timeout() if wait is None else wait
    deadline = time.monotonic() + wait
    try:
        while True:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as err:
                if err.errno not in (errno.EACCES, errno.EAGAIN):
                    raise
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
                    raise IndexBusy(f"{root}: another process (pid {holder}) is updating this index; "
                                    f"waited {wait:g} s, try again when it has finished") from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        yield
    finally:
        os.close(fd)             # closing the descriptor releases the record lock


def generations(root: Path) -> list[tuple[int, Path]]:
    """(number, folder) of every generation folder under root, lowest first."""
    found = []
    for entry in os.scandir(root):
        match = GENERATION.fullmatch(entry.name)
        if match and entry.is_dir(follow_symlinks=False):
            found.append((int(match.group(1)), Path(entry.path)))
    return sorted(found)


def tidy(root: Path) -> None:
    """Remove what earlier updates left: generations older than the one before the live one, and any
    generation newer than the live one (an update that was killed). Call it holding the lock."""
    root = Path(root)
    (root / (CURRENT + ".tmp")).unlink(missing_ok=True)
    try:
        current = live(root)
    except DamagedIndex:
        return                   # nothing is removed while it is unclear which generation is live
    numbers = generations(root)
    # with no CURRENT (a first build killed) every generation is a leftover
    below = [n for n, _ in numbers if current != root and n < _number(current)]
    keep = max(below, default=None)
    for number, folder in numbers:
        if folder != current and number != keep:
            shutil.rmtree(folder, ignore_errors=True)


def _number(folder: Path) -> int:
    match = GENERATION.fullmatch(folder.name)
    return int(match.group(1)) if match else 0


@contextmanager
def next_generation(root: Path, base: Path | None, linked: Iterable[str],
                    copied: Iterable[str]) -> Iterator[Path]:
    """A new generation folder for an update, made live only when the block ends without error.

    base: the live folder to start from (None: start empty, a rebuild).
    linked: names in base that are only ever replaced (hard-linked; a folder is
    linked file by file); copied: names written in place (copied). When the
    block raises, the new folder is removed and the live one stays. Call it
    holding the lock (locked()).
    """
    root = Path(root)
    tidy(root)
    number = max((n for n, _ in generations(root)), default=0) + 1
    folder = root / f"gen-{number:06d}"
    folder.mkdir()
    try:
        if base is not None:
            for name in linked:
                _link(base / name, folder / name)
            for name in copied:
                if (base / name).exists():
                    shutil.copy2(base / name, folder / name)
        yield folder
        _switch(root, folder)    # raises only before CURRENT is replaced (a full disk): the new folder goes
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    tidy(root)


def _link(source: Path, target: Path) -> None:
    """Hard-link a file, or each file of a folder (Whoosh lock files left out); copy where links fail."""
    if source.is_dir():
        target.mkdir()
        for entry in os.scandir(source):
            if entry.is_file() and "WRITELOCK" not in entry.name:
                _link(Path(entry.path), target / entry.name)
        return
    if not source.exists():
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _switch(root: Path, folder: Path) -> None:
    """Make folder the live generation: write CURRENT beside it, then rename over the old one."""
    pointer = root / (CURRENT + ".tmp")
    try:
        with open(pointer, "w", encoding="ascii") as handle:
            handle.write(folder.name + "\n")
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        pointer.unlink(missing_ok=True)
        raise
    os.replace(pointer, root / CURRENT)
