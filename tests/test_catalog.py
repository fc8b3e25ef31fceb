"""Incremental ingest: unchanged sources are not parsed, the index is updated in place,
and the entries are those a full rebuild forms."""

import shutil

import pytest

from rulings.corpus import corpus_files
from rulings.search import catalog, engine, folder, index


@pytest.fixture
def seeds(tmp_path):
    """The four bundled seed documents copied into a folder of their own."""
    folder = tmp_path / "seeds"
    folder.mkdir()
    for path in corpus_files():
        shutil.copy(path, folder / path.name)
    return folder


def groupings(index_dir):
    """What dedup decided, independent of ids: each entry as (text, mechanics, its variants' file and position)."""
    return sorted((e["text"], tuple(e["mechanics"]),
                   tuple(sorted((v["source"]["path"].rsplit("/", 1)[-1], v["position"]) for v in e["variants"])))
                  for e in index.all_entries(index_dir))


def written(index_dir):
    """Modification time of every index file in the index folder (the writer lock records its holder's pid)."""
    return {p: p.stat().st_mtime_ns for p in index_dir.rglob("*") if p.is_file() and p.name != folder.LOCK}


def test_unchanged_reingest_parses_and_writes_nothing(tmp_path, seeds):
    ix = tmp_path / "ix"
    first = catalog.ingest(ix, [seeds])
    assert (first.parsed, first.entries) == (4, 43)
    before = written(ix)
    again = catalog.ingest(ix, [seeds])
    assert (again.changed, again.parsed, again.entries) == (False, 0, 43)
    assert again.to_json()["rulings"] == 54
    assert written(ix) == before


def test_touched_but_same_content_is_not_parsed(tmp_path, seeds):
    ix = tmp_path / "ix"
    catalog.ingest(ix, [seeds])
    path = seeds / "003_14c4c19089e5e67c.txt"
    path.write_bytes(path.read_bytes())
    report = catalog.ingest(ix, [seeds])
    assert (report.changed, report.parsed) == (False, 0)


def test_adding_a_file_matches_a_full_rebuild(tmp_path, seeds):
    ix = tmp_path / "ix"
    last = seeds / "004_d033d17d83505c11.txt"
    held = tmp_path / last.name
    last.rename(held)
    catalog.ingest(ix, [seeds])
    before = {e["id"]: e for e in index.all_entries(ix)}
    held.rename(last)
    report = catalog.ingest(ix, [seeds])
    assert report.parsed == 1
    full = tmp_path / "full"
    catalog.ingest(full, [seeds])
    assert groupings(ix) == groupings(full)
    after = {e["id"]: e for e in index.all_entries(ix)}
    assert len(after) == 43
    # only entries whose JSON changed were rewritten; the others are the same documents
    unchanged = [i for i in before if after.get(i) == before[i]]
    assert report.index_changes["kept"] == len(unchanged)
    assert report.index_changes["added"] == 43 - len(unchanged)
    assert 0 < report.index_changes["added"] < 43


def test_changing_one_ruling_rewrites_only_its_entry(tmp_path, seeds):
    ix = tmp_path / "ix"
    catalog.ingest(ix, [seeds])
    path = seeds / "003_14c4c19089e5e67c.txt"
    text = path.read_text("utf-8")
    line = next(line for line in text.splitlines() if len(line) > 60 and "proliferate" not in line)
    path.write_text(text.replace(line, line + " Zanzibar."), "utf-8")
    report = catalog.ingest(ix, [seeds])
    assert report.parsed == 1
    hits = [e for e in index.all_entries(ix) if "Zanzibar" in e["text"]]
    assert len(hits) == 1
    full = tmp_path / "full"
    catalog.ingest(full, [seeds])
    assert groupings(ix) == groupings(full)
    assert report.index_changes["kept"] >= 40


def test_remove_drops_only_what_the_source_alone_contributed(tmp_path, seeds):
    ix = tmp_path / "ix"
    catalog.ingest(ix, [seeds])
    before = {e["id"]: e for e in index.all_entries(ix)}
    gone = seeds / "002_cb6211493364d1de.txt"
    only_there = {i for i, e in before.items()
                  if {v["source"]["path"] for v in e["variants"]} == {str(gone)}}
    dropped, left = catalog.remove(ix, gone)
    assert [d.path for d in dropped] == [str(gone.resolve())]
    assert left == 43 - len(only_there)
    after = {e["id"]: e for e in index.all_entries(ix)}
    assert set(after) == set(before) - only_there
    for entry in after.values():
        assert all(v["source"]["path"] != str(gone) for v in entry["variants"])
    gone.unlink()
    fresh = tmp_path / "fresh"
    catalog.ingest(fresh, [seeds])
    assert groupings(ix) == groupings(fresh)
    assert catalog.summary(ix)["rulings"] == 54 - 11


def test_remove_unknown_source_is_an_error(tmp_path, seeds):
    ix = tmp_path / "ix"
    catalog.ingest(ix, [seeds])
    with pytest.raises(catalog.RulingsError, match="not an ingested source"):
        catalog.remove(ix, tmp_path / "elsewhere.txt")


def test_missing_whoosh_folder_is_rebuilt_whole(tmp_path, seeds):
    ix = tmp_path / "ix"
    catalog.ingest(ix, [seeds])
    shutil.rmtree(folder.live(ix) / index.WHOOSH_DIR)
    report = catalog.ingest(ix, [seeds])
    assert report.changed and report.index_changes["added"] == 43
    assert len(list(index.all_entries(ix))) == 43


def test_an_entry_that_lost_its_leader_is_re_formed_around_a_member(tmp_path, seeds):
    """Removing the file that holds an entry's leading text dissolves the entry; its other texts form
    again, and every member of every entry still matches its leader (no drift through chains)."""
    from pathlib import Path

    from rulings.ingest.compare import same_ruling

    ix = tmp_path / "ix"
    catalog.ingest(ix, [seeds])
    state = catalog.load_state(ix)
    corpus = state.corpus
    paths = {record.number: record.path for record in state.sources.values()}
    number, group = next((n, g) for n, g in corpus.grouper.groups.items() if len(g.members) >= 3
                         and len({paths[s] for m in g.members for s, _ in corpus.refs[(g.lang, m)]}) >= 3)
    leader_files = {paths[s] for s, _ in corpus.refs[(group.lang, group.leader)]}
    others = {(group.lang, m) for m in group.members if m != group.leader}
    entry_id = corpus.info[number].id
    for path in sorted(leader_files):
        catalog.remove(ix, Path(path))
    after = catalog.load_state(ix).corpus
    assert number not in after.grouper.groups
    kept = {after.grouper.group_of[key] for key in others if key in after.grouper.group_of}
    assert len(kept) == 1                       # the remaining proliferate texts still form one entry
    (reformed,) = kept
    assert after.info[reformed].id == entry_id    # and it keeps the id of the dissolved entry
    for g in after.grouper.groups.values():
        assert all(same_ruling(g.leader, match).same for match in g.members)
    fresh = tmp_path / "fresh"
    for path in leader_files:
        Path(path).unlink()
    catalog.ingest(fresh, [seeds])
    assert groupings(ix) == groupings(fresh)


def test_overlapping_paths_read_a_file_once(tmp_path):
    from rulings.corpus import corpus_files
    from rulings.search import catalog
    folder = tmp_path / "docs"
    folder.mkdir()
    for path in corpus_files():
        (folder / path.name).write_bytes(path.read_bytes())
    report = catalog.ingest(tmp_path / "ix", [folder, folder / corpus_files()[0].name])
    assert report.to_json()["entries"] == 43
    assert catalog.summary(tmp_path / "ix")["rulings"] == 54


def test_updates_merge_small_segments_and_keep_every_entry(tmp_path, shared, monkeypatch):
    """Each incremental update writes a segment; the small ones are merged into the next (engine.merge_tiers),
    so their number stays small, and the index holds exactly the entries it holds without merging."""
    sets = shared / "realdata" / "mtgjson3-sets"
    big = [sets / f"{code}.json" for code in ("KLD", "AER", "AKH", "HOU")]
    updates = [sets / "XLN.json", sets / "RIX.json", sets / "XLN.json", sets / "RIX.json", sets / "DOM.json"]

    built = tmp_path / "built"
    catalog.ingest(built, big, rebuild=True)       # a full build writes new segments, never merged: built once

    def run(ix):
        shutil.copytree(built, ix)
        counts = [len(index.segments(ix))]
        for n, path in enumerate(updates):
            if path in updates[:n]:
                catalog.remove(ix, path)
            catalog.ingest(ix, [path])
            counts.append(len(index.segments(ix)))
        entries = sorted((e["id"], e["text"], len(e["variants"])) for e in index.all_entries(ix))
        return counts, entries, index.segments(ix)

    merged_counts, merged_entries, found = run(tmp_path / "merged")
    monkeypatch.setattr(engine, "merge_tiers", lambda writer, segments: segments)
    plain_counts, plain_entries, _ = run(tmp_path / "plain")
    assert merged_entries == plain_entries and len(merged_entries) > 1000
    assert sum(docs - deleted for docs, deleted in found) == len(merged_entries)
    assert plain_counts[-1] >= plain_counts[0] + len(updates)      # Whoosh's default: a segment per update
    assert max(merged_counts) <= merged_counts[0] + 1               # merged: at most one more than the build
    assert all(deleted * 2 <= docs for docs, deleted in found)


def test_did_you_mean_vocabulary_follows_updates(tmp_path, seeds, shared):
    """The spelling file beside the index: a full build's words, then the words an update adds."""
    from rulings.search import query
    ix = tmp_path / "ix"
    catalog.ingest(ix, [seeds])
    words = index.spelling_vocabulary(ix)
    assert words == sorted(words) and "proliferate" in words and "amonkhet" not in words
    assert query.suggestions(ix, "prolifirate")[0] == "proliferate"
    catalog.ingest(ix, [shared / "realdata" / "mtgjson3-sets" / "AKH.json"])
    assert set(words) < set(index.spelling_vocabulary(ix))
    assert "embalm" in index.spelling_vocabulary(ix) and query.suggestions(ix, "embalmm")[0] == "embalm"
    # every word is a word of some indexed entry's texts
    indexed = set().union(*(index.spelling_words(e) for e in index.all_entries(ix)))
    assert set(index.spelling_vocabulary(ix)) == indexed
    # after the source is removed its words may stay in the file, but are never suggested
    catalog.remove(ix, shared / "realdata" / "mtgjson3-sets" / "AKH.json")
    assert query.search(ix, "embalm") == []
    assert "embalm" not in query.suggestions(ix, "embalmm") and "embalm" not in query.suggestions(ix, "embalm")
    assert query.suggestions(ix, "prolifirate")[0] == "proliferate"


def test_lingua_answers_are_kept_with_the_corpus(tmp_path, shared, monkeypatch):
    """Re-reading a file does not ask lingua again for texts it decided before (its models take about 1.3 s
    to load in each new process): the answers are saved with the corpus state."""
    from rulings.ingest import language
    path = shared / "realdata" / "mtgjson3-sets" / "XLN.json"
    ix = tmp_path / "ix"
    catalog.ingest(ix, [path])
    langs = sorted((e["id"], e["lang"]) for e in index.all_entries(ix))
    monkeypatch.setattr(language, "_DECIDED", {})                  # a new process
    language._detect.cache_clear()
    asked = []
    real = language._detector
    monkeypatch.setattr(language, "_detector", lambda codes: asked.append(codes) or real(codes))
    catalog.remove(ix, path)
    catalog.ingest(ix, [path])
    assert asked == [] and len(language._DECIDED) > 10
    assert sorted((e["id"], e["lang"]) for e in index.all_entries(ix)) == langs
    language._detect.cache_clear()
