"""``python -m student check`` and the grade agree, by construction and on every known answer.

Every public check is a test of its assignment's suite (``Assignment`` refuses it
otherwise), so a grade runs it with the same code; here the public checks run as
``student check`` runs them (``grader.suite.public``: the grader's engine, in its
sandbox, never in this process) on every known answer of every installed assignment, and
their verdicts meet the expected grades of ``expected.json`` (which
``tests/test_known_answers.py`` proves are the grader's, so nothing is graded again here):
a file with full marks passes every check, and a file that fails one does not get full
marks. Then the files that once got "all clear" from the check and less from the grader
(issue 40's), through the door a student uses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.assignments import Assignment, AssignmentError, available, get
from grader.suite.public import run_checks

ROOT = Path(__file__).resolve().parents[2]
RUBRIC_BENDING = ROOT / "tests" / "submissions" / "montecarlo"
MC_KNOWN = ROOT / "grader" / "assignments" / "montecarlo" / "submissions"
CORRECT_MINIMAX = ROOT / "tests" / "submissions" / "grader" / "correct_plain.py"
KNOWN = [(assignment.name, path) for assignment in available()
         if assignment.known_answers is not None and assignment.public_checks
         for path in sorted(Path(assignment.known_answers).glob("*.py"))]
# The item each Monte Carlo bug is in: a public check of that item catches it.
BUG_ITEMS = {
    "bug_counts_empty": "mc_update_scores", "bug_full_square": "get_best_move",
    "bug_ignores_score_other": "mc_update_scores", "bug_min_not_max": "get_best_move",
    "bug_not_alternating": "mc_trial", "bug_trial_on_board": "mc_move",
    "bug_trial_on_copy": "mc_trial", "bug_wrong_side": "mc_update_scores",
}


def expected_score(path: Path) -> float:
    table = json.loads((path.parent / "expected.json").read_text(encoding="utf-8"))
    return table[path.name]["score"]


@pytest.fixture(scope="module")
def checked() -> dict[str, object]:
    """Each known answer's public checks, as student check runs them (no speed)."""
    return {f"{name}/{path.name}": run_checks(path, get(name)) for name, path in KNOWN}


def test_every_course_assignment_declares_public_checks_in_its_suite() -> None:
    for assignment in available():
        assert assignment.public_checks, assignment.name
        assert set(assignment.public_checks) <= set(assignment.suite), assignment.name
    assert {name for name, _ in KNOWN} >= {"minimax", "montecarlo"}


def test_a_public_check_outside_the_suite_is_refused() -> None:
    minimax = get("minimax")
    with pytest.raises(AssignmentError, match="are not in its suite: list the file in suite"):
        Assignment(**{**vars(minimax), "suite": minimax.suite[1:]})
    with pytest.raises(AssignmentError, match="is in its suite: it is for students only"):
        Assignment(**{**vars(minimax), "student_speed": minimax.suite[0]})


@pytest.mark.grades(len(KNOWN))
def test_full_marks_pass_the_check_and_a_failed_check_loses_marks(checked) -> None:
    for name, path in KNOWN:
        run = checked[f"{name}/{path.name}"]
        assert run.load_error is None and run.result.grader_error is None, path.name
        failed = [check.name for check in run.checks if not check.ok]
        full_marks = expected_score(path) == 100
        if full_marks:
            assert not failed, (path.name, failed)
        if failed:
            assert not full_marks, path.name
        assert run.checks and all(check.passed or check.failures for check in run.checks)


@pytest.mark.grades(len(KNOWN))
def test_each_monte_carlo_bug_fails_a_public_check_of_its_function(checked) -> None:
    for bug, item in BUG_ITEMS.items():
        run = checked[f"montecarlo/{bug}.py"]
        assert any(check.item == item and not check.ok for check in run.checks), bug


@pytest.mark.grades(len(KNOWN))
def test_trials_played_on_the_board_itself_are_named_as_the_cause(checked) -> None:
    """Such an mc_move fills its board, and its get_best_move then raises "max() arg is an
    empty sequence": the check (and the grade) says so, not "do not assume the board is
    3x3" (which the 4x4 check once said)."""
    run = checked["montecarlo/bug_trial_on_board.py"]
    four = next(check for check in run.checks if check.name == "mc_move: 4x4 under way")
    failure = four.failures[0]
    assert failure.received == "ValueError: max() arg is an empty sequence"
    assert failure.why.startswith(
        "mc_move changed the board it was given (see the board after the call) before it "
        "raised ValueError: max() arg is an empty sequence: each trial must play on a copy "
        "(board.clone()); on the board itself the trials fill it, and get_best_move then "
        "finds no empty square.")
    marks = failure.board_after.count("X") + failure.board_after.count("O")
    assert marks == 16    # the board after the call: full
    assert "3x3" not in failure.why


def student_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "student", "check", str(path), "--no-speed"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_a_minimax_file_without_move_wrapper_fails_the_check(tmp_path: Path) -> None:
    """The grader's game play asks move_wrapper (its report: 0 of game play's points): the
    check's console game does too, in the grader's words."""
    source = CORRECT_MINIMAX.read_text()
    path = tmp_path / "mm_player.py"
    path.write_text(source[:source.index("def move_wrapper(")])   # and the game it played
    assert "move_wrapper" not in path.read_text()
    done = student_check(path)
    assert done.returncode == 1, done.stdout
    assert "  FAIL  play_game(move_wrapper, 1, False): a whole game through move_wrapper\n" \
        in done.stdout
    assert "received: the submission has no function move_wrapper" in done.stdout
    assert done.stdout.rstrip().endswith("12 passed, 1 failed")


def test_a_monte_carlo_file_without_get_best_move_is_refused_in_the_graders_words(
        tmp_path: Path) -> None:
    source = (MC_KNOWN / "correct_clone.py").read_text()
    start, end = source.index("def get_best_move"), source.index("def mc_move")
    path = tmp_path / "no_best.py"
    path.write_text(source[:start] + source[end:])
    done = student_check(path)
    assert done.returncode == 1
    assert done.stdout.startswith(f"Checking {path} (Monte Carlo Tic-Tac-Toe, the montecarlo "
                                  "assignment)")
    assert (f"Cannot check {path}: the submission must define the functions mc_trial(board, "
            "player), mc_update_scores(scores, board, player), get_best_move(board, scores), "
            "mc_move(board, player, trials): get_best_move is missing") in done.stdout
    assert "  ok  " not in done.stdout


def test_a_python2_monte_carlo_file_is_judged_as_the_monte_carlo(tmp_path: Path) -> None:
    path = tmp_path / "mc_player.py"
    path.write_text("import random\n\ndef mc_trial(board, player):\n    print 'trial'\n\n"
                    "def mc_move(board, player, trials):\n    return (0, 0)\n")
    done = student_check(path)
    assert done.returncode == 1
    assert "(Monte Carlo Tic-Tac-Toe, the montecarlo assignment)" in done.stdout
    assert "line 4: print 'trial'  -> write print('trial')" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_the_older_templates_constants_pass_and_a_fixed_floor_fails() -> None:
    """MCMATCH and MCOTHER are read as the grader reads them (it gives 100); a maximum that
    starts at a fixed number fails the public check whose scores are all far below it."""
    done = student_check(RUBRIC_BENDING / "old_template.py")
    assert done.returncode == 0, done.stdout
    assert ("note: the checks use the file's MCMATCH = 2.0 and MCOTHER = 3.0 (the course's "
            "older template's names)") in done.stdout
    done = student_check(RUBRIC_BENDING / "fixed_floor.py")
    assert done.returncode == 1
    assert "  FAIL  get_best_move: every score far below zero, ints\n" in done.stdout
