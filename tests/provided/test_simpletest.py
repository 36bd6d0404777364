"""poc_simpletest, the course's TestSuite: as the course had it, and everywhere a course file
runs (the grader's sandbox, the public checks, console play)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from provided import course
from provided.simpletest import TestSuite

ROOT = Path(__file__).resolve().parents[2]
SUITE_FILE = ROOT / "tests" / "submissions" / "course" / "simpletest_suite.py"


def test_run_test_counts_and_prints_failures_as_the_course_did(
        capsys: pytest.CaptureFixture[str]) -> None:
    suite = TestSuite()
    suite.run_test((1, (0, 2)), (1, (0, 2)), "Test #1:")
    suite.run_test((0, (1, 1)), (1, (0, 2)), "Test #2:")
    suite.run_test([], [])      # the message is optional
    assert (suite.total_tests, suite.failures) == (3, 1)
    suite.report_results()
    assert capsys.readouterr().out == (
        "Test #2: Computed: (0, (1, 1)) Expected: (1, (0, 2))\n"
        "Ran 3 tests. 1 failures.\n")


def test_poc_simpletest_is_one_of_the_course_modules() -> None:
    assert "poc_simpletest" in course.COURSE_NAMES
    assert course.course_module("poc_simpletest").TestSuite is TestSuite
    assert course.course_module("poc.poc_simpletest").TestSuite is TestSuite


@pytest.mark.grades(1)
def test_a_course_file_that_runs_its_suite_when_imported_gets_full_marks(
        tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(SUITE_FILE),
                           "--json", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not available to the grader" not in done.stdout
    assert json.loads(out.read_text())["score"] == 100, done.stdout


def test_console_play_runs_a_course_file_that_imports_poc_simpletest() -> None:
    done = subprocess.run([sys.executable, "-m", "provided", "-x", f"{SUITE_FILE}:move_wrapper",
                           "-o", "perfect"], cwd=ROOT, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Ran 3 tests. 0 failures." in done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("Tie!")
