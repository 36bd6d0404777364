"""A course's assignments change only as the instructor says, through the doors they use (the
JSON API and the Assignments page, over the course's application in process: Starlette's
TestClient, no grading thread): adding one keeps every other, the minimax a new course lists
included; taking one out is its own action, refused with the count while it has hand-ins;
a refused request changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from test_course_records import Course, _csrf

from course_dump import dump


@pytest.fixture
def course(tmp_path: Path) -> Iterator[Course]:
    made = Course(tmp_path / "course")
    yield made
    made.store.close()


def names(course: Course) -> list[str]:
    return [one["name"] for one in course.api().get("/api/assignments").json()["assignments"]]


def test_adding_the_monte_carlo_to_a_new_course_keeps_its_minimax(course: Course) -> None:
    assert names(course) == ["minimax"]          # listed before the course holds any row

    added = course.api().post("/api/assignments", json={"name": "montecarlo"})

    assert added.status_code == 201, added.text
    assert names(course) == ["minimax", "montecarlo"]
    # The minimax's form is still the students' (their page offers it).
    assert "minimax" in course.browser("alice").get("/?assignment=minimax").text


def test_adding_on_the_page_keeps_the_minimax(course: Course) -> None:
    teacher = course.browser("instructor")
    answer = teacher.post("/instructor/assignments", data={
        "csrf": _csrf(teacher, "/instructor/assignments"), "action": "add",
        "name": "montecarlo"})
    assert answer.status_code == 303, answer.text
    assert names(course) == ["minimax", "montecarlo"]


@pytest.mark.parametrize("body, course_dates", [
    # The late deadline before the deadline, in the request itself.
    ({"name": "montecarlo", "deadline": "2026-12-15T23:59",
      "late_deadline": "2026-12-01T23:59"}, None),
    # A deadline alone, after the course's late deadline (which the assignment would keep).
    ({"name": "montecarlo", "deadline": "2026-12-15T23:59"},
     {"deadline": "2026-11-25T23:59", "late_deadline": "2026-12-01T23:59"}),
])
def test_a_refused_add_changes_nothing(course: Course, body: dict, course_dates) -> None:
    if course_dates:
        assert course.api().put("/api/course", json=course_dates).status_code == 200
    before = dump(course.store)

    answer = course.api().post("/api/assignments", json=body)

    assert answer.status_code == 400
    assert answer.json()["error"].startswith("the late deadline is before the deadline")
    assert dump(course.store) == before
    assert names(course) == ["minimax"]


def test_taking_one_out_is_refused_with_the_count_while_it_has_hand_ins(course: Course) -> None:
    api = course.api()
    assert api.post("/api/assignments", json={"name": "montecarlo"}).status_code == 201
    course.graded("alice", 40.0)
    course.graded("alice", 60.0)
    course.graded("bob", 90.0)
    before = dump(course.store)

    refused = api.delete("/api/assignments/minimax")

    assert refused.status_code == 409
    assert "has 3 hand-ins (of 2 students)" in refused.json()["error"]
    assert "close it instead" in refused.json()["error"]
    assert dump(course.store) == before
    assert api.delete("/api/assignments/nosuch").status_code == 404


def test_taking_one_out_without_hand_ins(course: Course) -> None:
    api = course.api()
    assert api.post("/api/assignments", json={"name": "montecarlo"}).status_code == 201
    assert api.put("/api/assignments/montecarlo/students/bob/deadline",
                   json={"deadline": "2026-12-20T23:59"}).status_code == 200
    listed = api.get("/api/assignments").json()["assignments"]
    assert [(one["name"], one["hand_ins"]) for one in listed] == [("minimax", 0),
                                                                  ("montecarlo", 0)]
    teacher = course.browser("instructor")
    page = teacher.get("/instructor/assignments").text
    assert page.count('value="remove"') == 2     # each can go while it has no hand-ins

    answer = teacher.post("/instructor/assignments", data={
        "csrf": _csrf(teacher, "/instructor/assignments"), "action": "remove",
        "name": "montecarlo"})

    assert answer.status_code == 303, answer.text
    assert names(course) == ["minimax"]
    assert course.store.database.query("SELECT * FROM student_deadlines") == []
    kept = course.api().get("/api/course")       # the change log says what went
    assert kept.status_code == 200
    last = course.store.database.one("SELECT * FROM changes WHERE kind = 'assignment' "
                                     "ORDER BY id DESC LIMIT 1")
    assert last["subject"] == "montecarlo" and last["after"] is None
    assert '"bob"' in last["before"]
    # The course's only one stays.
    alone = course.api().delete("/api/assignments/minimax")
    assert alone.status_code == 409 and "the course's only one" in alone.json()["error"]
    assert 'value="remove"' not in teacher.get("/instructor/assignments").text


def test_adding_the_minimax_a_new_course_lists_makes_it_a_row_once(course: Course) -> None:
    api = course.api()
    assert api.post("/api/assignments", json={"name": "minimax"}).status_code == 201
    assert api.post("/api/assignments", json={"name": "montecarlo"}).status_code == 201
    assert names(course) == ["minimax", "montecarlo"]
    again = api.post("/api/assignments", json={"name": "minimax"})
    assert again.status_code == 400 and "already" in again.json()["error"]


def test_the_course_dates_page_says_which_assignments_follow_it(course: Course) -> None:
    api = course.api()
    assert "without dates of its own" not in course.browser("instructor").get(
        "/instructor/course").text                       # a course of one: as it was
    assert api.post("/api/assignments", json={"name": "montecarlo",
                                              "deadline": "2026-12-15T23:59"}).status_code == 201
    page = course.browser("instructor").get("/instructor/course").text
    assert ("those of each assignment without dates of its own: Mini-max Tic-Tac-Toe "
            "(<code>minimax</code>).") in page
