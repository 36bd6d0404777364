"""The instructor's files are read right or refused whole, through the doors they use (``serve
--roster`` and ``serve --deadlines`` as the command line runs them, the Roster page over the
course's application in process): a deadlines CSV with an ``assignment`` column gives each
line's student an extension of that assignment; a column it does not know, or a roster line
with a quote left open, is refused naming it, and the course is as it was.
"""

from __future__ import annotations

import html
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from test_course_records import CSRF, Course

from course_dump import differences, dump
from grader.service.course import course_assignments, record_queries
from service_helpers import ROOT, open_store

ISSUE_ROSTER = ("id,name,email\ns1,\"Student 1,s1@example.edu\ns2,Student 2,s2@example.edu\n"
                "s3,Student 3,s3@example.edu\n")
BY_ASSIGNMENT = ("student_id,assignment,deadline,late_deadline\n"
                 "s4,montecarlo,2026-12-18T23:59,\n")


def serve(data: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader", "serve", "--data", str(data),
                           *options], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_files_on_the_command_line_are_read_right_or_refused_whole(tmp_path: Path) -> None:
    data = tmp_path / "course"
    store = open_store(data)
    try:
        store.upsert_students([(f"s{n}", f"Old {n}", f"s{n}@example.edu") for n in range(1, 5)])
        course_assignments.add(store, "montecarlo", who="instructor")
        before = dump(store)
    finally:
        store.close()
    roster = tmp_path / "roster.csv"
    roster.write_text(ISSUE_ROSTER, encoding="utf-8")
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("student_id,assignmnet,deadline\ns4,montecarlo,2026-12-18T23:59\n",
                       encoding="utf-8")

    refused_roster = serve(data, "--roster", str(roster), "--port", "0")
    refused_column = serve(data, "--deadlines", str(unknown))

    assert refused_roster.returncode == 2, refused_roster.stderr
    assert "line 2: a quote opened on this line is never closed" in refused_roster.stderr
    assert refused_column.returncode == 2
    assert ("the column 'assignmnet' is none this file takes; its columns are student_id, "
            "assignment, deadline, late_deadline") in refused_column.stderr
    store = open_store(data)
    try:
        assert differences(before, dump(store)) == []
    finally:
        store.close()

    deadlines = tmp_path / "extensions.csv"
    deadlines.write_text(BY_ASSIGNMENT, encoding="utf-8")
    done = serve(data, "--deadlines", str(deadlines))

    assert done.returncode == 0, done.stderr
    assert "1 own deadline set (montecarlo: 1)" in done.stderr
    store = open_store(data)
    try:
        assert list(record_queries.own_deadlines(store, assignment="montecarlo")) == ["s4"]
        assert record_queries.own_deadlines(store, assignment="minimax") == {}
    finally:
        store.close()


@pytest.fixture
def course(tmp_path: Path) -> Iterator[Course]:
    made = Course(tmp_path / "course")
    yield made
    made.store.close()


def test_the_roster_page_refuses_a_malformed_roster_whole(course: Course) -> None:
    teacher = course.browser("instructor")
    token = CSRF.search(teacher.get("/instructor/roster").text).group(1)
    before = dump(course.store)

    answer = teacher.post("/instructor/roster", data={"csrf": token}, files={
        "roster": ("class.csv", ISSUE_ROSTER.replace("s2,", "alice,").encode())})

    assert answer.status_code == 400
    assert "nothing was imported: a malformed line: line 2: a quote opened" in answer.text
    assert differences(before, dump(course.store)) == []
    assert "kept as they were" not in answer.text
    # The page says what it does.
    page = teacher.get("/instructor/roster").text
    assert "any mistake is refused whole" not in page
    assert "A file with a malformed line" in page and "is left out and named" in page


def test_the_roster_page_takes_deadlines_by_assignment(course: Course) -> None:
    course_assignments.add(course.store, "montecarlo", who="instructor")
    teacher = course.browser("instructor")
    token = CSRF.search(teacher.get("/instructor/roster").text).group(1)
    wrong = teacher.post("/instructor/deadlines", data={"csrf": token}, files={
        "deadlines": ("x.csv", b"student_id,assignment,deadline\nbob,nosuch,2026-12-18T23:59\n")})
    assert wrong.status_code == 400
    assert "this course has no assignment 'nosuch'; its assignments are: minimax, " \
           "montecarlo" in html.unescape(wrong.text)

    answer = teacher.post("/instructor/deadlines", data={"csrf": token}, files={
        "deadlines": ("x.csv", BY_ASSIGNMENT.replace("s4", "bob").encode())})

    assert answer.status_code == 200, answer.text
    assert "1 own deadline set (montecarlo: 1)" in answer.text
    assert list(record_queries.own_deadlines(course.store, assignment="montecarlo")) == ["bob"]
    assert record_queries.own_deadlines(course.store, assignment="minimax") == {}
