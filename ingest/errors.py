"""Error types. Each is a problem a user can fix; str(err) is one line.

The CLI (search/cli.py) prints ``Error: <message>`` on stderr and exits 1 for any
RulingsError; any other exception is a bug.
"""

from __future__ import annotations


class RulingsError(Exception):
    """A problem the user can fix. str(err) is one line."""


def one_line(reason: str) -> str:
    """reason with its line breaks turned into spaces: a parser's message may span lines (lxml)."""
    return " ".join(part.strip() for part in reason.splitlines() if part.strip()) if reason else reason


class ReadError(RulingsError):
    """A document could not be read (damaged, undecodable, wrong shape). The reason is made one line."""

    def __init__(self, path: str, reason: str) -> None:
        reason = one_line(reason)
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = str(path), reason


class NoRulings(RulingsError):
    """A document was read but holds no rulings (it is skipped, not rejected).

    card_names: oracle_id -> card name map the document holds anyway (a Scryfall card list).
    """

    def __init__(self, path: str, reason: str, card_names: dict[str, str] | None = None) -> None:
        reason = one_line(reason)
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = str(path), reason
        self.card_names = card_names or {}


class QueryError(RulingsError):
    """A query we cannot answer, e.g. "'card:' needs a card name"."""


class UnknownEntry(RulingsError):
    """No entry has this id."""


class UnknownMechanic(QueryError):
    """No mechanic has this id or name (ingest/tag.py resolve_mechanic()); the message names the closest ids."""


class DamagedIndex(RulingsError):
    """The index folder is missing pieces or damaged."""


class OtherVersion(DamagedIndex):
    """The index was made by another version of rulings: its files name classes or a layout this version
    does not have (rebuilding it from its sources, ``rulings ingest --rebuild SOURCE...``, makes it readable)."""

    @classmethod
    def at(cls, where) -> OtherVersion:
        """The error for the index (or its file) at where, with the one-line rebuild advice."""
        return cls(f"{where}: made by another version; run 'rulings ingest --rebuild SOURCE...' with the "
                   "files it was made from")


class NoIndex(RulingsError):
    """A folder given as an index holds none yet (rulings.Index.ready(): make one with ``ingest``)."""


class IndexBusy(RulingsError):
    """Another process holds the writer lock of the index folder past the timeout."""


class IndexWriteError(RulingsError):
    """The machine refused a write while the next generation was built (a full disk, a quota, a read-only
    or failing disk); the live index is unchanged."""
