"""An instructor's own assignment, installed as the guide says, is graded by the grader.

The guide (docs/maintainers/assignments.md) walks through docs/examples/ttt-winner, a
package whose entry point in the group ``grader.assignments`` gives the assignment
``winner``. Here it is installed with real pip (``--target``, no network) and its own
known-answer files are graded by ``python -m grader grade`` in a child process, with and
without ``--assignment``, and checked by ``python -m student check`` as its students check
them (its public checks, in the grader's words): so the guide cannot rot.

An entry point that is broken (its object is not an Assignment, or its module raises on
import) is left out with a message, and the course's assignments grade as before.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "ttt-winner"
MINIMAX_CORRECT = ROOT / "grader" / "assignments" / "minimax" / "submissions" / "correct_pruned.py"


def install_example(work: Path) -> Path:
    """Install the example with real pip in ``work``; the folder it was installed in, as
    ``pip install --target`` leaves it (tests/classroom/test_handout.py installs it so too)."""
    source = work / "ttt-winner"   # a copy: pip builds in the source tree (build/, egg-info)
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                                   "__pycache__"))
    target = work / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--no-build-isolation", "--no-index", "--target", str(target),
                           str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return target


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder where the example is installed, as ``pip install --target`` leaves it."""
    return install_example(tmp_path_factory.mktemp("own"))


def grade(path: Path, out: Path, pythonpath: Path, *more: str) -> tuple[str, str, dict]:
    """(report, stderr, results.json) of ``python -m grader grade`` with ``pythonpath``."""
    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(path), "--json",
                           str(out), *more], capture_output=True, text=True, timeout=1200,
                          env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, done.stderr, json.loads(out.read_text(encoding="utf-8"))


def items(results: dict) -> dict[str, float]:
    return {test["name"]: test["score"] for test in results["tests"]}


@pytest.mark.grades(4)
def test_the_example_is_graded_as_its_known_answers_say(site: Path, tmp_path: Path) -> None:
    submissions = site / "ttt_winner" / "submissions"   # shipped as package data
    expected = json.loads((submissions / "expected.json").read_text(encoding="utf-8"))
    assert set(expected) == {"correct.py", "buggy.py"}
    reports = {}
    for name, want in expected.items():
        for more in (("--assignment", "winner"), ()):   # asked for, then recognised
            report, _, results = grade(submissions / name, tmp_path / f"{name}.json", site,
                                       *more)
            assert (results["score"], items(results)) == (want["score"], want["items"])
            how = "as the grader was told" if more else "recognised from the functions it defines"
            assert f"Assignment: Who won? (Tic-Tac-Toe) (winner), {how}" in report
            reports[name] = report
    assert expected["correct.py"]["score"] == 100
    # The bug (no anti-diagonal) loses points in its item, and only there.
    assert expected["buggy.py"]["items"]["diagonals"] < 40
    assert {item: points for item, points in expected["buggy.py"]["items"].items()
            if item != "diagonals"} == {"rows and columns": 40.0, "no winner": 20.0}
    assert "[-26.67 pts] diagonals: 2 of 3 checks failed" in reports["buggy.py"]
    assert "winner([['X', 'X', 'O'], ['X', 'O', ' '], ['O', ' ', ' ']]) expected 'O' but " \
           "received None" in reports["buggy.py"]


def student_check(path: Path, pythonpath: Path, *more: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    return subprocess.run([sys.executable, "-m", "student", "check", str(path), *more],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)


def test_its_students_check_its_known_answers_with_its_public_checks(site: Path) -> None:
    """The correct answer passes its public checks; the buggy one fails the one that shows
    its bug, in the grader's words; its students' template says what to fill in."""
    submissions = site / "ttt_winner" / "submissions"
    correct = student_check(submissions / "correct.py", site)
    assert correct.returncode == 0, correct.stdout + correct.stderr
    assert correct.stdout.startswith(f"Checking {submissions / 'correct.py'} (Who won? "
                                     "(Tic-Tac-Toe), the winner assignment): 3 checks.\n")
    assert correct.stdout.rstrip().endswith("3 passed, 0 failed")   # no speed part of its own
    buggy = student_check(submissions / "buggy.py", site)
    assert buggy.returncode == 1
    assert ("  FAIL  the diagonal from the top right wins\n"
            "        winner([['X', 'X', 'O'], ['X', 'O', ' '], ['O', ' ', ' ']])\n"
            "        expected: 'O'\n"
            "        received: None\n"
            "        problem:  wrong winner\n"
            "        why: a player wins with a full row, column or diagonal of their mark; "
            "with no such line, winner returns None\n") in buggy.stdout
    assert buggy.stdout.rstrip().endswith("2 passed, 1 failed")
    template = student_check(site / "ttt_winner" / "handout" / "winner.py", site)
    assert template.returncode == 1
    assert "Not written yet (it raises NotImplementedError): winner." in template.stdout


def broken_site(folder: Path) -> Path:
    """A folder holding an installed distribution with two broken entry points in the
    group ``grader.assignments``: one whose object is a number, one whose module raises."""
    info = folder / "broken_course-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-course\n"
                                   "Version: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[grader.assignments]\nnumber = broken_number:VALUE\nraises = broken_raises:thing\n",
        encoding="utf-8")
    (folder / "broken_number.py").write_text("VALUE = 42\n", encoding="utf-8")
    (folder / "broken_raises.py").write_text(
        "raise RuntimeError('this course module is half written')\n", encoding="utf-8")
    return folder


def test_a_broken_entry_point_is_left_out_with_a_message(tmp_path: Path) -> None:
    site = broken_site(tmp_path / "site")
    env = dict(os.environ, PYTHONPATH=str(site))
    done = subprocess.run([sys.executable, "-c", "from grader.assignments import available, "
                           "problems\nprint([a.name for a in available()])\n"
                           "print(*problems(), sep='\\n')"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    names, *problems = done.stdout.splitlines()
    assert names == "['minimax', 'montecarlo']"
    assert problems == [
        "the assignment number (broken_number:VALUE) is a int, not a "
        "grader.assignments.Assignment",
        "the assignment raises (broken_raises:thing) failed to load: RuntimeError: this "
        "course module is half written"]


@pytest.mark.grades(1)
def test_a_broken_entry_point_does_not_stop_a_grade(tmp_path: Path) -> None:
    site = broken_site(tmp_path / "site")
    report, errors, results = grade(MINIMAX_CORRECT, tmp_path / "out.json", site)
    assert results["score"] == 100, report
    assert "Assignment:" not in report     # a minimax file, recognised: as it always was
    # The staff who run the grader are told what was left out, and why.
    assert "warning: the assignment raises (broken_raises:thing) failed to load" in errors
