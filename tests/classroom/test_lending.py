"""A grade whose student's code sleeps lends its CPU: the batch starts the next grade there.

``grader.sandbox.cpu.lend`` (the grade says so), ``run_grade(lend=...)`` (the runner hears
it) and ``LocalRunner`` (the next grade starts on the lent slot; at most ``jobs`` compute);
``grader serve``'s queue grades on the same slots, so a real sleeper there lends too.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from grader.classroom import run
from grader.classroom.discover import Submission
from grader.classroom.run import Attempt, GradingOptions, Job, LocalRunner, run_grade

SUBMISSIONS = Path(__file__).resolve().parents[1] / "submissions"
SLEEPER = SUBMISSIONS / "timing" / "sleeper.py"      # sleeps an hour in every call
PRUNED = SUBMISSIONS / "grader" / "correct_pruned.py"


class FakeGrades:
    """Stands in for run_grade: each student's grade waits until the test lets it end; a
    student named "lends..." lends its CPU first."""

    def __init__(self, hold: float = 0.0) -> None:
        self.hold = hold   # seconds each grade lasts at least
        self.started: dict[str, threading.Event] = {}
        self.release: dict[str, threading.Event] = {}
        self.slots: dict[str, int | None] = {}
        self.names: dict[str, str] = {}
        self.order: list[str] = []

    def expect(self, *students: str) -> None:
        for student in students:
            self.started[student] = threading.Event()
            self.release[student] = threading.Event()

    def __call__(self, path, student, options, scratch, timeout, should_stop, slot=None,
                 env=None, lend=None, student_name="", nice=0, helpers=False) -> Attempt:
        self.slots[student] = slot
        self.names[student] = student_name
        self.order.append(student)
        if student.startswith("lends") and lend is not None:
            lend()
        self.started[student].set()
        assert self.release[student].wait(30)
        time.sleep(self.hold)
        return Attempt(student, 0, "{}")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeGrades:
    grades = FakeGrades()
    monkeypatch.setattr(run, "run_grade", grades)
    return grades


@contextlib.contextmanager
def runner_for(fake: FakeGrades, jobs: int) -> Iterator[LocalRunner]:
    """A LocalRunner; at the end every fake grade is let go and the runner closed."""
    runner = LocalRunner(jobs=jobs)
    try:
        yield runner
    finally:
        for event in fake.release.values():
            event.set()
        runner.close()


def job(student: str, tmp_path: Path, name: str = "") -> Job:
    return Job(Submission(student, tmp_path / f"{student}.py"), GradingOptions(),
               tmp_path / student, student_name=name)


def test_the_next_grade_starts_on_the_cpu_a_sleeping_grade_lends(
        tmp_path: Path, fake: FakeGrades) -> None:
    fake.expect("lends_a", "b", "c")
    with runner_for(fake, jobs=1) as runner:
        first = runner.submit(job("lends_a", tmp_path))
        second = runner.submit(job("b", tmp_path))
        third = runner.submit(job("c", tmp_path))
        assert fake.started["b"].wait(30)          # while lends_a still runs
        assert fake.slots["b"] == fake.slots["lends_a"] == 0
        # b holds the only slot and lends nothing: c waits for it, lends_a's end or not.
        fake.release["lends_a"].set()
        assert first.result(30).student_id == "lends_a"
        assert not fake.started["c"].wait(0.5)
        fake.release["b"].set()
        assert fake.started["c"].wait(30) and fake.slots["c"] == 0
        fake.release["c"].set()
        assert [f.result(30).student_id for f in (second, third)] == ["b", "c"]


def test_a_slot_freed_outright_goes_before_a_lent_one(
        tmp_path: Path, fake: FakeGrades) -> None:
    fake.expect("lends_a", "x", "b", "c")
    with runner_for(fake, jobs=2) as runner:
        runner.submit(job("lends_a", tmp_path))
        assert fake.started["lends_a"].wait(30) and fake.slots["lends_a"] == 0
        ended = runner.submit(job("x", tmp_path))
        assert fake.started["x"].wait(30) and fake.slots["x"] == 1
        fake.release["x"].set()
        ended.result(30)   # slot 1 is free outright now, slot 0 was lent before
        runner.submit(job("b", tmp_path))
        assert fake.started["b"].wait(30) and fake.slots["b"] == 1   # the idle CPU first
        runner.submit(job("c", tmp_path))
        assert fake.started["c"].wait(30) and fake.slots["c"] == 0   # then the lent one


def test_grades_start_in_the_order_they_were_submitted(
        tmp_path: Path, fake: FakeGrades) -> None:
    # A thread that ends a grade picks up the next job at once: it must not take the slot
    # it just gave back ahead of a grade that has been waiting for one.
    fake.hold = 0.02
    students = [f"s{number:02d}" for number in range(16)]
    fake.expect(*students)
    for student in students:
        fake.release[student].set()   # each ends soon after it starts
    with runner_for(fake, jobs=2) as runner:
        futures = [runner.submit(job(student, tmp_path)) for student in students]
        assert [future.result(30).student_id for future in futures] == students
        # Slots go out in order; two grades given theirs at once may start either way round.
        late = max(fake.order.index(student) - place for place, student in enumerate(students))
        assert late <= 3, fake.order


def test_a_job_passes_its_students_name_to_the_grade(tmp_path: Path, fake: FakeGrades) -> None:
    fake.expect("a", "b")
    with runner_for(fake, jobs=1) as runner:
        futures = [runner.submit(job("a", tmp_path, "Ada Lovelace")),
                   runner.submit(job("b", tmp_path))]
        for event in fake.release.values():
            event.set()
        assert [future.result(30).student_id for future in futures] == ["a", "b"]
    assert fake.names == {"a": "Ada Lovelace", "b": ""}


def test_a_slot_taken_and_left_unused_goes_to_the_next(tmp_path: Path) -> None:
    runner = LocalRunner(jobs=1)
    try:
        with runner.slot() as slot:
            assert slot is not None and slot.index == 0
            slot.lend()
            with runner.slot() as lent:            # the lent CPU, while the first holds it
                assert lent is not None and lent.index == 0
        with runner.slot() as again:
            assert again is not None and again.index == 0
        runner.stop()
        with runner.slot() as none:
            assert none is None
    finally:
        runner.close()


def test_a_stopped_runner_starts_nothing_that_waits_for_a_slot(
        tmp_path: Path, fake: FakeGrades) -> None:
    fake.expect("a", "b")
    with runner_for(fake, jobs=1) as runner:
        first = runner.submit(job("a", tmp_path))
        second = runner.submit(job("b", tmp_path))
        assert fake.started["a"].wait(30)
        runner.stop()
        assert second.result(30).stopped and not fake.started["b"].is_set()
        fake.release["a"].set()
        assert first.result(30).student_id == "a"


# The sleeper's real grade (10 s) runs with -m slow: in the default run, the submission
# page's test below grades the same sleeper through the same slots and shows it lending.
@pytest.mark.parametrize("submission, lends",
                         [pytest.param(SLEEPER, True, marks=pytest.mark.slow), (PRUNED, False)],
                         ids=["sleeper", "correct"])
def test_a_real_grade_lends_its_cpu_only_when_its_student_sleeps(
        submission: Path, lends: bool, tmp_path: Path) -> None:
    lent: list[bool] = []
    attempt = run_grade(submission, "student", GradingOptions(), tmp_path / "scratch",
                        lend=lambda: lent.append(True))
    assert attempt.complete, attempt.errors
    assert lent == ([True] if lends else [])   # once at most
    score = json.loads(attempt.results or "{}")["score"]
    assert (score == 0) if lends else (score == 100)


@pytest.mark.long
def test_the_submission_page_starts_the_next_submission_on_a_sleepers_cpu(
        tmp_path: Path) -> None:
    # grader serve's queue, jobs=1: a sleeper, then a correct file. The correct one starts
    # (and here ends) while the sleeper is still being graded on the same CPU.
    from grader.service.course.storage import Store
    from grader.service.queue import GradingQueue, QueueOptions
    store = Store(tmp_path / "course.sqlite3", b"k" * 32)
    store.upsert_students([("sleepy", "", ""), ("quick", "Quick Student", "")])
    sleeper = store.add_submission("sleepy", "mm_player.py", SLEEPER.read_bytes(), late=False,
                                   config="default").id
    correct = store.add_submission("quick", "mm_player.py", PRUNED.read_bytes(), late=False,
                                   config="default").id
    queue = GradingQueue(store, tmp_path, QueueOptions(jobs=1, timeout=600))
    queue.start()
    try:
        overlapped = False
        give_up = time.monotonic() + 300
        while time.monotonic() < give_up:
            # The correct one's status first, then the sleeper's: if the correct one has
            # started and the sleeper is read as running after that, both ran at once.
            started = store.submission(correct).status != "queued"
            sleeping = store.submission(sleeper).status == "running"
            if started:
                overlapped = sleeping
                break
            time.sleep(0.05)
        assert overlapped, (store.submission(sleeper).status, store.submission(correct).status)
        # The correct one ends while the sleeper still waits out its limits (the sleeper's
        # own verdict is the batch's test above, with -m slow): stopping the queue then
        # releases the sleeper, as a server stopping does.
        while time.monotonic() < give_up and store.submission(correct).status in ("queued",
                                                                                   "running"):
            time.sleep(0.1)
        assert store.submission(sleeper).status == "running"      # still, on the same CPU
        quick = store.submission(correct)
        assert (quick.status, quick.score) == ("done", 100)
        assert "Quick Student" in quick.report_text
    finally:
        queue.stop()
        store.close()
