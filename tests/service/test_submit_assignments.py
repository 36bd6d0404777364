"""``python3 -m student submit`` on a course of two assignments (the minimax and the Monte
Carlo player): against the real server started as the docs say (``grader serve --assignment
minimax --assignment montecarlo``), each file lands on its own assignment with its report;
against the course's page served without grading, a file that is not for the assignment
named (or recognised), for an assignment the course does not have, or closed, is refused
with the server's message and nothing is stored.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from service_helpers import serve_without_grading
from test_hand_in_door import NEITHER, Course, course_data
from test_submit import ROSTER, link, submit

from grader.service.app import create_app, open_store
from grader.service.course import course_assignments
from grader.service.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[2]
MINIMAX_FILE = ROOT / "tests" / "submissions" / "grader" / "correct_pruned.py"
MONTECARLO_FILE = ROOT / "grader" / "assignments" / "montecarlo" / "submissions" / "correct_clone.py"


def two_assignments(serve, tmp_path: Path, *options: str):
    """A course holding the minimax, then the Monte Carlo player, with a roster of two."""
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    return serve(tmp_path / "course", "--roster", str(roster), "--assignment", "minimax",
                 "--assignment", "montecarlo", *options)


@pytest.mark.long
@pytest.mark.grades(2)
def test_each_file_lands_on_its_own_assignment_with_its_report(serve, tmp_path: Path) -> None:
    server = two_assignments(serve, tmp_path)
    said = server.log.read_text()
    assert "--assignment montecarlo: the course now holds the assignment Monte Carlo" in said
    instructor = server.client()
    instructor.headers["authorization"] = f"Bearer {server.instructor_token()}"
    held = instructor.get("/api/assignments").json()["assignments"]
    assert [one["name"] for one in held] == ["minimax", "montecarlo"]
    # While it serves, a start that would add one is refused and says where to add it.
    second = subprocess.run([sys.executable, "-m", "grader", "serve", "--data",
                             str(server.data), "--assignment", "montecarlo", "--port", "0"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL)
    assert second.returncode == 2
    assert "one server serves a course folder" in second.stderr
    assert "/instructor/assignments" in second.stderr
    assert "POST /api/assignments" in second.stderr
    config = tmp_path / "ada.json"

    carlo = submit("--link", link(server, "ada"), "--file", str(MONTECARLO_FILE),
                   config=config)

    assert carlo.returncode == 0, carlo.stdout + carlo.stderr
    assert " for the assignment montecarlo at " in carlo.stdout
    # No option given: the report does not say the grader was told.
    assert "Assignment: Monte Carlo Tic-Tac-Toe (montecarlo), the one it was handed in " \
           "for" in carlo.stdout
    assert "as the grader was told" not in carlo.stdout
    assert "[ok] mc_move" in carlo.stdout and "Score: 100 / 100." in carlo.stdout

    minimax = submit("--file", str(MINIMAX_FILE), config=config)   # the kept link

    assert minimax.returncode == 0, minimax.stdout + minimax.stderr
    assert " for the assignment minimax at " in minimax.stdout
    assert "[ok] time" in minimax.stdout and "Score: 100 / 100." in minimax.stdout
    assert "mc_move" not in minimax.stdout
    history = server.client("ada").get("/api/submissions").json()["submissions"]
    assert sorted((row["assignment"], row["final_score"]) for row in history) == [
        ("minimax", 100.0), ("montecarlo", 100.0)]


def test_a_file_not_for_the_assignment_named_or_recognised_is_refused(tmp_path: Path) -> None:
    """Before: a Monte Carlo file sent with ``--assignment minimax`` was graded as the
    minimax (0), and a file of neither was sent as the minimax."""
    course = Course(tmp_path / "course")
    neither = tmp_path / "player.py"
    neither.write_bytes(NEITHER)
    try:
        with serve_without_grading(course.app) as url:
            config = tmp_path / "alan.json"
            first = f"{url}/s/{course.store.student_token('alan')}"
            before = course_data(course.store)

            asked = submit("--link", first, "--file", str(MONTECARLO_FILE), "--assignment",
                           "minimax", config=config)
            unknown = submit("--file", str(neither), config=config)
            course_assignments.update(course.store, "montecarlo", who="instructor",
                                      opened=False)
            closed = submit("--file", str(MONTECARLO_FILE), config=config)

            assert course_data(course.store)["submissions"] == before["submissions"] == []
        assert asked.returncode == 1, asked.stdout + asked.stderr
        assert "The server refused it: correct_clone.py was not handed in: this file is not a " \
               "hand-in for Mini-max Tic-Tac-Toe: it does not define mm_move(board, player)" \
               in asked.stderr
        assert unknown.returncode == 1 and "say which assignment this hand-in is for" in \
            unknown.stderr
        assert closed.returncode == 1 and "Monte Carlo Tic-Tac-Toe (montecarlo) is closed" in \
            closed.stderr
        assert "Received" not in asked.stdout + unknown.stdout + closed.stdout
    finally:
        course.store.close()


def test_a_course_without_the_files_assignment_refuses_it(tmp_path: Path) -> None:
    """Before: on a course of the minimax alone (the demo's), ``student submit --file
    student/mc_player.py`` was accepted and graded 0 / 100 as the minimax."""
    store = open_store(tmp_path / "course")
    store.upsert_students([("ada", "Ada", "")])
    app = create_app(ServiceSettings(data=tmp_path / "course"), store)
    try:
        with serve_without_grading(app) as url:
            config = tmp_path / "ada.json"
            first = f"{url}/s/{store.student_token('ada')}"
            recognised = submit("--link", first, "--file", str(MONTECARLO_FILE), config=config)
            asked = submit("--file", str(MONTECARLO_FILE), "--assignment", "montecarlo",
                           config=config)
        for done in (recognised, asked):
            assert done.returncode == 1, done.stdout + done.stderr
            assert "this course has no assignment 'montecarlo'; its assignments are: " \
                   "minimax" in done.stderr
        assert store.history("ada") == []
    finally:
        store.close()
