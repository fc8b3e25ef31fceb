"""Writing entries into a Whoosh index: the writers, the flush codec and the merge policy.

``entry_writer(ix, full)`` is the one way in (search/index.py write_documents). On a tested Whoosh
(version.internals()) EntryWriter makes each entry's document itself (the postings of Whoosh's
add_document(), without its chain of generators), a full build runs one worker process per core
(EntryMpWriter: the workers make the documents; a worker that fails or is killed stops the build
with one error), and segments are flushed by FlushCodec (plain W3 segments, written more cheaply).
Otherwise PublicEntryWriter writes the same documents through Whoosh's public writer.
"""

from __future__ import annotations

import json
import os
import pickle
import queue
import traceback
import zlib
from functools import lru_cache
from pathlib import Path

from whoosh.codec.base import OutOfOrderError
from whoosh.codec.whoosh3 import (
    WHOOSH3_HEADER_MAGIC,
    W3Codec,
    W3FieldWriter,
    W3PostingsWriter,
    W3Segment,
)
from whoosh.multiproc import MpWriter, SubWriterTask
from whoosh.reading import SegmentReader
from whoosh.util.numeric import length_to_byte
from whoosh.writing import SegmentWriter

from rulings.search.analysis import RulingsTokenizer, TermPositions, term_positions, words_of_token
from rulings.search.documents import document, spelling_words
from rulings.search.engine import version
from rulings.search.engine.reading import LENGTH_OF_BYTE, MemoryLengths


def entry_writer(ix, full: bool = False):
    """A writer of entries into the Whoosh index ix, used as a context manager (commits on leaving,
    cancels on an error): ``add_entry(stored, entry_json=None, card_text="")`` (stored: the entry's JSON text),
    ``delete_by_term(field, text)``, ``mergetype`` (a Whoosh merge policy, e.g. merge_tiers) and,
    after commit, ``spelling_words()``.

    On a tested Whoosh: an EntryWriter with FlushCodec (same index contents, a cheaper flush), or for
    full (a whole new index) an EntryMpWriter, one worker process per core (at most 4). Otherwise
    Whoosh's public writer (PublicEntryWriter): the same documents and words, in one process.
    """
    if not version.internals():
        return PublicEntryWriter(ix)
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

    def add_entry(self, stored: str, entry_json: dict | None = None, card_text: str = "") -> None:
        """Add the document of one entry: stored, its JSON text; entry_json, its shape when at hand;
        card_text, its cards' rules texts (search/documents.py card_text())."""
        entry_json = json.loads(stored) if entry_json is None else entry_json
        fields = document(entry_json, stored, card_text)
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

    def add_entry(self, stored: str, entry_json: dict | None = None, card_text: str = "") -> None:
        """Queue one entry (its JSON text and card texts) for a worker; entry_json is not sent."""
        self.docbuffer.append((1, (stored, card_text)))
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
                code, (stored, card_text) = pickle.load(f)
                writer.add_entry(stored, card_text=card_text)
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

    Postings blocks are written uncompressed (compression 0: readers then skip
    the decompression; a block records its own compression, so compressed
    segments still read). And the flush
    asks, for every posting, the length of its field in its document
    (whoosh-reloaded 2.7.5 codec/base.py add_postings): W3PerDocReader answers
    from the length column one document at a time, or, for fields that keep no
    lengths (ID, KEYWORD), by looking on disk for the missing column file each
    time; here each field's lengths are loaded once per flush (_FlushLengths).
    Posting data is pickled at POSTINGS_PROTOCOL, which readers unpickle faster
    than Whoosh's protocol 2 (_FlushPostingsWriter).
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


# The pickle protocol of posting blocks' data. Whoosh writes protocol 2, which has no opcode for bytes:
# each posting's value (its encoded positions) would be unpickled by a call of codecs.encode, most of
# reading a block. Readers take any protocol (pickle.loads).
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
            length = LENGTH_OF_BYTE[column[docnum]] if column is not None else 0
            if length:
                if writer._minlength is None or length < writer._minlength:
                    writer._minlength = length
                if length > writer._maxlength:
                    writer._maxlength = length
        if lasttext is not None:
            self.finish_term()
        if lastfn is not None:
            self.finish_field()


class _FlushLengths(MemoryLengths):
    """The per-document reader of a segment flush: each field's length column read once."""


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



class PublicEntryWriter:
    """entry_writer() through Whoosh's public writer (``ix.writer()``, add_document(), one process):
    the documents of document(), the words of spelling_words()."""

    def __init__(self, ix):
        self.writer = ix.writer(limitmb=256)
        self.words: set[str] = set()

    @property
    def mergetype(self):
        return self.writer.mergetype

    @mergetype.setter
    def mergetype(self, policy) -> None:
        self.writer.mergetype = policy

    def delete_by_term(self, fieldname: str, text: str) -> None:
        self.writer.delete_by_term(fieldname, text)

    def add_entry(self, stored: str, entry_json: dict | None = None, card_text: str = "") -> None:
        """Add the document of one entry: stored, its JSON text; entry_json, its shape when at hand;
        card_text, its cards' rules texts (search/documents.py card_text())."""
        entry_json = json.loads(stored) if entry_json is None else entry_json
        self.writer.add_document(**document(entry_json, stored, card_text))
        self.words |= spelling_words(entry_json)

    def spelling_words(self) -> set[str]:
        """The "did you mean" words of the entries added."""
        return self.words

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback_):
        if exc_type:
            self.writer.cancel()
        else:
            self.writer.commit()
