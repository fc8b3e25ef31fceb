"""search/index.py and the engine's writers and storage (search/engine/writing.py, reading.py): FlushCodec's
postings loop, the entry writers and the mapped storage give Whoosh's index contents. The writer tests
run on the entries of a small index built in code (every clone) and of the real corpus (CI)."""

from __future__ import annotations

import json
import mmap

import pytest
from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import W3Codec
from whoosh.fields import STORED

from rulings.ingest.errors import DamagedIndex
from rulings.search import index
from rulings.search.engine import reading, version, writing

# What each test must have compared: the small index built in code, the real corpus (the original figures).
FLOORS = {"small": {"terms": 300, "words": 30, "blocks": 500}, "real": {"terms": 1000, "words": 1000, "blocks": 15_000}}


@pytest.fixture(params=["small", "real"])
def indexed(request) -> tuple[str, object]:
    """(name, index folder): the small index built in code, then the real corpus's."""
    name = request.param
    return name, request.getfixturevalue("small_index" if name == "small" else "real_index")


def entries_of(name: str, folder, every: int = 10) -> list[dict]:
    """The entries a writer test writes, by id: every tenth of the real corpus's (about 1,600, English and
    Chinese, from every source: some 14,000 terms, 6,700 spelling words), or the first 700 of the small
    index; every: another step through the real corpus's."""
    entries = sorted(index.all_entries(folder), key=lambda entry: entry["id"])
    return entries[::every] if name == "real" else entries[:700]


def _postings(folder, ix=None, every: int = 1) -> dict:
    """(field, term) -> (term statistics, [(entry id, weight, encoded value)]) of every segment of an index
    (opened by Whoosh's open_dir unless ix is given); every: only every so many terms of a segment."""
    found = {}
    ix = ix or whoosh_index.open_dir(str(folder))
    with ix.searcher() as searcher:
        for reader, _ in searcher.reader().leaf_readers():
            ids = {docnum: fields["id"] for docnum, fields in reader.iter_docs()}
            for field, term in list(reader.all_terms())[::every]:
                info = reader.term_info(field, term)
                stats = (info.doc_frequency(), info.weight(), info.min_length(), info.max_length(),
                         info.max_weight())
                matcher = reader.postings(field, term)
                postings = []
                while matcher.is_active():
                    postings.append((ids[matcher.id()], matcher.weight(), matcher.value()))
                    matcher.next()
                found.setdefault((field, term), []).append((stats, postings))
    return found


def _card_text(number: int) -> str:
    """The card text given to every third entry in the writer equivalence tests (Darksteel Citadel's,
    MTGJSON): the card_text field is written by each writer too."""
    return "Artifact Land Indestructible\n{T}: Add {C}." if number % 3 == 0 else ""


def _english_thirds(entries: list[dict]) -> int:
    """How many entries hold _card_text()'s words: every third one that is English (a Chinese entry's
    card text is not indexed, search/documents.py document())."""
    return sum(1 for number, entry in enumerate(entries) if number % 3 == 0 and entry["lang"] == "en")


def _write(folder, entries, codec) -> None:
    folder.mkdir(parents=True)
    ix = whoosh_index.create_in(str(folder), index.schema())
    with writing.EntryWriter(ix, limitmb=256, codec=codec) as writer:
        for entry in entries:
            writer.add_entry(json.dumps(entry, ensure_ascii=False))


def test_flush_codec_writes_whooshs_postings(indexed, tmp_path):
    """A segment flushed by FlushCodec (_FlushFieldWriter, _FlushLengths) holds the postings and term
    statistics Whoosh's own W3 codec writes."""
    name, folder = indexed
    entries = entries_of(name, folder)
    assert len(entries) > 100
    _write(tmp_path / "w3", entries, W3Codec(compression=0))
    _write(tmp_path / "flush", entries, writing.FlushCodec(compression=0))
    ours, whooshs = _postings(tmp_path / "flush"), _postings(tmp_path / "w3")
    assert len(ours) > FLOORS[name]["terms"]
    assert ours == whooshs


def test_entry_writer_loop_gives_whooshs_add_document(indexed, tmp_path):
    """EntryWriter's own document loop (_add_fields: postings straight from term_positions, encoded
    positions and keyword terms kept per value, the pool fed in one batch) writes the postings, term
    statistics, field lengths, stored entries and spelling words of Whoosh's add_document() (English
    entries take the fast path, Chinese ones the field's index()); so does the public path's writer
    (PublicEntryWriter: add_document() through Whoosh's own writer)."""
    name, folder = indexed
    entries = entries_of(name, folder)
    assert {e["lang"] for e in entries} == {"en", "zh-Hans"}      # the fast path and the other one

    def build(folder, plain):
        folder.mkdir(parents=True)
        ix = whoosh_index.create_in(str(folder), index.schema())
        if plain is None:
            writer = writing.PublicEntryWriter(ix)
        else:
            writer = writing.EntryWriter(ix, limitmb=256, codec=writing.FlushCodec(compression=0))
            writer._plain = plain
        with writer:
            for number, entry in enumerate(entries):
                writer.add_entry(json.dumps(entry, ensure_ascii=False), card_text=_card_text(number))
        with whoosh_index.open_dir(str(folder)).searcher() as searcher:
            reader = searcher.reader()
            lengths = [[reader.doc_field_length(d, f) for f in index.schema().names()]
                       for d in range(reader.doc_count_all())]
            stored = list(searcher.all_stored_fields()), index.entry_texts(searcher, range(reader.doc_count_all()))
        return _postings(folder), lengths, stored, writer.spelling_words()

    ours, whooshs = build(tmp_path / "ours", True), build(tmp_path / "whoosh", False)
    assert len(ours[0]) > FLOORS[name]["terms"] and len(ours[3]) > FLOORS[name]["words"]
    assert len(ours[0]["card_text", b"indestruct"][0][1]) == _english_thirds(entries)
    assert ours == whooshs
    assert [index.decoded_entry(text) for text in ours[2][1]] == entries
    # Whoosh's writer compresses posting blocks (FlushCodec does not): the same postings
    assert build(tmp_path / "public", None) == ours


def test_parallel_entry_writer_matches_one_process(indexed, tmp_path, monkeypatch):
    """A full build by EntryMpWriter's workers (documents and spelling words made there) indexes the
    same postings and writes the same "did you mean" words as one process does, and as the public
    path's writer does (one process)."""
    name, folder = indexed
    entries = entries_of(name, folder)
    shapes = [(entry, json.dumps(entry, ensure_ascii=False), False, _card_text(number))
              for number, entry in enumerate(entries)]
    monkeypatch.setattr(writing.os, "cpu_count", lambda: 2)
    assert index.write_documents(tmp_path / "two", iter(shapes), create=True) == len(entries)
    monkeypatch.setattr(writing.os, "cpu_count", lambda: 1)
    assert index.write_documents(tmp_path / "one", iter(shapes), create=True) == len(entries)
    monkeypatch.setattr(version, "TESTED", ((0,), (0,)))
    monkeypatch.setattr(writing.os, "cpu_count", lambda: 2)
    assert index.write_documents(tmp_path / "public", iter(shapes), create=True) == len(entries)
    monkeypatch.setattr(version, "TESTED", version.TESTED)
    assert len(index.segments(tmp_path / "two")) == 2
    assert len(index.segments(tmp_path / "one")) == len(index.segments(tmp_path / "public")) == 1
    words = index.spelling_vocabulary(tmp_path / "two")
    assert words == index.spelling_vocabulary(tmp_path / "one") == index.spelling_vocabulary(tmp_path / "public")
    assert words == sorted(set().union(*(index.spelling_words(entry) for entry in entries)))
    assert not list((tmp_path / "two" / index.WHOOSH_DIR).glob("_words_*"))

    def merged(folder):
        # per term: the postings of every segment together, and the documents holding it
        return {key: (sum(s[0][0] for s in parts), sorted(p for s in parts for p in s[1]))
                for key, parts in _postings(folder / index.WHOOSH_DIR).items()}
    assert merged(tmp_path / "two") == merged(tmp_path / "one") == merged(tmp_path / "public")
    assert merged(tmp_path / "two")["card_text", b"indestruct"][0] == _english_thirds(entries)


def test_mapped_storage_reads_what_whoosh_reads(indexed):
    """MappedStorage (the searcher's storage) gives the postings, term statistics and stored entries
    Whoosh's own storage gives (every fifth term of the real corpus), reading each segment part from a
    view of one memory map, not a copy."""
    folder = index.index_folder.live(indexed[1]) / index.WHOOSH_DIR
    ix = reading.MappedStorage(str(folder)).open_index()
    every = 5 if indexed[0] == "real" else 1
    ours, whooshs = _postings(folder, ix, every), _postings(folder, every=every)
    assert len(ours) > 1000
    assert ours == whooshs
    with ix.searcher() as mapped, whoosh_index.open_dir(str(folder)).searcher() as plain:
        assert list(mapped.all_stored_fields()) == list(plain.all_stored_fields())
        everything = range(plain.doc_count_all())
        assert index.entry_texts(mapped, everything) == index.entry_texts(plain, everything)
        for leaf, _ in mapped.reader().leaf_readers():
            part = leaf._terms._dbfile                   # the segment's terms part, as the reader holds it
            assert isinstance(part, reading._MappedPart)
            assert isinstance(part._buf.obj, mmap.mmap)  # a view of the map: nothing was copied


def _shape(number: int, text: str) -> dict:
    return {"id": f"r-{number:010d}", "text": text, "lang": "en", "mechanics": [], "cards": ["Lim-Dûl's Vault"],
            "sets": ["ALL"], "date": "1996-06-10", "dates": ["1996-06-10"], "variants": [{"text": text}],
            "related": [], "translations": [], "aliases": [], "repairs": []}


def test_entry_column_gives_back_texts_utf8_cannot_hold(tmp_path):
    """The entry column holds UTF-8; an entry holding a lone surrogate (a source path's undecodable
    byte, as Python keeps it; ingest replaces those of ruling texts) or backslashes next to one reads
    back as the same shape."""
    texts = ["Flying \ud800 alone.", "A \\ before \udfff.", "\\\\ud800 is written, not a surrogate.",
             "Plain 飞行 and Lim-Dûl."]
    shapes = [_shape(number, text) for number, text in enumerate(texts)]
    rows = [(shape, json.dumps(shape, ensure_ascii=False), False) for shape in shapes]
    assert index.write_documents(tmp_path, iter(rows)) == 4
    assert list(index.all_entries(tmp_path)) == shapes
    assert [e["text"] for e in index.all_entries(tmp_path)][1] == "A \\ before \udfff."
    with index.searcher(tmp_path) as opened:
        assert index.entries_at(opened, [3, 0]) == [shapes[3], shapes[0]]


REBUILD_ADVICE = r"made by another version; run 'rulings ingest --rebuild SOURCE\.\.\.' with the files it was made from"


def test_index_of_an_earlier_version_asks_for_a_rebuild(tmp_path):
    """An index whose entries are Whoosh stored fields (made before the entry column) is refused with
    the one-line rebuild advice, not read as empty entries."""
    earlier = index.schema()
    earlier.remove("entry")
    earlier.add("entry", STORED())
    (tmp_path / index.WHOOSH_DIR).mkdir()
    whoosh_index.create_in(str(tmp_path / index.WHOOSH_DIR), earlier)
    with pytest.raises(DamagedIndex, match=REBUILD_ADVICE), index.searcher(tmp_path):
        pass


def test_flush_codec_pickles_posting_data_with_a_protocol_that_has_bytes(indexed, tmp_path):
    """FlushCodec pickles each posting block's data at POSTINGS_PROTOCOL (3: bytes opcodes; Whoosh's
    protocol 2 rebuilt every encoded-positions value by calling codecs.encode), and Whoosh's own reader
    unpickles them (the postings equal W3Codec's: the test above)."""
    name, folder = indexed
    entries = entries_of(name, folder, every=5)         # every fifth: over 15,000 posting blocks
    _write(tmp_path / "flush", entries, writing.FlushCodec(compression=0))
    blocks = 0
    with whoosh_index.open_dir(str(tmp_path / "flush")).searcher() as searcher:
        for reader, _ in searcher.reader().leaf_readers():
            for field, term in reader.all_terms():
                assert not reader.term_info(field, term).is_inlined()      # W3 inlines none (inlinelimit 1)
                matcher = reader.postings(field, term)
                while matcher.is_active():
                    assert matcher._postfile.get(matcher._dataoffset, 2) == b"\x80\x03", (field, term)
                    blocks += 1
                    matcher._next_block()
    assert blocks > FLOORS[name]["blocks"]


def test_index_naming_a_class_this_version_lacks_asks_for_a_rebuild(tmp_path, monkeypatch):
    """The table of contents pickles the schema with our field classes: one this version does not have
    (a later version's, or EntryColumn for an earlier binary) is the one-line rebuild advice, not an
    AttributeError traceback (the tester's finding)."""
    shape = _shape(0, "Flying matters only as blockers are declared.")
    index.write_documents(tmp_path, iter([(shape, json.dumps(shape), False)]))
    index._forget(tmp_path)
    monkeypatch.delattr(index, "EntryColumn")
    with pytest.raises(DamagedIndex, match=REBUILD_ADVICE), index.searcher(tmp_path):
        pass
