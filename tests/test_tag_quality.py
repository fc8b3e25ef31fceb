"""bench/tag_quality.py: micro precision/recall against a tagged file, through the normal pipeline."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("tag_quality", ROOT / "bench" / "tag_quality.py")
tag_quality = importlib.util.module_from_spec(spec)
sys.modules["tag_quality"] = tag_quality
spec.loader.exec_module(tag_quality)


def write(tmp_path, rows):
    path = tmp_path / "tags.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    return path


def test_counts_on_a_small_file(tmp_path):
    rows = [
        {"item": "A", "lang": "en", "card": "", "set": "", "tags": ["flying"], "optional": [],
         "text": "Flying only matters as blockers are chosen."},
        {"item": "B", "lang": "en", "card": "Evolving Wilds", "set": "", "tags": ["evolve"], "optional": [],
         "text": "Evolving Wilds's ability puts the land onto the battlefield tapped."},
        {"item": "C", "lang": "zh", "card": "", "set": "", "tags": [], "optional": ["proliferate"],
         "text": "在增殖时，你可以选择任何具有指示物的永久物。"},
        {"item": "D", "lang": "en", "card": "", "set": "", "tags": [], "optional": [],
         "text": "A creature with reach can block a creature with flying."},
    ]
    result = tag_quality.report(tag_quality.tag_items(write(tmp_path, rows)))
    # A: flying hit; B: evolve missed (the card name is masked); C: optional, no count; D: reach, flying wrong.
    assert (result["all"]["tp"], result["all"]["fp"], result["all"]["fn"]) == (1, 2, 1)
    assert (result["zh"]["tp"], result["zh"]["fp"], result["zh"]["fn"]) == (0, 0, 0)
    assert result["all"]["precision"] == round(1 / 3, 4)
    assert [e["item"] for e in result["errors"]] == ["B", "D"]
    assert result["errors"][1]["wrong"] == ["+flying", "+reach"]


def test_gold_targets(shared):
    result = tag_quality.report(tag_quality.tag_items(shared / "gold" / "mechanic-tags.jsonl"))
    assert result["all"]["items"] == 202
    assert result["all"]["precision"] >= 0.96
    assert result["all"]["recall"] >= 0.92
    assert result["en"]["items"] + result["zh"]["items"] == 202
    assert result["zh"]["recall"] >= 0.9


def test_main_prints_figures(shared, capsys):
    assert tag_quality.main([str(shared / "gold" / "mechanic-tags.jsonl")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("all items  202  precision ")
    assert "wrong tags" in out


def test_missing_file_is_one_line_error(tmp_path, capsys):
    assert tag_quality.main([str(tmp_path / "none.jsonl")]) == 1
    assert capsys.readouterr().err == f"Error: {tmp_path / 'none.jsonl'}: no such file\n"
