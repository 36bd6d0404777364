"""The grading queue's decisions, without grading: what a run that finished, hung or died
leaves in the database; the progress lines a running grade writes; the wait estimate; and,
with grades that only pretend (``FakeGrades``), the order it takes submissions in, the CPU
slot a sleeping grade lends, a stop, the student's name and a new configuration."""

from __future__ import annotations

import dataclasses

import json
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from grader.classroom import priority
from grader.classroom.run import Attempt, GradingOptions
from grader.service import queue as queue_module
from grader.service.course.storage import Store
from grader.service.queue import (GradingQueue, QueueOptions, config_label, estimate_wait,
                                  read_progress)
from grader.suite.config import ConfigError
from grader.suite.plugin import PROGRESS_VARIABLE

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
    assert queue.recent_seconds() == [4.2] == queue.store.recent_seconds()


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


# --- the threads, with grades that only pretend -------------------------------------------

RESULTS_100 = json.dumps({"score": 100.0, "tests": [{"name": "scores", "score": 100.0,
                                                     "max_score": 100.0}]})


class FakeGrades:
    """Stands in for run_grade: each student's grade waits until the test lets it end (or
    the queue stops it); a student named "lends..." lends its CPU first."""

    def __init__(self) -> None:
        self.started: dict[str, threading.Event] = {}
        self.release: dict[str, threading.Event] = {}
        self.calls: dict[str, dict] = {}
        self.order: list[str] = []

    def expect(self, *students: str) -> None:
        for student in students:
            self.started[student] = threading.Event()
            self.release[student] = threading.Event()

    def __call__(self, path, student, options, scratch, timeout, should_stop, slot=None,
                 env=None, lend=None, student_name="", nice=0) -> Attempt:
        self.calls[student] = {"slot": slot, "env": env, "name": student_name,
                               "options": options, "nice": nice}
        self.order.append(student)
        if student.startswith("lends") and lend is not None:
            lend()
        self.started[student].set()
        while not self.release[student].wait(0.02):
            if should_stop():
                return Attempt(student, None, None, stopped=True)
        return Attempt(student, 0, RESULTS_100, report="Score: 100 / 100\n")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGrades]:
    grades = FakeGrades()
    monkeypatch.setattr(queue_module, "run_grade", grades)
    yield grades
    for event in grades.release.values():
        event.set()


@pytest.fixture
def course(tmp_path: Path) -> Iterator[Store]:
    store = Store(tmp_path / "course.sqlite3", b"k" * 32)
    store.upsert_students([("lends_a", "Ada Lender", ""), ("b", "", ""), ("c", "Cy", "")])
    yield store
    store.close()


def hand_in(store: Store, student: str) -> int:
    return store.add_submission(student, "mm_player.py", f"# {student}\n".encode(), late=False,
                                config="default").id


def wait_until(condition: Callable[[], bool], seconds: float = 30.0) -> bool:
    give_up = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > give_up:
            return False
        time.sleep(0.01)
    return True


def test_a_sleeping_grade_lends_its_slot_and_the_next_submission_starts_on_it(
        tmp_path: Path, course: Store, fake: FakeGrades):
    fake.expect("lends_a", "b", "c")
    first, second, third = (hand_in(course, student) for student in ("lends_a", "b", "c"))
    queue = GradingQueue(course, tmp_path, QueueOptions(jobs=1, timeout=60))
    queue.start()
    try:
        assert fake.started["b"].wait(30)              # while lends_a still runs
        assert course.submission(first).status == "running"
        assert fake.calls["b"]["slot"] == fake.calls["lends_a"]["slot"] == 0
        # b computes on the only slot: c waits for it, whether lends_a ends or not.
        fake.release["lends_a"].set()
        assert wait_until(lambda: course.submission(first).status == "done")
        assert not fake.started["c"].wait(0.3)
        assert course.submission(third).status == "queued"
        fake.release["b"].set()
        assert fake.started["c"].wait(30) and fake.calls["c"]["slot"] == 0
        fake.release["c"].set()
        assert wait_until(lambda: course.submission(third).status == "done")
        assert course.submission(second).score == 100.0
    finally:
        queue.stop()


def test_hand_ins_go_before_regrades(tmp_path: Path, course: Store, fake: FakeGrades):
    fake.expect("c", "b")
    old = hand_in(course, "c")
    row = course.claim_next("grade_0")
    course.finish(row.id, score=1.0, max_score=100.0, results_json="{}", report_text="",
                  seconds=1.0)
    assert course.retry(old)                            # the instructor's regrade: queued
    hand_in(course, "b")                                # a student's hand-in, after it
    for event in fake.release.values():
        event.set()
    queue = GradingQueue(course, tmp_path, QueueOptions(jobs=1, timeout=60))
    queue.start()
    try:
        assert wait_until(lambda: course.submission(old).status == "done")
        assert fake.order == ["b", "c"]
    finally:
        queue.stop()


def test_a_grade_stopped_with_the_server_is_queued_again_and_not_counted(
        tmp_path: Path, course: Store, fake: FakeGrades):
    fake.expect("b")
    number = hand_in(course, "b")
    queue = GradingQueue(course, tmp_path, QueueOptions(jobs=1, timeout=60))
    queue.start()
    assert fake.started["b"].wait(30)
    queue.stop()
    row = course.submission(number)
    assert (row.status, row.attempts, row.worker) == ("queued", 0, None)


def test_a_grade_gets_its_progress_file_its_priority_and_the_students_name(
        tmp_path: Path, course: Store, fake: FakeGrades):
    fake.expect("c", "b")
    numbers = [hand_in(course, "c"), hand_in(course, "b")]
    for event in fake.release.values():
        event.set()
    queue = GradingQueue(course, tmp_path, QueueOptions(jobs=1, timeout=60))
    queue.start()
    try:
        assert wait_until(lambda: all(course.submission(n).status == "done" for n in numbers))
    finally:
        queue.stop()
    assert fake.calls["c"]["name"] == "Cy" and fake.calls["b"]["name"] == ""
    assert fake.calls["c"]["env"] == {
        PROGRESS_VARIABLE: str((tmp_path / "work" / str(numbers[0]) / "progress.jsonl")
                               .resolve())}
    # Below the web process's priority (grader.classroom.priority), every grade alike.
    assert fake.calls["c"]["nice"] == fake.calls["b"]["nice"] == priority.GRADING_NICE > 0


def test_reconfigure_grades_new_submissions_under_the_new_options(
        tmp_path: Path, course: Store, fake: FakeGrades):
    config = tmp_path / "rubric.cfg"
    config.write_text("[rubric]\nscores = 20\n")
    queue = GradingQueue(course, tmp_path, QueueOptions(jobs=1, timeout=60))
    grading = GradingOptions(config=config)
    queue.reconfigure(grading)
    assert queue.options.grading == grading and queue.options.jobs == 1
    assert queue.label == config_label(grading) != "default"
    assert queue.weights["scores"] == 20
    fake.expect("b")
    fake.release["b"].set()
    number = hand_in(course, "b")
    queue.start()
    try:
        assert wait_until(lambda: course.submission(number).status == "done")
    finally:
        queue.stop()
    # Graded as the course's assignment (the minimax: it holds no other), under the options.
    assert fake.calls["b"]["options"] == dataclasses.replace(grading, assignment="minimax")
    assert course.submission(number).config == queue.label


def test_a_configuration_that_cannot_be_read_changes_nothing(tmp_path: Path, course: Store):
    bad = tmp_path / "bad.cfg"
    bad.write_text("[rubric]\nscores = lots\n")
    queue = GradingQueue(course, tmp_path, QueueOptions(jobs=1, timeout=60))
    with pytest.raises(ConfigError):
        queue.reconfigure(GradingOptions(config=bad))
    assert (queue.label, queue.options.grading) == ("default", GradingOptions())


def test_the_recent_runs_start_from_what_the_database_has(tmp_path: Path, course: Store):
    for seconds in (3.0, 5.0):
        number = hand_in(course, "b")
        course.claim_next("grade_0")
        course.finish(number, score=1.0, max_score=100.0, results_json="{}", report_text="",
                      seconds=seconds)
    queue = GradingQueue(course, tmp_path, QueueOptions(jobs=1, timeout=60))
    assert queue.recent_seconds() == course.recent_seconds() == [5.0, 3.0]
