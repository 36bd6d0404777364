"""Every installed assignment grades its own known-answer submissions as it says it does.

An assignment may ship ``known_answers``: a folder of submissions with ``expected.json``
(``{"file.py": {"score": N, "items": {"item": points}}}``). Each file is graded here as a
teacher grades it, ``python -m grader grade FILE --assignment NAME --json OUT`` in a child
process, and its score and every item's score must be the expected ones: a change to an
assignment's checks, its rubric or the grader's engine that moves a known grade fails here.

That a random player's grade and report are the same on every run (only the times in the
footer may differ), alone, under load and under other ids, is
``tests/suite/test_montecarlo_grading.py``'s (it grades these files as a class, twice).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.assignments import available

KNOWN = [(assignment.name, path)
         for assignment in available() if assignment.known_answers is not None
         for path in sorted(Path(assignment.known_answers).glob("*.py"))]
def grade(path: Path, assignment: str, out: Path) -> tuple[str, dict]:
    """(the report, results.json) of one grade, in a child process."""
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(path),
                           "--assignment", assignment, "--json", str(out)],
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, json.loads(out.read_text(encoding="utf-8"))


def expected_of(path: Path) -> dict:
    table = json.loads((path.parent / "expected.json").read_text(encoding="utf-8"))
    assert path.name in table, f"{path.parent / 'expected.json'} says nothing of {path.name}"
    return table[path.name]


def test_every_course_assignment_ships_known_answers() -> None:
    names = {name for name, _ in KNOWN}
    assert {"minimax", "montecarlo"} <= names
    for assignment in available():
        if assignment.known_answers is None:
            continue
        folder = Path(assignment.known_answers)
        table = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
        # Every file is graded and every expectation has its file: none is forgotten.
        assert sorted(table) == sorted(path.name for path in folder.glob("*.py"))


@pytest.mark.grades(1)
@pytest.mark.parametrize("assignment, path", KNOWN, ids=[f"{name}/{path.name}"
                                                       for name, path in KNOWN])
def test_known_answer(assignment: str, path: Path, tmp_path: Path) -> None:
    want = expected_of(path)
    report, results = grade(path, assignment, tmp_path / "first.json")
    items = {test["name"]: test["score"] for test in results["tests"]}
    assert (results["score"], items) == (want["score"], want["items"]), report
    if path.name.startswith("correct"):
        assert results["score"] == 100, report
    else:
        assert results["score"] < 100, report
