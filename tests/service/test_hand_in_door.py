"""The hand-in door of a course of both assignments, through the JSON API: a hand-in is for
the assignment named, else the one whose functions the file defines, else it is refused
naming the open ones; never the only open one because it is. A refusal changes nothing in
the course (every hand-in, grade, adjustment and record compared before and after).

The course's application runs in this process (Starlette's TestClient) without its
lifespan: its queue never starts, so nothing is graded and the filed rows prove where each
hand-in went. Each file is checked by the page's checking child, as in production; the
test's process patches ``compile`` to prove the web process never compiles a hand-in.
"""

from __future__ import annotations

import asyncio
import builtins
from pathlib import Path
from typing import Any, Iterator

import pytest
from starlette.testclient import TestClient

from grader.service.app import create_app, open_store
from grader.service.course import course_assignments, record_queries
from grader.service.course.checking import Checker, CheckerBusy, CheckLimits
from grader.service.course.storage import Store
from grader.service.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[2]
MINIMAX = (ROOT / "tests" / "submissions" / "grader" / "correct_pruned.py").read_bytes()
MONTECARLO = (ROOT / "grader" / "assignments" / "montecarlo" / "submissions"
              / "correct_clone.py").read_bytes()
NEITHER = b"def play(board, player):\n    return (0, 0)\n"
# About 13 s of CPU to compile a 256 KiB one; this one is stopped at the check's CPU limit.
SLOW = b'x = f"' + b"{a}" * 40_000 + b'"\n'
RECORDS = ("submissions", "adjustments", "changes", "student_deadlines", "lti_outbox",
           "earlier_results", "result_facts", "assignments", "assignment_settings")


def course_data(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Everything a hand-in could change in the course: every row of its records."""
    return {table: [tuple(row) for row in store.database.query(
        f"SELECT * FROM {table} ORDER BY rowid")] for table in RECORDS}


class Course:
    """A course of the minimax and the Monte Carlo assignments, students ada, alan and
    grace, served in this process; ``api(who)`` is a student's JSON client."""

    def __init__(self, data: Path, limits: CheckLimits | None = None, per_hour: int = 10) -> None:
        self.store = open_store(data)
        self.store.ensure_instructor()
        self.store.upsert_students([(name, name.title(), f"{name}@example.org")
                                    for name in ("ada", "alan", "grace")])
        course_assignments.add(self.store, "minimax", who="instructor")
        course_assignments.add(self.store, "montecarlo", who="instructor")
        self.app = create_app(ServiceSettings(data=data, per_hour=per_hour), self.store)
        if limits is not None:
            self.app.state.checker = Checker(limits)

    def api(self, who: str) -> TestClient:
        return TestClient(self.app, headers={
            "authorization": f"Bearer {self.store.student_token(who)}"})

    def hand_in(self, who: str, name: str, data: bytes, assignment: str | None = None) -> Any:
        return self.api(who).post("/api/submissions", files={"file": (name, data)},
                                  data={"assignment": assignment} if assignment else None)

    def graded(self, who: str, assignment: str, score: float) -> int:
        """A hand-in of ``who`` graded ``score`` as the queue stores it (no grading run)."""
        row = self.store.add_submission(who, "mm_player.py", MINIMAX, late=False,
                                        config="default", assignment=assignment)
        claimed = self.store.claim_next("test")
        assert claimed is not None and claimed.id == row.id
        self.store.finish(row.id, score=score, max_score=100.0, results_json="{}",
                          report_text="report", seconds=1.0)
        return row.id


@pytest.fixture
def course(tmp_path: Path) -> Iterator[Course]:
    made = Course(tmp_path / "course")
    yield made
    made.store.close()


def test_a_file_for_the_other_assignment_or_for_none_is_refused_and_changes_nothing(course):
    """Before: with the Monte Carlo closed, a Monte Carlo file sent without ``assignment``
    went to the only open one (the minimax), graded 0, replacing the student's 100 and
    dropping their adjustment; with ``assignment=minimax`` a file without mm_move too."""
    number = course.graded("ada", "minimax", 100.0)
    record_queries.set_adjustment(course.store, number, -5, "docstrings", who="instructor")
    course_assignments.update(course.store, "montecarlo", who="instructor", opened=False)
    before = course_data(course.store)

    closed = course.hand_in("ada", "mc_player.py", MONTECARLO)
    for_minimax = course.hand_in("ada", "mc_player.py", MONTECARLO, "minimax")
    neither = course.hand_in("ada", "player.py", NEITHER, "minimax")
    unnamed = course.hand_in("ada", "player.py", NEITHER)

    assert closed.status_code == 400
    assert "Monte Carlo Tic-Tac-Toe (montecarlo) is closed" in closed.json()["error"]
    assert for_minimax.status_code == 400
    said = for_minimax.json()["error"]
    assert "is not a hand-in for Mini-max Tic-Tac-Toe: it does not define " \
           "mm_move(board, player)" in said
    assert "It looks like a Monte Carlo Tic-Tac-Toe player (mc_player.py" in said
    assert "that assignment (montecarlo) is closed" in said
    assert neither.status_code == 400 and "does not define mm_move" in neither.json()["error"]
    assert "hand in your mm_player.py" in neither.json()["error"]
    assert unnamed.status_code == 400
    assert "say which assignment this hand-in is for" in unnamed.json()["error"]
    assert "open now: Mini-max Tic-Tac-Toe (minimax)" in unnamed.json()["error"]
    assert course_data(course.store) == before


def test_each_file_lands_on_its_own_assignment_one_in_flight_each(course):
    """Before: the second hand-in (the other assignment's, at once) was refused 409."""
    carlo = course.hand_in("alan", "mc_player.py", MONTECARLO)
    minimax = course.hand_in("alan", "mm_player.py", MINIMAX)
    again = course.hand_in("alan", "mm_player.py", MINIMAX, "minimax")

    assert carlo.status_code == 201, carlo.text
    assert minimax.status_code == 201, minimax.text
    assert (carlo.json()["assignment"], minimax.json()["assignment"]) == ("montecarlo",
                                                                         "minimax")
    assert again.status_code == 409
    assert "your hand-in 1 of Mini-max Tic-Tac-Toe" in again.json()["error"]
    rows = course.store.history("alan")
    assert [(row.assignment, row.filename, row.status) for row in rows] == [
        ("minimax", "mm_player.py", "queued"), ("montecarlo", "mc_player.py", "queued")]


def test_the_hourly_limit_counts_every_assignment_together(tmp_path):
    """As the docs say: hand-ins per student per hour, all assignments together."""
    made = Course(tmp_path / "course", per_hour=2)
    try:
        for name, data in (("mc_player.py", MONTECARLO), ("mm_player.py", MINIMAX)):
            assert made.hand_in("ada", name, data).status_code == 201
        for _ in range(2):                           # graded: nothing in flight
            row = made.store.claim_next("test")
            made.store.finish(row.id, score=50.0, max_score=100.0, results_json="{}",
                              report_text="report", seconds=1.0)
        third = made.hand_in("ada", "mm_player.py", MINIMAX)
        assert third.status_code == 429
        assert "limit of hand-ins per hour (2, all assignments together)" in \
            third.json()["error"]
    finally:
        made.store.close()


def test_the_web_process_never_compiles_a_hand_in(course, monkeypatch):
    """Before: the page compiled each hand-in itself (a 256 KiB file held it 13 s)."""
    marker = b"# the student's own text, 7f3a\n"
    compiled: list[str] = []
    real = builtins.compile

    def spy(source: Any, *args: Any, **options: Any) -> Any:
        text = source if isinstance(source, bytes) else str(source).encode("utf-8", "replace")
        if marker in text:
            compiled.append(args[0] if args else "?")
        return real(source, *args, **options)

    monkeypatch.setattr(builtins, "compile", spy)
    answer = course.hand_in("grace", "mm_player.py", marker + MINIMAX)

    assert answer.status_code == 201, answer.text
    assert compiled == []


def test_a_file_slow_to_compile_is_refused_and_refusals_are_limited_per_student(tmp_path):
    made = Course(tmp_path / "course", CheckLimits(cpu_seconds=1, refused=3))
    try:
        before = course_data(made.store)
        slow = made.hand_in("ada", "mm_player.py", SLOW)
        assert slow.status_code == 400
        assert "takes more than 1 s of CPU just to be read as Python" in slow.json()["error"]
        # Stopped at its limit, it counts as the whole allowance: no check for a while.
        waited = made.hand_in("ada", "mm_player.py", MINIMAX)
        assert waited.status_code == 429
        assert "too many of your files were refused in the last 10 min" in \
            waited.json()["error"]
        assert 9 * 60 <= waited.json()["retry_after"] <= 10 * 60
        assert course_data(made.store) == before
        # Another student is not held: two refused files, then a right one.
        for _ in range(2):
            assert made.hand_in("alan", "x.py", NEITHER).status_code == 400
        assert made.hand_in("alan", "mm_player.py", MINIMAX).status_code == 201
    finally:
        made.store.close()


def test_one_check_per_student_at_a_time():
    """The checker: a student's second file waits for nothing (refused at once) while their
    first is checked; another student's is checked meanwhile."""
    async def both() -> tuple[Any, Any, Any]:
        checker = Checker()
        first = asyncio.create_task(checker.check("ada", "mm_player.py", MINIMAX))
        await asyncio.sleep(0)                  # the first check has started
        with pytest.raises(CheckerBusy) as second:
            await checker.check("ada", "mm_player.py", MINIMAX)
        other = await checker.check("alan", "mm_player.py", MINIMAX)
        return await first, second.value, other

    first, second, other = asyncio.run(both())
    assert "mm_move" in first.defined
    assert second.why == "checking"
    assert {"mm_move", "move_wrapper"} <= other.defined
