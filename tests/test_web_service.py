"""search/web/service.py in this process: the answers kept per generation across a switch.

An update switches the live generation while a Rulings answers; the kept answers of the previous
generation are given until the warmer thread has answered the same questions on the new one, then the
new generation's. Updates run as ``rulings`` commands in child processes, as they do beside a server.
"""

from __future__ import annotations

import subprocess
import threading
import time

import pytest
import serving

from rulings.search import folder
from rulings.search.web import service
from rulings.search.web.service import Rulings, SearchArgs

NEW_RULING = "Zanzibarian counters are never removed by proliferate."


def rulings(*args: str) -> None:
    done = subprocess.run(serving.rulings_command(*args), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def new_document(root):
    added = root / "new"
    added.mkdir()
    (added / "n.txt").write_text(f"Rulings\n\n• 2024-01-02\n  {NEW_RULING}\n", encoding="utf-8")
    return added


def texts(answer: dict) -> list[str]:
    return [entry["text"] for entry in answer["results"]]


def settled(ask, wanted, rounds: int = 400):
    """ask() until it gives wanted (the warmer has switched), at most rounds times 0.05 s; the last answer."""
    for _ in range(rounds):
        answer = ask()
        if answer == wanted:
            return answer
        time.sleep(0.05)
    return answer


def fresh(answers: Rulings, args: SearchArgs) -> dict:
    """The live generation's answer, from a Rulings that keeps nothing yet (under answers' lock, so that
    its warmer does not call the library meanwhile)."""
    with answers._lock:
        return Rulings(answers.index_dir).search(args)


@pytest.fixture
def index_dir(tmp_path):
    return serving.build_index(tmp_path)


def test_kept_answers_are_given_until_the_new_generation_has_answered_them(index_dir, tmp_path):
    answers = Rulings(index_dir)
    args = SearchArgs("proliferate")
    before = answers.search(args)
    entries = answers.stats()["entries"]
    rulings("ingest", str(new_document(tmp_path)), "--index", str(index_dir))
    with answers._lock:                 # the warmer cannot answer on the new generation meanwhile
        assert answers.search(args) == before
        assert answers.stats()["entries"] == entries
    wanted = fresh(answers, args)
    assert sorted(texts(wanted)) == sorted([*texts(before), NEW_RULING])
    assert settled(lambda: answers.search(args), wanted) == wanted
    assert answers.stats()["entries"] == entries + 1


def test_answers_half_warmed_are_not_given_before_the_others(index_dir, tmp_path):
    """While the warmer has answered only some kept questions on the new generation, every kept question
    still gets the previous generation's answer (a search and the stats never disagree on which)."""
    answers = Rulings(index_dir)
    args = SearchArgs("proliferate")
    before = answers.search(args)
    entries = answers.stats()["entries"]
    rulings("ingest", str(new_document(tmp_path)), "--index", str(index_dir))
    with answers._lock:                 # as the warmer would have done for the search alone
        live = answers.generation()
        with answers._kept:
            answers._memos(live)
        key = answers._search_key(args.checked(), service.LIMIT, False)
        find = answers._searching(args.checked(), service.LIMIT, False)
        answers._keep(key, live, find(), find, lambda found: len(found[0]))
        assert answers.search(args) == before
        assert answers.stats()["entries"] == entries
    assert settled(lambda: answers.stats()["entries"], entries + 1) == entries + 1
    assert NEW_RULING in texts(answers.search(args))


def test_a_question_first_asked_after_the_switch_is_answered_on_the_new_generation(index_dir, tmp_path):
    answers = Rulings(index_dir)
    answers.search(SearchArgs("proliferate"))
    rulings("ingest", str(new_document(tmp_path)), "--index", str(index_dir))
    with answers._lock:
        assert texts(answers.search(SearchArgs("Zanzibarian"))) == [NEW_RULING]


def test_json_bytes_follow_the_switch_too(index_dir, tmp_path):
    answers = Rulings(index_dir)
    args = SearchArgs("Zanzibarian")
    key = ("test", b"q=Zanzibarian")
    assert answers.kept_json(key) is None
    empty = answers.search_json(args, key=key)
    assert answers.kept_json(key) == empty == service.json_bytes(answers.search(args))
    assert texts(answers.search(args)) == []
    rulings("ingest", str(new_document(tmp_path)), "--index", str(index_dir))
    with answers._lock:
        assert answers.kept_json(key) == empty
    wanted = service.json_bytes(fresh(answers, args))
    assert NEW_RULING.encode("utf-8") in wanted
    assert settled(lambda: answers.kept_json(key), wanted) == wanted


def test_generations_removed_under_the_answers_break_no_call(index_dir, tmp_path):
    """Three updates while the first answers are still given: the generation they came from is removed
    (an update keeps only the one before the live one), every call still answers, and then the live
    generation's answers are given."""
    answers = Rulings(index_dir)
    args = SearchArgs("proliferate")
    before = answers.search(args)
    first = folder.live(index_dir)
    added = new_document(tmp_path)
    with answers._lock:
        for command in (["ingest", str(added)], ["remove", str(added)], ["ingest", str(added)]):
            rulings(*command, "--index", str(index_dir))
            assert answers.search(args) == before
            assert texts(answers.search(SearchArgs("Zanzibarian"))) == ([] if command[0] == "remove" else
                                                                       [NEW_RULING])
        assert not first.exists()
    wanted = fresh(answers, args)
    assert NEW_RULING in texts(wanted)
    assert settled(lambda: answers.search(args), wanted) == wanted


def test_previous_answers_are_given_at_most_warm_seconds(index_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(service, "WARM_SECONDS", 0.0)
    answers = Rulings(index_dir)
    args = SearchArgs("proliferate")
    before = answers.search(args)
    rulings("ingest", str(new_document(tmp_path)), "--index", str(index_dir))
    wanted = fresh(answers, args)
    with answers._lock:                 # nothing can be answered again: the deadline alone switches
        assert answers.search(args) == before
        assert settled(lambda: answers.search(args), wanted) == wanted


def test_a_warmer_that_fails_gives_the_new_generation(index_dir, tmp_path, monkeypatch):
    """A failure that is no RulingsError (here an OSError from the search) ends the warmer; the new
    generation's answers are given from then on, never the previous ones for ever."""
    answers = Rulings(index_dir)
    args = SearchArgs("proliferate")
    before = answers.search(args)
    rulings("ingest", str(new_document(tmp_path)), "--index", str(index_dir))
    wanted = fresh(answers, args)
    real = answers.index.search

    def broken(*given, **options):
        raise OSError("the disk went away")

    monkeypatch.setattr(threading, "excepthook", lambda hook_args: None)    # the thread's traceback
    with answers._lock:
        monkeypatch.setattr(answers.index, "search", broken)
        assert answers.search(args) == before
        warmer = answers._warmer
    warmer.join(30)
    monkeypatch.setattr(answers.index, "search", real)
    assert not warmer.is_alive() and answers._warmer is None
    assert answers.search(args) == wanted
