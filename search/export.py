"""Export deduplicated ruling sets: jsonl, json, csv, md, html.

Selection (``select``): the selectors of ``Selection`` are combined with AND;
``mechanics`` requires every listed mechanic unless ``any_mechanic`` is set.

Order (every format): an entry's oldest variant date first (undated entries
last), then its id. ``group_by`` (md, html) puts entries under headings of
mechanic, card or set, headings sorted case-insensitively with "(none)" last;
an entry appears under every heading it belongs to and each group keeps the
export order (oldest date first, stable within a date by id). When the
selection names a set or a card, card and set headings come only from the
variants in that set / of that card, so ``--set BBD --group-by card`` lists
BBD cards only.

Determinism: the same index gives byte-identical output. The ``created`` time
of the metadata is the index's last ingest time (``summary.json``), never the
clock. Output is UTF-8 text with ``\\n`` line ends whatever the locale.

Control characters (ingest/controls.py): removed from every text of every format (newline and tab
kept, which each format can hold), so that an index made before they were removed at reading still
gives clean files; json and jsonl escape DEL and C1 as ``\\u00XX`` should any remain.

CSV cells are written for spreadsheets (OWASP, "CSV Injection"): a cell that starts with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return (or their full-width forms ``＝ ＋ － ＠``) would be read as a
formula by Excel, LibreOffice or Google Sheets, so it gets a leading apostrophe (``'+1/+1 counters
…``), which the spreadsheet shows as text and hides. The csv module quotes every cell that holds a
comma, quote or line break and doubles its quotes.

Metadata (PRODUCT.md): the JSONL export's first line is
``{"meta": {"selected", "created", "sources", "entries", "variants"}}``; md and
html open with a header saying the same; json is a plain array of entries and
csv has no metadata line.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from rulings.ingest.controls import escape_json_controls, without_controls
from rulings.search import index, query
from rulings.search.analysis import card_key

FORMATS = ("jsonl", "json", "csv", "md", "html")
GROUPS = ("mechanic", "card", "set")
ORDER = "oldest date first (undated last), then id"
NONE_HEADING = "(none)"
CARDS_SHOWN = 12

ENTRY_COLUMNS = ["id", "text", "lang", "date", "dates", "mechanics", "cards", "sets", "variants"]
VARIANT_COLUMNS = ["id", "mechanics", "text", "card", "set", "date", "date_ambiguous", "lang", "oracle_id",
                   "publisher", "similarity", "source", "format", "position"]


@dataclass
class Selection:
    """What to export. mechanics: ids (all required, or any with any_mechanic); dates ISO, inclusive."""

    mechanics: list[str] = field(default_factory=list)
    any_mechanic: bool = False
    card: str | None = None
    set_code: str | None = None
    lang: str | None = None
    since: str | None = None
    until: str | None = None
    query: str | None = None

    def to_dict(self) -> dict:
        """The ``selected`` record of the metadata: only the selectors given, in a fixed key order."""
        raw = {"mechanic": list(self.mechanics), "any_mechanic": self.any_mechanic and bool(self.mechanics),
               "card": self.card, "set": self.set_code, "lang": self.lang, "since": self.since,
               "until": self.until, "query": self.query}
        return {k: v for k, v in raw.items() if v}

    def filters(self) -> query.Filters:
        """The search filters of this selection (mechanics left out when any one of them suffices)."""
        mechanics = [] if self.any_mechanic else list(self.mechanics)
        return query.Filters(mechanics, self.card, self.set_code, self.lang, self.since, self.until)


def select(index_dir: Path, selection: Selection) -> list[dict]:
    """The entries (PRODUCT.md JSON shape, no score/snippet) the selection picks, in export order.

    The query selects what query.selected() does: it is read as ``rulings search`` reads it.
    Raises QueryError as query.search does (a query it cannot read, one that only excludes without a
    filter), DamagedIndex for a damaged index.
    """
    filters = selection.filters()
    text = (selection.query or "").strip()
    if not text and not filters.any():
        entries = list(index.all_entries(index_dir))
    else:
        entries = query.selected(index_dir, text or None, filters)
    if selection.any_mechanic and selection.mechanics:
        wanted = set(selection.mechanics)
        entries = [e for e in entries if wanted & set(e["mechanics"])]
    return sorted(entries, key=export_order)


def export_order(entry: dict) -> tuple:
    """Sort key of the export order: oldest variant date first (undated last), then id."""
    return (min(entry["dates"]) if entry["dates"] else "9999-99-99", entry["id"])


def metadata(entries: list[dict], selected: dict, created: str | None) -> dict:
    """The JSONL metadata record: selection, created (last ingest time), source paths, counts."""
    sources = sorted({v["source"]["path"] for e in entries for v in e["variants"]})
    return {"meta": {"selected": selected, "created": created, "sources": sources,
                     "entries": len(entries), "variants": sum(len(e["variants"]) for e in entries)}}


def render(entries: list[dict], fmt: str, selection: Selection | None = None, created: str | None = None,
           group_by: str | None = None, variants: bool = False) -> str:
    """Render selected entries in one of FORMATS; returns the whole text (UTF-8 when written).

    created: the ISO time written in the metadata (the index's last ingest time);
    group_by (md, html): one of GROUPS; variants (csv): one row per variant.
    """
    selection = selection or Selection()
    entries = sorted((printable_value(e) for e in entries), key=export_order)
    meta = printable_value(metadata(entries, selection.to_dict(), created))
    if fmt == "jsonl":
        lines = [json.dumps(meta, ensure_ascii=False)] + [json.dumps(e, ensure_ascii=False) for e in entries]
        return escape_json_controls("\n".join(lines) + "\n")
    if fmt == "json":
        return escape_json_controls(json.dumps(entries, ensure_ascii=False, indent=1) + "\n")
    if fmt == "csv":
        return to_csv(entries, variants)
    groups = grouped(entries, group_by, selection)
    if fmt == "md":
        return to_markdown(groups, meta["meta"], group_by)
    if fmt == "html":
        return to_html(groups, meta["meta"], group_by)
    raise ValueError(f"unknown export format {fmt!r}")


def printable_value(value):
    """A JSON-shaped value (dicts, lists, strings, numbers) with every string's control characters
    removed but newline and tab (ingest/controls.py without_controls); values without any are kept."""
    if isinstance(value, str):
        return without_controls(value)
    if isinstance(value, dict):
        return {key: printable_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [printable_value(item) for item in value]
    return value


# First characters of a cell that a spreadsheet reads as a formula (OWASP "CSV Injection"), with the
# full-width forms some East Asian spreadsheet versions also take for them.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def csv_cell(value) -> str:
    """A CSV cell as text that a spreadsheet shows as text: a string starting with one of FORMULA_STARTS
    gets a leading apostrophe (``-1/-1 counters`` -> ``'-1/-1 counters``); numbers as written."""
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def to_csv(entries: list[dict], variants: bool) -> str:
    """CSV with a header row: one row per entry (dates, mechanics, cards, sets joined by '; ';
    ``variants`` is the count), or with ``variants`` one row per variant (ENTRY id first). Every
    cell goes through csv_cell(), so no cell starts a spreadsheet formula."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")

    def row(cells: list) -> None:
        writer.writerow([csv_cell(cell) for cell in cells])

    if variants:
        row(VARIANT_COLUMNS)
        for e in entries:
            for v in e["variants"]:
                row([e["id"], "; ".join(e["mechanics"]), v["text"], v["card"] or "", v["set"] or "",
                     v["date"] or "", "true" if v["date_ambiguous"] else "false", v["lang"],
                     v["oracle_id"] or "", v["publisher"] or "", v["similarity"],
                     v["source"]["path"], v["source"]["format"], v.get("position", "")])
    else:
        row(ENTRY_COLUMNS)
        for e in entries:
            row([e["id"], e["text"], e["lang"], e["date"] or "", "; ".join(e["dates"]),
                 "; ".join(e["mechanics"]), "; ".join(e["cards"]), "; ".join(e["sets"]), len(e["variants"])])
    return out.getvalue()


def _scoped_variants(entry: dict, selection: Selection) -> list[dict]:
    """The variants inside the selection's set and card (all variants when none is inside both)."""
    def inside(v: dict) -> bool:
        if selection.set_code and (v["set"] or "").lower() != selection.set_code.lower():
            return False
        if selection.card:
            name = v["card"] or ""
            keys = {card_key(name)} | {card_key(face) for face in name.split("//")}
            if card_key(selection.card) not in keys:
                return False
        return True
    scoped = [v for v in entry["variants"] if inside(v)]
    return scoped or entry["variants"]


def group_values(entry: dict, group_by: str, selection: Selection) -> list[str]:
    """The headings an entry goes under: its mechanics (only the selected ones when mechanics were
    selected), or the cards / sets of its variants within the selected set and card."""
    if group_by == "mechanic":
        chosen = set(selection.mechanics)
        return [m for m in entry["mechanics"] if not chosen or m in chosen]
    scoped = _scoped_variants(entry, selection)
    if group_by == "card":
        return _distinct(v["card"] or v["oracle_id"] for v in scoped)
    if group_by == "set":
        return sorted({v["set"] for v in scoped if v["set"]})
    raise ValueError(f"unknown grouping {group_by!r}")


def _distinct(values) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


def grouped(entries: list[dict], group_by: str | None,
            selection: Selection | None = None) -> list[tuple[str | None, list[dict]]]:
    """[(heading, entries)] with headings sorted case-insensitively, "(none)" last; a single
    (None, entries) group without group_by. Each group keeps the order of ``entries``."""
    if not group_by:
        return [(None, entries)]
    selection = selection or Selection()
    groups: dict[str, list[dict]] = {}
    for e in entries:
        for value in group_values(e, group_by, selection) or [NONE_HEADING]:
            groups.setdefault(value, []).append(e)
    names = sorted((n for n in groups if n != NONE_HEADING), key=lambda n: (n.casefold(), n))
    if NONE_HEADING in groups:
        names.append(NONE_HEADING)
    return [(n, groups[n]) for n in names]


def heading_label(heading: str, group_by: str | None) -> str:
    """A group heading for people: a mechanic's printed name with its id, else the value itself."""
    if group_by == "mechanic":
        from rulings.ingest.tag import vocabulary  # mechanic names: only exports that print them
        names = {m.id: m.name for m in vocabulary()}
        if heading in names and names[heading].lower() != heading:
            return f"{names[heading]} ({heading})"
        if heading in names:
            return names[heading]
    return heading


def date_span(entry: dict) -> str:
    """``2016-09-20``, ``2016-09-20 to 2018-06-08``, or ``undated``."""
    dates = entry["dates"]
    if not dates:
        return "undated"
    return dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"


def shown_cards(cards: list[str]) -> str:
    """Card names joined by '; ', the first CARDS_SHOWN then ``and N more``."""
    head = "; ".join(cards[:CARDS_SHOWN])
    return head + (f"; and {len(cards) - CARDS_SHOWN} more" if len(cards) > CARDS_SHOWN else "")


def facts(entry: dict) -> list[tuple[str, str]]:
    """(label, value) lines shown under an entry's text in md and html."""
    rows = [("id", entry["id"]), ("date", date_span(entry))]
    if entry["mechanics"]:
        rows.append(("mechanics", ", ".join(entry["mechanics"])))
    if entry["cards"]:
        rows.append((f"cards ({len(entry['cards'])})", shown_cards(entry["cards"])))
    if entry["sets"]:
        rows.append(("sets", ", ".join(entry["sets"])))
    sources = sorted({Path(v["source"]["path"]).name for v in entry["variants"]})
    rows.append((f"variants ({len(entry['variants'])})", "; ".join(sources)))
    return rows


def header_lines(meta: dict) -> list[tuple[str, str]]:
    """(label, value) pairs of the md/html header: the metadata record for people."""
    selected = meta["selected"]
    said = "; ".join(f"{k} {', '.join(v) if isinstance(v, list) else v}" for k, v in selected.items()) or "everything"
    return [("selected", said), ("created", meta["created"] or "unknown"),
            ("entries", str(meta["entries"])), ("variants", str(meta["variants"])),
            ("order", ORDER), (f"sources ({len(meta['sources'])})", "; ".join(meta["sources"]))]


_MD_SPECIAL = re.compile(r"[\\`*\[\]]|(?<!\w)_|_(?!\w)|<(?=[A-Za-z/!?])|&(?=#?\w+;)")


def md_escape(text: str) -> str:
    """Backslash-escape what Markdown would read as markup (emphasis, code, links, tags, entities).

    ``<3 or >5 & X`` stays as it is: it starts no tag and no entity.
    """
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), text)


def to_markdown(groups, meta: dict, group_by: str | None = None) -> str:
    """A readable Markdown sheet: header from the metadata, then the entries (grouped under ## headings)."""
    lines = ["# Rulings export", ""]
    lines += [f"- **{label}:** {md_escape(value)}" for label, value in header_lines(meta)]
    lines.append("")
    for heading, entries in groups:
        if heading is not None:
            lines += [f"## {md_escape(heading_label(heading, group_by))}", "",
                      f"{len(entries)} {'entry' if len(entries) == 1 else 'entries'}", ""]
        for e in entries:
            text = md_escape(e["text"]).replace("\n", "\n  ")
            lines.append(f"- {text}")
            lines.append("  <br>" + " · ".join(f"*{label}:* {md_escape(value)}" for label, value in facts(e)))
            for t in e.get("translations", []):
                lines.append(f"  <br>*{md_escape(t['lang'])} ({md_escape(t['id'])}):* {md_escape(t['text'])}")
        lines.append("")
    return "\n".join(lines)


def to_html(groups, meta: dict, group_by: str | None = None) -> str:
    """One self-contained HTML page (no external resources: the style and the filter script inline), made
    with the page templates of ``rulings serve`` (search/web/pages.py, autoescaped: every text is
    escaped). The group navigation wraps; the filter box narrows the page to the entries holding the
    words typed (JavaScript; without it the page is complete)."""
    nav = [(f"#g{i}", heading_label(heading, group_by), len(entries))
           for i, (heading, entries) in enumerate(groups) if heading is not None]
    shown = [(f"g{i}", None if heading is None else heading_label(heading, group_by), entries)
             for i, (heading, entries) in enumerate(groups)]
    return _page("Rulings export", meta, nav, shown)


def _page(heading: str, meta: dict, nav: list, groups: list, up: str | None = None) -> str:
    from rulings.search.web.pages import render as render_page

    return render_page("export.html", title=heading, heading=heading, inline=True, filter_box=True,
                       header=header_lines(meta)[:-1], sources=meta["sources"], nav=nav, groups=groups,
                       facts=facts, up=up)


SPLIT_INDEX = "index.html"


def split_html(entries: list[dict], selection: Selection | None, created: str | None,
               group_by: str) -> dict[str, str]:
    """A large HTML export split by group: ``{file name: page}``, an ``index.html`` listing the groups
    (with their counts, linking to their pages) and one page per group, ``NNN-name.html``.

    The names are made here, never taken from a document as they are: the group's number, then its
    heading reduced to ``a-z 0-9 -`` (search/web/pages.py slug()). Each page has the metadata of its
    own entries and the filter box."""
    from rulings.search.web.pages import slug

    selection = selection or Selection()
    entries = sorted((printable_value(e) for e in entries), key=export_order)
    meta = printable_value(metadata(entries, selection.to_dict(), created))["meta"]
    groups = grouped(entries, group_by, selection)
    width = max(3, len(str(len(groups))))
    names = [f"{number:0{width}d}-{slug(heading)}.html" for number, (heading, _) in enumerate(groups, 1)]
    pages = {SPLIT_INDEX: _page("Rulings export", meta, [
        (name, heading_label(heading, group_by), len(group)) for name, (heading, group) in zip(names, groups)], [])}
    for name, (heading, group) in zip(names, groups):
        label = heading_label(heading, group_by)
        own = printable_value(metadata(group, selection.to_dict(), created))["meta"]
        pages[name] = _page(f"Rulings export: {label}", own, [], [("g0", label, group)], up=SPLIT_INDEX)
    return pages
