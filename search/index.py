"""The Whoosh index of entries: schema, writing, and reading entries back.

Only this package imports Whoosh. One document per entry; the ``entry`` column
(EntryColumn) holds the entry's PRODUCT.md JSON shape.
"""

from __future__ import annotations

import io
import json
import mmap
import os
import pickle
import queue
import struct
import traceback
import zlib
from bisect import bisect_right
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

import orjson
from whoosh import index as whoosh_index
from whoosh.codec.base import OutOfOrderError
from whoosh.codec.whoosh3 import (
    WHOOSH3_HEADER_MAGIC,
    W3Codec,
    W3FieldWriter,
    W3PerDocReader,
    W3PostingsWriter,
    W3Segment,
)
from whoosh.columns import VarBytesColumn
from whoosh.fields import COLUMN, ID, KEYWORD, TEXT, Schema
from whoosh.filedb.compound import SubFile
from whoosh.filedb.filestore import FileStorage
from whoosh.filedb.structfile import BufferFile, StructFile
from whoosh.multiproc import MpWriter, SubWriterTask
from whoosh.util.numeric import length_to_byte
from whoosh.writing import SegmentWriter

from ingest.errors import DamagedIndex
from ingest.model import Entry, entry_to_dict
from search import folder as index_folder
from search import matching
from search.analysis import (
    RulingsTokenizer,
    TermPositions,
    card_key,
    name_analyzer,
    rulings_analyzer,
    term_positions,
    unstemmed_words,
    words_of_token,
)
from search.languages import (
    field_for,
    keep_segmenter_cache_in,
    schema_fields,
    text_fields,
)

WHOOSH_DIR = "whoosh"
# The "did you mean" vocabulary beside the Whoosh folder: UTF-8, one folded word per line, sorted.
SPELLING = "spelling.txt"


# The analysed text fields that bare words and phrases search, with their BM25F boosts:
# "text" (English) and one field per language family (search/languages.py).
TEXT_FIELDS: tuple[str, ...] = text_fields()
FIELD_BOOSTS: dict[str, float] = {"text": 1.0, "variants": 0.3, "cards": 0.8, "mechanics": 0.8}


def searched_fields() -> dict[str, float]:
    """Field name -> boost for bare words and phrases: TEXT_FIELDS, other variant texts, cards, mechanics."""
    names = TEXT_FIELDS + ("variants", "cards", "mechanics")
    return {name: FIELD_BOOSTS.get(name, 1.0) for name in names}


def schema() -> Schema:
    """The entry index's fields.

    text: the canonical text (repairs applied), MTG-aware analyzer, positions for phrases;
    variants: the other distinct variant texts, same analyzer, low boost (so an entry
    repeated on many cards is not scored higher for it); cards: card names (BM25F field, so a short
    card list outranks a long one); card_keys: lookup keys of full names and faces;
    card_names: keys of full names only; mechanics, sets, lang; date: newest ISO
    date (sortable); dates: every variant date; entry: the JSON shape (EntryColumn). The
    words for "did you mean" are a file beside the index (SPELLING), not a field.
    """
    return Schema(
        id=ID(stored=True, unique=True),
        text=_term_positions(TEXT(analyzer=rulings_analyzer(), phrase=True, multitoken_query="phrase")),
        variants=_term_positions(TEXT(analyzer=rulings_analyzer(), phrase=True, multitoken_query="phrase")),
        cards=_term_positions(TEXT(analyzer=name_analyzer(), phrase=True, multitoken_query="phrase")),
        card_keys=KEYWORD(lowercase=False, commas=True, scorable=False),
        card_names=KEYWORD(lowercase=False, commas=True, scorable=False),
        mechanics=KEYWORD(lowercase=True, commas=True, scorable=True),
        sets=KEYWORD(lowercase=True, commas=True),
        lang=ID(),
        date=ID(sortable=True),
        dates=KEYWORD(commas=True),
        entry=EntryColumn(),
        **schema_fields(TEXT),          # text_zh, text_cjk, text_de ... (search/languages.py)
    )


class EntryColumn(COLUMN):
    """The field of an entry's JSON text (UTF-8) in a column of its own: Whoosh's VarBytesColumn with
    its offsets written, so a hit's entry is a slice of the mapped segment file (entry_texts()).

    Whoosh's stored fields keep a document's values as one pickled dict, zlib-compressed: reading a
    hit's entry there cost its decompression and unpickling (about 10 µs of a hit's 20 µs with the
    JSON decoding). A lone surrogate (a source path's undecodable byte, as Python keeps it) is
    written as its JSON escape, which reads back as the same text.
    """

    def __init__(self):
        super().__init__(VarBytesColumn(write_offsets_cutoff=0))

    def to_bytes(self, value):
        return value.encode("utf-8", "backslashreplace") if isinstance(value, str) else value


def _term_positions(field: TEXT) -> TEXT:
    """The field with Whoosh's Positions format swapped for TermPositions (the same postings, made
    without Token objects; search/analysis.py)."""
    field.format = TermPositions(field_boost=field.format.field_boost)
    return field


def card_keys(cards: list[str]) -> list[str]:
    """Lookup keys of an entry's cards: each full name and each face of ``A // B``."""
    keys = set()
    for card in cards:
        keys.add(card_key(card))
        for face in card.split("//"):
            keys.add(card_key(face))
    return sorted(k for k in keys if k)


def search_texts(entry_json: dict) -> tuple[str, list[str]]:
    """(main text, other distinct variant texts) to index; repaired texts replace the originals."""
    searchable = {v["text"]: v.get("repaired_text") or v["text"] for v in entry_json["variants"]}
    main = searchable.get(entry_json["text"], entry_json["text"])
    others = sorted(set(searchable.values()) - {main})
    return main, others


def document(entry_json: dict, stored: str | None = None) -> dict:
    """The Whoosh document of one entry in its JSON shape (stored: its JSON text, when already made).

    The canonical text goes to the text field of the entry's language
    (search/languages.py field_for); other variant texts go to ``variants`` for
    English and, after the canonical text, to the language's own field otherwise.
    """
    main, others = search_texts(entry_json)
    field = field_for(entry_json["lang"])
    texts = {field: main, "variants": "\n".join(others)} if field == "text" else \
        {field: "\n".join([main, *others])}
    return {
        "id": entry_json["id"],
        **texts,
        "cards": "\n".join(entry_json["cards"]),
        "card_keys": ",".join(card_keys(entry_json["cards"])),
        "card_names": ",".join(sorted({card_key(c) for c in entry_json["cards"]} - {""})),
        "mechanics": ",".join(entry_json["mechanics"]),
        "sets": ",".join(s.lower() for s in entry_json["sets"]),
        "lang": entry_json["lang"].lower(),
        "date": entry_json["date"] or "",
        "dates": ",".join(entry_json["dates"]),
        "entry": stored if stored is not None else json.dumps(entry_json, ensure_ascii=False),
    }


def spelling_words(entry_json: dict) -> set[str]:
    """The entry's words for "did you mean": folded, unstemmed words of its searched texts that start
    with a letter (search/analysis.py terms(), hyphenated words as their parts)."""
    main, others = search_texts(entry_json)
    return set().union(*(unstemmed_words(text) for text in [main, *others]))


def write_entries(index_dir: Path, entries: list[Entry]) -> None:
    """Replace the Whoosh index of the generation folder index_dir with these entries."""
    shapes = [entry_to_dict(entry) for entry in entries]
    write_documents(index_dir, ((shape, json.dumps(shape, ensure_ascii=False), False) for shape in shapes),
                    create=True)


def _writer(ix, full: bool = False):
    """An entry writer (add_entry; EntryWriter) with FlushCodec (same index contents, a cheaper flush).

    full: a whole new index, written by one worker process per core.
    """
    # a full build writes through one worker process per core (Whoosh MpWriter), each into its own
    # segment: documents land in the order the workers finish, which no output depends on (searches
    # rank by score, exports sort by date and id); the codec goes to every worker's writer
    cores = min(os.cpu_count() or 1, 4)
    codec = FlushCodec(compression=0)
    if full and cores > 1:
        return EntryMpWriter(ix, procs=cores, multisegment=True, limitmb=256, codec=codec)
    return EntryWriter(ix, limitmb=256, codec=codec)


class EntryWriter(SegmentWriter):
    """A Whoosh segment writer that makes each entry's document itself and gathers the entries'
    "did you mean" words (spelling_words()) in ``words``.

    In a worker process of EntryMpWriter it is given only the entry's JSON text, so the
    documents are made where they are analysed and not in the process that feeds the workers.
    """

    def __init__(self, ix, **kwargs):
        super().__init__(ix, **kwargs)
        self.words: set[str] = set()
        # Whoosh's add_document() serves fields that ask for a separate spelling field or term vectors
        self._plain = not any(f.separate_spelling() or f.vector for _, f in self.schema.items())
        self._known_terms: dict[tuple[str, str], list[tuple]] = {}

    def add_entry(self, stored: str, entry_json: dict | None = None) -> None:
        """Add the document of one entry: stored, its JSON text; entry_json, its shape when at hand."""
        entry_json = json.loads(stored) if entry_json is None else entry_json
        fields = document(entry_json, stored)
        if not self._plain:
            self.add_document(**fields)
            self.words |= spelling_words(entry_json)
            return
        # an English entry's searched texts are exactly its text and variants fields: their
        # tokens, gathered while they are indexed, give the spelling words without a second pass
        tokens: set[tuple[str, str]] | None = set() if "text" in fields else None
        self._add_fields(fields, tokens)
        if tokens is None:
            self.words |= spelling_words(entry_json)
        else:
            self.words.update(*(words_of_token(*token) for token in tokens))

    def _add_fields(self, fields: dict, tokens: set | None = None) -> None:
        """Whoosh's add_document() (whoosh-reloaded 2.7.5 writing.py SegmentWriter) for a document()
        dict: the same postings, lengths, stored values and columns, made in one loop.

        Fields in TermPositions with a RulingsTokenizer (text, variants, cards) take their postings
        from analysis.term_positions() directly, each positions list encoded once per process
        (_encoded_positions), instead of through Whoosh's chain of generators; other fields use the
        field's own index(). The postings go to the sorting pool in one batch with the pool's own
        size accounting. tokens, when given, receives the (token, kind) pairs of the text and variants
        fields (analysis.term_positions). Only for a schema without separate spelling fields and
        term vectors (EntryWriter._plain); there are no "_boost" keys, so every boost factor is 1.0.
        """
        self._check_state()
        perdocwriter = self.perdocwriter
        schema = self.schema
        docnum = self.docnum
        items: list[tuple] = []
        perdocwriter.start_doc(docnum)
        try:
            for fieldname in sorted(fields):
                value = fields[fieldname]
                if value is None:
                    continue
                field = schema[fieldname]
                length = 0
                if field.indexed:
                    scorable = field.scorable
                    if type(field.format) is TermPositions and type(field.analyzer) is RulingsTokenizer \
                            and isinstance(value, str):
                        boost = field.format.field_boost
                        gathered = tokens if fieldname in ("text", "variants") else None
                        for term, positions in term_positions(value, field.analyzer.stemming, gathered).items():
                            freq = len(positions)
                            if scorable:
                                length += freq
                            items.append((fieldname, term.encode("utf-8"), docnum, freq * boost * 1.0,
                                          _encoded_positions(tuple(positions))))
                    else:
                        for tbytes, freq, weight, vbytes in self._terms(fieldname, field, value):
                            if scorable:
                                length += freq
                            items.append((fieldname, tbytes, docnum, weight * 1.0, vbytes))
                perdocwriter.add_field(fieldname, field, value if field.stored else None, length)
                column = field.column_type
                if column:
                    perdocwriter.add_column_value(fieldname, column, field.to_column_value(value))
        except Exception:
            perdocwriter.cancel_doc()
            raise
        perdocwriter.finish_doc()
        self._pool_postings(items)
        self._added = True
        self.docnum += 1

    def _terms(self, fieldname: str, field, value) -> list[tuple]:
        """field.index(value) as a list, kept per value for fields that are not unique (lang, date,
        dates, sets, mechanics, card keys: their values repeat over the entries)."""
        if field.unique:
            return list(field.index(value))
        key = (fieldname, value)
        found = self._known_terms.get(key)
        if found is None:
            if len(self._known_terms) >= 100_000:
                self._known_terms.clear()
            found = self._known_terms[key] = list(field.index(value))
        return found

    def _pool_postings(self, items: list[tuple]) -> None:
        """Add postings to the sorting pool as its add() does one at a time (whoosh-reloaded 2.7.5
        writing.py PostingPool.add: the same size estimate, a run saved past the limit)."""
        pool = self.pool
        sizes = [150 + len(item[0]) + 2 * len(item[1]) + len(item[4] or "") for item in items]
        pool.fieldnames.update({item[0] for item in items})
        if pool.currentsize + sum(sizes) <= pool.limit:       # no run is saved: all at once
            pool.current.extend(items)
            pool.currentsize += sum(sizes)
            return
        for item, size in zip(items, sizes):
            pool.currentsize += size
            if pool.currentsize > pool.limit:
                pool.save()
            pool.current.append(item)

    def spelling_words(self) -> set[str]:
        """The "did you mean" words of the entries added (after commit)."""
        return self.words


# Files in which EntryMpWriter's workers leave their "did you mean" words for the writer (in the
# Whoosh folder; read and removed at commit).
_WORDS_FILE = "_words_{}.txt"


class EntryMpWriter(MpWriter):
    """Whoosh's MpWriter (one worker process per core, each writing its own segment) fed with the
    entries' JSON texts: the workers (_EntryTask) make the documents and the spelling words, so the
    feeding process only hands over strings. Only ``multisegment=True`` is supported.
    """

    def __init__(self, ix, **kwargs):
        super().__init__(ix, **kwargs)
        self.words: set[str] = set()
        # the workers take jobs and put their segments on these queues; this process uses them through
        # _Jobs and _Results, which notice workers that failed or were killed
        self._worker_jobs, self._worker_results = self.jobqueue, self.resultqueue
        self.jobqueue, self.resultqueue = _Jobs(self.jobqueue, self.tasks), _Results(self.resultqueue)

    def _new_task(self):
        task = _EntryTask(self.storage, self.indexname, self._worker_jobs, self._worker_results, self.subargs,
                          self.multisegment)
        self.tasks.append(task)
        task.start()
        return task

    def add_entry(self, stored: str, entry_json: dict | None = None) -> None:
        """Queue one entry (its JSON text) for a worker; entry_json is not sent."""
        self.docbuffer.append((1, stored))
        if len(self.docbuffer) >= self.batchsize:
            self._enqueue()
        self._added_sub = True

    def commit(self, *args, **kwargs):
        try:
            super().commit(*args, **kwargs)
        finally:
            self._gather_words()

    def cancel(self):
        # the workers may wait on the job queue for ever (the feeding process failed): stop them, or
        # this process would wait for them when it exits
        for task in self.tasks:
            if task.is_alive():
                task.terminate()
            task.join()
        try:
            super().cancel()
        finally:
            self._gather_words()

    def _gather_words(self) -> None:
        folder = Path(self.storage.folder)
        for path in folder.glob(_WORDS_FILE.format("*")):
            self.words.update(path.read_text("utf-8").split("\n"))
            path.unlink()
        self.words.discard("")

    def spelling_words(self) -> set[str]:
        """The "did you mean" words of the entries added, gathered from the workers (after commit)."""
        return self.words


class _EntryTask(SubWriterTask):
    """A worker process of EntryMpWriter: whoosh-reloaded 2.7.5 multiproc.SubWriterTask.run() with an
    EntryWriter, that writes its spelling words to a _WORDS_FILE in the Whoosh folder."""

    def run(self):
        self._finished = False              # the feeding process sent the end of the jobs (None)
        try:
            self._write_segment()
        except Exception as err:            # a refused write (a full disk), or a bug: told to the feeding process
            if not isinstance(err, OSError):
                traceback.print_exc()
            while not self._finished:       # take the remaining jobs, or the feeding process waits for ever
                self._finished = self.jobqueue.get() is None
            self.resultqueue.put((_FAILED, getattr(err, "errno", None), getattr(err, "strerror", None) or
                                  f"{type(err).__name__}: {err}"), timeout=5)

    def _write_segment(self):
        ix = self.storage.open_index(self.indexname)
        writer = self.writer = EntryWriter(ix, _lk=False, **self.kwargs)
        while self.running:
            jobinfo = self.jobqueue.get()
            if jobinfo is None:
                self._finished = True
                break
            self._process_file(*jobinfo)
        if not self.running:
            writer.cancel()
            return
        fieldnames = writer.pool.fieldnames
        segment = writer._finalize_segment()
        words = Path(self.storage.folder) / _WORDS_FILE.format(segment.segment_id())
        words.write_text("\n".join(sorted(writer.words)), "utf-8")
        self.resultqueue.put((None, fieldnames, segment), timeout=5)

    def _process_file(self, filename, doc_count):
        writer = self.writer
        tempstorage = writer.temp_storage()
        with tempstorage.open_file(filename).raw_file() as f:
            for _ in range(doc_count):
                code, stored = pickle.load(f)
                writer.add_entry(stored)
        tempstorage.delete_file(filename)


_FAILED = "rulings-worker-failed"        # the first item of a result that reports a worker's error


class _Jobs:
    """The job queue of EntryMpWriter as this process fills it: put() waits while a worker lives to take
    the job, and raises ChildProcessError when none does (every worker killed), instead of waiting for ever."""

    def __init__(self, jobs, tasks: list):
        self.jobs, self.tasks = jobs, tasks

    def put(self, job) -> None:
        """Queue one job (a job file's name and document count, or None: the end of the jobs)."""
        while True:
            try:
                self.jobs.put(job, timeout=1)
                return
            except queue.Full:
                if not any(task.is_alive() for task in self.tasks):
                    raise ChildProcessError("the index worker processes ended before the index was written") \
                        from None


class _Results:
    """The result queue of EntryMpWriter as Whoosh's commit reads it (whoosh-reloaded 2.7.5 multiproc.py
    MpWriter._commit: ``resultqueue.get(timeout=1)`` per worker, a missing result skipped).

    A worker's error comes back as an OSError (a refused write keeps its errno and reason), and a worker
    that ended without a result is a ChildProcessError: Whoosh would commit without that worker's
    segment, losing its entries.
    """

    def __init__(self, results):
        self.results = results

    def get(self, timeout=None):
        """The next worker result (run name, field names, segment); raises as the class says."""
        try:
            result = self.results.get(timeout=timeout)
        except queue.Empty:
            raise ChildProcessError("an index worker process ended without writing its segment") from None
        if result[0] == _FAILED:
            raise OSError(result[1], result[2])
        return result


@lru_cache(maxsize=200_000)
def _encoded_positions(positions: tuple[int, ...]) -> bytes:
    """Whoosh's Positions encoding of a term's positions in one field (formats.Positions.encode:
    the count, then the pickled deltas), worked out once per distinct positions list."""
    return _POSITIONS.encode(positions)


_POSITIONS = TermPositions()


class FlushCodec(W3Codec):
    """Whoosh's W3 codec with two costs of a segment flush removed; segments are plain W3 ones.

    Postings blocks are written uncompressed (compression 0: zlib took a quarter
    of the flush, and readers then skip the decompression; a block records its
    own compression, so older compressed segments still read). And the flush
    asks, for every posting, the length of its field in its document
    (whoosh-reloaded 2.7.5 codec/base.py add_postings): W3PerDocReader answers
    from the length column one document at a time, or, for fields that keep no
    lengths (ID, KEYWORD), by looking on disk for the missing column file each
    time; here each field's lengths are loaded once per flush (_FlushLengths).
    Posting data is pickled at POSTINGS_PROTOCOL, which readers unpickle six times
    faster than Whoosh's protocol 2 (_FlushPostingsWriter).
    New segments record a plain W3Codec, so nothing of ours is pickled into the
    index's table of contents.
    """

    def new_segment(self, storage, indexname):
        return W3Segment(W3Codec(self._blocklimit, self._compression, self._inlinelimit), indexname)

    def per_document_reader(self, storage, segment):
        return _FlushLengths(storage, segment)

    def field_writer(self, storage, segment):
        return _FlushFieldWriter(self, storage, segment)

    def postings_writer(self, dbfile, byteids=False):
        return _FlushPostingsWriter(dbfile, blocklimit=self._blocklimit, byteids=byteids,
                                    compression=self._compression, inlinelimit=self._inlinelimit)


# The pickle protocol of posting blocks' data. Whoosh writes protocol 2, which
# has no opcode for bytes: each posting's value (its encoded positions) was unpickled by a call of
# codecs.encode, six times the rest of reading a block (29 vs 4.8 us for 128 postings). Readers take
# any protocol (pickle.loads).
POSTINGS_PROTOCOL = 3


class _FlushPostingsWriter(W3PostingsWriter):
    """W3's postings writer with each block's data pickled at POSTINGS_PROTOCOL; the same block layout
    otherwise (whoosh-reloaded 2.7.5 codec/whoosh3.py W3PostingsWriter._write_block)."""

    def _write_block(self, last=False):
        if not self._blockcount:
            self._postfile.write(WHOOSH3_HEADER_MAGIC)
        self._terminfo.add_block(self)
        databytes = pickle.dumps((self._mini_ids(), self._mini_weights(), self._mini_values()), POSTINGS_PROTOCOL)
        comp = self._compression
        if comp:
            databytes = zlib.compress(databytes, comp)
        ids = self._ids
        infobytes = pickle.dumps((len(ids), ids[-1], self._maxweight, comp, length_to_byte(self._minlength),
                                  length_to_byte(self._maxlength)), 2)
        blocklength = len(infobytes) + len(databytes)
        self._postfile.write_int(-blocklength if last else blocklength)
        self._postfile.write(infobytes)
        self._postfile.write(databytes)
        self._blockcount += 1
        self._new_block()


class _FlushFieldWriter(W3FieldWriter):
    """W3's field writer whose add_postings() writes a segment flush's sorted postings in one loop.

    The same calls and the same bytes as whoosh-reloaded 2.7.5 (codec/base.py
    FieldWriter.add_postings, codec/whoosh3.py W3PostingsWriter.add_posting),
    without the per-posting type asserts and method hops: each posting's field
    length is read from the field's length column loaded once (_FlushLengths),
    and the posting is appended to the postings writer's current block, which
    is written out when it holds the codec's block limit. Lengths from any
    other reader (merging segments) take Whoosh's loop.
    """

    def add_postings(self, schema, lengths, items):
        if type(lengths) is not _FlushLengths:
            return super().add_postings(schema, lengths, items)
        lastfn = lasttext = column = writer = None
        for fieldname, btext, docnum, weight, value in items:
            if fieldname != lastfn:
                if lastfn is not None and fieldname < lastfn:
                    raise OutOfOrderError(f"Field {lastfn!r} .. {fieldname!r}")
                if lasttext is not None:
                    self.finish_term()
                if lastfn is not None:
                    self.finish_field()
                self.start_field(fieldname, schema[fieldname])
                column = lengths.column(fieldname)
                lastfn, lasttext = fieldname, None
            if docnum == -1:                   # Whoosh's spelling-graph words: not postings
                continue
            if btext != lasttext:
                if lasttext is not None:
                    if btext < lasttext:
                        raise OutOfOrderError(f"Term {lastfn}:{lasttext!r} .. {fieldname}:{btext!r}")
                    self.finish_term()
                self.start_term(btext)
                lasttext = btext
                writer = self._postwriter
                limit = writer._blocklimit
            if len(writer._ids) >= limit:
                writer._write_block()
            writer._ids.append(docnum)
            writer._weights.append(weight)
            if weight > writer._maxweight:
                writer._maxweight = weight
            if value:
                writer._values.append(value)
            length = matching.LENGTH_OF_BYTE[column[docnum]] if column is not None else 0
            if length:
                if writer._minlength is None or length < writer._minlength:
                    writer._minlength = length
                if length > writer._maxlength:
                    writer._maxlength = length
        if lasttext is not None:
            self.finish_term()
        if lastfn is not None:
            self.finish_field()


class _FlushLengths(W3PerDocReader):
    """A per-document reader whose doc_field_length() reads each field's length column once
    (search/matching.py, which also serves every search once installed)."""

    def column(self, fieldname):
        """The field's length bytes (one per document), or None for a field that keeps no lengths."""
        return matching.loaded_lengths(self, fieldname)

    def doc_field_length(self, docnum, fieldname, default=0):
        return matching.doc_field_length(self, docnum, fieldname, default)


MERGE_FACTOR = 4


def merge_tiers(writer, segments: list) -> list:
    """Whoosh merge policy of an incremental update: the segments it keeps apart; the rest are merged
    into the update's new segment.

    Segments are taken smallest first (by live documents) while each holds at
    most MERGE_FACTOR times the documents gathered so far (the update's own
    documents to start with) or is more than half deleted. An update of one file
    then merges the small segments earlier updates left and never the large ones
    of a full build, so the number of segments, which every query pays for,
    stays logarithmic in the number of documents, and an update's merge work is
    bounded by a multiple of its own size. Whoosh's default (MERGE_SMALL) merges
    only segments of a few documents, so each update added one segment.
    writer: a whoosh SegmentWriter (its ``docnum`` counts the documents added).
    """
    from whoosh.reading import SegmentReader

    gathered = max(writer.docnum, 1)
    merged, kept = [], []
    for segment in sorted(segments, key=_live_documents):
        live = _live_documents(segment)
        if not kept and (live <= MERGE_FACTOR * gathered or segment.deleted_count() * 2 > segment.doc_count_all()):
            merged.append(segment)
            gathered += live
        else:
            kept.append(segment)
    for segment in merged:
        reader = SegmentReader(writer.storage, writer.schema, segment)
        writer.add_reader(reader)
        reader.close()
    return kept


def _live_documents(segment) -> int:
    return segment.doc_count_all() - segment.deleted_count()


def segments(index_dir: Path) -> list[tuple[int, int]]:
    """(documents, deleted documents) of each Whoosh segment of the live generation."""
    ix = open_index(index_dir)
    return [(segment.doc_count_all(), segment.deleted_count()) for segment in ix._segments()]


class EntryNotJSON(ValueError):
    """An entry's text in the index is not JSON (a damaged segment file)."""


# What Whoosh raises for a folder whose files are missing, truncated or overwritten, and an entry that
# such a file no longer holds as JSON.
DAMAGE = (OSError, EOFError, struct.error, zlib.error, pickle.UnpicklingError, whoosh_index.IndexError,
          whoosh_index.EmptyIndexError, EntryNotJSON)


@contextmanager
def searcher(index_dir: Path) -> Iterator:
    """A Whoosh searcher of the index; any sign of a damaged folder becomes DamagedIndex.

    The opened searcher is kept per index folder within the process and reused
    while the folder's files are unchanged (names, sizes and modification times:
    a commit writes a new table of contents, so any change reopens); opening the
    segment files was most of a query's time. index_dir: an index folder (its
    live generation is opened, search/folder.py) or a generation folder. Raises DamagedIndex (one line
    naming the folder) when the index is missing, its segment files are gone,
    truncated or overwritten.
    """
    generation = index_folder.live(index_dir)
    keep_segmenter_cache_in(index_dir)
    try:
        opened = _cached_searcher(generation)
    except DAMAGE:
        # an update may have switched generations and removed this one meanwhile: try the live one
        _forget(generation)
        generation = index_folder.live(index_dir)
        opened = None
    try:
        opened = opened or _cached_searcher(generation)
        if "entry" not in opened.schema or not isinstance(opened.schema["entry"], EntryColumn):
            raise DamagedIndex(f"{index_dir}: made by another version; run 'rulings ingest --rebuild'")
        yield opened
    except DAMAGE as err:
        _forget(generation)
        raise DamagedIndex(f"{index_dir}: the index is damaged ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild' with your sources") from None


# Opened searchers per index folder: folder -> (files signature, searcher); the oldest is closed past _KEEP.
_OPEN: dict[str, tuple[tuple, object]] = {}


def _key(index_dir: Path | str) -> str:
    """The key of an index folder in _OPEN: its absolute path, symbolic links as they are (a link may be
    pointed elsewhere; the files' signature is read through it)."""
    return os.path.abspath(index_dir)
_KEEP = 4


def _signature(folder: str | Path) -> tuple:
    """(name, size, mtime) of each file in the Whoosh folder; () when it cannot be listed."""
    try:
        with os.scandir(folder) as found:
            return tuple(sorted((e.name, *_size_mtime(e)) for e in found))
    except OSError:
        return ()


def _size_mtime(entry: os.DirEntry) -> tuple[int, int]:
    try:
        info = entry.stat()
    except OSError:
        return (-1, -1)
    return (info.st_size, info.st_mtime_ns)


def _cached_searcher(index_dir: Path):
    """The kept searcher of index_dir when its files are unchanged, else a newly opened one (kept)."""
    key = _key(index_dir)
    signature = _signature(os.path.join(key, WHOOSH_DIR))
    kept = _OPEN.get(key)
    if kept is not None and signature and kept[0] == signature:
        return kept[1]
    _forget(index_dir)
    try:
        opened = MappedStorage(str(Path(key) / WHOOSH_DIR)).open_index().searcher()   # DAMAGE: searcher() reports
    except (AttributeError, ImportError):
        # the table of contents pickles the schema: it names a class of ours this version lacks
        raise DamagedIndex(f"{index_dir}: made by another version; run 'rulings ingest --rebuild'") from None
    _OPEN[key] = (signature, opened)
    while len(_OPEN) > _KEEP:
        _close(_OPEN.pop(next(iter(_OPEN)))[1])
    return opened


class MappedStorage(FileStorage):
    """Whoosh's file storage for reading, each segment file memory-mapped once and its parts read
    from the map without copying them.

    Whoosh's own mmap path (whoosh-reloaded 2.7.5 filedb/compound.py CompoundStorage.open_file)
    wraps every part of a segment file in a BytesIO of the map, which copies the whole part:
    opening a searcher copied every segment of the index (48 MB, about 40 ms, for the real
    corpus) before reading a posting. This storage says it has no mmap, so the segment's
    compound storage asks the opened file for each part (StructFile.subset); the file answers
    with a view of its map (_MappedFile). Reads and positions are the same bytes as Whoosh's.
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
        or the rest of the part when it is longer); the position moves past it, as Whoosh's read_pickle.

        pickle.load on the SubFile called its Python read() once per opcode: about twenty calls
        for each posting block's header (W3LeafMatcher._goto), most of reading a block's header."""
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


def _forget(index_dir: Path) -> None:
    """Close and drop the kept searcher of index_dir, if any."""
    kept = _OPEN.pop(_key(index_dir), None)
    if kept is not None:
        _close(kept[1])


def _close(opened) -> None:
    try:
        opened.close()
    except DAMAGE:               # a damaged or vanished folder: nothing left to release
        pass


def write_documents(index_dir: Path, entries: Iterable[tuple[dict, str, bool]],
                    deleted: Iterable[str] = (), create: bool = False) -> int:
    """Bring the Whoosh index up to date without rebuilding it; returns the documents added.

    entries: (entry JSON shape, its JSON text, True when a document with that id
    may already exist and must be replaced). deleted: ids whose documents go.
    create: start a new, empty index first (a full rebuild). Raises DamagedIndex
    when an existing index cannot be opened.
    """
    folder = index_dir / WHOOSH_DIR
    if create or not exists(index_dir):
        folder.mkdir(parents=True, exist_ok=True)
        ix = whoosh_index.create_in(str(folder), schema())
        create = True
    else:
        ix = open_index(index_dir)
    vocabulary = set() if create else set(spelling_vocabulary(index_dir))
    added = 0
    with _writer(ix, full=create) as writer:
        if not create:
            writer.mergetype = merge_tiers
            for entry_id in deleted:
                writer.delete_by_term("id", entry_id)
        for entry_json, stored, replace in entries:
            if replace and not create:
                writer.delete_by_term("id", entry_json["id"])
            writer.add_entry(stored, entry_json)
            added += 1
    vocabulary |= writer.spelling_words()
    _write_spelling(index_dir, vocabulary)
    _write_zh_words(index_dir, ix)
    _forget(index_dir)
    return added


# The Chinese words of the index beside the Whoosh folder: UTF-8, "word<TAB>document frequency" per line.
ZH_WORDS = "zh-words.txt"


def _write_zh_words(index_dir: Path, ix) -> None:
    """Replace the ZH_WORDS file of the generation folder with the text_zh terms of Han characters of
    the committed index and their document frequencies (search/bestmatch.py cuts queries with them)."""
    with ix.reader() as reader:
        words = han_terms(reader)
    lines = [f"{word}\t{frequency}\n" for word, frequency in sorted(words.items())]
    path = index_dir / ZH_WORDS
    part = path.with_name(path.name + ".part")
    part.write_text("".join(lines), "utf-8")
    os.replace(part, path)


def han_terms(reader) -> dict[str, int]:
    """The terms of Han characters of text_zh (jieba's words and sub-words of the texts) and of the card
    names (a Chinese card name is one term of ``cards``) with their document frequencies (the larger
    where a word is both)."""
    found: dict[str, int] = {}
    for field in ("text_zh", "cards"):
        if field not in reader.schema:
            continue
        for term, info in reader.iter_field(field):
            word = term.decode("utf-8") if isinstance(term, bytes) else term
            if word and all("\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff" for c in word):
                found[word] = max(found.get(word, 0), info.doc_frequency())
    return found


def zh_words(index_dir: Path) -> dict[str, int] | None:
    """The ZH_WORDS table of the live generation (word -> document frequency), read once per file;
    None for an index written before the file existed (the caller reads the lexicon instead)."""
    path = index_folder.live(index_dir) / ZH_WORDS
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    kept = _ZH_WORDS.get(str(path))
    if kept is None or kept[0] != stamp:
        try:
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise DamagedIndex(f"{path}: cannot be read ({type(err).__name__}); "
                               "run 'rulings ingest --rebuild' with your sources") from None
        table = {}
        for line in text.splitlines():
            word, _, frequency = line.partition("\t")
            table[word] = int(frequency) if frequency.isdigit() else 1
        _ZH_WORDS.clear()
        kept = _ZH_WORDS[str(path)] = (stamp, table)
    return kept[1]


_ZH_WORDS: dict[str, tuple[int, dict[str, int]]] = {}


def _write_spelling(index_dir: Path, words: set[str]) -> None:
    """Replace the SPELLING file of the generation folder index_dir (a new file renamed over the old)."""
    path = index_dir / SPELLING
    part = path.with_name(path.name + ".part")
    part.write_text("".join(word + "\n" for word in sorted(words)), "utf-8")
    os.replace(part, path)


def spelling_vocabulary(index_dir: Path) -> list[str]:
    """The "did you mean" vocabulary of the index: folded words, sorted.

    Written by write_documents() beside the Whoosh folder; an update adds the
    words of the entries it writes and a full build starts afresh, so between
    full builds a word of a removed source can remain (as a Whoosh lexicon keeps
    the terms of deleted documents until their segment is merged). An index made
    before the file existed keeps its vocabulary in a ``spelling`` field, read
    from there. index_dir: an index folder or a generation folder.
    """
    path = index_folder.live(index_dir) / SPELLING
    try:
        return path.read_text("utf-8").splitlines()
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as err:
        raise DamagedIndex(f"{path}: cannot be read ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild' with your sources") from None
    with searcher(index_dir) as opened:
        if "spelling" not in opened.schema:
            return []
        return [w.decode("utf-8") if isinstance(w, bytes) else w for w in opened.reader().lexicon("spelling")]


def open_index(index_dir: Path):
    """Open the Whoosh index of the live generation; raises DamagedIndex when it is missing or unreadable."""
    folder = index_folder.live(index_dir) / WHOOSH_DIR
    try:
        return whoosh_index.open_dir(str(folder))
    except DAMAGE as err:
        raise DamagedIndex(f"{index_dir}: the index cannot be opened ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild' with your sources") from None


def exists(index_dir: Path) -> bool:
    """True when index_dir's live generation holds a Whoosh index (its table of contents; segments may
    still be damaged)."""
    try:
        return whoosh_index.exists_in(str(index_folder.live(index_dir) / WHOOSH_DIR))
    except DAMAGE:
        return True          # a table of contents is there but unreadable: open_index() reports it


def all_entries(index_dir: Path) -> Iterator[dict]:
    """Every live entry in its JSON shape, in index order."""
    with searcher(index_dir) as opened:
        for offset, reader, column in _entry_columns(opened):
            deleted = reader.deleted_docs_set if reader.has_deletions() else ()
            for docnum in range(reader.doc_count_all()):
                if docnum not in deleted:
                    yield _entry_of(opened, column[docnum])


def entry_texts(opened, docnums: Iterable[int]) -> list[bytes]:
    """The JSON texts (UTF-8) of the entries at these document numbers of a searcher(), in their order.

    Read from the ``entry`` column of each segment (EntryColumn), its readers made once per
    kept searcher. Raises IndexError for a number past the index's documents."""
    columns = _entry_columns(opened)
    starts = [offset for offset, _, _ in columns]
    texts = []
    for docnum in docnums:
        offset, _, column = columns[bisect_right(starts, docnum) - 1]
        texts.append(column[docnum - offset])
    return texts


def entries_at(opened, docnums: Iterable[int]) -> list[dict]:
    """The JSON shapes of the entries at these document numbers of a searcher(), in their order.

    Raises EntryNotJSON for an entry that is not JSON (searcher() makes it DamagedIndex)."""
    return [_entry_of(opened, text) for text in entry_texts(opened, docnums)]


def _entry_of(opened, text: bytes) -> dict:
    """decoded_entry() of an entry of the searcher's index; EntryNotJSON (which searcher() reports as a
    damaged index) when it is not."""
    try:
        return decoded_entry(text)
    except ValueError:
        raise EntryNotJSON("an entry of the index is not JSON") from None


def decoded_entry(text: bytes) -> dict:
    """An entry's JSON shape from its text in the index (orjson; json for the escape of a lone surrogate,
    which orjson refuses). Raises ValueError for text that is not JSON."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def _entry_columns(opened) -> list[tuple[int, object, object]]:
    """(first document number, segment reader, ``entry`` column reader) of each segment of a searcher()
    that holds documents, made once per searcher; [] for an empty index (a first ingest of 0 entries)."""
    found = opened.__dict__.get("_rulings_entry_columns")
    if found is None:
        found = []
        for subsearcher, offset in opened.leaf_searchers():
            reader = subsearcher.reader()
            if reader.doc_count_all():       # an empty index's reader has no columns (NotImplementedError)
                found.append((offset, reader, reader.column_reader("entry", translate=False)))
        opened.__dict__["_rulings_entry_columns"] = found
    return found
