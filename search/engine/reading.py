"""Opening a Whoosh index for searching: the storage, the read codec and the searcher the engine owns.

``open_searcher(folder)`` opens the index in a Whoosh folder. On a tested Whoosh (version.internals())
its segment files are memory-mapped once and read without copies (MappedStorage), and each segment is
read through ReadCodec: posting lists that skip by bisection inside a block (BisectingLeafMatcher) and a
per-document reader that keeps each field's length column in memory (MemoryLengths). These are objects
of the opened searcher only; Whoosh's own classes are not changed. Otherwise the index is opened by
Whoosh's public API. Either way the searcher is an EngineSearcher, which holds what searches of it
share (``memo``).
"""

from __future__ import annotations

import io
import mmap
import pickle
from array import array
from bisect import bisect_left
from collections.abc import Callable

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3Codec, W3LeafMatcher, W3PerDocReader, _lenfield
from whoosh.columns import NumericColumn
from whoosh.filedb.compound import SubFile
from whoosh.filedb.filestore import FileStorage
from whoosh.filedb.structfile import BufferFile, StructFile
from whoosh.matching import ReadTooFar
from whoosh.reading import EmptyReader, MultiReader, SegmentReader, TermNotFound
from whoosh.scoring import BM25F
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length

from rulings.search.engine import version

__all__ = ["EngineSearcher", "TermNotFound", "memo", "open_searcher", "segment_sizes"]

# BM25F's length normalisation (Whoosh's B, default 0.75): 1.0 scales a word's weight fully by the
# field's length, so a short ruling that holds a query word outranks a long one that mentions it in
# passing. Chosen on the dev half of the known-item queries (docs/search-quality.md, session 22).
LENGTH_NORMALISATION = 1.0


def weighting() -> BM25F:
    """The scoring every search uses: Whoosh's BM25F with B = LENGTH_NORMALISATION, K1 = 1.2."""
    return BM25F(B=LENGTH_NORMALISATION, K1=1.2)


class EngineSearcher(Searcher):
    """A Whoosh searcher whose searches keep shared, derived values in ``memo`` (never Whoosh's own
    attributes): the engine's scoring state, the entry columns, a query's per-reader tables. Its
    sub-searchers (one per segment) are EngineSearchers too (Whoosh makes them of the same class)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.memo: dict = {}


def memo(searcher, key, make: Callable[[], object]):
    """The value kept under key for this searcher (made by make() on first use); for a searcher that is
    not an EngineSearcher (one a test opened with Whoosh), made afresh each time."""
    kept = getattr(searcher, "memo", None)
    if kept is None:
        return make()
    if key not in kept:
        kept[key] = make()
    return kept[key]


def open_searcher(folder: str) -> EngineSearcher:
    """An EngineSearcher of the Whoosh index in folder (the module docstring says how it reads).

    Raises what Whoosh raises for a missing or damaged folder (OSError, EmptyIndexError, ...; callers
    turn them into DamagedIndex), and AttributeError or ImportError when the table of contents names a
    class this version lacks."""
    if not version.internals():
        ix = FileStorage(folder, readonly=True).open_index()
        return EngineSearcher(ix.reader(), fromindex=ix, weighting=weighting())
    ix = MappedStorage(folder).open_index()
    info = ix._read_toc()
    readers = [SegmentReader(ix.storage, info.schema, segment, generation=info.generation,
                             codec=ReadCodec.like(segment.codec())) for segment in info.segments]
    if not readers:
        reader = EmptyReader(info.schema)
    elif len(readers) == 1:
        reader = readers[0]
    else:
        reader = MultiReader(readers, generation=info.generation)
    return EngineSearcher(reader, fromindex=ix, weighting=weighting())


def segment_sizes(ix) -> list[tuple[int, int]]:
    """(documents, deleted documents) of each segment of a Whoosh index."""
    return [(segment.doc_count_all(), segment.deleted_count()) for segment in ix._segments()]


# ---------------------------------------------------------------- the read codec


class ReadCodec(W3Codec):
    """Whoosh's W3 codec for reading, whose posting lists are BisectingLeafMatchers and whose
    per-document reader is a MemoryLengths; the same bytes are read, the same answers given."""

    @classmethod
    def like(cls, codec) -> W3Codec:
        """A ReadCodec with the settings of a segment's own codec; a codec of another kind as it is."""
        if type(codec) is not W3Codec:
            return codec
        return cls(codec._blocklimit, codec._compression, codec._inlinelimit)

    def postings_reader(self, dbfile, terminfo, format_, term=None, scorer=None):
        if terminfo.is_inlined():
            return super().postings_reader(dbfile, terminfo, format_, term=term, scorer=scorer)
        offset, length = terminfo.extent()
        return BisectingLeafMatcher(dbfile, offset, length, format_, term=term, scorer=scorer)

    def per_document_reader(self, storage, segment):
        return MemoryLengths(storage, segment)


class BisectingLeafMatcher(W3LeafMatcher):
    """A W3 posting list whose skip_to() finds its place inside a block by bisection."""

    def skip_to(self, targetid: int) -> None:
        """Move to the first posting whose document number is >= targetid.

        Same contract as Whoosh's ``Matcher.skip_to``: raises ReadTooFar when the
        matcher is no longer active; does nothing when the current posting is at or
        past targetid; becomes inactive when no posting is left at or past it.
        Whole blocks are skipped by their last document number, as Whoosh does;
        within the block, the position is found by bisection over its decoded ids.
        """
        if not self.is_active():
            raise ReadTooFar
        if self._ids is None:
            self._read_ids()
        if targetid <= self._ids[self._i]:
            return
        if targetid > self._maxid:
            while self.is_active() and targetid > self._maxid:
                self._next_block()
            if not self.is_active():
                return
            if self._ids is None:
                self._read_ids()
        # the block's last id (_maxid) is >= targetid, so the position is inside the block
        self._i = bisect_left(self._ids, targetid, self._i, self._blocklength)


class MemoryLengths(W3PerDocReader):
    """A W3 per-document reader that reads each field's length column once and answers
    doc_field_length() from memory."""

    def __init__(self, storage, segment):
        super().__init__(storage, segment)
        self.lengths: dict = {}          # field name -> its length bytes, or None (loaded_lengths)

    def column(self, fieldname: str):
        """The field's length bytes (one per document), or None for a field that keeps no lengths."""
        return loaded_lengths(self, fieldname)

    def doc_field_length(self, docnum: int, fieldname: str, default=0):
        """A document's length in a field (tokens, Whoosh's one-byte approximation).

        Same answers as Whoosh's ``W3PerDocReader.doc_field_length``. default: the answer for a
        field that keeps no lengths. Raises IndexError past the segment's documents."""
        lengths = loaded_lengths(self, fieldname)
        if lengths is None:
            return default
        lbyte = lengths[docnum]
        return byte_to_length(lbyte) if lbyte else None


def loaded_lengths(perdoc: W3PerDocReader, fieldname: str):
    """The field's length bytes for every document of the segment (read once and kept with a
    MemoryLengths; read afresh for another per-document reader); None for a field that keeps no lengths."""
    kept = perdoc.lengths if isinstance(perdoc, MemoryLengths) else {}
    lengths = kept.get(fieldname, False)
    if lengths is False:
        column = perdoc._cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
        lengths = kept[fieldname] = None if column is None else _column_bytes(column)
    return lengths


def _column_bytes(column) -> array:
    """A length column's bytes for every document, read as one slice of the segment file.

    Whoosh's ``load()`` reads a NumericColumn one document at a time; a one-byte column
    (``NumericColumn("B", default=0)``, whoosh3.py LENGTHS_COLUMN) is its stored bytes followed by
    the default for the documents past the last one written. Any other column is loaded by Whoosh.
    """
    if type(column) is not NumericColumn.Reader or column._typecode != "B" or column._default != 0:
        return column.load()
    stored = bytes(column._dbfile.get(column._basepos, column._count))
    return array("B", stored + bytes(max(0, column._doccount - column._count)))


# Whoosh's length byte -> length; 0 (no length recorded) -> None, as W3PerDocReader answers.
LENGTH_OF_BYTE = (None, *(byte_to_length(b) for b in range(1, 256)))


# ---------------------------------------------------------------- the mapped storage


class MappedStorage(FileStorage):
    """Whoosh's file storage for reading, each segment file memory-mapped once and its parts read
    from the map without copying them.

    Whoosh's own mmap path (filedb/compound.py CompoundStorage.open_file) wraps every part of a
    segment file in a BytesIO of the map, which copies the whole part before a posting is read.
    This storage says it has no mmap, so the segment's compound storage asks the opened file for
    each part (StructFile.subset); the file answers with a view of its map (_MappedFile). Reads and
    positions are the same bytes as Whoosh's.
    """

    def __init__(self, path: str):
        super().__init__(path, supports_mmap=False, readonly=True)

    def open_file(self, name, **kwargs):
        return _MappedFile(open(self._fpath(name), "rb"), name=name, **kwargs)


class _MappedFile(StructFile):
    """A StructFile on a real file whose parts (subset()) are views of one memory map of it."""

    _map = None

    def subset(self, offset, length, name=None):
        if self._map is None:
            self._map = mmap.mmap(self.file.fileno(), 0, access=mmap.ACCESS_READ)
        return _MappedPart(self._map, offset, length, name or self._name)

    def close(self):
        super().close()
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:          # a part is still in use: the map goes with its last view
                pass
            self._map = None


class _MappedPart(BufferFile):
    """One part of a mapped file: get() slices the view (as BufferFile), read()/seek() go through a
    SubFile of the map, so nothing is copied until it is read."""

    def __init__(self, source: mmap.mmap, offset: int, length: int, name: str | None = None):
        StructFile.__init__(self, SubFile(source, offset, length, name=name), name=name)
        self._buf = memoryview(source)[offset:offset + length]

    def read_pickle(self):
        """The pickle at the current position, unpickled from a copy of the next bytes (the first 512,
        or the rest of the part when it is longer); the position moves past it, as Whoosh's read_pickle
        (pickle.load on the SubFile would call its Python read() once per opcode)."""
        position = self.tell()
        for end in (position + 512, len(self._buf)):
            stream = io.BytesIO(self._buf[position:end])
            try:
                value = pickle.load(stream)
            except (EOFError, pickle.UnpicklingError):
                if end >= len(self._buf):
                    raise
                continue
            self.seek(position + stream.tell())
            return value
