"""The Monte Carlo assignment on the student's side: the template student/mc_player.py,
`python -m student check` on Monte Carlo files, and console play with mc_move.

Every student file runs in a child process (`python -m student ...`); the test process
only reads the template's text and the checks' own data."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from provided.board import EMPTY
from provided.montecarlo import best_moves, winner_of
from student.__main__ import MINIMAX, MONTECARLO, assignment_of
from student.mc_checks import (BEST, FUNCTIONS, MC_CHECKS, MOVE_EMPTY, MOVE_RIGHT, TRIAL,
                               TRIALS_DIFFER, UPDATE)

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "student" / "mc_player.py"
MONTECARLO_FILES = ROOT / "grader" / "assignments" / "montecarlo" / "submissions"
CORRECT = sorted(MONTECARLO_FILES.glob("correct_*.py"))
# Each bug file and the function it is in (its docstring says so too).
BUGS = {
    "bug_not_alternating.py": "mc_trial",
    "bug_trial_on_copy.py": "mc_trial",
    "bug_wrong_side.py": "mc_update_scores",
    "bug_ignores_score_other.py": "mc_update_scores",
    "bug_counts_empty.py": "mc_update_scores",
    "bug_full_square.py": "get_best_move",
    "bug_min_not_max.py": "get_best_move",
    "bug_trial_on_board.py": "mc_move",
}
TALLY = f"{len(MC_CHECKS)} passed, 0 failed; speed: within the grader's limits"


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
    for path in CORRECT:
        assert assignment_of(path) == MONTECARLO, path.name


def test_check_on_the_template_names_the_functions_to_fill_in() -> None:
    done = student("check", "student/mc_player.py")
    assert done.returncode == 1
    out = done.stdout
    assert out.startswith("Checking the Monte Carlo player in student/mc_player.py "
                          "(the montecarlo assignment)")
    assert ("Not written yet (they raise NotImplementedError): mc_trial, mc_update_scores, "
            "get_best_move, mc_move. Fill in their bodies in student/mc_player.py, then run "
            "`python -m student check student/mc_player.py` again.") in out
    assert out.rstrip().endswith(f"0 passed, 0 failed, {len(MC_CHECKS)} not run; speed: not "
                                 "judged (mc_move is not written yet)")
    assert "Traceback" not in out + done.stderr and "FAIL" not in out
    assert len(out.splitlines()) <= 5


def test_assignment_montecarlo_without_a_file_checks_the_mc_template() -> None:
    done = student("check", "--assignment", "montecarlo")
    assert done.returncode == 1
    assert "Checking the Monte Carlo player in student/mc_player.py" in done.stdout


def test_assignment_minimax_overrides_what_the_file_defines() -> None:
    done = student("check", "--assignment", "minimax", "--no-speed",
                   str(MONTECARLO_FILES / "correct_clone.py"))
    assert done.returncode == 1
    assert done.stdout.startswith("Checking mm_move in ")
    assert "defines no function mm_move(board, player)" in done.stdout


# ---- the checks' own answers ---------------------------------------------------------------

def test_every_check_has_its_own_seed_and_a_sound_position() -> None:
    seeds = [seed for check in MC_CHECKS for seed in check.seeds]
    assert len(seeds) == len(set(seeds))
    assert {check.function for check in MC_CHECKS} == set(FUNCTIONS)
    for check in MC_CHECKS:
        grid = [list(row) for row in check.grid]
        over = winner_of(grid, check.reverse) is not None
        if check.judged == UPDATE:
            assert over, check.name   # mc_update_scores is asked about finished games
        else:
            assert not over, check.name
        if check.judged == BEST:
            assert best_moves(grid, [list(row) for row in check.scores]), check.name
        if check.judged == MOVE_RIGHT:
            assert check.moves and all(grid[r][c] == EMPTY for r, c in check.moves)
            assert check.trials >= 200
    judged = {check.judged for check in MC_CHECKS}
    assert judged == {TRIAL, TRIALS_DIFFER, UPDATE, BEST, MOVE_EMPTY, MOVE_RIGHT}
    assert any(check.dim == 4 for check in MC_CHECKS if check.function == "mc_move")


# ---- correct files and bugs -----------------------------------------------------------

@pytest.mark.parametrize("path", CORRECT, ids=[path.stem for path in CORRECT])
def test_a_correct_file_passes_every_check(path: Path) -> None:
    done = student("check", str(path))
    assert done.returncode == 0, done.stdout
    assert done.stdout.count("\n  ok    ") == len(MC_CHECKS)
    assert done.stdout.rstrip().endswith(TALLY)
    assert "the montecarlo assignment" in done.stdout.splitlines()[0]
    assert "random is seeded with the check's own number" in done.stdout


@pytest.mark.parametrize("name", sorted(BUGS))
def test_each_bug_fails_a_check_of_its_function(name: str) -> None:
    function = BUGS[name]
    assert f"in {function}:" in (MONTECARLO_FILES / name).read_text().splitlines()[0]
    done = student("check", str(MONTECARLO_FILES / name))
    assert done.returncode == 1, done.stdout
    assert f"  FAIL  {function}: " in done.stdout
    assert "Traceback" not in done.stderr


def test_a_failure_shows_lines_to_paste_expected_received_and_why() -> None:
    done = student("check", str(MONTECARLO_FILES / "bug_wrong_side.py"))
    out = done.stdout
    assert ("  FAIL  mc_update_scores: the machine player (X) won\n"
            "        scores = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]; "
            "mc_update_scores(scores, TTTBoard(3, False, [[PLAYERX, PLAYERX, PLAYERX], "
            "[PLAYERO, PLAYERO, EMPTY], [EMPTY, EMPTY, EMPTY]]), PLAYERX); print(scores)\n"
            "        expected: scores [[1.0, 1.0, 1.0], [-1.0, -1.0, 0.0], [0.0, 0.0, 0.0]] "
            "(with your SCORE_CURRENT = 1.0, SCORE_OTHER = 1.0)\n"
            "        received: scores [[-1.0, -1.0, -1.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]\n"
            ) in out
    assert "        why: X won: each X square gains SCORE_CURRENT" in out
    assert "        the board (X is the machine player):" in out
    assert (f"To reproduce a failure, paste its line into Python started in {MONTECARLO_FILES} "
            "after: from bug_wrong_side import *; from provided import *; import random") in out


def test_a_trial_failure_names_the_seed_and_shows_the_board_after() -> None:
    out = student("check", str(MONTECARLO_FILES / "bug_not_alternating.py")).stdout
    assert "random.seed(1001); mc_trial(board, PLAYERX); print(board)" in out
    assert "problem:  the trial's moves do not alternate" in out
    assert "received: the board after the call: TTTBoard(3, False, [[" in out


def test_the_file_s_own_constants_are_used() -> None:
    out = student("check", str(MONTECARLO_FILES / "bug_ignores_score_other.py")).stdout
    assert "Your constants: NTRIALS = 100, SCORE_CURRENT = 1.0, SCORE_OTHER = 2.0." in out
    assert "(with your SCORE_CURRENT = 1.0, SCORE_OTHER = 2.0)" in out


@pytest.mark.parametrize("name", ["correct_clone.py", "bug_min_not_max.py"])
def test_the_same_file_gives_the_same_output_every_run(name: str) -> None:
    """The checks' verdicts (the speed part's times vary, so it is left out here)."""
    first, second = (student("check", "--no-speed", str(MONTECARLO_FILES / name))
                     for _ in range(2))
    assert first.stdout == second.stdout
    assert first.returncode == second.returncode


def test_a_missing_function_fails_its_checks_only(tmp_path: Path) -> None:
    source = (MONTECARLO_FILES / "correct_clone.py").read_text()
    start = source.index("def get_best_move")
    end = source.index("def mc_move")
    path = tmp_path / "no_best.py"
    path.write_text(source[:start] + source[end:])
    out = student("check", str(path)).stdout
    assert "problem:  your file defines no function get_best_move(board, scores)" in out
    assert "  ok    mc_trial: a game on the empty 3x3 board" in out


def test_a_python2_monte_carlo_file_is_refused_in_the_grader_s_words(tmp_path: Path) -> None:
    path = tmp_path / "mc_player.py"
    path.write_text("import random\n\ndef mc_trial(board, player):\n    print 'trial'\n")
    done = student("check", str(path))
    assert done.returncode == 1
    assert done.stdout.splitlines()[1].startswith("Cannot check the Monte Carlo player: ")
    assert "print" in done.stdout and "Traceback" not in done.stdout + done.stderr


def test_a_course_style_file_runs_as_it_is() -> None:
    out = student("check", str(MONTECARLO_FILES / "correct_course_style.py")).stdout
    assert ("note: your file calls play_game(...) and run_gui(...) when it is imported; "
            "the checks skip that call") in out
    assert "        | Monte Carlo player, NTRIALS = 100" in out


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
