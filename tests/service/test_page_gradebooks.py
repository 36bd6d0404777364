"""The page exports the class's final scores as Canvas and Moodle import them (issue 35):
``/api/gradebook.csv?format=canvas|moodle|plain``, written by ``batch --gradebook-format``'s
writer (grader.classroom.lms) from the page's records, so a late penalty and an adjustment
reach the LMS's file, not only the server.

The importers' columns are the batch writer's tests' (tests/classroom/test_lms.py:
CANVAS_COLUMNS, MOODLE_IDENTIFIERS). Canvas matches a row by its SIS User ID alone, the
others empty (canvas-lms, spec/models/gradebook_importer_spec.rb: a row
``["", "", sis_user_id, "", "", 99]`` under ``Student, ID, SIS User ID, SIS Login ID,
Section, Assignment 1``), which is what the page fills from the roster's id.
"""

from __future__ import annotations

import csv
import importlib.util
import io
from datetime import timedelta
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from test_course_records import NOW, _past_deadline_course  # noqa: E402

from grader.service.course.records import LatePolicy  # noqa: E402


def _batch_lms_tests():
    """tests/classroom/test_lms.py, for the columns it holds each importer to."""
    path = Path(__file__).resolve().parents[1] / "classroom" / "test_lms.py"
    spec = importlib.util.spec_from_file_location("batch_lms_tests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LMS_TESTS = _batch_lms_tests()
CANVAS_COLUMNS = LMS_TESTS.CANVAS_COLUMNS
MOODLE_IDENTIFIERS = LMS_TESTS.MOODLE_IDENTIFIERS


@pytest.fixture
def course(tmp_path: Path):
    """Alice: 80 from the grader, 18 hours late (-10 by 10% a day), +5 from the instructor:
    75. Bob: 60, on time. Nobody else has anything graded."""
    made = _past_deadline_course(tmp_path, late_policy=LatePolicy.parse("10%/day,max=50%"))
    number = made.graded("alice", 80.0, received_at=NOW - timedelta(hours=18))
    answer = made.api().post(f"/api/submissions/{number}/adjustment",
                             json={"points": 5, "note": "the tie rule was mine"})
    assert answer.status_code == 200, answer.text
    made.graded("bob", 60.0, received_at=NOW - timedelta(days=2))
    made.store.upsert_students([("carol", "Carol Shaw", "carol@example.org")])
    yield made
    made.store.close()


def _read(answer) -> tuple[list[str], dict[str, dict[str, str]], str]:
    assert answer.status_code == 200, answer.text
    text = answer.content.decode("utf-8-sig")
    reader = csv.DictReader(io.StringIO(text))
    lines = list(reader)
    return list(reader.fieldnames or []), lines, answer.headers["content-disposition"]


def test_canvas_gets_the_final_scores_by_sis_user_id_under_its_assignment(course):
    header, lines, name = _read(course.api().get(
        "/api/gradebook.csv", params={"format": "canvas", "assignment": "Minimax (777)"}))
    assert header == CANVAS_COLUMNS + ["Minimax (777)"]
    by_sis = {line["SIS User ID"]: line for line in lines}
    assert set(by_sis) == {"alice", "bob"}            # carol: nothing graded, no line
    assert by_sis["alice"]["Minimax (777)"] == "75"   # 80 - 10 + 5, not the grader's 80
    assert by_sis["bob"]["Minimax (777)"] == "60"
    assert by_sis["alice"]["Student"] == "Alice Liddell"
    assert "gradebook-latest-canvas.csv" in name


def test_moodle_gets_the_final_scores_by_email_and_id_number(course):
    header, lines, name = _read(course.api().get("/api/gradebook.csv?format=moodle"))
    assert MOODLE_IDENTIFIERS <= set(header) and header[-1] == "Minimax"
    by_email = {line["Email address"]: line for line in lines}
    assert set(by_email) == {"alice@example.org", "bob@example.org"}
    assert (by_email["alice@example.org"]["ID number"],
            by_email["alice@example.org"]["Minimax"]) == ("alice", "75")
    assert by_email["bob@example.org"]["Minimax"] == "60"
    assert "moodle" in name


def test_plain_is_the_pages_own_gradebook_with_its_records(course):
    plain = course.api().get("/api/gradebook.csv?format=plain")
    assert plain.content == course.api().get("/api/gradebook.csv").content
    _, lines, _ = _read(plain)
    alice = {line["student_id"]: line for line in lines}["alice"]
    assert (alice["score"], alice["penalty"], alice["adjustment"], alice["final_score"]) == \
        ("80", "-10", "5", "75")


def test_a_bad_format_or_assignment_name_is_refused_and_students_get_none(course):
    api = course.api()
    assert api.get("/api/gradebook.csv?format=blackboard").status_code == 400
    for bad in ("=HYPERLINK(1)", "Section", "two\nlines"):
        answer = api.get("/api/gradebook.csv", params={"format": "canvas", "assignment": bad})
        assert answer.status_code == 400, bad
    assert course.api("alice").get("/api/gradebook.csv?format=canvas").status_code == 403


def test_the_instructors_pages_link_both_lms_gradebooks(course):
    page = course.browser("instructor").get("/instructor").text
    # No ?choice=: the course's choice (Course dates) picks each student's hand-in.
    assert "/api/gradebook.csv?format=canvas" in page
    assert "/api/gradebook.csv?format=moodle" in page
