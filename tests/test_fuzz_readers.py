"""Property tests of every reader (issue 10): random and mutated inputs built from small real files.

The only outcomes allowed: a list of Ruling records, or our own ReadError / NoRulings (both
RulingsError). read_file() on the same bytes never raises. The budget is a hypothesis profile:
``fuzz-ci`` (the default, a few seconds per reader) or ``fuzz-long`` for maintainers::

    RULINGS_FUZZ=long python -m pytest tests/test_fuzz_readers.py     # 5,000 examples per test

Seeds come from ../shared in place (small files whole; a docx and a PDF rebuilt from a few
paragraphs/pages of real release notes, since the whole files take a second each to parse).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

import hostile_files
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulings.ingest.errors import RulingsError
from rulings.ingest.model import Ruling
from rulings.ingest.read import read_file
from rulings.ingest.readers import docx, gatherer, jsonl, mtgjson, pdf, scryfall, text

settings.register_profile("fuzz-ci", max_examples=100, deadline=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))
settings.register_profile("fuzz-long", max_examples=5000, deadline=None,
                          suppress_health_check=list(HealthCheck))
FUZZ = settings.get_profile("fuzz-" + os.environ.get("RULINGS_FUZZ", "ci"))

NOTES = "realdata/zh-cn-release-notes-athenacykes/release_notes"
# Bytes that matter to some parser: JSON and markup syntax, the text layout's bullet, zip and PDF words.
TOKENS = [b"{", b"}", b"[", b"]", b'"', b",", b":", b"null", b"-1", b"1e999", b"\x00", b"\xff", b"\xe2\x80\xa2",
          b"\n", b"<", b">", b"</td>", b"<td id=\"x_rulingText\">", b"&", b"&#0;", b"\\u0000", b"\xef\xbb\xbf",
          b"PK\x03\x04", b"obj", b"endobj", b"stream", b"/Length 999999", b"xref", b"%%EOF", b"\xff\xfe"]


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    """The seed after 1 to 8 edits: flip a byte, delete, insert random bytes or a token, repeat a run, truncate."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(["flip", "delete", "insert", "token", "repeat", "truncate"]))
        at = draw(st.integers(0, len(data)))
        if op == "flip" and at < len(data):
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "delete":
            del data[at:at + draw(st.integers(1, 64))]
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=32))
        elif op == "token":
            data[at:at] = draw(st.sampled_from(TOKENS))
        elif op == "repeat":
            data[at:at] = data[at:at + draw(st.integers(1, 64))] * draw(st.integers(2, 50))
        elif op == "truncate":
            del data[at:]
    return bytes(data)


def random_with_head(head: bytes) -> st.SearchStrategy[bytes]:
    """Random bytes after a format's first bytes, so that sniffing hands them to that reader."""
    return st.binary(max_size=4096).map(lambda tail: head + tail)


def outcome(reader, path: Path) -> list[Ruling] | RulingsError:
    """What the reader gives for path: its rulings, or our own error; any other exception fails the test."""
    try:
        if hasattr(reader, "read_with_names"):
            rulings, names = reader.read_with_names(path)
            assert isinstance(names, dict)
        else:
            rulings = list(reader.read(path))
    except RulingsError as err:
        assert "\n" not in str(err)
        return err
    assert all(isinstance(r, Ruling) and isinstance(r.text, str) for r in rulings)
    return rulings


def check(reader, name: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        outcome(reader, path)
        result = read_file(path)
        assert bool(result.rulings) + bool(result.skipped) + bool(result.rejected) == 1


def docx_seed(shared: Path) -> bytes:
    """A small Word document holding the first 120 paragraphs of the AER release notes (text, ``＊`` marks)."""
    import docx as python_docx
    document = python_docx.Document(str(shared / NOTES / "faq_aer.docx"))
    texts = [escape(p.text) for p in document.paragraphs[:120] if p.text.strip()]
    return hostile_files.docx_bytes(texts)


def pdf_seed(shared: Path) -> bytes:
    """Two pages (5 and 6) of the ONE release notes as a PDF of their own."""
    from pypdf import PdfReader, PdfWriter
    source = PdfReader(shared / NOTES / "faq_one.pdf")
    writer = PdfWriter()
    for number in (4, 5):
        writer.add_page(source.pages[number])
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def jsonl_seed(seed_index: Path) -> bytes:
    """The meta line and the first five entries of an export of the bundled corpus."""
    from rulings.search import catalog
    from rulings.search import export as exporter
    selection = exporter.Selection()
    entries = exporter.select(seed_index, selection)[:5]
    return exporter.render(entries, "jsonl", selection, catalog.ingested_at(seed_index), None, False).encode()


@dataclass
class Seed:
    """A reader, the file name its inputs are written under, and the real bytes they are mutated from."""

    reader: object
    name: str
    data: bytes = field(repr=False)

    def __iter__(self):
        return iter((self.reader, self.name, self.data))


@pytest.fixture(scope="module")
def seeds(shared, seed_index) -> dict[str, Seed]:
    """reader name -> (reader module, file name, seed bytes); each seed reads to rulings."""
    listing = (shared / "realdata/scryfall-cassette-mtgjson/decoded_bodies"
               / "rulings_02d6d693-f1f3-4317-bcc0-c21fa8490d38.json").read_bytes()
    cardset = (shared / "realdata/mightstone-samples/mtgjson/cardset.json").read_bytes()
    found = {
        "text": (text, "000.txt", (shared / "seeds/000_4791008fab4c9afc.txt").read_bytes()),
        "scryfall": (scryfall, "rulings.json", listing),
        "scryfall-bulk": (scryfall, "rulings-bulk.json", json.dumps(json.loads(listing)["data"]).encode()),
        "mtgjson": (mtgjson, "set.json", cardset),
        "mtgjson-allprintings": (mtgjson, "AllPrintings.json",
                                 b'{"meta": {"version": "5"}, "data": {"SET": ' + cardset + b"}}"),
        "gatherer": (gatherer, "card.html", (shared / "realdata/gatherer-tutor/ancestralvision.html").read_bytes()),
        "docx": (docx, "faq_aer.docx", docx_seed(shared)),
        "pdf": (pdf, "faq_one.pdf", pdf_seed(shared)),
        "jsonl": (jsonl, "export.jsonl", jsonl_seed(seed_index)),
    }
    with tempfile.TemporaryDirectory() as folder:
        for name, (reader, file_name, data) in found.items():
            path = Path(folder) / file_name
            path.write_bytes(data)
            rulings = outcome(reader, path)
            assert isinstance(rulings, list) and rulings, (name, rulings)
            assert read_file(path).format == reader.FORMAT, name
    return {name: Seed(*value) for name, value in found.items()}


READERS = ["text", "scryfall", "scryfall-bulk", "mtgjson", "mtgjson-allprintings", "gatherer", "docx", "pdf", "jsonl"]
HEADS = {"text": b"Rulings\n\n\xe2\x80\xa2 2020-01-01\n", "scryfall": b'{"object": "list", "data": [',
         "scryfall-bulk": b'[{"object": "ruling", ', "mtgjson": b'{"code": "ONE", "cards": [',
         "mtgjson-allprintings": b'{"meta": {}, "data": {"ONE": {"cards": [', "gatherer":
         b'<!DOCTYPE html><html><body><td id="x_rulingsRepeater_ctl00_rulingDate">',
         "docx": b"PK\x03\x04", "pdf": b"%PDF-1.7\n", "jsonl": b'{"meta": {"selected": {}}}\n{"id": "r-1", '}


@pytest.mark.parametrize("name", READERS)
@FUZZ
@given(data=st.data())
def test_mutated_real_file(seeds, name, data):
    reader, file_name, seed = seeds[name]
    check(reader, file_name, data.draw(mutated(seed)))


@pytest.mark.parametrize("name", READERS)
@FUZZ
@given(data=st.data())
def test_random_bytes_after_format_head(seeds, name, data):
    reader, file_name, _ = seeds[name]
    check(reader, file_name, data.draw(random_with_head(HEADS[name])))


@pytest.mark.parametrize("name", ["docx"])
@FUZZ
@given(data=st.data())
def test_mutated_document_xml(seeds, name, data):
    """Edits inside the docx's document.xml (re-zipped), so that they reach lxml and python-docx."""
    import zipfile
    reader, file_name, seed = seeds[name]
    with zipfile.ZipFile(io.BytesIO(seed)) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    parts["word/document.xml"] = data.draw(mutated(parts["word/document.xml"]))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for part, raw in parts.items():
            archive.writestr(part, raw)
    check(reader, file_name, buffer.getvalue())
