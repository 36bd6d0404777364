"""A course of the Monte Carlo assignment on the page (``grader serve --assignment
montecarlo``), as a student meets it: ``python3 -m student submit`` hands in a Monte Carlo
file and prints its report; the page's JSON says what it was graded as; the course keeps its
assignment across a restart, and a start naming another one adds it beside.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MONTECARLO = ROOT / "grader" / "assignments" / "montecarlo" / "submissions"
ROSTER = "id,name,email\nada,Ada Lovelace,ada@example.org\n"


def submit(server, tmp_path: Path, file: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "student", "submit", "--config",
                           str(tmp_path / "submit.json"), "--link",
                           f"{server.url}/s/{server.token('ada')}", "--file", str(file)],
                          cwd=ROOT, capture_output=True, text=True, timeout=280)


@pytest.mark.long
@pytest.mark.grades(2)
def test_a_montecarlo_course_grades_hand_ins_as_montecarlo(serve, tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    data = tmp_path / "course"
    server = serve(data, "--roster", str(roster), "--assignment", "montecarlo")

    done = submit(server, tmp_path, MONTECARLO / "correct_clone.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Assignment: Monte Carlo Tic-Tac-Toe (montecarlo)" in done.stdout
    assert "[ok] mc_move" in done.stdout and "Score: 100 / 100." in done.stdout

    bug = submit(server, tmp_path, MONTECARLO / "bug_wrong_side.py")
    assert bug.returncode == 0, bug.stdout + bug.stderr
    assert "mc_update_scores(scores, TTTBoard(" in bug.stdout      # a call to paste
    client = server.client("ada")
    history = client.get("/api/submissions").json()["submissions"]
    assert len(history) == 2
    page = client.get(f"/submissions/{max(h['id'] for h in history)}").text
    # The page shows each failure's call as code, its verdict beside it.
    assert '<code class="call">scores = [[0.5, -1.0, 2.0]' in page
    server.stop()

    # The folder keeps its assignment: no flag needed; another one named at a start is added
    # beside it (issue 35: a course holds several), and a Monte Carlo file still lands on its own.
    again = serve(data, "--assignment", "minimax", "--assignment", "montecarlo")
    said = again.log.read_text()
    assert "--assignment minimax: the course now holds the assignment Mini-max" in said
    assert "--assignment montecarlo: the course holds it already" in said
    done = submit(again, tmp_path, MONTECARLO / "correct_randrange.py")
    assert "Score: 100 / 100." in done.stdout, done.stdout + done.stderr
    assert " for the assignment montecarlo at " in done.stdout
