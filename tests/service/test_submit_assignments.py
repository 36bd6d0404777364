"""``python3 -m student submit`` on a course of two assignments (the minimax and the Monte
Carlo player), against the real server started as the docs say (``grader serve --assignment
minimax --assignment montecarlo``): each file lands on its own assignment, ``--assignment``
wins over the file's functions, a closed assignment refuses with the server's message, and a
course without the recognised assignment decides itself.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_submit import ROSTER, link, submit

ROOT = Path(__file__).resolve().parents[2]
MINIMAX_FILE = ROOT / "tests" / "submissions" / "grader" / "correct_pruned.py"
MONTECARLO_FILE = ROOT / "grader" / "assignments" / "montecarlo" / "submissions" / "correct_clone.py"


def two_assignments(serve, tmp_path: Path, *options: str):
    """A course holding the minimax, then the Monte Carlo player, with a roster of two."""
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    return serve(tmp_path / "course", "--roster", str(roster), "--assignment", "minimax",
                 "--assignment", "montecarlo", *options)


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
    assert "Assignment: Monte Carlo Tic-Tac-Toe (montecarlo)" in carlo.stdout
    assert "[ok] mc_move" in carlo.stdout and "Score: 100 / 100." in carlo.stdout

    minimax = submit("--file", str(MINIMAX_FILE), config=config)   # the kept link

    assert minimax.returncode == 0, minimax.stdout + minimax.stderr
    assert " for the assignment minimax at " in minimax.stdout
    assert "[ok] time" in minimax.stdout and "Score: 100 / 100." in minimax.stdout
    assert "mc_move" not in minimax.stdout
    history = server.client("ada").get("/api/submissions").json()["submissions"]
    assert sorted((row["assignment"], row["final_score"]) for row in history) == [
        ("minimax", 100.0), ("montecarlo", 100.0)]


@pytest.mark.grades(1)
def test_the_assignment_asked_wins_and_a_closed_one_refuses(serve, tmp_path: Path) -> None:
    server = two_assignments(serve, tmp_path)
    config = tmp_path / "alan.json"

    # A Monte Carlo file handed in for the minimax: graded as the minimax (it has no mm_move).
    asked = submit("--link", link(server, "alan"), "--file", str(MONTECARLO_FILE),
                   "--assignment", "minimax", config=config)

    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert " for the assignment minimax at " in asked.stdout
    assert "Score: 100 / 100." not in asked.stdout
    history = server.client("alan").get("/api/submissions").json()["submissions"]
    assert [row["assignment"] for row in history] == ["minimax"]

    instructor = server.client()
    instructor.headers["authorization"] = f"Bearer {server.instructor_token()}"
    closed = instructor.put("/api/assignments/montecarlo", json={"open": False})
    assert closed.status_code == 200, closed.text
    for options in ((), ("--assignment", "montecarlo")):   # recognised, then asked

        refused = submit("--file", str(MONTECARLO_FILE), *options, config=config)

        assert refused.returncode == 1, refused.stdout + refused.stderr
        answer = server.client("alan").post(
            "/api/submissions", files={"file": ("mc_player.py", MONTECARLO_FILE.read_bytes())},
            data={"assignment": "montecarlo"})
        assert answer.status_code == 400 and "is closed" in answer.json()["error"]
        assert f"The server refused it: {answer.json()['error']}" in refused.stderr
    history = server.client("alan").get("/api/submissions").json()["submissions"]
    assert len(history) == 1                       # nothing more was stored


@pytest.mark.grades(1)
def test_a_course_without_the_files_assignment_decides_itself(serve, tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    server = serve(tmp_path / "course", "--roster", str(roster))   # the minimax alone
    config = tmp_path / "ada.json"

    asked = submit("--link", link(server, "ada"), "--file", str(MONTECARLO_FILE),
                   "--assignment", "montecarlo", config=config)

    assert asked.returncode == 1                  # asked outright: the server's refusal stands
    assert "The server refused it: this course has no assignment 'montecarlo'" in asked.stderr

    recognised = submit("--file", str(MONTECARLO_FILE), config=config)

    # Recognised as the Monte Carlo player, which this course has not: the server decides.
    assert recognised.returncode == 0, recognised.stdout + recognised.stderr
    assert " for the assignment minimax at " in recognised.stdout
    history = server.client("ada").get("/api/submissions").json()["submissions"]
    assert [row["assignment"] for row in history] == ["minimax"]
