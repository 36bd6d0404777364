"""The grading queue's decisions, without grading: what a run that finished, hung or died
leaves in the database; the progress lines a running grade writes; the wait estimate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.classroom.run import Attempt, GradingOptions
from grader.service.queue import (GradingQueue, QueueOptions, config_label, estimate_wait,
                                  read_progress)
from grader.service.storage import Store

RESULTS = json.dumps({"score": 57.3, "tests": [
    {"name": "scores", "score": 47.3, "max_score": 90.0},
    {"name": "time", "score": 10.0, "max_score": 10.0}]})


@pytest.fixture
def queue(tmp_path: Path) -> GradingQueue:
    store = Store(tmp_path / "course.sqlite3", b"k" * 32)
    store.upsert_students([("alice", "Alice", "")])
    yield GradingQueue(store, tmp_path, QueueOptions(jobs=1, timeout=60))
    store.close()


def _claimed(queue: GradingQueue):
    queue.store.add_submission("alice", "a.py", b"x = 1\n", late=False, config="default")
    return queue.store.claim_next("grade_0", queue.label)


def test_a_finished_run_stores_score_results_and_report(queue: GradingQueue):
    row = _claimed(queue)
    attempt = Attempt("alice", 0, RESULTS, report="Score: 57.3 / 100\n", seconds=4.2)
    assert queue._store_attempt(row, attempt) == "done"
    done = queue.store.submission(row.id)
    assert (done.status, done.score, done.max_score) == ("done", 57.3, 100.0)
    assert done.report_text == "Score: 57.3 / 100\n" and json.loads(done.results_json)


@pytest.mark.parametrize("attempt, why", [
    (Attempt("alice", None, None, timed_out=True), "longer than 60 s"),
    (Attempt("alice", -9, None), "exit status -9"),
    (Attempt("alice", 1, json.dumps({"tests": [], "extra_data": {"grader_error": "boom"}})),
     "the grader itself failed: boom"),
])
def test_a_run_that_hangs_or_dies_is_tried_once_more_then_error(queue: GradingQueue,
                                                               attempt: Attempt, why: str):
    row = _claimed(queue)
    assert queue._store_attempt(row, attempt) == "queued"
    row = queue.store.claim_next("grade_0")
    assert row.attempts == 2
    assert queue._store_attempt(row, attempt) == "error"
    failed = queue.store.submission(row.id)
    assert failed.status == "error" and why in failed.error


def test_progress_lines_become_items_with_their_points(tmp_path: Path):
    folder = tmp_path / "work" / "7"
    folder.mkdir(parents=True)
    lines = [{"name": "scores", "passed": 1, "total": 4, "failed": 3, "no_answer": 0,
              "error": False},
             {"name": "style", "passed": 0, "total": 0, "failed": 0, "no_answer": 0,
              "error": False},
             {"name": "scores", "passed": 2, "total": 4, "failed": 2, "no_answer": 0,
              "error": False}]
    (folder / "progress.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines) + '{"name": "ti')  # being written
    items = read_progress(tmp_path, 7, {"scores": 15.0, "style": 0.0})
    assert items == [{"name": "scores", "score": 7.5, "max_score": 15.0, "passed": 2,
                      "total": 4}]
    assert read_progress(tmp_path, 8, {}) == []


def test_the_label_says_what_a_result_was_graded_under(tmp_path: Path):
    config = tmp_path / "rubric.cfg"
    config.write_text("[rubric]\nscores = 20\n")
    assert config_label(GradingOptions()) == "default"
    label = config_label(GradingOptions(config=config))
    assert label.startswith("rubric.cfg (")
    config.write_text("[rubric]\nscores = 25\n")
    assert config_label(GradingOptions(config=config)) != label


def test_the_wait_grows_with_the_place_in_the_queue():
    assert estimate_wait(1, 2, [10.0]) < estimate_wait(3, 2, [10.0]) < estimate_wait(3, 1, [10.0])
