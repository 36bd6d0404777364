"""The Monte Carlo assignment on the student's side: the template student/mc_player.py,
`python -m student check` on Monte Carlo files (the grader's public checks, then mc_move's
speed with the grader's limits), and console play with mc_move.

Every student file runs in the grader's sandbox or a child process (`python -m student ...`);
the test process only reads the template's text and the checks' own data. That every
known answer passes the check exactly when the grader gives it full marks is
``test_agreement.py``'s.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.assignments.montecarlo import test_montecarlo as hidden
from grader.assignments.montecarlo import test_public as public
from grader.assignments.montecarlo.bounds import STEPS
from grader.assignments.montecarlo.rubric import DECISIVE
from grader.assignments.montecarlo.test_speed import (GRADER_4X4_TRIALS, GRADER_GAME_TRIALS,
                                                      GRADER_MOST_TRIALS, SPEED_CALLS)
from student.recognise import MINIMAX, MONTECARLO, assignment_of

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "student" / "mc_player.py"
MONTECARLO_FILES = ROOT / "grader" / "assignments" / "montecarlo" / "submissions"
CORRECT = MONTECARLO_FILES / "correct_clone.py"
FUNCTIONS = ("mc_trial", "mc_update_scores", "get_best_move", "mc_move")
CHECKS = (len(public.TRIALS) + 1 + len(public.FINISHED) + len(public.BEST)
          + len(public.LEGAL) + len(DECISIVE))
LINE = re.compile(r"  mc_move with (1,000 trials on the empty 3x3|100 trials on the empty 4x4) "
                  r"board: \d+\.\d+ s where the limit here is \d+\.\d+ s \((\d+%|under 1%)\)")


def student(*args: str, cwd: Path = ROOT, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "student", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=300)


# ---- the template ------------------------------------------------------------------------

def test_template_has_the_course_names_imports_and_calls() -> None:
    source = TEMPLATE.read_text()
    tree = ast.parse(source)
    imports = {(alias.name, alias.asname) for node in tree.body
               if isinstance(node, ast.Import) for alias in node.names}
    assert {("poc_ttt_gui", None), ("poc_ttt_provided", "provided")} <= imports
    constants = {node.targets[0].id: node.value.value for node in tree.body
                 if isinstance(node, ast.Assign)}
    assert constants == {"NTRIALS": 1, "SCORE_CURRENT": 1.0, "SCORE_OTHER": 1.0}
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert list(functions) == list(FUNCTIONS)
    arguments = {name: [arg.arg for arg in node.args.args] for name, node in functions.items()}
    assert arguments == {"mc_trial": ["board", "player"],
                         "mc_update_scores": ["scores", "board", "player"],
                         "get_best_move": ["board", "scores"],
                         "mc_move": ["board", "player", "trials"]}
    for name, node in functions.items():
        assert len(ast.get_docstring(node) or "") > 200, name
        raised = ast.unparse(node.body[-1])
        assert raised.startswith("raise NotImplementedError("), name
        assert f"{name} is not written yet" in raised, name
        assert "python -m student check student/mc_player.py" in raised, name
    # The course's calls at the bottom, commented out as the course had them.
    assert "\n# provided.play_game(mc_move, NTRIALS, False)\n" in source
    assert "\n# poc_ttt_gui.run_gui(3, provided.PLAYERX, mc_move, NTRIALS, False)\n" in source


def test_the_template_is_recognised_as_montecarlo() -> None:
    assert assignment_of(TEMPLATE) == MONTECARLO
    assert assignment_of(ROOT / "student" / "mm_player.py") == MINIMAX
    for path in sorted(MONTECARLO_FILES.glob("correct_*.py")):
        assert assignment_of(path) == MONTECARLO, path.name


def test_check_on_the_template_names_the_functions_to_fill_in() -> None:
    done = student("check", "student/mc_player.py")
    assert done.returncode == 1
    out = done.stdout
    assert out.startswith("Checking student/mc_player.py (Monte Carlo Tic-Tac-Toe, the "
                          f"montecarlo assignment): {CHECKS} checks, then its speed")
    assert ("Not written yet (they raise NotImplementedError): mc_trial, mc_update_scores, "
            "get_best_move, mc_move. Fill in their bodies in student/mc_player.py, then run "
            "`python -m student check student/mc_player.py` again.") in out
    assert out.rstrip().endswith(f"0 passed, 0 failed, {CHECKS} not run; speed: not "
                                 "judged (mc_trial, mc_update_scores, get_best_move, mc_move "
                                 "not written yet)")
    assert "Traceback" not in out + done.stderr and "FAIL" not in out
    assert len(out.splitlines()) <= 5


def test_assignment_montecarlo_without_a_file_checks_the_mc_template() -> None:
    done = student("check", "--assignment", "montecarlo", "--no-speed")
    assert done.returncode == 1
    assert done.stdout.startswith("Checking student/mc_player.py (Monte Carlo Tic-Tac-Toe")


def test_assignment_minimax_overrides_what_the_file_defines() -> None:
    done = student("check", "--assignment", "minimax", "--no-speed", str(CORRECT))
    assert done.returncode == 1
    assert "the minimax assignment" in done.stdout.splitlines()[0]
    assert ("note: checked as the minimax assignment: as the grader was told (--assignment "
            "minimax).") in done.stdout
    assert "the submission must define a function mm_move(board, player)" in done.stdout


# ---- the checks: the hidden suite's own cases, some of them public ------------------------

def test_the_public_cases_are_the_suites_with_their_own_labels() -> None:
    """Each case is public or hidden, never both, and every statistical check of mc_move
    is public (the constants the checks judge by are chosen so that each can be made)."""
    for table in ("TRIALS", "FINISHED", "BEST", "LEGAL"):
        mine, theirs = getattr(public, table), getattr(hidden, table)
        names = [case[0] for case in mine + theirs]
        assert mine and len(names) == len(set(names)), table
    assert not hasattr(hidden, "DECISIVE")
    assert "every score far below zero, ints" in [case[0] for case in public.BEST]
    assert any(len(case[1]) == 4 for case in public.LEGAL)


def test_the_speed_calls_ask_at_least_the_graders_trials() -> None:
    four = [case[4] for case in public.LEGAL + hidden.LEGAL if len(case[1]) == 4]
    assert (GRADER_GAME_TRIALS, GRADER_MOST_TRIALS) == (hidden.GAME_TRIALS, max(STEPS))
    assert GRADER_4X4_TRIALS == max(four)
    trials = dict(SPEED_CALLS)
    assert GRADER_GAME_TRIALS < trials[3] <= GRADER_MOST_TRIALS
    assert trials[4] >= GRADER_4X4_TRIALS


# ---- python -m student check on a Monte Carlo file ---------------------------------------

def test_a_correct_file_passes_every_check_and_is_within_the_limits() -> None:
    done = student("check", str(CORRECT))
    out = done.stdout
    assert done.returncode == 0, out
    assert out.count("\n  ok    ") == CHECKS
    assert ("Speed of mc_move, as the grader judges it. The grader's yardstick here: a plain "
            "minimax on a board written like the course's would search the empty 3x3 board "
            "in ") in out
    assert "Its limits: a call may take 5 times what its work costs" in out
    assert len(LINE.findall(out)) == 2, out
    assert "  within the grader's limits, with margin (on 3x3 boards the grader gives " in out
    assert out.rstrip().endswith(f"{CHECKS} passed, 0 failed; speed: within the grader's "
                                 "limits")
    # Not a terminal: what is timed, on stderr; none of it on stdout.
    assert done.stderr.startswith("check: timing the speed of ")
    assert "timing" not in out


def test_a_file_with_a_helper_module_beside_it_is_checked_with_it() -> None:
    """correct_clone.py in two files (tests/submissions/helpers): the check takes the module
    the file imports from beside it, as a batch of the students' folders and the Gradescope
    autograder do, so it passes every check where they give 100 (it could not be run)."""
    done = student("check", "--no-speed", str(ROOT / "tests" / "submissions" / "helpers"
                                              / "mc_player.py"))
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[1] == ("With its helper modules beside it: mc_trials.py (hand them in with it).")
    assert done.stdout.rstrip().endswith(f"{CHECKS} passed, 0 failed")


def test_a_failure_shows_lines_to_paste_expected_received_and_why() -> None:
    done = student("check", "--no-speed", str(MONTECARLO_FILES / "bug_wrong_side.py"))
    out = done.stdout
    assert ("  FAIL  mc_update_scores: X won, scoring for X\n"
            "        scores = [[0.5, -1.0, 2.0], [0.0, 3.0, -2.5], [1.0, 0.0, 0.0]]; "
            "mc_update_scores(scores, TTTBoard(3, False, [[PLAYERX, PLAYERX, PLAYERX], "
            "[PLAYERO, PLAYERO, EMPTY], [EMPTY, EMPTY, EMPTY]]), PLAYERX); print(scores)\n"
            "        expected: [[1.5, 0.0, 3.0], [-1.0, 2.0, -2.5], [1.0, 0.0, 0.0]]\n"
            "        received: [[-0.5, -2.0, 1.0], [1.0, 4.0, -2.5], [1.0, 0.0, 0.0]]\n"
            "        problem:  wrong scores\n"
            "        why: PLAYERX (the machine player) won: each square of PLAYERX gains "
            "SCORE_CURRENT (1)") in out
    assert "        board:\n" in out
    assert (f"To reproduce a failure: start python3 in {MONTECARLO_FILES} and paste these "
            "lines, then the failure's call:\n    import random\n    from provided import *\n"
            "    from bug_wrong_side import mc_update_scores, mc_move\n") in out


def test_a_trial_failure_names_the_seed_and_shows_the_board_after() -> None:
    out = student("check", "--no-speed",
                  str(MONTECARLO_FILES / "bug_not_alternating.py")).stdout
    assert re.search(r"random\.seed\(\d+\); board = TTTBoard\(3, False, \[\[EMPTY, EMPTY, "
                     r"EMPTY\], .*\]\); mc_trial\(board, PLAYERX\); print\(board\)", out)
    assert "problem:  bad trial" in out
    assert "why: the trial's moves do not alternate" in out
    assert "board after the call:" in out


def test_the_file_s_own_constants_are_used_and_said() -> None:
    out = student("check", "--no-speed",
                  str(MONTECARLO_FILES / "bug_ignores_score_other.py")).stdout
    assert ("note: the checks use the file's SCORE_CURRENT = 1.0 and SCORE_OTHER = 2.0"
            in out)
    assert "loses SCORE_OTHER (2)" in out


def test_the_same_file_gives_the_same_output_every_run() -> None:
    """The checks' verdicts (the speed part's times vary, so it is left out here)."""
    first, second = (student("check", "--no-speed", str(MONTECARLO_FILES / "bug_min_not_max.py"))
                     for _ in range(2))
    assert first.stdout == second.stdout
    assert first.returncode == second.returncode == 1


def test_a_course_style_file_runs_as_it_is_and_its_paste_lines_work_from_its_folder(
        tmp_path: Path) -> None:
    """It imports poc_ttt_gui: the grader's paste lines load it as the course's modules
    want, wherever the file is (the docs' ~/hw/mc_player.py)."""
    path = tmp_path / "mc_player.py"
    source = (MONTECARLO_FILES / "correct_course_style.py").read_text()
    # One bug, so that a failure shows its lines to paste.
    path.write_text(source.replace("max(", "min(", 1))
    done = student("check", "--no-speed", str(path))
    out = done.stdout
    assert ("note: your file calls play_game(...) and run_gui(...) when it is imported; "
            "the checks skip that call") in out
    assert "        | Monte Carlo player, NTRIALS = 100" in out
    lines = out.split("and paste these lines, then the failure's call:\n", 1)[1].splitlines()
    pasted = [line.strip() for line in lines if line.startswith("    ")]
    assert "from provided.console import load_move_function" in pasted
    call = next(line.strip() for line in out.splitlines()
                if line.strip().startswith("get_best_move("))
    run = subprocess.run([sys.executable, "-c", "\n".join(pasted + [f"print({call})"])],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert re.search(r"\n\(\d, \d\)\n\Z", run.stdout), run.stdout


def test_a_call_that_does_not_return_stops_the_checks(tmp_path: Path) -> None:
    """Its check fails in the grader's words (a timeout, with what to look for); the checks
    after it, and the speed part, are not run: each would wait for its limit too."""
    source = CORRECT.read_text()
    marker = "def mc_update_scores(scores, board, player):\n"
    body = source.index('"""', source.index('"""', source.index(marker)) + 3) + 3
    path = tmp_path / "stuck_mc.py"
    path.write_text(source[:body] + "\n    while True:\n        pass" + source[body:])
    out = student("check", str(path)).stdout
    assert "  FAIL  mc_update_scores: X won, scoring for X\n" in out
    assert "problem:  timeout (no answer: this check could not be judged)" in out
    assert "why: mc_update_scores did not return within its limit of " in out
    assert (f"not run: the {CHECKS - 4} other checks and the speed checks, because "
            "mc_update_scores did not return on \"mc_update_scores: X won, scoring for X\": "
            "fix that first") in out
    assert "Speed of mc_move" not in out
    assert out.rstrip().endswith("3 passed, 1 failed, 13 not run; speed: not judged "
                                 "(mc_update_scores did not return on a check)")


# ---- play ---------------------------------------------------------------------------------

def test_play_against_a_monte_carlo_file() -> None:
    spec = f"{MONTECARLO_FILES / 'correct_clone.py'}:mc_move"
    done = student("-x", "random", "-o", spec, "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().splitlines()[-1] in ("X wins!", "O wins!", "Tie!")


@pytest.mark.parametrize("command", [[], ["gui"]], ids=["console", "window"])
def test_play_against_the_unwritten_mc_template_says_what_to_do(command: list[str]) -> None:
    done = student(*command, "-o", "student.mc_player:mc_move", stdin="1 1\n")
    assert done.returncode == 1
    assert "Your player is not ready: mc_move is not written yet" in done.stderr
    assert "Traceback" not in done.stderr and "your move" not in done.stdout


def test_play_with_the_mc_player_written_in_a_copy(tmp_path: Path) -> None:
    """student.mc_player:mc_move as the console names it, once written (in a copy of the
    handout's folders), plays with the file's NTRIALS."""
    import shutil

    for name in ("student", "provided"):
        shutil.copytree(ROOT / name, tmp_path / name,
                        ignore=shutil.ignore_patterns("__pycache__", ".*"))
    written = (MONTECARLO_FILES / "correct_course_style.py").read_text()
    (tmp_path / "student" / "mc_player.py").write_text(
        written.replace("print(\"Monte Carlo player, NTRIALS =\", NTRIALS)\n", ""))
    done = subprocess.run([sys.executable, "-m", "student", "-x", "random", "-o",
                           "student.mc_player:mc_move", "--seed", "5"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "X: random (seed 5: --seed 5 replays it), O: your mc_move." in done.stdout


# ---- the handout ---------------------------------------------------------------------------

def test_the_handout_ships_the_mc_template_and_says_how_to_check_it(tmp_path: Path) -> None:
    from grader.classroom.handout import FOLDER, build_handout

    out = tmp_path / "handout.zip"
    build_handout(out)
    with zipfile.ZipFile(out) as bundle:
        assert bundle.read(f"{FOLDER}/student/mc_player.py") == TEMPLATE.read_bytes()
        readme = bundle.read(f"{FOLDER}/README.md").decode()
    assert "## Monte Carlo" in readme
    assert "python3 -m student check student/mc_player.py" in readme
    assert "python3 -m student duel" in readme
