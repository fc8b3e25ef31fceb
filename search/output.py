"""Files written whole or not at all, and never into an index folder (``rulings export -o``, the update cache).

``write_atomic(path, data)`` writes the bytes to a new hidden file beside the target and renames it
over the target only once every byte is written (and, with ``durable``, flushed to the disk), so a
failed write (a full disk, a quota, a killed process) leaves the previous file as it was, or no file,
never a truncated one; the temporary file is removed on failure. A symbolic link is followed (its
target is replaced, the link stays), an existing file keeps its permission bits, and a device or
FIFO (``/dev/null``, ``/dev/stdout``) is written directly, since it cannot be replaced.

``index_folder_holding(path)`` finds the index folder a path lies in, so that an export is never
written over the index's own files.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from stat import S_IMODE, S_ISREG

from rulings.search import folder, index
from rulings.search.catalog import STATE


def write_atomic(path: Path, data: bytes, durable: bool = False) -> None:
    """Write data to path whole or not at all (see the module's docstring); raises OSError."""
    target = Path(os.path.realpath(path))
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    if info is not None and not S_ISREG(info.st_mode):
        with open(target, "wb") as handle:           # a device or a FIFO: there is nothing to replace
            handle.write(data)
        return
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    mode = S_IMODE(info.st_mode) if info is not None else 0o666      # a new file: 0o666 less the umask
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if info is not None else mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if info is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def is_index_folder(candidate: Path) -> bool:
    """True for an index folder of ours: a CURRENT pointer (search/folder.py), or the state and the
    Whoosh folder side by side (a generation folder, or the layout before generations)."""
    return (candidate / folder.CURRENT).is_file() or ((candidate / STATE).is_file()
                                                      and (candidate / index.WHOOSH_DIR).is_dir())


def index_folder_holding(path: Path, index_dir: Path | None = None) -> Path | None:
    """The index folder that path lies in (links followed), or None: index_dir itself or any folder
    above path that is_index_folder()."""
    target = Path(os.path.realpath(path))
    own = Path(os.path.realpath(index_dir)) if index_dir is not None else None
    for parent in target.parents:
        if parent == own or is_index_folder(parent):
            return parent
    return None
