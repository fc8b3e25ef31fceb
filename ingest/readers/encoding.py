"""How the text-based readers turn bytes into text: one policy for text pages, JSON, Gatherer HTML and JSONL.

The choice (``Scan.choice``), made from the whole file's bytes:

1. valid UTF-8 (with or without a BOM), or UTF-16 with a BOM: read as such;
2. *mostly UTF-8*: the bytes of valid multi-byte UTF-8 characters are at least as many as the
   bytes that are not UTF-8 (a UTF-8 page with a stray cp1252 apostrophe ``\\x92`` or a ``\\xff``):
   read as UTF-8 with each bad byte sequence replaced by U+FFFD, and a warning naming the byte
   offsets (``replaced_warning``), so that one stray byte costs one character, never the file;
3. no valid multi-byte UTF-8 character and every byte defined in cp1252: a legacy 8-bit file, read
   as cp1252 (accents and curly quotes of old Windows tools);
4. otherwise, when at most 1 byte in 100 is bad (ASCII text with a few stray bytes): as 2;
5. otherwise the bytes are not text in any of these encodings: the file is rejected.

A valid multi-byte UTF-8 sequence (a lead byte C2-F4 followed by the right continuation bytes)
almost never occurs by chance in cp1252 text, where an accented letter is followed by ASCII;
so any real amount of valid UTF-8 decides for UTF-8.

Warnings reach the rulings through ``collecting()``: ingest/read.py read_file() collects what the
readers note while reading one file and adds each note to every ruling the file gave (counted as
``warnings`` by reason in the ingest summary and ``rulings stats``).
"""

from __future__ import annotations

import codecs
import io
import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator, TextIO

from rulings.ingest.errors import ReadError

UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
CP1252_UNDEFINED = b"\x81\x8d\x8f\x90\x9d"        # the five bytes cp1252 leaves undefined
HIGH_BYTES = bytes(range(0x80, 0x100))
MAX_OFFSETS = 3                                    # offsets of bad bytes named in a warning
STRAY_SHARE = 100                                  # rule 4: at most one bad byte in this many
CHUNK = 1 << 20

_local = threading.local()


def _note_bad(err: UnicodeDecodeError) -> tuple[str, int]:
    """Codec error handler of scan(): records each bad byte span, replaces it by U+FFFD (as ``replace``)."""
    _local.spans.append((_local.base + err.start, err.end - err.start))
    return "\ufffd", err.end


codecs.register_error("rulings-scan", _note_bad)


@dataclass(frozen=True)
class Scan:
    """What a file's bytes are: size, bytes >= 0x80, bytes that are not UTF-8 and where the first are,
    bytes undefined in cp1252, and the byte-order mark it starts with (``utf-8``, ``utf-16`` or None)."""

    size: int
    high: int
    bad: int
    offsets: tuple[int, ...]
    undefined: int
    bom: str | None = None

    def choice(self) -> str | None:
        """``utf-8``, ``utf-16``, ``utf-8-replaced`` (rules 2 and 4), ``cp1252``, or None (not text)."""
        if self.bom == "utf-16":
            return "utf-16"
        if not self.bad:
            return "utf-8"
        if self.high - self.bad >= self.bad:
            return "utf-8-replaced"
        if self.high == self.bad and not self.undefined and self.bom is None:
            return "cp1252"
        if self.bad * STRAY_SHARE <= self.size:
            return "utf-8-replaced"
        return None

    def streams_as_utf8(self) -> bool:
        """True when the file is read as UTF-8 (valid, or with its bad bytes replaced)."""
        return self.choice() in ("utf-8", "utf-8-replaced")


class _Scanner:
    """Feeds chunks of one file to an incremental UTF-8 decoder that records its bad byte spans."""

    def __init__(self) -> None:
        self.decoder = codecs.getincrementaldecoder("utf-8")("rulings-scan")
        self.fed = 0
        self.spans: list[tuple[int, int]] = []
        self.high = self.undefined = 0

    def feed(self, chunk: bytes, final: bool = False) -> None:
        self.high += len(chunk) - len(chunk.translate(None, HIGH_BYTES))
        self.undefined += len(chunk) - len(chunk.translate(None, CP1252_UNDEFINED))
        pending = len(self.decoder.getstate()[0])
        _local.spans, _local.base = self.spans, self.fed - pending
        try:
            self.decoder.decode(chunk, final)
        finally:
            del _local.spans, _local.base
        self.fed += len(chunk)

    def result(self, size: int, bom: str | None) -> Scan:
        return Scan(size, self.high, sum(n for _, n in self.spans),
                    tuple(start for start, _ in self.spans[:MAX_OFFSETS]), self.undefined, bom)


def _bom(head: bytes) -> str | None:
    if head.startswith(UTF16_BOMS):
        return "utf-16"
    return "utf-8" if head.startswith(UTF8_BOM) else None


def scan_bytes(raw: bytes) -> Scan:
    """The Scan of a file's whole content held in memory."""
    bom = _bom(raw)
    if bom == "utf-16":
        return Scan(len(raw), 0, 0, (), 0, bom)
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            scanner = _Scanner()
            scanner.feed(raw, final=True)
            return scanner.result(len(raw), bom)
    return Scan(len(raw), len(raw) - len(raw.translate(None, HIGH_BYTES)), 0, (), 0, bom)


_scans: dict[tuple[str, int, int], Scan] = {}


def scan_file(path: Path) -> Scan:
    """The Scan of a file read in 1 MiB chunks (a file of any size); the last few are kept, keyed by
    path, size and modification time, since a streamed file is opened several times. Raises OSError."""
    stat = os.stat(path)
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key in _scans:
        return _scans[key]
    scanner = _Scanner()
    with open(path, "rb") as handle:
        head = handle.read(CHUNK)
        bom = _bom(head)
        if bom != "utf-16":
            chunk = head
            while chunk:
                following = handle.read(CHUNK)
                scanner.feed(chunk, final=not following)
                chunk = following
    found = scanner.result(stat.st_size, bom)
    if len(_scans) >= 8:
        _scans.pop(next(iter(_scans)))
    _scans[key] = found
    return found


def replaced_warning(path: str, scan: Scan) -> str:
    """The warning of a file read with bad bytes replaced by U+FFFD, naming the first offsets (0-based)."""
    if scan.bad == 1:
        return f"{path}: byte {scan.offsets[0]} is not UTF-8 (replaced by U+FFFD)"
    shown = ", ".join(str(offset) for offset in scan.offsets)
    more = " and more" if scan.bad > len(scan.offsets) else ""
    return f"{path}: {scan.bad} bytes are not UTF-8, at offsets {shown}{more} (replaced by U+FFFD)"


NOT_TEXT = "not UTF-8, UTF-16 or cp1252 text"


def decode(raw: bytes, path: str) -> str:
    """The text of a whole file's bytes by the module's policy (Scan.choice); a UTF-8 BOM is dropped.

    Notes replaced_warning() (``note``) when bad bytes were replaced. Raises ReadError for UTF-16
    that does not decode, NULs in the first 4 KiB of a file that is not UTF-16 (binary content),
    and bytes that are text in none of the encodings.
    """
    scan = scan_bytes(raw)
    choice = scan.choice()
    if choice == "utf-16":
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as err:
            raise ReadError(path, f"not valid UTF-16 ({err.reason})") from None
    if b"\x00" in raw[:4096]:
        raise ReadError(path, "binary file, not text")
    if choice == "utf-8":
        return raw.decode("utf-8-sig")
    if choice == "cp1252":
        return raw.decode("cp1252")
    if choice is None:
        raise ReadError(path, NOT_TEXT)
    note(replaced_warning(path, scan))
    return raw.decode("utf-8-sig", "replace")


class Replaced(io.RawIOBase):
    """A binary stream of valid UTF-8: another stream's bytes with each bad sequence replaced by the
    UTF-8 bytes of U+FFFD (for ijson, which stops at the first byte that is not UTF-8)."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.out = b""
        self.done = False

    def readable(self) -> bool:
        """True: a stream to read from."""
        return True

    def readinto(self, buffer) -> int:
        """Fill buffer with the next repaired bytes; returns how many (0 at the end of the stream)."""
        while not self.out and not self.done:
            chunk = self.raw.read(CHUNK)
            self.done = not chunk
            self.out = self.decoder.decode(chunk, final=self.done).encode("utf-8")
        size = min(len(buffer), len(self.out))
        buffer[:size] = self.out[:size]
        self.out = self.out[size:]
        return size

    def close(self) -> None:
        """Close this stream and the one it reads."""
        self.raw.close()
        super().close()


@contextmanager
def open_utf8(path: Path) -> Iterator[BinaryIO]:
    """The file's bytes after any UTF-8 BOM, as valid UTF-8: as they are, or with bad sequences replaced
    (then replaced_warning() is noted). Only for files whose Scan streams_as_utf8(); raises OSError."""
    scan = scan_file(path)
    handle = open(path, "rb")
    try:
        if handle.read(3) != UTF8_BOM:
            handle.seek(0)
        if scan.bad:
            note(replaced_warning(str(path), scan))
            stream = io.BufferedReader(Replaced(handle), CHUNK)
            yield stream
        else:
            yield handle
    finally:
        handle.close()


@contextmanager
def open_text(path: Path) -> Iterator[TextIO]:
    """The file as a text stream (read line by line, a file of any size) in the encoding Scan.choice()
    gives; bad bytes of a mostly-UTF-8 file are replaced (and noted). Raises ReadError when the bytes
    are text in none of the encodings, OSError when the file cannot be read."""
    scan = scan_file(path)
    choice = scan.choice()
    if choice is None:
        raise ReadError(str(path), NOT_TEXT)
    if choice in ("utf-8", "utf-8-replaced"):
        with open_utf8(path) as stream, io.TextIOWrapper(stream, "utf-8") as text:
            yield text
        return
    with open(path, encoding=choice) as text:
        yield text


# --- warnings noted while one file is read ------------------------------------------------------

_notes = threading.local()


@contextmanager
def collecting() -> Iterator[list[str]]:
    """Collect the warnings noted (``note``) inside the block, each once, in the order noted."""
    outer = getattr(_notes, "current", None)
    _notes.current = found = []
    try:
        yield found
    finally:
        _notes.current = outer


def note(warning: str) -> None:
    """Record a reader warning for the file being read (nothing happens outside collecting())."""
    found = getattr(_notes, "current", None)
    if found is not None and warning not in found:
        found.append(warning)
