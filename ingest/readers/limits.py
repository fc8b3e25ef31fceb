"""Size limits of the readers: how much of one file a reader holds in memory at once.

A reader that reads a whole file (text, a Gatherer page, JSON that is not streamed,
a PDF) or inflates a zip part (docx) refuses a file past its limit with ReadError,
before reading it, so that one hostile file cannot exhaust the machine. The limits
are far above any real ruling document (the largest real files: a 3.5 MB docx part,
a 2.8 MB MTGJSON set, a 1.2 MB PDF, a 40 KB Gatherer page) and were chosen so that
reading a file at its limit stays under 1 GiB and, mostly, under the time limit
(bench/hostile_memory.py --limits measures both). Streamed files (Scryfall bulk arrays, MTGJSON AllPrintings and
AtomicCards, our JSONL export) have no size limit, only a limit per record.
"""

from __future__ import annotations

from pathlib import Path

from rulings.ingest.errors import ReadError

MiB = 1 << 20
TEXT_BYTES = 64 * MiB            # a text ruling page, read and decoded whole
JSON_WHOLE_BYTES = 64 * MiB      # a JSON file loaded whole with json (set files, Scryfall lists, non-UTF-8 JSON)
HTML_BYTES = 4 * MiB             # a Gatherer card page (40 KB), parsed into a BeautifulSoup tree
JSONL_LINE_BYTES = 16 * MiB      # one entry line of our export
DOCX_PART_BYTES = 16 * MiB       # one inflated part of a Word document (zip)
DOCX_TOTAL_BYTES = 64 * MiB      # all inflated parts of a Word document together
DOCX_PARTS = 10_000              # parts in a Word document's zip
PDF_BYTES = 128 * MiB            # a PDF, which pypdf reads whole


def size_text(size: int) -> str:
    """A byte count for messages: ``100.0 MiB``, ``512 bytes``."""
    return f"{size / MiB:.1f} MiB" if size >= MiB else f"{size} bytes"


def check_size(path: Path, limit: int, what: str) -> int:
    """The file's size in bytes; raises ReadError when it exceeds limit (``what``: the kind of file)."""
    size = path.stat().st_size
    if size > limit:
        raise ReadError(str(path), f"{what} of {size_text(size)} is larger than {size_text(limit)}, "
                                   f"the most read at once")
    return size
