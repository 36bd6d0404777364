"""The student handout: the template, `python -m student` (play) and `python -m student check`."""

from __future__ import annotations

import ast
import re
import doctest
import importlib.util
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

import provided
import student.checks as checks
import student.mm_player as mm_player
from provided import DRAW, EMPTY, PLAYERO, PLAYERX, SCORES, TTTBoard, switch_player
from provided.course import COURSE_NAMES, PORT_PACKAGE
from student.__main__ import STUDENT_PLAYER, main
from student.checks import ANSWER, CHECKS, ERROR, NO_MOVE, TIMEOUT, Reply, judge

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "tests" / "submissions" / "student"
CORRECT = SUBMISSIONS / "correct.py"


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"submission_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def student_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "student", "check", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def solve(board: TTTBoard, player: int) -> tuple[int, frozenset[tuple[int, int]]]:
    """Brute force: the value of board and EVERY move that achieves it."""
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], frozenset({NO_MOVE})
    values = {}
    for row, col in board.get_empty_squares():
        trial = board.clone()
        trial.move(row, col, player)
        values[(row, col)] = solve(trial, switch_player(player))[0]
    best = (max if player == PLAYERX else min)(values.values())
    return best, frozenset(move for move, value in values.items() if value == best)


# ---- the template ----------------------------------------------------------------------

def test_template_says_it_is_not_written() -> None:
    with pytest.raises(NotImplementedError,
                       match=r"mm_move is not written yet: open student/mm_player.py"):
        mm_player.mm_move(TTTBoard(3), PLAYERX)
    with pytest.raises(NotImplementedError):
        mm_player.move_wrapper(TTTBoard(3), PLAYERX, 1)


def test_template_has_the_course_interface() -> None:
    assert mm_player.SCORES == {PLAYERX: 1, DRAW: 0, PLAYERO: -1} == provided.SCORES
    assert mm_player.provided is provided
    for name in ("mm_move", "move_wrapper"):
        doc = getattr(mm_player, name).__doc__
        assert doc and len(doc) > 40, name
    doc = mm_player.mm_move.__doc__
    for phrase in ("(score, (row, col))", "(-1, -1)", "clone", "reverse", "any one of them",
                   "X maximises", "O minimises"):
        assert phrase in doc, phrase


def test_move_wrapper_returns_the_move(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mm_player, "mm_move", lambda board, player: (1, (0, 2)))
    assert mm_player.move_wrapper(TTTBoard(3), PLAYERX, 1) == (0, 2)


def test_move_wrapper_refuses_no_move(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mm_player, "mm_move", lambda board, player: (0, (-1, -1)))
    with pytest.raises(AssertionError, match=r"mm_move returned the move \(-1, -1\)"):
        mm_player.move_wrapper(TTTBoard(3), PLAYERX, 1)


def test_student_package_does_not_use_the_grader() -> None:
    for path in (ROOT / "student").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n.split(".")[0] == "grader" for n in names), (path, names)


def test_doctests_pass() -> None:
    assert doctest.testmod(checks).failed == 0


# ---- the public checks' answer key -----------------------------------------------------

@pytest.mark.parametrize("check", CHECKS, ids=[c.name for c in CHECKS])
def test_expected_answers_match_brute_force(check: checks.Check) -> None:
    assert solve(check.board(), check.player) == (check.score, check.moves)


@pytest.mark.parametrize("check", CHECKS, ids=[c.name for c in CHECKS])
def test_positions_are_reachable(check: checks.Check) -> None:
    cells = [v for row in check.grid for v in row]
    xs, os_ = cells.count(PLAYERX), cells.count(PLAYERO)
    if EMPTY in cells and check.board().check_win() is None:
        assert check.player == (PLAYERX if xs == os_ else PLAYERO)
    assert xs - os_ in (0, 1)


def test_checks_are_not_the_course_examples() -> None:
    X, O, E = PLAYERX, PLAYERO, EMPTY
    examples = {
        (((X, E, E), (O, O, E), (E, X, E)), X, False),
        (((E, E, X), (E, E, E), (E, E, E)), O, False),
        (((E, E), (E, E)), X, False),
        (((X, X, O), (O, X, X), (O, E, O)), X, False),
    }
    assert not examples & {(c.grid, c.player, c.reverse) for c in CHECKS}
    assert 10 <= len(CHECKS) <= 15
    assert len({c.name for c in CHECKS}) == len(CHECKS)


# ---- judging one reply -----------------------------------------------------------------

FORK = next(c for c in CHECKS if len(c.moves) > 1 and c.score == 0)
OVER = CHECKS[0]


@pytest.mark.parametrize("move", sorted(FORK.moves))
def test_any_optimal_move_passes(move: tuple[int, int]) -> None:
    assert judge(FORK, Reply(ANSWER, repr((0, move)), 0, move)).passed


@pytest.mark.parametrize("check, reply, problem", [
    (FORK, Reply(ANSWER, "(1, (0, 1))", 1, (0, 1)), "expected score 0 but received (1, (0, 1))"),
    (FORK, Reply(ANSWER, "(0, (0, 2))", 0, (0, 2)), "returned bad move (0, (0, 2)): the score is right"),
    (FORK, Reply(ANSWER, "(0, (0, 0))", 0, (0, 0)), "(0, 0) is not an empty square"),
    (FORK, Reply(ANSWER, "(0, (-1, -1))", 0, (-1, -1)), "returned invalid move (0, (-1, -1))"),
    (OVER, Reply(ANSWER, "(1, (0, 0))", 1, (0, 0)), "the game is over, the move must be (-1, -1)"),
    (FORK, Reply(ANSWER, "[0, [0, 1]]"), "returned [0, [0, 1]]: it is not a tuple (score, (row, col))"),
    (FORK, Reply(ANSWER, "(0, (0, 1))", 0, (0, 1), board_after="TTTBoard(3, ...)"),
     "changed the board it was given"),
    (FORK, Reply(TIMEOUT, message="took longer than 2 s"), "took longer than 2 s"),
    (FORK, Reply(ERROR, message="Traceback ...\nKeyError: 5"), "raised KeyError: 5"),
])
def test_wrong_replies_fail_with_a_reason(check: checks.Check, reply: Reply,
                                          problem: str) -> None:
    verdict = judge(check, reply)
    assert not verdict.passed
    assert problem in verdict.problem


# ---- python -m student check -----------------------------------------------------------

def test_check_on_the_template_says_what_to_do() -> None:
    done = student_check()
    assert done.returncode == 1
    assert done.stdout.count("not written yet") == 1
    assert ("mm_move in student/mm_player.py is not written yet (it raises "
            "NotImplementedError): fill in its body") in done.stdout
    assert done.stdout.rstrip().endswith(f"0 passed, {len(CHECKS)} failed; speed: not judged")
    assert "Traceback" not in done.stdout + done.stderr
    assert "FAIL" not in done.stdout


def test_check_on_a_correct_solution_passes() -> None:
    done = student_check("--file", str(CORRECT), "--no-speed")
    assert done.returncode == 0, done.stdout
    assert done.stdout.count("  ok    ") == len(CHECKS)
    assert done.stdout.rstrip().endswith(f"{len(CHECKS)} passed, 0 failed")
    assert "Speed" not in done.stdout


def test_check_reports_a_sign_error_with_a_call_to_paste() -> None:
    done = student_check("--file", str(SUBMISSIONS / "sign_error.py"), "--no-speed")
    out = done.stdout
    assert done.returncode == 1
    assert "  FAIL  O must block\n" in out
    assert ("mm_move(TTTBoard(3, False, [[PLAYERX, EMPTY, EMPTY], [EMPTY, PLAYERX, EMPTY], "
            "[PLAYERO, EMPTY, EMPTY]]), PLAYERO)") in out
    assert "expected: (0, (2, 2))" in out
    assert "received: (1, (0, 1))" in out
    assert "the board (PLAYERO to move):" in out and "  2   O |   |" in out
    # The student's prints are shown labelled under their check, never mixed into it.
    printed = [line for line in out.splitlines() if "thinking..." in line]
    assert printed and set(printed) == {"        | thinking..."}
    assert "To reproduce a failure, paste its call into Python after:" in out
    assert out.rstrip().endswith("8 passed, 4 failed")


def test_check_stops_at_the_first_call_that_does_not_return() -> None:
    done = student_check("--file", str(SUBMISSIONS / "loops_on_1x1.py"))
    out = done.stdout
    assert done.returncode == 1
    assert "  FAIL  a 1x1 board" in out
    assert re.search(r"problem:  did not return within its limit of \d+\.\d+ s of CPU time: "
                     r"an endless loop\?", out)
    # The rest is not asked: 3 checks passed before it, 8 are reported as not run.
    assert ("not run: the 8 other checks and the speed checks, because mm_move did not "
            'return on "a 1x1 board": fix that first') in out
    assert out.count("  ok    ") == 3 and out.count("FAIL") == 1
    assert out.rstrip().endswith("3 passed, 1 failed, 8 not run; speed: not judged (mm_move "
                                 "did not return on a check)")


def test_check_reports_a_board_changed(tmp_path: Path) -> None:
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text(CORRECT.read_text().replace(
        "    return best\n",
        "    if board.get_dim() == 2:\n"
        "        board.move(*board.get_empty_squares()[0], player)\n"
        "    return best\n"))
    done = student_check("--file", str(sneaky), "--no-speed")
    assert done.returncode == 1
    assert "problem:  changed the board it was given" in done.stdout
    assert "the board after the call: TTTBoard(2, False," in done.stdout
    assert done.stdout.rstrip().endswith(f"{len(CHECKS) - 2} passed, 2 failed")


@pytest.mark.parametrize("source, message", [
    ('print "hello"\n', "does not compile"),
    ("import poc_simpleplot_missing\n", "remove that import"),
    ("raise RuntimeError('at import')\n", "failed while being imported"),
    ("def mm_moves(board, player):\n    return 0, (-1, -1)\n", "defines no function mm_move"),
])
def test_check_explains_a_file_that_cannot_be_checked(tmp_path: Path, source: str,
                                                      message: str) -> None:
    path = tmp_path / "mm_player.py"
    path.write_text(source)
    done = student_check("--file", str(path))
    assert done.returncode == 1
    assert f"Cannot check mm_move: {path}" in done.stdout
    assert message in done.stdout
    assert done.stdout.rstrip().endswith(f"0 passed, {len(CHECKS)} failed; speed: not judged")


def test_check_shows_the_students_traceback(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("def mm_move(board, player):\n    return helper(board)\n\n"
                    "def helper(board):\n    return board.nope()\n")
    done = student_check("--file", str(path))
    assert done.returncode == 1
    assert "problem:  raised AttributeError: 'TTTBoard' object has no attribute 'nope'" in done.stdout
    assert "in helper" in done.stdout
    assert "runner.py" not in done.stdout


def test_check_bad_options() -> None:
    done = student_check("--file", "no/such/file.py")
    assert done.returncode == 2
    assert "there is no file no/such/file.py" in done.stderr
    done = student_check("no/such/file.py")        # the file as students type it first
    assert done.returncode == 2
    assert "there is no file no/such/file.py" in done.stderr
    done = student_check("a.py", "--file", "b.py")
    assert done.returncode == 2 and "two files: a.py and --file b.py" in done.stderr


# ---- python -m student (play) ----------------------------------------------------------

def test_play_on_the_template_says_what_to_do() -> None:
    done = subprocess.run([sys.executable, "-m", "student"], input="1 1\n", cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "Your player is not ready: mm_move is not written yet" in done.stderr
    assert "Traceback" not in done.stderr
    assert "your move" not in done.stdout  # it said so before the game started


def test_play_against_your_own_player(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(mm_player, "mm_move", load(CORRECT).mm_move)
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 1\n0 1\n1 0\n2 0\n0 2\n2 2\n1 2\n"))
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "X: human, O: your mm_move." in out
    assert "O (your mm_move) plays (" in out
    assert out.rstrip().splitlines()[-1] in ("O wins!", "Tie!")  # minimax never loses


def test_play_help_has_the_console_options_check_and_submit(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for word in ("--size", "--reverse", "--playerx", "--playero", "--seed", "--trials",
                 f"default: {STUDENT_PLAYER}", "python -m student check",
                 "python -m student gui", "python -m student submit",
                 "python -m student submit --help"):
        assert word in out, word


def test_gui_help_is_the_windows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gui", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m student gui")
    assert "you click the squares" in out
    assert f"default: {STUDENT_PLAYER}" in out


def test_gui_without_a_display_says_what_to_do(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(mm_player, "mm_move", load(CORRECT).mm_move)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["gui"]) == 1
    err = capsys.readouterr().err
    assert "Cannot open a window" in err
    assert "python -m student" in err  # the terminal game still works


def test_gui_on_the_template_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gui"]) == 1
    assert "Your player is not ready" in capsys.readouterr().err


def test_gui_refuses_two_humans(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gui", "-x", "human", "-o", "human"]) == 2
    assert "one human player" in capsys.readouterr().err


# ---- files written for the course (CodeSkulptor imports, Python 2 habits) --------------

COURSE = ROOT / "tests" / "submissions" / "course"


@pytest.mark.parametrize("name", ["course_template_filled.py", "port_imports.py"])
def test_check_runs_a_course_file_as_it_is(name: str) -> None:
    done = student_check("--file", str(COURSE / name), "--no-speed")
    assert done.returncode == 0, done.stdout
    assert "note: your file calls run_gui(...) when it is imported" in done.stdout
    assert done.stdout.rstrip().endswith(f"{len(CHECKS)} passed, 0 failed")


@pytest.mark.parametrize("name, hint", [
    ("python2_none.py", "Python 3 refuses to compare None"),
    ("python2_map.py", "write list(map(...))"),
])
def test_check_explains_python2_habits(name: str, hint: str) -> None:
    done = student_check("--file", str(COURSE / name), "--no-speed")
    assert done.returncode == 1
    assert "This looks like Python 2" in done.stdout
    assert hint in done.stdout


# ---- python3 mm_player.py: the course's modules beside the template -------------------------

def _course_file_in_a_copy(tmp_path: Path) -> Path:
    """A copy of student/ and provided/ whose mm_player.py is a course file that tests itself
    with poc_simpletest when imported and plays a game at its bottom."""
    for name in ("student", "provided"):
        shutil.copytree(ROOT / name, tmp_path / name,
                        ignore=shutil.ignore_patterns("__pycache__", ".*"))
    source = (COURSE / "simpletest_suite.py").read_text()
    game = "provided.play_game(move_wrapper, 1, False)"
    source = source.replace("# poc_ttt_gui.run_gui(3, provided.PLAYERO, move_wrapper, 1, False)",
                            game)
    assert game in source
    (tmp_path / "student" / "mm_player.py").write_text(source)
    return tmp_path / "student"


def test_the_course_modules_sit_beside_the_template() -> None:
    for name in COURSE_NAMES:
        assert (ROOT / "student" / f"{name}.py").is_file(), name
    assert (ROOT / "student" / PORT_PACKAGE / "__init__.py").is_file()


@pytest.mark.parametrize("flags", [[], ["-S"]], ids=["installed", "nothing installed"])
def test_python_mm_player_py_runs_a_course_file_in_the_student_folder(
        tmp_path: Path, flags: list[str]) -> None:
    """As the README says: `python3 mm_player.py` plays the game the file starts. -S: no
    site-packages, so provided is found beside student/, as in an unzipped handout."""
    folder = _course_file_in_a_copy(tmp_path)
    done = subprocess.run([sys.executable, *flags, "mm_player.py"], cwd=folder,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Ran 3 tests. 0 failures.\n"), done.stdout
    assert done.stdout.rstrip().endswith("Tie!")   # minimax against itself
    assert "Traceback" not in done.stderr


def test_check_runs_a_course_file_written_over_the_template(tmp_path: Path) -> None:
    folder = _course_file_in_a_copy(tmp_path)
    done = subprocess.run([sys.executable, "-m", "student", "check", "--no-speed"],
                          cwd=folder.parent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "note: your file calls play_game(...) when it is imported" in done.stdout
    assert ("note: your file printed 1 line when it was imported:\n"
            "        | Ran 3 tests. 0 failures.\n") in done.stdout   # its poc_simpletest suite


# ---- what mm_move prints during the check --------------------------------------------------

def test_check_shows_what_mm_move_prints_labelled_and_capped() -> None:
    done = student_check("--file", str(SUBMISSIONS / "prints.py"))
    out = done.stdout
    assert done.returncode == 0, out
    # The import's output once, under a label, though every check imports the file again.
    assert out.count("note: your file printed 1 line when it was imported:\n"
                     "        | mm_player loaded\n") == 1
    # Under its check, labelled; at most five lines of a call, then how many more.
    assert ("  ok    a 1x1 board\n"
            "        mm_move printed 2 lines:\n"
            "        | mm_move: 1 empty squares\n"
            "        |   move (0, 0) scores 1\n") in out
    assert "        | ... and 1 more (not shown)\n" in out
    # Once thirty lines were shown, the rest are counted, not shown, and said to be hidden.
    assert ("  ok    reverse game: O must not complete a line\n"
            "        mm_move printed 3 lines (not shown: a check shows the first 30 printed "
            "lines of its run)\n") in out
    shown = [line for line in out.splitlines()
             if line.startswith("        | ") and "... and" not in line]
    assert len(shown) == 30                   # the import's line among them
    assert re.search(r"\n  mm_move printed [\d,]+ lines during the speed checks \(not shown\)",
                     out)
    assert out.rstrip().endswith("12 passed, 0 failed; speed: within the grader's limits")


def test_a_call_stopped_for_time_still_reports_what_it_printed() -> None:
    source = ("def mm_move(board, player):\n"
              "    print('searching')\n"
              "    while True:\n"
              "        pass\n")
    position = {"dim": 1, "reverse": False, "grid": [[EMPTY]], "player": PLAYERX,
                "cpu_limit": 0.2, "cpu": None}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "loops.py"
        path.write_text(source)
        done = subprocess.run([sys.executable, "-m", "student.runner", str(path)],
                              input=json.dumps(position), cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
    answer = json.loads(done.stdout)
    assert answer["kind"] == "timeout"
    assert (answer["printed"], answer["printed_lines"]) == (["searching"], 1)
    assert "searching" not in done.stderr     # kept apart, not mixed into the process's output
