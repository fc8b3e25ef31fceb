"""Control characters (C0 U+0000-U+001F, DEL U+007F, C1 U+0080-U+009F) in text from documents.

A document may hold control characters that mean nothing in a ruling but act on whatever shows
it: an OSC escape (``ESC ] 0 ; title BEL``) sets a terminal's title, a CSI sequence moves its
cursor or recolours it, a NUL ends a C string or breaks a CSV consumer. They are removed when a
document is read (ingest/read.py, every text field of every ruling and the card names) and again
when anything is written (search/export.py, the commands' text output), for an index made before.

A whole escape sequence (ECMA-48) goes at once, as a terminal would consume it without showing
anything: a CSI sequence (``ESC [`` or U+009B, parameters, a final byte), a control string (OSC
``ESC ]``, DCS, SOS, PM, APC, or their C1 forms) up to its terminator (BEL or ST), a two-character
escape (``ESC c``); an introducer without its terminator goes alone (``ESC ]``), so that no
ruling text is swallowed. Of the single characters, newline and tab are kept, which every output
format can hold (CSV quotes them, HTML and Markdown treat them as white space, JSON escapes them);
a carriage return becomes a newline (``\\r\\n`` one newline); a control that counts as white space
(vertical tab, form feed, the information separators U+001C-U+001F, NEL U+0085) becomes a space, so
that the words it separated stay apart; every other control is removed.
"""

from __future__ import annotations

import re

# CSI; a control string (OSC, DCS, SOS, PM, APC) to its terminator, never past another introducer (one
# pass over any text); a two-character escape (ESC c, ESC 7, ...)
_ESCAPE = re.compile("(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]"
                     "|(?:\x1b[\\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x90\x98\x9c-\x9f]*(?:\x07|\x1b\\\\|\x9c)"
                     "|\x1b[ -/]*[0-~]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ANY_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_JSON_RAW = re.compile("[\x7f-\x9f]")             # controls json.dumps(ensure_ascii=False) leaves raw
_SPACE = frozenset("\x0b\x0c\x1c\x1d\x1e\x1f\x85")


def _replacement(m: re.Match) -> str:
    char = m.group(0)
    if char == "\r":
        return "\n"
    return " " if char in _SPACE else ""


def without_controls(text: str) -> str:
    """text with escape sequences and control characters removed, carriage returns as newlines,
    white-space controls as spaces; newline and tab kept. Idempotent; text without controls is
    returned as it is."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_replacement, _ESCAPE.sub("", text).replace("\r\n", "\n"))


def single_line(text: str) -> str:
    """text for one line of terminal output: escape sequences and every control character, newline and
    tab too, removed (a white-space one as a space), so that a value cannot start a line of its own."""
    if not _ANY_CONTROL.search(text):
        return text
    return _ANY_CONTROL.sub(lambda m: " " if m.group(0) in _SPACE or m.group(0) in "\n\r\t" else "",
                            _ESCAPE.sub("", text))


def escape_json_controls(text: str) -> str:
    """JSON text from json.dumps(ensure_ascii=False) with DEL and the C1 controls written as ``\\u00XX``
    escapes (json escapes C0 itself); the same JSON value, safe on a terminal."""
    if not _JSON_RAW.search(text):
        return text
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
