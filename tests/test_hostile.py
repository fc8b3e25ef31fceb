"""Hostile inputs (issue 10): each is reported with its path and reason, every good ruling is ingested,
nothing outside a document is read into it. The files are built by tests/hostile_files.py."""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import time
from pathlib import Path

import hostile_files
import pytest

from rulings.ingest import read
from rulings.ingest.errors import ReadError
from rulings.ingest.read import read_file, walk
from rulings.ingest.readers import jsonl, limits
from rulings.search.cli import cli


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("hostile")
    return folder, hostile_files.build(folder)


@pytest.fixture(scope="module")
def ingested(hostile, shared, tmp_path_factory):
    """``rulings ingest HOSTILE SEEDS --format json`` and the same of the seeds alone."""
    from click.testing import CliRunner
    folder, _ = hostile
    runner = CliRunner()
    mixed, clean = tmp_path_factory.mktemp("mixed-ix"), tmp_path_factory.mktemp("clean-ix")
    both = runner.invoke(cli, ["ingest", str(folder), str(shared / "seeds"), "--format", "json", "--index", str(mixed)])
    alone = runner.invoke(cli, ["ingest", str(shared / "seeds"), "--format", "json", "--index", str(clean)])
    return both, alone, mixed


def test_hostile_folder_exit_0(ingested):
    both, alone, _ = ingested
    assert both.exit_code == 0, both.output
    assert alone.exit_code == 0


def test_each_hostile_file_reported_with_reason(ingested, hostile):
    folder, expected = hostile
    report = json.loads(ingested[0].stdout)
    reported = {kind: {Path(item["path"]).relative_to(folder).as_posix(): item["reason"]
                       for item in report[kind] if Path(item["path"]).is_relative_to(folder)}
                for kind in ("skipped", "rejected")}
    for name, (outcome, detail) in expected.items():
        if outcome == "rulings":
            assert name not in reported["skipped"] and name not in reported["rejected"]
        else:
            assert detail in reported[outcome][name], (name, reported[outcome].get(name))
    assert set(reported["rejected"]) == {n for n, (o, _) in expected.items() if o == "rejected"}


def test_every_good_ruling_ingested(ingested):
    both, alone, _ = ingested
    # seeds alone, plus 2 rulings each of cp1252.txt, utf16.txt and faq_xxe.docx
    assert json.loads(both.stdout)["rulings"] == json.loads(alone.stdout)["rulings"] + 6


def test_legacy_encodings_read_as_the_same_rulings(ingested, hostile):
    from click.testing import CliRunner
    folder, _ = hostile
    out = CliRunner().invoke(cli, ["export", "--format", "jsonl", "--query", "Dandân", "--index", str(ingested[2])])
    entries = [json.loads(line) for line in out.stdout.splitlines()[1:]]
    (entry,) = [e for e in entries if e["text"].startswith("Dandân")]
    assert entry["text"] == "Dandân can’t attack unless defending player controls an Island."
    assert sorted(Path(v["source"]["path"]).name for v in entry["variants"]) == ["cp1252.txt", "utf16.txt"]


def test_external_entity_not_resolved(ingested, hostile):
    """faq_xxe.docx declares an entity pointing at a local file: its text is in no ruling and no index file."""
    folder, _ = hostile
    secret = hostile_files.SECRET.encode()
    assert (folder / ".secret").read_bytes().startswith(secret)
    result = read_file(folder / "faq_xxe.docx")
    assert [r.text for r in result.rulings] == ["Ruling before the entity.", "Entity:"]
    for path in ingested[2].rglob("*"):
        if path.is_file():
            assert secret not in path.read_bytes(), path


def test_walk_reports_symlink_loops_and_ends(hostile):
    folder, expected = hostile
    skipped: list[tuple[str, str]] = []
    files = [p.relative_to(folder).as_posix() for p in walk(folder, on_skip=lambda p, why: skipped.append((p, why)))]
    assert files == sorted(n for n in expected if not n.startswith("loop/"))
    assert [(p.relative_to(folder).as_posix(), why.split(" (")[0]) for p, why in skipped] == \
        [("loop/back", "symbolic link loop"), ("loop/self", "symbolic link loop")]


def test_link_to_another_folder_is_not_followed(tmp_path, shared):
    (tmp_path / "elsewhere").symlink_to(shared / "seeds")
    skipped = []
    assert list(walk(tmp_path, on_skip=lambda p, why: skipped.append(why))) == []
    assert skipped == [f"symbolic link to the folder {(shared / 'seeds').resolve()}; links to folders are not followed"]


def test_looping_file_links_skipped(runner, tmp_path, shared):
    folder = tmp_path / "docs"
    folder.mkdir()
    os.symlink("a", folder / "b")
    os.symlink("b", folder / "a")
    os.symlink(shared / "seeds" / "000_4791008fab4c9afc.txt", folder / "seed.txt")
    skipped = []
    assert list(walk(folder, on_skip=lambda p, why: skipped.append((p.name, why)))) == [folder / "seed.txt"]
    assert skipped == [("a", "symbolic link loop (the link never reaches a file)"),
                       ("b", "symbolic link loop (the link never reaches a file)")]
    result = runner.invoke(cli, ["ingest", str(folder), "--format", "json", "--index", str(tmp_path / "ix")])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["formats"] == {"text": {"files": 1, "rulings": 17}}


def test_time_limit_per_file(hostile, monkeypatch):
    folder, _ = hostile
    monkeypatch.setattr(read, "READ_SECONDS", 0.05)
    result = read_file(folder / "deep.html")       # html.parser alone takes over a second on 100,000 tags
    assert result.rejected == "took longer than 0.05 s to read (the limit per file)"
    assert result.rulings == []


def _busy(seconds: float) -> None:
    """Run Python bytecodes (where a signal handler can run) for the given wall seconds."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pass


@pytest.mark.parametrize("where", ["gc callback", "finaliser"])
def test_time_limit_expiring_where_python_swallows_exceptions(where, monkeypatch):
    """The limit expires while a garbage-collector callback (hypothesis installs one) or a __del__ runs,
    where Python swallows the ReadTimeout: the block still ends with ReadTimeout, and nothing is
    reported as an unraisable exception (pytest's PytestUnraisableExceptionWarning)."""
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    handler = signal.getsignal(signal.SIGALRM)

    def slow_callback(phase, info):
        if phase == "start":
            _busy(0.3)                      # the 0.05 s limit expires in here, again and again

    class Slow:
        def __del__(self):
            _busy(0.3)

    if where == "gc callback":
        gc.callbacks.append(slow_callback)
    try:
        with pytest.raises(read.ReadTimeout):
            with read.time_limit(0.05):
                if where == "gc callback":
                    gc.collect()
                else:
                    Slow()                  # dropped at once: __del__ runs
                total = sum(range(1000))    # a moment of work after it, shorter than the timer's repeat
        assert total == 499500
    finally:
        if slow_callback in gc.callbacks:
            gc.callbacks.remove(slow_callback)
    assert unraisable == []
    assert sys.unraisablehook == unraisable.append       # the block's hook and handler are gone
    assert signal.getsignal(signal.SIGALRM) == handler


def test_time_limit_not_reached_raises_nothing():
    with read.time_limit(5):
        _busy(0.01)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_empty_file_skipped(hostile):
    assert read_file(hostile[0] / "empty.txt").skipped == "empty file (0 bytes)"


def test_zip_bomb_rejected_before_inflating(hostile):
    result = read_file(hostile[0] / "faq_bomb.docx")
    assert result.rejected == "zip part word/document.xml inflates to 300.0 MiB, more than 16.0 MiB (a zip bomb?)"
    assert (hostile[0] / "faq_bomb.docx").stat().st_size < 2 * limits.MiB


def test_encrypted_pdf_rejected(hostile):
    assert read_file(hostile[0] / "encrypted.pdf").rejected == "encrypted PDF (needs a password)"


def test_pdf_encrypted_with_empty_password_opens(tmp_path):
    """A PDF encrypted only against editing (empty user password) is read like any other."""
    path = tmp_path / "open.pdf"
    path.write_bytes(hostile_files.pdf_bytes(password=None))
    from pypdf import PdfReader, PdfWriter
    writer = PdfWriter(clone_from=PdfReader(path))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    with open(path, "wb") as handle:
        writer.write(handle)
    result = read_file(path)
    assert result.format == "pdf" and result.skipped == "PDF without • ruling paragraphs"


def test_deep_json_rejected(hostile):
    assert read_file(hostile[0] / "deep.json").rejected.startswith("JSON nested deeper than ")


def test_big_json_rejected_by_size(hostile):
    assert read_file(hostile[0] / "one-line.json").rejected == \
        "JSON read whole of 100.0 MiB is larger than 64.0 MiB, the most read at once"


def test_jsonl_line_limit(tmp_path, monkeypatch):
    path = tmp_path / "export.jsonl"
    path.write_text('{"meta": {"selected": {}}}\n{"id": "r-1", "text": "' + "x" * 200 + '"}\n', encoding="utf-8")
    monkeypatch.setattr(limits, "JSONL_LINE_BYTES", 100)
    with pytest.raises(ReadError) as err:
        list(jsonl.read(path))
    assert str(err.value) == f"{path}: line 2 is longer than 100 characters, the most read at once"


def test_xml_with_unknown_encoding_rejected(tmp_path):
    """Found by the reader fuzz tests: ElementTree raises LookupError for an unknown declared encoding."""
    path = tmp_path / "page.xml"
    path.write_bytes(b'<?xml version="1.0" encoding="ttf-8"?><page><title>Crew</title></page>')
    assert read_file(path).rejected == "damaged XML (unknown encoding: ttf-8)"


def test_pdf_with_unsupported_filter_rejected(tmp_path, shared):
    """Found by the reader fuzz tests: pypdf raises NotImplementedError for a stream filter that is a number."""
    raw = (shared / "realdata/zh-cn-release-notes-athenacykes/release_notes/faq_one.pdf").read_bytes()
    assert b"/Filter/FlateDecode" in raw
    path = tmp_path / "filter.pdf"
    path.write_bytes(raw.replace(b"/Filter/FlateDecode", b"/Filter 0.0       "))   # same length: offsets hold
    assert "Unsupported filter 0.0" in read_file(path).rejected


@pytest.mark.parametrize("name,content", [
    ("array.json", "[" * 100_000 + "]" * 100_000),
    ("object.json", '{"a":' * 100_000 + "1" + "}" * 100_000),
    ("mtgjson.json", '{"data":{"X":{"cards":' + "[" * 100_000 + "]" * 100_000 + "}}}"),
    ("scryfall.json", '[{"object":"ruling","comment":' + "[" * 100_000 + "]" * 100_000 + "}]"),
])
def test_json_nested_100000_deep_is_rejected_by_every_json_reader(tmp_path, name, content):
    """Each shape reaches another reader (unclaimed JSON, MTGJSON keyed files, the Scryfall array
    stream); all stop at the depth limit instead of building ijson's per-level paths."""
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    result = read_file(path)
    assert result.rejected == "JSON nested deeper than 256 levels" and not result.rulings


def test_lone_surrogates_in_a_json_source_are_replaced_not_fatal(runner, shared, tmp_path):
    """A JSON source may escape half a character (``\\ud800``); such a text is no Unicode, and UTF-8,
    lingua and SQLite refused it, so one of them in a real MTGJSON file failed the whole ingest with a
    misleading "argument" error. It is read as U+FFFD (a pair of escapes as the character they make),
    and every ruling of the file is ingested."""
    data = json.loads((shared / "realdata" / "mtgjson5-TSP" / "TSP.json").read_text("utf-8"))
    cards = [card for card in data["data"]["cards"] if card.get("rulings")]
    total = sum(len(card["rulings"]) for card in cards)
    first = cards[0]
    first["name"] += " \ud800"
    first["rulings"][0]["text"] = "Lone \udfff here, a pair \ud83d\ude00 there: " + first["rulings"][0]["text"]
    source = tmp_path / "TSP.json"
    source.write_text(json.dumps(data, ensure_ascii=True), "ascii")         # the escapes as written
    result = read_file(source)
    assert not result.rejected and len(result.rulings) == total
    texts = [r.text for r in result.rulings if r.text.startswith("Lone ")]
    assert len(texts) == 1 and texts[0].startswith("Lone \ufffd here, a pair 😀 there: ")
    index_dir = tmp_path / "ix"
    done = runner.invoke(cli, ["ingest", str(source), "--format", "json", "--index", str(index_dir)])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["rulings"] == total
    shown = runner.invoke(cli, ["search", "Lone here pair", "--format", "json", "--index", str(index_dir)])
    hits = json.loads(shown.stdout)
    assert hits and hits[0]["text"].startswith("Lone \ufffd here, a pair 😀 there: ")
    assert any(card.endswith(" \ufffd") for card in hits[0]["cards"])


# --- the time limit is enforced (issue 21, item 13) ------------------------------------------------

OKAUN = "realdata/scryfall-cassette-mtgjson/decoded_bodies/rulings_94eea6e3-20bc-4dab-90ba-3113c120fb90.json"


def long_date_file(shared, folder: Path, letters: int) -> Path:
    """Okaun's 13 real Scryfall rulings, the first with a published_at of ``letters`` letters."""
    data = json.loads((shared / OKAUN).read_text("utf-8"))
    data["data"][0]["published_at"] = "a" * letters
    path = folder / "long-date.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


def test_a_long_date_field_is_read_at_once(shared, tmp_path, monkeypatch):
    """The month-name date pattern was tried at every letter of a long word (quadratic): a 40,000-letter
    published_at took over a minute, so the time limit rejected the file and its 13 rulings. With a
    limit of 5 s it is read, the long field an invalid date."""
    from rulings.ingest.dates import INVALID_DATE, parse_date

    monkeypatch.setattr(read, "READ_SECONDS", 5.0)
    path = long_date_file(shared, tmp_path, 40_000)
    (result,) = read.read_files([path])
    assert result.rejected is None and len(result.rulings) == 13
    assert result.rulings[0].date is None and result.rulings[0].warnings == (INVALID_DATE,)
    assert parse_date("a" * 1_000_000 + " October 26, 2016").iso == "2016-10-26"


STUCK_READER = """
import json, sys
from pathlib import Path
from rulings.ingest import read
from rulings.ingest.readers import text
real_read = text.read


def stuck(path):
    if path.name == "stuck.txt":
        sum(range(10 ** 12))        # one C call that never checks for signals: hours; SIGALRM waits for it
    return real_read(path)


text.read = stuck
read.READ_SECONDS, read.KILL_GRACE = 1.0, 0.5
results = read.read_files([Path(p) for p in sys.argv[1:]], workers=2)
print(json.dumps([[len(r.rulings), r.rejected] for r in results]))
"""


def test_a_reader_stuck_in_one_c_call_is_stopped_at_the_limit(shared, tmp_path):
    """The timer acts between bytecodes only; read_files kills the worker reading a file past
    READ_SECONDS + KILL_GRACE. Run in a process of its own with a watchdog: were the limit not
    enforced, reading would take hours and the watchdog would fail the test."""
    import subprocess

    seeds = sorted((shared / "seeds").glob("*.txt"))
    stuck = tmp_path / "stuck.txt"
    stuck.write_bytes(seeds[0].read_bytes())
    process = subprocess.Popen([sys.executable, "-c", STUCK_READER, str(stuck), *map(str, seeds)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)          # the limit did not hold: stop it and its workers
            process.wait()
    assert process.returncode == 0, stderr
    assert json.loads(stdout) == [[0, "took longer than 1 s to read (the limit per file)"],
                                       [17, None], [11, None], [9, None], [17, None]]


def test_a_reader_that_dies_rejects_only_its_file(shared, tmp_path, monkeypatch):
    """A crash in a C library (here the worker kills itself, as a segfault or the out-of-memory killer
    would) rejects the file with the signal; the other files are read by a new worker."""
    from rulings.ingest.readers import text

    seeds = sorted((shared / "seeds").glob("*.txt"))
    real_read = text.read

    def crashing(path):
        if path.name == seeds[1].name:
            os.kill(os.getpid(), signal.SIGKILL)
        return real_read(path)

    monkeypatch.setattr(text, "read", crashing)
    results = read.read_files(seeds, workers=1)
    assert [(len(r.rulings), r.rejected) for r in results] == [
        (17, None), (0, "the reader process stopped while reading it (killed by signal 9)"), (9, None), (17, None)]
    assert [r.path for r in results] == [str(p) for p in seeds]


def test_damaged_real_documents_give_every_ruling(shared, tmp_path, runner):
    """The damaged folder of issue 21 (tests/hostile_files.py build_damaged; bench/hostile_memory.py
    ingests it too): every file gives every ruling of its original, no output holds a control
    character or the script's text."""
    folder = tmp_path / "damaged"
    expected = hostile_files.build_damaged(folder, shared)
    index_dir = tmp_path / "ix"
    done = runner.invoke(cli, ["ingest", str(folder), "--format", "json", "--index", str(index_dir)])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert (report["skipped"], report["rejected"]) == ([], [])
    assert report["rulings"] == sum(n for _, n in expected.values()) == 1860
    rows = json.loads(runner.invoke(cli, ["sources", "--format", "json", "--index", str(index_dir)]).stdout)
    assert {Path(row["path"]).name: row["rulings"] for row in rows} == {name: n for name, (_, n) in expected.items()}
    controls = {chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]} - {"\n", "\t"}
    for fmt in ("jsonl", "csv", "md", "html"):
        out = runner.invoke(cli, ["export", "--format", fmt, "--index", str(index_dir)]).stdout
        assert not set(out) & controls and hostile_files.SCRIPT_TEXT not in out and "pwned" not in out
