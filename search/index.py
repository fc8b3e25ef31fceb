"""The Whoosh index of entries: schema, writing, and reading entries back.

One document per entry (search/documents.py makes it); the ``entry`` column (EntryColumn) holds the
entry's PRODUCT.md JSON shape. How the index is read and written below Whoosh's public API is
search/engine's business (open_searcher, entry_writer, top).
"""

from __future__ import annotations

import json
import os
import pickle
import re
import struct
import zlib
from bisect import bisect_right
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

import orjson
from whoosh import index as whoosh_index
from whoosh.columns import VarBytesColumn
from whoosh.fields import COLUMN, ID, KEYWORD, TEXT, Schema

from rulings.ingest.errors import DamagedIndex, OtherVersion
from rulings.ingest.model import Entry, entry_to_dict
from rulings.search import engine
from rulings.search import folder as index_folder
from rulings.search.analysis import TermPositions, name_analyzer, rulings_analyzer
from rulings.search.documents import card_keys, document, search_texts, spelling_words  # noqa: F401 (index's API)
from rulings.search.languages import keep_segmenter_cache_in, schema_fields, text_fields

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
    card_text: the rules texts of the entry's cards (documents.py card_text()), searched by best
    match only, with a low weight, never shown (English entries only: Chinese card texts did not help);
    card_names: keys of full names only; mechanics, sets, lang; date: newest ISO
    date (sortable); dates: every variant date; entry: the JSON shape (EntryColumn). The
    words for "did you mean" are a file beside the index (SPELLING), not a field.
    """
    return Schema(
        id=ID(stored=True, unique=True),
        text=_term_positions(TEXT(analyzer=rulings_analyzer(), phrase=True, multitoken_query="phrase")),
        variants=_term_positions(TEXT(analyzer=rulings_analyzer(), phrase=True, multitoken_query="phrase")),
        cards=_term_positions(TEXT(analyzer=name_analyzer(), phrase=True, multitoken_query="phrase")),
        card_text=_term_positions(TEXT(analyzer=rulings_analyzer(), phrase=True, multitoken_query="phrase")),
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

    Whoosh's stored fields keep a document's values as one pickled dict, zlib-compressed, so reading a
    hit's entry there costs its decompression and unpickling. A lone surrogate (a source path's
    undecodable byte, as Python keeps it) is written as its JSON escape, which reads back as the same
    text.
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


def write_entries(index_dir: Path, entries: list[Entry]) -> None:
    """Replace the Whoosh index of the generation folder index_dir with these entries."""
    shapes = [entry_to_dict(entry) for entry in entries]
    write_documents(index_dir, ((shape, json.dumps(shape, ensure_ascii=False), False) for shape in shapes),
                    create=True)


def segments(index_dir: Path) -> list[tuple[int, int]]:
    """(documents, deleted documents) of each Whoosh segment of the live generation."""
    return engine.segment_sizes(open_index(index_dir))


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
            raise OtherVersion.at(index_dir)
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
        opened = engine.open_searcher(str(Path(key) / WHOOSH_DIR))   # DAMAGE: searcher() reports
    except (AttributeError, ImportError):
        # the table of contents pickles the schema: it names a class of ours this version lacks
        raise OtherVersion.at(index_dir) from None
    _OPEN[key] = (signature, opened)
    while len(_OPEN) > _KEEP:
        _close(_OPEN.pop(next(iter(_OPEN)))[1])
    return opened


def _forget(index_dir: Path) -> None:
    """Close and drop the kept searcher of index_dir, if any."""
    kept = _OPEN.pop(_key(index_dir), None)
    if kept is not None:
        _close(kept[1])


def release(index_dir: Path) -> None:
    """Close and drop what reads keep of the index folder index_dir in this process: the kept searchers of
    its generations (or of index_dir itself) and its Chinese word table (zh_words()); the next read opens
    them again. What rulings.Index.close() calls."""
    root = _key(index_dir)
    for key in [key for key in _OPEN if key == root or key.startswith(root + os.sep)]:
        _forget(key)
    for path in [path for path in _ZH_WORDS if os.path.abspath(path).startswith(root + os.sep)]:
        del _ZH_WORDS[path]


def _close(opened) -> None:
    try:
        opened.close()
    except DAMAGE:               # a damaged or vanished folder: nothing left to release
        pass


def write_documents(index_dir: Path, entries: Iterable[tuple[dict, str, bool]],
                    deleted: Iterable[str] = (), create: bool = False) -> int:
    """Bring the Whoosh index up to date without rebuilding it; returns the documents added.

    entries: (entry JSON shape, its JSON text, True when a document with that id
    may already exist and must be replaced[, its cards' rules texts: documents.py card_text()]).
    deleted: ids whose documents go.
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
    with engine.entry_writer(ix, full=create) as writer:
        if not create:
            writer.mergetype = engine.merge_tiers
            for entry_id in deleted:
                writer.delete_by_term("id", entry_id)
        for entry_json, stored, replace, *texts in entries:
            if replace and not create:
                writer.delete_by_term("id", entry_json["id"])
            writer.add_entry(stored, entry_json, *texts)
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
    the terms of deleted documents until their segment is merged). index_dir: an
    index folder or a generation folder. [] when the file is missing; raises
    DamagedIndex when it cannot be read.
    """
    path = index_folder.live(index_dir) / SPELLING
    try:
        return path.read_text("utf-8").splitlines()
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as err:
        raise DamagedIndex(f"{path}: cannot be read ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild' with your sources") from None


def open_index(index_dir: Path):
    """Open the Whoosh index of the live generation; raises DamagedIndex when it is missing or unreadable."""
    folder = index_folder.live(index_dir) / WHOOSH_DIR
    try:
        return whoosh_index.open_dir(str(folder))
    except DAMAGE as err:
        raise DamagedIndex(f"{index_dir}: the index cannot be opened ({type(err).__name__}); "
                           "run 'rulings ingest --rebuild' with your sources") from None


def exists(index_dir: Path) -> bool:
    """True when index_dir's live generation holds a Whoosh index: a table of contents, named as Whoosh
    names it (whoosh/index.py TOC: ``_MAIN_<generation>.toc``), is there. Nothing is opened or read (it
    may still be damaged or name a schema class this version lacks: open_index() and searcher() say so),
    so a cold search opens the index once, not three times."""
    try:
        names = os.listdir(index_folder.live(index_dir) / WHOOSH_DIR)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True          # there but unreadable: open_index() reports it
    return any(_TABLE_OF_CONTENTS.match(name) for name in names)


# The file name of a Whoosh index's table of contents (whoosh/index.py TOC._filename; index name MAIN).
_TABLE_OF_CONTENTS = re.compile(r"_MAIN_\d+\.toc\Z")


def all_entries(index_dir: Path) -> Iterator[dict]:
    """Every live entry in its JSON shape, in index order."""
    with searcher(index_dir) as opened:
        for _, reader, column in _entry_columns(opened):
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
    def make() -> list[tuple[int, object, object]]:
        found = []
        for subsearcher, offset in opened.leaf_searchers():
            reader = subsearcher.reader()
            if reader.doc_count_all():       # an empty index's reader has no columns (NotImplementedError)
                found.append((offset, reader, reader.column_reader("entry", translate=False)))
        return found
    return engine.memo(opened, "entry_columns", make)
