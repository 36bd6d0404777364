"""The page's gradebooks of a course of several assignments (issue 35):
``/api/gradebook.csv?format=canvas|moodle|plain`` has a grade column (Canvas, Moodle) or
four (plain: the grader's score, the penalty, the adjustment, the final score) per
assignment, in the course's order; ``?assignment=NAME`` restricts it to one.

Each value is the final score of the assignment's counted hand-in, by its own choice
(test_class_by_assignment's course): the minimax counts the latest (Alice 70 + 5 = 75; Bob
60, on time by his extension), the Monte Carlo the best under its own 20%/day (Alice 85,
not her latest 50; Bob 90 - 20 = 70). Carol is on the roster with nothing handed in.

Canvas's columns are the batch writer's tests' (tests/classroom/test_lms.py), then a column
per assignment named by its title: Canvas's import matches "Name (id)" to an existing
assignment and offers to create one for a name without an id (the existing single
assignment export's CanvasFormat docstring, grader/classroom/lms.py).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from test_class_by_assignment import two_assignment_course  # noqa: E402
from test_page_gradebooks import CANVAS_COLUMNS, MOODLE_IDENTIFIERS  # noqa: E402

MINIMAX, MONTECARLO = "Mini-max Tic-Tac-Toe", "Monte Carlo Tic-Tac-Toe"   # their titles


@pytest.fixture
def course(tmp_path: Path):
    made, _ = two_assignment_course(tmp_path)
    made.store.upsert_students([("carol", "Carol Shaw", "carol@example.org")])
    yield made
    made.store.close()


def _read(answer) -> tuple[list[str], list[dict[str, str]], str]:
    assert answer.status_code == 200, answer.text
    reader = csv.DictReader(io.StringIO(answer.content.decode("utf-8-sig")))
    lines = list(reader)
    return list(reader.fieldnames or []), lines, answer.headers["content-disposition"]


def test_canvas_has_a_column_per_assignment_named_by_its_title(course):
    header, lines, name = _read(course.api().get("/api/gradebook.csv?format=canvas"))
    assert header == CANVAS_COLUMNS + [MINIMAX, MONTECARLO]
    by_sis = {line["SIS User ID"]: line for line in lines}
    assert set(by_sis) == {"alice", "bob"}            # carol: nothing graded, no line
    assert (by_sis["alice"][MINIMAX], by_sis["alice"][MONTECARLO]) == ("75", "85")
    assert (by_sis["bob"][MINIMAX], by_sis["bob"][MONTECARLO]) == ("60", "70")
    assert by_sis["alice"]["Student"] == "Alice Liddell"
    assert "gradebook-canvas.csv" in name


def test_moodle_has_an_identifier_then_a_column_per_assignment(course):
    header, lines, name = _read(course.api().get("/api/gradebook.csv?format=moodle"))
    assert MOODLE_IDENTIFIERS <= set(header) and header[-2:] == [MINIMAX, MONTECARLO]
    by_email = {line["Email address"]: line for line in lines}
    assert set(by_email) == {"alice@example.org", "bob@example.org"}
    assert (by_email["alice@example.org"][MINIMAX],
            by_email["alice@example.org"][MONTECARLO]) == ("75", "85")
    assert (by_email["bob@example.org"][MINIMAX],
            by_email["bob@example.org"][MONTECARLO]) == ("60", "70")
    assert "moodle" in name


def test_plain_has_the_four_words_per_assignment(course):
    header, lines, name = _read(course.api().get("/api/gradebook.csv?format=plain"))
    assert header == ["student_id", "name", "email",
                      "minimax score", "minimax penalty", "minimax adjustment",
                      "minimax final_score", "montecarlo score", "montecarlo penalty",
                      "montecarlo adjustment", "montecarlo final_score"]
    book = {line["student_id"]: line for line in lines}

    def four(student: str, assignment: str) -> tuple[str, ...]:
        return tuple(book[student][f"{assignment} {word}"]
                     for word in ("score", "penalty", "adjustment", "final_score"))

    assert four("alice", "minimax") == ("70", "", "5", "75")
    assert four("alice", "montecarlo") == ("85", "", "", "85")       # her best, not 50
    assert four("bob", "minimax") == ("60", "", "", "60")            # his extension
    assert four("bob", "montecarlo") == ("90", "-20", "", "70")      # its own 20%/day
    assert four("carol", "minimax") == four("carol", "montecarlo") == ("", "", "", "")
    assert "test" not in book                    # the LMS's test student, nothing handed in
    assert "gradebook.csv" in name


def test_a_choice_asked_holds_for_every_assignment(course):
    _, lines, name = _read(course.api().get("/api/gradebook.csv?format=plain&choice=latest"))
    alice = {line["student_id"]: line for line in lines}["alice"]
    assert (alice["minimax final_score"], alice["montecarlo final_score"]) == ("75", "50")
    assert "gradebook-latest.csv" in name


def test_one_assignment_of_several_is_its_own_gradebook(course):
    header, lines, name = _read(course.api().get(
        "/api/gradebook.csv?format=canvas&assignment=montecarlo"))
    assert header == CANVAS_COLUMNS + [MONTECARLO]
    assert {line["SIS User ID"]: line[MONTECARLO] for line in lines} == {"alice": "85",
                                                                        "bob": "70"}
    assert "gradebook-montecarlo-best-canvas.csv" in name
    # plain: batch's gradebook of that assignment, with its records' columns
    _, lines, name = _read(course.api().get("/api/gradebook.csv?assignment=montecarlo"))
    bob = {line["student_id"]: line for line in lines}["bob"]
    assert (bob["score"], bob["penalty"], bob["final_score"], bob["late"]) == \
        ("90", "-20", "70", "late")
    assert "gradebook-montecarlo-best.csv" in name


def test_an_assignment_the_course_has_not_is_refused(course):
    answer = course.api().get("/api/gradebook.csv?format=canvas&assignment=Minimax (777)")
    assert answer.status_code == 400
    said = answer.json()["error"]
    assert f"minimax: '{MINIMAX}', montecarlo: '{MONTECARLO}'" in said
    assert 'PUT /api/assignments/NAME {"title": "Minimax (12345)"}' in said
    assert course.api("alice").get("/api/gradebook.csv?format=canvas").status_code == 403


def test_the_documented_canvas_column_of_an_assignment_of_two(course):
    """submission-page.md: name the column as Canvas's export does (its title), then ask
    for it by the assignment's name or by that title."""
    api = course.api()
    assert api.put("/api/assignments/minimax",
                   json={"title": "Minimax (12345)"}).status_code == 200
    for asked in ("minimax", "Minimax%20(12345)"):
        header, lines, _ = _read(api.get(f"/api/gradebook.csv?format=canvas&assignment={asked}"))
        assert header == CANVAS_COLUMNS + ["Minimax (12345)"]
        assert {line["SIS User ID"]: line["Minimax (12345)"] for line in lines} == {
            "alice": "75", "bob": "60"}
