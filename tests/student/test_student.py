"""The student handout: the template, `python -m student` (play) and `python -m student check`
on the minimax (the grader's public checks, run by the grader's engine in its sandbox)."""

from __future__ import annotations

import ast
import re
import importlib.util
import io
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import provided
import student.mm_player as mm_player
from grader.assignments.minimax.public import NORMAL, PUBLIC
from grader.judge.position import NO_MOVE
from grader.judge.positions import hidden_positions
from provided import DRAW, PLAYERO, PLAYERX, SCORES, TTTBoard, switch_player
from provided.course import COURSE_NAMES, PORT_PACKAGE
from student.__main__ import STUDENT_PLAYER, main

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "tests" / "submissions" / "student"
CORRECT = SUBMISSIONS / "correct.py"
CHECKS = len(PUBLIC) + 1     # the public positions, and the console game through move_wrapper


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


def test_student_package_imports_only_the_graders_public_path() -> None:
    """student/ keeps what is generic: what it needs of the grader is the public path
    (the registry, the public runner, the report's paste lines), never a hidden check."""
    allowed = {"grader.assignments", "grader.suite.public", "grader.assignments.registry",
               "grader.suite.engine", "grader.suite.report"}
    for path in (ROOT / "student").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            graders = [n for n in names if n.split(".")[0] == "grader"]
            assert set(graders) <= allowed, (path.name, graders)


# ---- the public positions: the grader's own, named for what they are ---------------------

def test_the_public_positions_are_hidden_positions_named_by_their_answer() -> None:
    """Each is asked in a grade as a hidden position of its part (so the hidden suite and
    the public checks judge it once, the same way); its name says what best play does."""
    hidden = hidden_positions()
    parts = {"finished boards": hidden.finished, "scores": hidden.normal,
             "other sizes": hidden.other_sizes, "reverse games": hidden.reverse}
    for case in PUBLIC:
        assert case.position in parts[case.part], case.name
        board = TTTBoard(case.position.dim, case.position.reverse, case.position.grid)
        score, moves = solve(board, case.position.player)
        if case.name.startswith("finished board"):
            assert moves == {NO_MOVE}
        if "X wins now" in case.name:
            assert score == 1 and len(moves) >= 1
        if "O wins now" in case.name:
            assert score == -1
        if "must not let X fork" in case.name:
            assert score == 0 and len(moves) > 1
    assert len({case.name for case in PUBLIC}) == len(PUBLIC)
    assert sum(case.part == NORMAL for case in PUBLIC) >= 4


# ---- python -m student check -----------------------------------------------------------

def test_check_on_the_template_says_what_to_do() -> None:
    done = student_check()
    assert done.returncode == 1
    assert ("Not written yet (it raises NotImplementedError): mm_move. Fill in its body in "
            "student/mm_player.py, then run `python -m student check` again.") in done.stdout
    assert done.stdout.rstrip().endswith(f"0 passed, 0 failed, {CHECKS} not run; speed: not "
                                         "judged (mm_move not written yet)")
    assert "Traceback" not in done.stdout + done.stderr
    assert "FAIL" not in done.stdout


def test_check_on_a_correct_solution_passes() -> None:
    done = student_check("--file", str(CORRECT), "--no-speed")
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith(f"Checking {CORRECT.relative_to(ROOT)} (Mini-max Tic-Tac-Toe, "
                                  f"the minimax assignment): {CHECKS} checks.\n")
    assert done.stdout.count("  ok    ") == CHECKS
    assert done.stdout.rstrip().endswith(f"{CHECKS} passed, 0 failed")
    assert "Speed" not in done.stdout


def test_check_reports_a_sign_error_in_the_graders_words_with_a_call_to_paste() -> None:
    """Each public position is one check (its score and its move, judged in two rubric
    items); a failure says what the grader says, with the call to paste."""
    done = student_check("--file", str(SUBMISSIONS / "sign_error.py"), "--no-speed")
    out = done.stdout
    assert done.returncode == 1
    block = out.split("  FAIL  O must block\n", 1)[1]
    assert block.startswith(
        "        mm_move(TTTBoard(3, False, [[PLAYERO, EMPTY, PLAYERX], [EMPTY, PLAYERX, EMPTY], "
        "[EMPTY, EMPTY, EMPTY]]), PLAYERO)\n"
        "        expected: score 0\n"
        "        received: (1, (0, 1))\n"
        "        problem:  wrong score\n"
        "        why: with best play, after O (2, 0), ")
    assert "        also: losing move: expected the move (2, 0), received (1, (0, 1))" in block
    assert "          0   O |   | X" in block
    # The student's prints are shown labelled under their check, never mixed into it.
    printed = [line for line in out.splitlines() if "thinking..." in line]
    assert printed and set(printed) == {"        | thinking..."}
    assert ("To reproduce a failure: start python3 in " + str(SUBMISSIONS) + " and paste "
            "these lines, then the failure's call:\n    from provided import *\n"
            "    from sign_error import mm_move\n") in out
    # It defines no move_wrapper: the grader's game play fails it, and so does the check.
    assert ("  FAIL  play_game(move_wrapper, 1, False): a whole game through move_wrapper\n"
            in out)
    assert "received: the submission has no function move_wrapper" in out
    assert out.rstrip().endswith("6 passed, 7 failed")


def test_check_stops_at_the_first_call_that_does_not_return() -> None:
    done = student_check("--file", str(SUBMISSIONS / "loops_on_1x1.py"))
    out = done.stdout
    assert done.returncode == 1
    assert "  FAIL  a 1x1 board\n" in out
    assert "        problem:  stuck (no answer: this check could not be judged)\n" in out
    assert ("        why: mm_move did not return on a position where a plain minimax searches "
            "at most 2 positions (a few milliseconds): an endless loop?") in out
    assert "do not assume the board is 3x3" not in out
    # The rest is not asked: 8 checks passed before it, 4 are reported as not run.
    assert ("not run: the 4 other checks and the speed checks, because mm_move did not "
            'return on "a 1x1 board": fix that first') in out
    assert out.count("  ok    ") == 8 and out.count("FAIL") == 1
    assert out.rstrip().endswith("8 passed, 1 failed, 4 not run; speed: not judged (mm_move "
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
    assert "  FAIL  2x2: O loses whatever it does\n" in done.stdout
    assert "problem:  board changed" in done.stdout
    assert "why: mm_move must not change the board it is given: clone it" in done.stdout
    assert "board after the call:" in done.stdout
    assert done.stdout.rstrip().endswith(f"{CHECKS - 2} passed, 2 failed")


@pytest.mark.parametrize("source, message", [
    ('print "hello"\n', 'line 1: print "hello"  -> write print("hello")'),
    ("import poc_simpleplot_missing\n", "remove that import"),
    ("raise RuntimeError('at import')\n", "importing the submission raised RuntimeError"),
    ("def mm_moves(board, player):\n    return 0, (-1, -1)\n",
     "the submission must define a function mm_move(board, player): mm_move is missing"),
])
def test_check_explains_a_file_that_cannot_be_checked(tmp_path: Path, source: str,
                                                      message: str) -> None:
    """In the grader's words (the report's load error), once."""
    path = tmp_path / "mm_player.py"
    path.write_text(source)
    done = student_check("--file", str(path))
    assert done.returncode == 1
    assert done.stdout.count(f"Cannot check {path}: ") == 1
    assert message in done.stdout
    assert done.stdout.rstrip().endswith("not checked; speed: not judged")


def test_check_shows_the_students_traceback(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("def mm_move(board, player):\n    return helper(board)\n\n"
                    "def helper(board):\n    return board.nope()\n")
    done = student_check("--file", str(path), "--no-speed")
    assert done.returncode == 1
    assert ("received: AttributeError: 'TTTBoard' object has no attribute 'nope'"
            in done.stdout)
    assert "in helper" in done.stdout
    assert "worker.py" not in done.stdout and "public.py" not in done.stdout


def test_check_bad_options() -> None:
    done = student_check("--file", "no/such/file.py")
    assert done.returncode == 2
    assert "there is no file no/such/file.py" in done.stderr
    done = student_check("no/such/file.py")        # the file as students type it first
    assert done.returncode == 2
    assert "there is no file no/such/file.py" in done.stderr
    done = student_check("a.py", "--file", "b.py")
    assert done.returncode == 2 and "two files: a.py and --file b.py" in done.stderr
    done = student_check("--assignment", "chess")
    assert done.returncode == 2
    assert "there is no assignment 'chess'; the assignments are: minimax, montecarlo" in done.stderr


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
    assert done.stdout.rstrip().endswith(f"{CHECKS} passed, 0 failed")


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

@pytest.mark.long
def test_check_shows_what_mm_move_prints_labelled_and_capped() -> None:
    done = student_check("--file", str(SUBMISSIONS / "prints.py"), "--no-speed")
    out = done.stdout
    assert done.returncode == 0, out
    # What the file printed when it was imported, once, under a label.
    assert out.count("note: your file printed 1 line when it was imported:\n"
                     "        | mm_player loaded\n") == 1
    # Under its check, labelled; at most five lines of a check, then how many more.
    assert ("  ok    finished board: a draw\n"
            "        your code printed 1 line:\n"
            "        | mm_move: 0 empty squares\n") in out
    assert ("  ok    X wins now\n"
            "        your code printed 6 lines:\n"
            "        | mm_move: 5 empty squares\n") in out
    assert "        | ... and 1 more (not shown)\n" in out
    # Once thirty lines were shown, the rest are counted, not shown, and said to be hidden.
    assert re.search(r"\n  ok    reverse game: O must not complete a line\n"
                     r"        your code printed \d+ lines \(not shown: a check shows the "
                     r"first 30 printed lines of its run\)\n", out), out
    shown = [line for line in out.splitlines()
             if line.startswith("        | ") and "... and" not in line]
    assert len(shown) == 30                   # the import's line among them
    assert out.rstrip().endswith(f"{CHECKS} passed, 0 failed")


def test_what_the_speed_checks_printed_is_counted_not_shown() -> None:
    """The speed part's notes are said (the first as its heading), what the calls printed
    only counted, and the verdict follows from its checks."""
    from grader.assignments import get
    from grader.judge.results import GradeResult
    from grader.suite.public import Check, PublicRun
    from student.check import CheckRun
    from student.output import Progress

    out = io.StringIO()
    run = CheckRun(CORRECT, "correct.py", get("minimax"), "recognised", True, out,
                   Progress(io.StringIO()), "python -m student check")
    run.show_speed(PublicRun(GradeResult("correct.py", "correct"), (
        Check("speed", "speed", passed=19, printed="a\nb\n" * 1000,
              notes=("Speed, as the grader judges it.", "within the grader's limits")),)))
    assert out.getvalue() == (
        "Speed, as the grader judges it.\n"
        "  within the grader's limits\n"
        "  your code printed 2,000 lines during the speed checks (not shown); printing "
        "takes time, and the grader times it too\n")
    assert (run.speed_said, run.speed_ok) == ("within the grader's limits", True)
