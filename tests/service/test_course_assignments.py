"""A course folder made before a course held assignments opens as a course of one assignment,
the minimax, with nothing lost (issue 35, item 5).

The fixture ``fixtures/course-v8/`` was written by the code of commit 1f3431d (schema version
8; its ``build.py`` says how): two students, a graded hand-in each (ada's 57.3 with a +5
adjustment, on time; alan's 100, late for the course but inside his own deadline), the
course's dates and late policy, an LMS bound to the course with a line item and a grade
waiting in the outbox. A copy is opened as the server opens it (``app.open_store``: the
schema steps run) and served by the course's application in process (``create_app`` through
Starlette's TestClient, without its lifespan: no grading thread and no outbox delivery, which
would call the fixture's LMS on the network).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Iterator

import pytest

pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from grader.service.app import ServiceSettings, create_app, open_store  # noqa: E402
from grader.service.course import course_assignments, course_dates, record_queries  # noqa: E402
from grader.service.course.schema import VERSION, stored_version  # noqa: E402
from grader.service.course.storage import Store  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "course-v8"
ADA_FINAL = 57.3 + 5.0          # the grader's, plus the instructor's adjustment; on time
ALAN_FINAL = 100.0              # handed in on 2 Dec, inside his own deadline (5 Dec): no penalty


class OldCourse:
    """The fixture's copy, opened as the server opens it, and its application."""

    def __init__(self, folder: Path) -> None:
        shutil.copytree(FIXTURE, folder)
        self.store: Store = open_store(folder)
        self.app = create_app(ServiceSettings(data=folder), self.store)

    def instructor(self) -> TestClient:
        return TestClient(self.app, headers={
            "authorization": f"Bearer {self.store.instructor_token()}"})

    def final_scores(self, assignment: str = "") -> dict[str, float]:
        """The gradebook's final score of each student (``/api/gradebook.csv``; of one
        assignment, in a course of several: there the whole file has a column per
        assignment)."""
        query = f"?assignment={assignment}" if assignment else ""
        answer = self.instructor().get(f"/api/gradebook.csv{query}")
        assert answer.status_code == 200, answer.text
        rows = csv.DictReader(io.StringIO(answer.text.lstrip("\ufeff")))
        return {row["student_id"]: float(row["final_score"]) for row in rows}


@pytest.fixture
def course(tmp_path: Path) -> Iterator[OldCourse]:
    opened = OldCourse(tmp_path / "course")
    yield opened
    opened.store.close()


def test_the_fixture_is_a_course_before_assignments() -> None:
    """The fixture itself stays as the old code wrote it (the test below proves the step)."""
    from grader.service.course.database import Database
    database = Database(FIXTURE / "course.sqlite3")
    try:
        assert stored_version(database) == 8
        assert not database.one("SELECT 1 FROM sqlite_master WHERE name = 'assignments'")
    finally:
        database.close()


def test_an_old_course_opens_with_one_assignment_and_nothing_lost(course: OldCourse) -> None:
    store = course.store
    assert stored_version(store.database) == VERSION >= 9

    # The students and their links: the instructor's link still signs in.
    assert [(s.id, s.name) for s in store.students()] == [("ada", "Ada Lovelace"),
                                                         ("alan", "Alan Turing")]
    browser = TestClient(course.app, follow_redirects=False)
    assert browser.get(f"/s/{store.instructor_token()}").status_code == 303
    assert browser.get("/instructor").status_code == 200
    student = TestClient(course.app, follow_redirects=False)
    assert student.get(f"/s/{store.student_token('ada')}").status_code == 303
    assert "Ada Lovelace" in student.get("/").text

    # One assignment, the minimax, holding both hand-ins with their scores.
    assert [one.name for one in course_assignments.listing(store)] == ["minimax"]
    listed = course.instructor().get("/api/assignments").json()["assignments"]
    assert [one["name"] for one in listed] == ["minimax"]
    hand_ins = {row.student: row for name in ("ada", "alan") for row in store.history(name)}
    assert {name: (row.assignment, row.status, row.score) for name, row in hand_ins.items()} == {
        "ada": ("minimax", "done", 57.3), "alan": ("minimax", "done", 100.0)}
    adjustment = record_queries.adjustments(store)[hand_ins["ada"].id]
    assert (adjustment.points, adjustment.note) == (5.0, "a good explanation")

    # The course's dates, now the minimax's (it has none of its own), and alan's own deadline.
    dates = {"deadline": "2026-12-01T22:59:00.000000Z",
             "late_deadline": "2026-12-03T22:59:00.000000Z",
             "late_penalty": "10%/day,max=50%", "choice": "best"}
    for assignment in (None, "minimax"):
        shown = course_dates.read(store, assignment).json()
        assert {key: shown[key] for key in dates} == dates
    course_deadlines = course_dates.read(store, "minimax").deadlines
    own, is_own = record_queries.deadlines_of(store, "alan", course_deadlines, "minimax")
    assert is_own and own.deadline.isoformat().startswith("2026-12-05T22:59")
    assert not record_queries.deadlines_of(store, "ada", course_deadlines, "minimax")[1]

    # The LMS: the course's binding, its line item (now the minimax's), the pending grade.
    assert json.loads(store.get_setting("lti_binding")) == {
        "platform": 1, "deployment_id": "1:abc", "context_id": "ctx-42"}
    items = store.database.query("SELECT resource_link_id, url, assignment FROM lti_lineitems")
    assert [tuple(row) for row in items] == [(
        "link-minimax", "https://canvas.example.edu/api/lti/courses/42/line_items/7",
        "minimax")]
    waiting = store.database.query("SELECT student, submission, score_given, status "
                                   "FROM lti_outbox")
    assert [tuple(row) for row in waiting] == [("ada", hand_ins["ada"].id, 62.3, "pending")]
    users = store.database.query("SELECT sub, student FROM lti_users")
    assert [tuple(row) for row in users] == [("sub-ada", "ada")]

    # The exports: the same final scores as the old code gave.
    assert course.final_scores() == pytest.approx({"ada": ADA_FINAL, "alan": ALAN_FINAL})


def test_adding_montecarlo_leaves_the_old_hand_ins_the_minimaxs(course: OldCourse) -> None:
    instructor = course.instructor()

    added = instructor.post("/api/assignments", json={"name": "montecarlo"})

    assert added.status_code == 201, added.text
    listed = instructor.get("/api/assignments").json()["assignments"]
    assert [one["name"] for one in listed] == ["minimax", "montecarlo"]
    store = course.store
    assert {row.assignment for name in ("ada", "alan") for row in store.history(name)} == {
        "minimax"}
    assert store.history("ada", "montecarlo") == []
    # alan's own deadline is the minimax's only; the Monte Carlo takes the course's dates.
    montecarlo_dates = course_dates.read(store, "montecarlo").deadlines
    assert not record_queries.deadlines_of(store, "alan", montecarlo_dates, "montecarlo")[1]
    assert record_queries.deadlines_of(
        store, "alan", course_dates.read(store, "minimax").deadlines, "minimax")[1]
    history = TestClient(course.app, headers={
        "authorization": f"Bearer {store.student_token('ada')}"}).get("/api/submissions")
    assert [(row["assignment"], row["final_score"]) for row in history.json()[
        "submissions"]] == [("minimax", pytest.approx(ADA_FINAL))]
    assert course.final_scores("minimax") == pytest.approx({"ada": ADA_FINAL,
                                                            "alan": ALAN_FINAL})


def test_a_new_course_closes_its_minimax_on_the_assignments_page(tmp_path: Path) -> None:
    """A course that holds no assignment yet grades the minimax; closing it on the page
    makes it a row of its own, closed (it was an error page)."""
    from test_course_records import Course, _csrf
    made = Course(tmp_path / "new")
    try:
        teacher = made.browser("instructor")
        token = _csrf(teacher, "/instructor/assignments")
        answer = teacher.post("/instructor/assignments", data={
            "csrf": token, "action": "close", "name": "minimax"})
        assert answer.status_code == 303, answer.text
        listed = made.api().get("/api/assignments").json()["assignments"]
        assert [(one["name"], one["open"]) for one in listed] == [("minimax", False)]
        refused = made.api("alice").post("/api/submissions", files={
            "file": ("mm_player.py", b"def mm_move(board, player):\n    return 0, (-1, -1)\n")})
        assert refused.status_code == 400
        assert "no assignment of this course takes hand-ins now" in refused.json()["error"]
    finally:
        made.store.close()
