"""Export deduplicated ruling sets: jsonl, json, csv, md, html.

Order: oldest date first (an entry's oldest variant date; undated last), then id.
``group_by`` (md, html) groups entries under headings by mechanic, card or set,
each group in the same order. Output is UTF-8 text; the same entries give
byte-identical output apart from the ``created`` time in the metadata.
"""

from __future__ import annotations

import csv
import html
import io
import json
from datetime import datetime, timezone

FORMATS = ("jsonl", "json", "csv", "md", "html")
GROUPS = ("mechanic", "card", "set")


def export_order(entry: dict) -> tuple:
    """Sort key: oldest variant date first (undated last), then id."""
    return (min(entry["dates"]) if entry["dates"] else "9999-99-99", entry["id"])


def metadata(entries: list[dict], selected: dict, created: str | None = None) -> dict:
    """The JSONL metadata record: selection, creation time, sources, counts."""
    sources = sorted({v["source"]["path"] for e in entries for v in e["variants"]})
    return {"meta": {"selected": selected,
                     "created": created or datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
                     "sources": sources, "entries": len(entries),
                     "variants": sum(len(e["variants"]) for e in entries)}}


def render(entries: list[dict], fmt: str, selected: dict, group_by: str | None = None,
           variants: bool = False, created: str | None = None) -> str:
    """Render entries (already selected) in one of FORMATS; returns the whole text."""
    entries = sorted(entries, key=export_order)
    if fmt == "jsonl":
        lines = [json.dumps(metadata(entries, selected, created), ensure_ascii=False)]
        lines += [json.dumps(e, ensure_ascii=False) for e in entries]
        return "\n".join(lines) + "\n"
    if fmt == "json":
        return json.dumps(entries, ensure_ascii=False, indent=1) + "\n"
    if fmt == "csv":
        return to_csv(entries, variants)
    groups = grouped(entries, group_by)
    meta = metadata(entries, selected, created)["meta"]
    if fmt == "md":
        return to_markdown(groups, meta)
    return to_html(groups, meta)


def to_csv(entries: list[dict], variants: bool) -> str:
    """One row per entry (cards, sets, mechanics joined by '; '), or one per variant."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if variants:
        writer.writerow(["id", "text", "card", "set", "date", "lang", "source", "format", "similarity"])
        for e in entries:
            for v in e["variants"]:
                writer.writerow([e["id"], v["text"], v["card"] or v["oracle_id"] or "", v["set"] or "",
                                 v["date"] or "", v["lang"], v["source"]["path"], v["source"]["format"],
                                 v["similarity"]])
    else:
        writer.writerow(["id", "text", "lang", "date", "dates", "mechanics", "cards", "sets", "variants"])
        for e in entries:
            writer.writerow([e["id"], e["text"], e["lang"], e["date"] or "", "; ".join(e["dates"]),
                             "; ".join(e["mechanics"]), "; ".join(e["cards"]), "; ".join(e["sets"]),
                             len(e["variants"])])
    return out.getvalue()


def grouped(entries: list[dict], group_by: str | None) -> list[tuple[str | None, list[dict]]]:
    """[(heading, entries)] in heading order; one (None, entries) group without group_by.

    An entry appears under every group it belongs to; entries without any value
    for the key go under "(none)" last.
    """
    if not group_by:
        return [(None, entries)]
    key = {"mechanic": "mechanics", "card": "cards", "set": "sets"}[group_by]
    groups: dict[str, list[dict]] = {}
    for e in entries:
        for value in e[key] or ["(none)"]:
            groups.setdefault(value, []).append(e)
    names = sorted((n for n in groups if n != "(none)"), key=str.casefold)
    if "(none)" in groups:
        names.append("(none)")
    return [(n, groups[n]) for n in names]


def _md_line(e: dict) -> str:
    facts = [f"`{e['id']}`", e["date"] or "undated"]
    if e["mechanics"]:
        facts.append("mechanics: " + ", ".join(e["mechanics"]))
    facts.append("cards: " + "; ".join(e["cards"]) if e["cards"] else "cards: none")
    if e["sets"]:
        facts.append("sets: " + ", ".join(e["sets"]))
    return f"- {e['text']}\n  <small>{' · '.join(facts)}</small>"


def to_markdown(groups, meta: dict) -> str:
    """A readable Markdown sheet with a header giving the selection and counts."""
    lines = ["# Rulings", "",
             f"{meta['entries']} entries, {meta['variants']} variants; selected: "
             f"{json.dumps(meta['selected'], ensure_ascii=False)}; created {meta['created']}.", ""]
    for heading, entries in groups:
        if heading is not None:
            lines += [f"## {heading}", ""]
        lines += [_md_line(e) for e in entries]
        lines.append("")
    return "\n".join(lines)


def to_html(groups, meta: dict) -> str:
    """One self-contained HTML page; every text is escaped."""
    esc = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>Rulings</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto;"
             "line-height:1.4}li{margin:.6em 0}small{color:#555}</style></head><body>",
             "<h1>Rulings</h1>",
             f"<p>{meta['entries']} entries, {meta['variants']} variants; selected: "
             f"<code>{esc(json.dumps(meta['selected'], ensure_ascii=False))}</code>; created {esc(meta['created'])}.</p>"]
    for heading, entries in groups:
        if heading is not None:
            parts.append(f"<h2>{esc(heading)}</h2>")
        parts.append("<ul>")
        for e in entries:
            facts = [e["id"], e["date"] or "undated"]
            if e["mechanics"]:
                facts.append("mechanics: " + ", ".join(e["mechanics"]))
            facts.append("cards: " + "; ".join(e["cards"]))
            if e["sets"]:
                facts.append("sets: " + ", ".join(e["sets"]))
            parts.append(f'<li lang="{esc(e["lang"])}">{esc(e["text"])}<br><small>{esc(" · ".join(facts))}</small></li>')
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
