"""The HTML of ``rulings serve`` and of the static HTML export: Jinja2 templates in ``templates/``.

One environment (``environment()``) with autoescape on for every template, so every value a template
writes (a ruling's text, a card name, a query) is escaped; the only markup made from text is the
search snippet's ``**word**`` marks, which ``marked()`` turns into ``<mark>`` after escaping the rest.
The style sheet and the filter script are templates too (``style.css``, ``filter.js``): the export
inlines both, so an export is one self-contained file; the server's pages link them from ``/static/``.

The pages work without JavaScript: the search form, the filters and every link are plain HTML. The
filter box (``filter.js``) is an addition: hidden until the script runs, it narrows a long list (an
export, the mechanics) to the items holding the words typed, without a server.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote, urlencode

from markupsafe import Markup, escape

TEMPLATES = Path(__file__).resolve().parent / "templates"
CARDS_SHOWN = 5


@lru_cache(maxsize=1)
def environment():
    """The Jinja2 environment of the templates: autoescape everywhere, undefined values are errors."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters.update(marked=marked, card_url=card_url, entry_url=entry_url, mechanic_url=mechanic_url,
                       date_span=date_span, file_name=file_name, more_cards=more_cards)
    env.globals.update(query_url=query_url, kind_heading=kind_heading)
    return env


def render(template: str, **values) -> str:
    """The text of the template with values."""
    return environment().get_template(template).render(**values)


_MARK = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)


def marked(snippet: str) -> Markup:
    """A search snippet as HTML: the text escaped, its ``**word**`` marks (search/query.py) as ``<mark>``."""
    escaped = str(escape(snippet))
    return Markup(_MARK.sub(lambda m: f"<mark>{m.group(1)}</mark>", escaped))


def entry_url(entry_id: str) -> str:
    return "/entries/" + quote(entry_id, safe="")


def card_url(name: str) -> str:
    """The card page of a card name; ``/`` (``Fire // Ice``) and every other sign percent-encoded."""
    return "/cards/" + quote(name, safe="")


def mechanic_url(mechanic_id: str) -> str:
    return "/mechanics/" + quote(mechanic_id, safe="")


def query_url(path: str, **values) -> str:
    """path with the given values as a query string (lists repeat their key; empty values left out)."""
    pairs = []
    for key, value in values.items():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item not in (None, "", False):
                pairs.append((key, item))
    return path + ("?" + urlencode(pairs) if pairs else "")


def date_span(entry: dict) -> str:
    """``2016-09-20``, ``2016-09-20 to 2018-06-08``, or ``undated`` (search/export.py date_span)."""
    from rulings.search.export import date_span as span

    return span(entry)


def file_name(path: str) -> str:
    """The last part of a remembered source path (``rulings:corpus/NAME`` too)."""
    return re.split(r"[/\\]", path)[-1] or path


def more_cards(cards: list[str], shown: int = CARDS_SHOWN) -> int:
    return max(0, len(cards) - shown)


def kind_heading(kind: str) -> str:
    from rulings.search.commands.mechanics import KIND_HEADINGS

    return KIND_HEADINGS.get(kind, kind)


@lru_cache(maxsize=None)
def asset(name: str) -> str:
    """The text of a static asset template (``style.css``, ``filter.js``)."""
    return (TEMPLATES / name).read_text("utf-8")


@lru_cache(maxsize=None)
def asset_hash(name: str) -> str:
    """A short hash of an asset's text, for its URL (``/static/style.css?v=…``): a new version is fetched anew."""
    return hashlib.sha256(asset(name).encode("utf-8")).hexdigest()[:12]


def slug(text: str, most: int = 40) -> str:
    """A file-name part made of ``a-z 0-9 -`` from a heading (a group of a split export): other
    characters dropped, never empty (``group``), at most ``most`` characters."""
    import unicodedata

    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    made = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:most].strip("-")
    return made or "group"
