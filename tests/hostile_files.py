"""The hostile inputs of issues 10 and 21, written into a folder by code (never copied from ../shared).

``build(folder)`` writes one file per hostile kind plus two good ruling files in legacy
encodings (cp1252, UTF-16), and returns ``{file name: expected}`` where expected is
``("rulings", n)``, ``("skipped", reason part)`` or ``("rejected", reason part)``.
``build_damaged(folder, shared)`` writes real ruling documents from ``../shared`` damaged in
the ways of issue 21 (a stray byte, control characters, a script in a Gatherer cell, a long
date field), each of which must give all its rulings: ``{file name: ("rulings", n)}``.
Used by tests/test_hostile.py and bench/hostile_memory.py.
"""

from __future__ import annotations

import io
import json
import os
import random
import zipfile
from pathlib import Path

from pypdf import PdfWriter

# A ruling page in the seed layout 1 ("Rulings", then "• YYYY-MM-DD" bullets each followed by text).
LEGACY_RULINGS = ("Rulings\n\n• 2021-04-16\nÆther Vial’s ability can put a creature card onto the battlefield.\n\n"
                  "• 2021-04-16\nDandân can’t attack unless defending player controls an Island.\n")
SECRET = "SECRET-FROM-OUTSIDE-THE-DOCUMENT"

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    '</Types>')
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'officeDocument" Target="word/document.xml"/></Relationships>')
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def docx_bytes(paragraphs: list[str], doctype: str = "", padding: int = 0) -> bytes:
    """A minimal Word document (content types, relationships, document.xml) of ``＊`` paragraphs.

    doctype: a DOCTYPE inserted before the root (for the external-entity test); padding:
    bytes of whitespace written inside document.xml, compressed (the zip bomb).
    """
    body = "".join(f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>" for text in paragraphs)
    head = f'<?xml version="1.0" encoding="UTF-8"?>{doctype}<w:document xmlns:w="{_W}"><w:body>{body}'
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        with archive.open("word/document.xml", "w", force_zip64=padding > 1 << 30) as part:
            part.write(head.encode())
            block = b" " * (1 << 20)
            for _ in range(padding >> 20):
                part.write(block)
            part.write(b"</w:body></w:document>")
    return buffer.getvalue()


def pdf_bytes(password: str | None = None) -> bytes:
    """A one-page blank PDF, encrypted with a user password when one is given."""
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    if password:
        writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def build(folder: Path, big_json_mb: int = 100) -> dict[str, tuple[str, object]]:
    """Write the hostile files into folder (created); return what each must give."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(10)
    expected: dict[str, tuple[str, object]] = {}

    def put(name: str, data: bytes, outcome: str, detail: object) -> None:
        (folder / name).write_bytes(data)
        expected[name] = (outcome, detail)

    put("empty.txt", b"", "skipped", "empty file")
    put("random.bin", rng.randbytes(1 << 20), "rejected", "binary file")
    put("invalid-utf8.txt", b"Rulings\n\n\xe2\x80 \x81\x8d\x8f\x90\x9d \xc3\x28\n", "rejected",
        "not UTF-8, UTF-16 or cp1252 text")
    put("cp1252.txt", LEGACY_RULINGS.encode("cp1252"), "rulings", 2)
    put("utf16.txt", LEGACY_RULINGS.encode("utf-16"), "rulings", 2)
    # One line of 100 MB: a Scryfall rulings list whose one item is a 100 MB string.
    with open(folder / "one-line.json", "wb") as handle:
        handle.write(b'{"object": "list", "has_more": false, "data": ["')
        block = b"x" * (1 << 20)
        for _ in range(big_json_mb):
            handle.write(block)
        handle.write(b'"]}')
    expected["one-line.json"] = ("rejected", "larger than")
    put("deep.json", b'{"object": "list", "data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "rejected", "nested deeper than")
    # A Gatherer card page whose one ruling cell holds 100,000 nested tags.
    deep = "<span>" * 100_000 + "x" + "</span>" * 100_000
    put("deep.html", ('<!DOCTYPE html><html><head><title>Card/Details.aspx</title></head><body><table><tr>'
                      '<td id="ctl00_rulingsRepeater_ctl00_rulingDate">6/1/2011</td>'
                      f'<td id="ctl00_rulingsRepeater_ctl00_rulingText">{deep}</td>'
                      '</tr></table></body></html>').encode(), "rejected", "nested deeper than")
    put("faq_bomb.docx", docx_bytes(["＊A ruling in a bomb."], padding=300 << 20), "rejected", "inflates to")
    put("faq_xxe.docx", docx_bytes(["＊Ruling before the entity.", "＊Entity: &xxe;"],
                                   doctype='<!DOCTYPE w:document [<!ENTITY xxe SYSTEM '
                                           f'"file://{folder / ".secret"}">]>'),
        "rulings", 2)
    (folder / ".secret").write_text(SECRET + "\n", encoding="utf-8")   # hidden: never walked
    put("encrypted.pdf", pdf_bytes("hunter2"), "rejected", "encrypted PDF")
    put("damaged.pdf", pdf_bytes()[:300] + rng.randbytes(2000), "rejected", "PDF")
    loop = folder / "loop"
    loop.mkdir(exist_ok=True)
    for name, target in (("back", ".."), ("self", ".")):
        link = loop / name
        if not link.is_symlink():
            os.symlink(target, link)
        expected[f"loop/{name}"] = ("skipped", "symbolic link")
    return expected


OKAUN = "realdata/scryfall-cassette-mtgjson/decoded_bodies/rulings_94eea6e3-20bc-4dab-90ba-3113c120fb90.json"
CONTROL_TEXTS = ("\x1b]0;pwned\x07", "\x00", "\x1b[2J\x9b31m")     # an OSC title, a NUL, CSI sequences
SCRIPT_TEXT = "alert('pwned')"


def _bad_byte(raw: bytes, bad: bytes, after: bytes = b"'", last: bool = False) -> bytes:
    at = raw.rindex(after) if last else raw.index(after)
    return raw[:at] + bad + raw[at + 1:]


def build_damaged(folder: Path, shared: Path) -> dict[str, tuple[str, object]]:
    """Write real documents damaged as in issue 21 into folder (created); return what each must give:
    ``("rulings", n)``, every ruling of the original (counts from SOURCES.md or the original file)."""
    folder.mkdir(parents=True, exist_ok=True)
    expected: dict[str, tuple[str, object]] = {}
    real = shared / "realdata"

    def put(name: str, data: bytes, rulings: int) -> None:
        (folder / name).write_bytes(data)
        expected[name] = ("rulings", rulings)

    seeds = shared / "seeds"
    # a UTF-8 page with one cp1252 apostrophe, another with a \xff: decoded whole as cp1252 they lost
    # their layout and every ruling
    put("seed-cp1252-apostrophe.txt", _bad_byte((seeds / "000_4791008fab4c9afc.txt").read_bytes(), b"\x92"), 17)
    put("seed-ff.txt", _bad_byte((seeds / "003_14c4c19089e5e67c.txt").read_bytes(), b"\xff", b" ", last=True), 9)
    # MTGJSON with one bad byte: loaded whole (KLD, 813 rulings) and streamed (AllPrintings of TSP)
    put("KLD-bad-byte.json", _bad_byte((real / "mtgjson3-sets/KLD.json").read_bytes(), b"\x92"), 813)
    tsp = json.loads((real / "mtgjson5-TSP/TSP.json").read_text("utf-8"))
    allprintings = json.dumps({"meta": tsp["meta"], "data": {"TSP": tsp["data"]}}, ensure_ascii=False).encode()
    put("AllPrintings-bad-bytes.json", _bad_byte(_bad_byte(allprintings, b"\x92", b" Spiral"), b"\xff", last=True), 921)
    # a Scryfall bulk array (streamed) with a bad byte, and a rulings list with control characters
    bulk = [r for p in sorted((real / "scryfall-cassette-mtgjson/decoded_bodies").glob("rulings_*.json"))
            for r in json.loads(p.read_text("utf-8"))["data"]]
    put("scryfall-bulk-bad-byte.json", _bad_byte(json.dumps(bulk, ensure_ascii=False).encode(), b"\x92"), 67)
    okaun = json.loads((shared / OKAUN).read_text("utf-8"))
    for ruling, control in zip(okaun["data"], CONTROL_TEXTS):
        ruling["comment"] = control + ruling["comment"].replace(" ", control, 1)
    put("okaun-controls.json", json.dumps(okaun, ensure_ascii=False).encode(), 13)
    # a long date field (quadratic to parse before: the file was rejected by the time limit)
    okaun = json.loads((shared / OKAUN).read_text("utf-8"))
    okaun["data"][0]["published_at"] = "a" * 40_000
    put("okaun-long-date.json", json.dumps(okaun).encode(), 13)
    # Gatherer: script, style and a comment in a ruling cell; a stray byte in a page
    page = (real / "gatherer-tutor/vaultskirge.html").read_text("utf-8")
    cell = 'rulingText" style="width: 610px; padding-right: 5px;">'
    assert page.count(cell) == 5
    page = page.replace(cell, f"{cell}<script>{SCRIPT_TEXT}</script><style>td{{color:red}}</style><!-- a note -->", 1)
    put("vaultskirge-script.html", page.encode(), 5)
    put("aetherstorm-ff.html", _bad_byte((real / "gatherer-tutor/ætherstorm.html").read_bytes(), b"\xff",
                                         b"Rulings"), 2)
    return expected
