"""Console play (provided.console, python -m provided): scripted games, bad input, bad players."""

from __future__ import annotations

import doctest
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import provided.console as console
from provided import EMPTY, PLAYERO, PLAYERX, TTTBoard
from provided.console import HUMAN, Player, main, parse_square, play

ROOT = Path(__file__).resolve().parents[2]
PLAYERS_DIR = ROOT / "tests" / "submissions" / "student"
PLAYERS_FILE = PLAYERS_DIR / "players.py"
FIRST = "provided.console:first_empty"
ALL_SQUARES = "".join(f"{r} {c}\n" for r in range(3) for c in range(3))


def run_main(argv: list[str], text: str = "") -> tuple[int, str, str]:
    """Run console.main with scripted input; return (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, stdin=io.StringIO(text), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def players_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make tests/submissions/student/players.py importable as `players`."""
    monkeypatch.syspath_prepend(str(PLAYERS_DIR))
    monkeypatch.delitem(sys.modules, "players", raising=False)


def test_doctests_pass() -> None:
    assert doctest.testmod(console).failed == 0


def test_human_against_random_finishes() -> None:
    status, out, err = run_main(["--seed", "1"], ALL_SQUARES)
    assert status == 0, err
    assert out.rstrip().splitlines()[-1].split(" ")[0] in ("X", "O", "Tie!")
    assert "X: human, O: random (seed 1" in out
    assert "O (random) plays (" in out
    assert err == ""


def test_same_seed_same_game() -> None:
    assert run_main(["--seed", "4"], ALL_SQUARES) == run_main(["--seed", "4"], ALL_SQUARES)


def test_play_returns_the_result_and_leaves_the_board() -> None:
    board = TTTBoard(3)
    result = play(board, {PLAYERX: Player(HUMAN), PLAYERO: Player("first", console.first_empty)},
                  stdin=io.StringIO("1 1\n2 2\n0 2\n2 0\n"), stdout=io.StringIO())
    # O takes the first empty square: (0, 0), (0, 1), (1, 0); X wins on the anti-diagonal.
    assert result.moves[:2] == ((1, 1), (0, 0))
    assert result.winner == result.board.check_win() == PLAYERX
    assert board.get_empty_squares() == TTTBoard(3).get_empty_squares()


@pytest.mark.parametrize("text", ["1 2", "1,2", "(1, 2)", " [1 , 2] ", "1\t2", "(1 2)"])
def test_square_formats(text: str) -> None:
    assert parse_square(text, TTTBoard(3)) == (1, 2)


@pytest.mark.parametrize("text, message", [
    ("abc", "'abc' is not a square: type a row and a column"),
    ("", "type a row and a column, for example 1 2"),
    ("1 2 3", "is not a square"),
    ("1.5 2", "is not a square"),
    ("3 0", "(3, 0) is off the board: rows and columns go from 0 to 2"),
    ("-1 0", "(-1, 0) is off the board"),
    ("0 0", "(0, 0) is taken by X: choose an empty square"),
])
def test_bad_squares(text: str, message: str) -> None:
    board = TTTBoard(3, False, [[PLAYERX, EMPTY, EMPTY], [EMPTY] * 3, [EMPTY] * 3])
    with pytest.raises(ValueError) as info:
        parse_square(text, board)
    assert message in str(info.value)


def test_bad_input_gets_a_message_and_a_new_prompt() -> None:
    script = "abc\n9 9\n\n1,1\n(1, 1)\n0 1\n2 1\n"
    status, out, err = run_main(["-o", FIRST], script)
    assert status == 0, err
    assert out.count("X, your move (row col): ") == 7
    assert "  'abc' is not a square" in out
    assert "  (9, 9) is off the board" in out
    assert "  (1, 1) is taken by X" in out
    # X: (1,1) (0,1) (2,1) wins the middle column; O took (0,0) and (0,2).
    assert out.rstrip().endswith("X wins!")


def test_board_is_drawn_with_coordinates() -> None:
    board = TTTBoard(3, False, [[PLAYERX, EMPTY, EMPTY], [EMPTY, PLAYERO, EMPTY], [EMPTY] * 3])
    assert console.draw_board(board) == "\n".join([
        "    0   1   2",
        "0   X |   |",
        "   ---+---+---",
        "1     | O |",
        "   ---+---+---",
        "2     |   |"])


def test_end_of_input_stops_cleanly() -> None:
    status, out, err = run_main([], "1 1\n")
    assert status == 1
    assert "Game stopped: the input ended before the game did (X to move)." in err
    assert "Traceback" not in out + err


def test_reverse_game_explains_the_result() -> None:
    status, out, _ = run_main(["-n", "1", "--reverse"], "0 0\n")
    assert status == 0
    assert "reverse: whoever completes a line loses" in out
    assert out.rstrip().endswith("O wins! (X completed a line, which loses in the reverse game)")


def test_module_function_players(players_module: None) -> None:
    status, out, err = run_main(["-x", "players:last_empty", "-o", FIRST])
    assert status == 0, err
    assert "X (players:last_empty) plays (2, 2)" in out
    assert f"O ({FIRST}) plays (0, 0)" in out
    assert out.rstrip().endswith("X wins!")  # X fills the bottom row first


def test_file_function_player() -> None:
    status, out, err = run_main(["-x", f"{PLAYERS_FILE}:last_empty", "-o", "random"])
    assert status == 0, err
    assert f"X ({PLAYERS_FILE}:last_empty) plays (2, 2)" in out


def test_move_function_gets_a_copy_of_the_board(players_module: None) -> None:
    # `scribbles` fills the board it is given; the game must go on regardless.
    status, out, err = run_main(["-x", "players:scribbles", "-o", FIRST])
    assert status == 0, err
    assert "X (players:scribbles) plays (0, 0)" in out
    assert "O (provided.console:first_empty) plays (0, 1)" in out


def test_illegal_move_stops_the_game(players_module: None) -> None:
    status, out, err = run_main(["-x", "random", "-o", "players:off_board", "--seed", "2"])
    assert status == 1
    assert err.startswith("Game stopped: O (players:off_board) returned an illegal move.")
    assert "O chose (5, 5), which is not an empty square of this board:" in err
    assert " | " in err and "legal moves: [" in err  # the board and the legal squares
    assert "wins!" not in out and "Tie!" not in out


def test_crashing_move_function_shows_its_own_traceback(players_module: None) -> None:
    status, _, err = run_main(["-x", "players:crashes"])
    assert status == 1
    assert "Game stopped: X (players:crashes) raised ValueError: something went wrong" in err
    assert 'in helper_that_fails' in err
    assert "console.py" not in err  # only the move function's frames


def test_wrong_parameters_get_a_hint(players_module: None) -> None:
    status, _, err = run_main(["-x", "provided.board:switch_player"])  # takes one argument
    assert status == 1
    assert "A move function is called as FUNCTION(board, player, trials)" in err


@pytest.mark.parametrize("spec, message", [
    ("no_such_module_xyz:move", "there is no module 'no_such_module_xyz'"),
    ("provided.no_such:move", "there is no module 'provided.no_such'"),
    ("provided.game:nope", "'provided.game' has no function 'nope' (it has: "),
    ("provided.board:SCORES", "'provided.board:SCORES' is not a function: it is a dict"),
    ("players:NOT_A_FUNCTION", "'players:NOT_A_FUNCTION' is not a function: it is a int"),
    ("computer", "'computer' is not a player: use human, random, perfect, MODULE:FUNCTION "
                 "or path/to/FILE.py:FUNCTION (for example student.mm_player:move_wrapper)"),
    ("provided:", "'provided:' is not a player"),
    ("missing_file.py:move", "there is no file 'missing_file.py'"),
])
def test_bad_player_spec_is_a_usage_error(spec: str, message: str, players_module: None,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["-o", spec], stdin=io.StringIO(), stdout=io.StringIO())
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err
    assert f"argument -o/--playero: {message}" in err


def test_import_error_inside_the_module_is_named(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "oldstyle.py"
    bad.write_text("import poc_simpleplot_x\n\ndef move(board, player, trials):\n    return 0, 0\n")
    with pytest.raises(SystemExit):
        main(["-x", f"{bad}:move"], stdout=io.StringIO())
    assert "failed: No module named 'poc_simpleplot_x'" in capsys.readouterr().err


COURSE = ROOT / "tests" / "submissions" / "course"


def test_a_python2_file_gets_the_checks_fix(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "old.py"
    old.write_text('def move(board, player, trials):\n    print "thinking"\n    return 0, 0\n')
    with pytest.raises(SystemExit) as info:
        main(["-x", f"{old}:move"], stdout=io.StringIO())
    assert info.value.code == 2
    err = capsys.readouterr().err
    # The same words as python -m student check (provided.python2.compile_problem).
    assert ('line 2: print "thinking"  -> write print("thinking")\n'
            "This file is Python 2; the course runs Python 3.") in err


def test_a_python2_habit_at_run_time_gets_the_checks_hint() -> None:
    status, _, err = run_main(["-x", f"{COURSE / 'python2_map.py'}:move_wrapper",
                               "-o", "random", "--seed", "1"])
    assert status == 1
    assert "TypeError: 'map' object is not subscriptable" in err
    assert ("This looks like Python 2: in Python 3 map() returns an iterator, not a list: "
            "in `first = moves[0]`, write list(map(...))") in err
    check = subprocess.run([sys.executable, "-m", "student", "check", "--file",
                            str(COURSE / "python2_map.py")], cwd=ROOT, capture_output=True,
                           text=True, timeout=300)
    hint = next(line for line in err.splitlines() if line.startswith("This looks like"))
    assert hint in check.stdout   # word for word what the check says


def test_a_missing_course_module_gets_the_checks_hint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "plots.py"
    bad.write_text("import poc_simpleplot_x\n\ndef move(board, player, trials):\n"
                   "    return 0, 0\n")
    with pytest.raises(SystemExit):
        main(["-x", f"{bad}:move"], stdout=io.StringIO())
    assert ("-> the module poc_simpleplot_x is not available to the grader"
            in capsys.readouterr().err)


@pytest.mark.parametrize("argv", [["-n", "0"], ["--size", "three"], ["--trials", "-1"]])
def test_bad_numbers_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv, stdout=io.StringIO())
    assert info.value.code == 2


def python_m(args: list[str], text: str = "", **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], input=text, capture_output=True,
                          text=True, cwd=ROOT, timeout=60, **kwargs)


def test_help_explains_every_option() -> None:
    done = python_m(["provided", "--help"])
    assert done.returncode == 0
    for word in ("--size", "--reverse", "--playerx", "--playero", "--seed", "--trials",
                 "human", "random", "MODULE:FUNCTION", "FILE.py:FUNCTION", "examples:",
                 "python -m provided -x random -o human", "exit status"):
        assert word in done.stdout, word


def test_python_m_provided_with_piped_input() -> None:
    done = python_m(["provided", "--seed", "3"], ALL_SQUARES)
    assert done.returncode == 0, done.stderr
    assert "    0   1   2" in done.stdout
    assert "X, your move (row col): 0 0" in done.stdout  # piped input is echoed
    assert done.stdout.rstrip().splitlines()[-1] in ("X wins!", "O wins!", "Tie!")
    assert done.stderr == ""


def test_python_m_provided_end_of_input() -> None:
    done = python_m(["provided"], "")
    assert done.returncode == 1
    assert "input ended" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_stops_cleanly() -> None:
    # SIGINT as a terminal delivers it, even when the suite runs in a shell's background
    # (which starts it with SIGINT ignored, and Python then never raises KeyboardInterrupt).
    proc = subprocess.Popen([sys.executable, "-m", "provided"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        seen = b""
        deadline = time.monotonic() + 30
        while b"your move" not in seen and time.monotonic() < deadline:
            seen += os.read(proc.stdout.fileno(), 4096)  # type: ignore[union-attr]
        assert b"your move" in seen
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, err
    assert b"interrupted (Ctrl-C)" in err
    assert b"Traceback" not in err


# ---- files written for the course, slow players, the perfect player's limit --------------

COURSE_FILE = ROOT / "tests" / "submissions" / "course" / "course_template_filled.py"


def test_a_course_file_plays_the_game_asked_for_not_its_own() -> None:
    """It imports poc_ttt_provided and poc_ttt_gui and calls run_gui when imported."""
    done = python_m(["provided", "-x", f"{COURSE_FILE}:move_wrapper", "-o", "perfect"], "")
    assert done.returncode == 0, done.stderr
    assert "calls run_gui(...) when it is imported; that game was skipped" in done.stderr
    assert f"X ({COURSE_FILE}:move_wrapper) plays (" in done.stdout
    assert done.stdout.rstrip().endswith("Tie!")   # two perfect players
    assert "Traceback" not in done.stderr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def slow_first_empty(board: TTTBoard, player: int, trials: int) -> tuple[int, int]:
    time.sleep(0.3)
    return console.first_empty(board, player, trials)


@pytest.mark.parametrize("stdout, says", [(Terminal(), True), (io.StringIO(), False)])
def test_a_slow_move_function_is_said_to_think_in_a_terminal_only(
        monkeypatch: pytest.MonkeyPatch, stdout: io.StringIO, says: bool) -> None:
    monkeypatch.setattr(console, "THINKING_AFTER", 0.05)
    players = {PLAYERX: Player("slow", slow_first_empty),
               PLAYERO: Player("fast", console.first_empty)}
    play(TTTBoard(2), players, stdout=stdout)
    out = stdout.getvalue()
    assert ("X (slow) is thinking..." in out) is says
    assert "O (fast) is thinking..." not in out


def test_the_perfect_player_on_a_large_board_says_why_without_a_traceback() -> None:
    status, out, err = run_main(["-n", "5", "-x", "perfect", "-o", "random"])
    assert status == 1
    assert "the perfect player cannot solve this 5x5 position" in err
    assert "Traceback" not in err
