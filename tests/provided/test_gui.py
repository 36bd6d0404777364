"""The window (provided.gui): the game without a display, GuiUnavailable, the real window
under a virtual display (Xvfb, driven with xdotool)."""

from __future__ import annotations

import doctest
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Callable

import pytest

import provided.gui as gui
from provided import EMPTY, PLAYERO, PLAYERX, TTTBoard
from provided.console import ConsoleConfig
from provided.gui import GuiGame, layout, run_gui
from provided.gui.command import gui_main

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = Path(tempfile.gettempdir()) / "ttt_gui_screenshot.png"


def first_empty(board: TTTBoard, player: int, trials: int) -> tuple[int, int]:
    return board.get_empty_squares()[0]


def scripted(*moves: tuple[int, int]) -> Callable:
    """A move function that answers ``moves`` in turn."""
    answers = iter(moves)
    return lambda board, player, trials: next(answers)


def play_out(game: GuiGame, clicks: list[tuple[int, int]], machine: Callable) -> None:
    """Alternate the person's clicks and the machine's moves until the clicks run out."""
    clicks = list(clicks)
    while not game.over:
        if game.machine_turn():
            assert game.play_machine(machine, 1), game.status_text()
        elif clicks:
            assert game.click(*clicks.pop(0)), game.message
        else:
            break


def grid(game: GuiGame) -> list[list[int]]:
    return [[game.board.square(r, c) for c in range(game.dim)] for r in range(game.dim)]


def run_python(code: str, env: dict[str, str] | None = None,
               args: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run Python code (or ``-m`` args) in a child process from the project's folder."""
    child_env = dict(os.environ if env is None else env)
    child_env["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, *(args if args is not None else ["-c", code])]
    return subprocess.run(command, cwd=ROOT, env=child_env, capture_output=True, text=True,
                          timeout=60)


def tkinter_importable() -> bool:
    return run_python("import tkinter").returncode == 0


# -- the game, without a display --------------------------------------------------------

def test_doctests_pass() -> None:
    assert doctest.testmod(gui).failed == 0


def test_the_game_logic_does_not_need_tkinter() -> None:
    done = run_python(textwrap.dedent("""\
        import sys
        import provided.gui
        game = provided.gui.GuiGame(3, 3)
        game.click(1, 1)
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("tkinter", "grader")))
        """))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_machine_as_x_moves_first() -> None:
    game = GuiGame(3, PLAYERX, ai_name="first_empty")
    assert game.machine_turn()
    assert game.status_text() == "X (first_empty) is thinking..."
    assert game.title() == "Tic-Tac-Toe 3x3: X thinking..."
    assert game.info_text() == "You are O; the machine (first_empty) is X. X moves first."
    assert game.play_machine(first_empty, 1)
    assert game.board.square(0, 0) == PLAYERX and game.moves == [(0, 0)]
    assert not game.machine_turn()
    assert game.status_text() == "Your turn (O): click a square."
    assert game.title() == "Tic-Tac-Toe 3x3: your turn"


def test_person_as_x_moves_first() -> None:
    game = GuiGame(3, PLAYERO)
    assert not game.machine_turn()
    assert game.status_text() == "Your turn (X): click a square."
    assert game.click(2, 1)
    assert game.board.square(2, 1) == PLAYERX and game.machine_turn()


def test_the_machine_gets_the_board_and_its_trials() -> None:
    seen = []

    def spy(board: TTTBoard, player: int, trials: int) -> tuple[int, int]:
        seen.append((str(board), player, trials))
        for row, col in board.get_empty_squares():
            board.move(row, col, player)  # scribbles on its copy: the game must not see it
        return 0, 0

    game = GuiGame(2, PLAYERO)
    game.click(1, 1)
    assert game.play_machine(spy, 17)
    assert seen == [(str(TTTBoard(2, False, [[EMPTY, EMPTY], [EMPTY, PLAYERX]])), PLAYERO, 17)]
    assert grid(game) == [[PLAYERO, EMPTY], [EMPTY, PLAYERX]]


def test_click_on_a_taken_square_is_refused() -> None:
    game = GuiGame(3, PLAYERO)
    game.click(1, 1)
    game.play_machine(first_empty, 1)
    before = grid(game)
    for square, mark in (((1, 1), "X"), ((0, 0), "O")):
        assert not game.click(*square)
        assert game.message == f"{square} is taken by {mark}: choose an empty square."
    assert grid(game) == before and game.status_text() == "Your turn (X): click a square."
    assert not game.click(3, 0) and "not a square of this board" in game.message
    assert game.click(2, 2) and game.message == ""  # a good click clears the note


def test_click_while_the_machine_thinks_is_refused() -> None:
    game = GuiGame(3, PLAYERO, ai_name="slow")
    game.click(0, 0)
    ticket, board = game.start_thinking()
    assert game.thinking and game.status_text() == "O (slow) is thinking..."
    assert not game.click(2, 2)
    assert game.message == "Please wait: O (slow) is thinking."
    assert game.machine_move((1, 1), ticket)
    assert game.board.square(2, 2) == EMPTY and game.board.square(1, 1) == PLAYERO


def test_click_after_the_end_is_refused() -> None:
    game = GuiGame(3, PLAYERO)
    play_out(game, [(0, 0), (1, 1), (2, 2)], scripted((0, 1), (0, 2)))
    assert game.winner == PLAYERX
    assert game.status_text() == game.result_text() == "X wins!"
    assert game.title() == "Tic-Tac-Toe 3x3: X wins!"
    assert game.winning_line() == [(0, 0), (1, 1), (2, 2)]
    assert not game.click(2, 0)
    assert game.message == "The game is over: click New game to play again."
    assert not game.machine_turn()


@pytest.mark.parametrize("ai_player, clicks, machine, result", [
    (PLAYERX, [(1, 0), (2, 2)], [(0, 0), (0, 1), (0, 2)], "X wins!"),
    (PLAYERO, [(0, 0), (0, 1), (2, 2)], [(1, 1), (0, 2), (2, 0)], "O wins!"),
    (PLAYERO, [(0, 0), (1, 1), (2, 1), (1, 2), (0, 2)], [(2, 2), (0, 1), (1, 0), (2, 0)],
     "Tie!"),
])
def test_results_in_the_course_words(ai_player: int, clicks: list, machine: list,
                                     result: str) -> None:
    game = GuiGame(3, ai_player)
    play_out(game, clicks, scripted(*machine))
    assert game.result_text() == game.status_text() == result
    assert game.message == "Click New game to play again."


def test_reverse_result_says_why() -> None:
    game = GuiGame(3, PLAYERO, reverse=True)
    assert game.info_text().endswith("Reverse game: whoever completes a line loses.")
    play_out(game, [(0, 0), (0, 1), (0, 2)], scripted((1, 0), (2, 2)))
    assert game.winner == PLAYERO
    assert game.result_text() == "O wins! (X completed a line, which loses in the reverse game)"
    assert game.title() == "Tic-Tac-Toe 3x3: O wins!"
    assert game.winning_line() == [(0, 0), (0, 1), (0, 2)]


def test_a_4x4_game() -> None:
    game = GuiGame(4, PLAYERX, ai_name="first_empty")
    # The machine (X) fills the top row from the left; the person answers in row 3.
    play_out(game, [(3, 0), (3, 1), (3, 2)], first_empty)
    assert game.winner == PLAYERX and game.result_text() == "X wins!"
    assert game.winning_line() == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert game.moves == [(0, 0), (3, 0), (0, 1), (3, 1), (0, 2), (3, 2), (0, 3)]
    assert game.title() == "Tic-Tac-Toe 4x4: X wins!"


@pytest.mark.parametrize("ai_player, reverse, result", [
    (PLAYERX, False, "X wins!"),
    (PLAYERO, False, "X wins!"),
    (PLAYERX, True, "O wins! (X completed a line, which loses in the reverse game)"),
])
def test_a_1x1_game(ai_player: int, reverse: bool, result: str) -> None:
    game = GuiGame(1, ai_player, reverse)
    play_out(game, [(0, 0)], first_empty)
    assert game.result_text() == result and game.moves == [(0, 0)]
    assert game.winning_line() == [(0, 0)]


def test_a_failing_move_function_is_reported_not_raised() -> None:
    def broken(board: TTTBoard, player: int, trials: int) -> tuple[int, int]:
        return 1 // 0

    game = GuiGame(3, PLAYERX, ai_name="broken")
    assert not game.play_machine(broken, 1)  # no exception
    assert game.over and game.error == "X (broken) raised ZeroDivisionError: integer division " \
        "or modulo by zero"
    assert game.status_text() == "Game stopped: " + game.error
    assert game.title() == "Tic-Tac-Toe 3x3: game stopped"
    assert game.message == "Click New game to play again."
    assert not game.machine_turn()
    assert not game.click(1, 1)
    assert game.message == "This game was stopped: click New game to play again."


@pytest.mark.parametrize("answer, why", [
    ((5, 5), "returned (5, 5), which is off the 3x3 board (rows and columns go from 0 to 2)"),
    ((1, 1), "returned (1, 1), but (1, 1) is taken by X"),
    (None, "returned None, which is not a (row, col) pair"),
    ((0, 1, 2), "returned (0, 1, 2), which is not a (row, col) pair"),
    (("0", "1"), "returned ('0', '1'), which is not a pair of whole numbers"),
    ((True, 0), "returned (True, 0), which is not a pair of whole numbers"),
])
def test_an_illegal_answer_stops_the_game(answer: object, why: str) -> None:
    game = GuiGame(3, PLAYERO, ai_name="cheat")
    game.click(1, 1)
    assert not game.play_machine(lambda board, player, trials: answer, 1)
    assert game.error == f"O (cheat) {why}."
    assert grid(game) == [[EMPTY] * 3, [EMPTY, PLAYERX, EMPTY], [EMPTY] * 3]


def test_new_game_resets() -> None:
    game = GuiGame(3, PLAYERX)
    game.play_machine(first_empty, 1)
    game.click(1, 1)
    game.play_machine(lambda board, player, trials: (9, 9), 1)
    assert game.error
    game.new_game()
    assert grid(game) == [[EMPTY] * 3] * 3
    assert (game.to_move, game.winner, game.error, game.message, game.moves, game.last_move) \
        == (PLAYERX, None, None, "", [], None)
    assert game.machine_turn()  # the machine is X: it moves first again
    play_out(game, [(1, 0), (1, 1)], first_empty)
    assert game.result_text() == "X wins!"


def test_an_answer_for_an_old_game_is_ignored() -> None:
    game = GuiGame(3, PLAYERX)
    ticket, _ = game.start_thinking()
    game.new_game()  # "New game" clicked while the machine was thinking
    assert not game.machine_move((1, 1), ticket)
    assert not game.machine_failed(ValueError("late"), ticket)
    assert grid(game) == [[EMPTY] * 3] * 3 and game.error is None
    new_ticket, _ = game.start_thinking()
    assert new_ticket != ticket and game.machine_move((2, 2), new_ticket)


@pytest.mark.parametrize("dim", [1, 2, 3, 4, 5, 7, 10, 13, 40])
def test_layout_maps_every_square_and_fits(dim: int) -> None:
    lay = layout(dim)
    assert lay.cell <= 100 and lay.cell * dim <= 600 or lay.cell == gui.CELL_MIN
    for row in range(dim):
        for col in range(dim):
            x, y = lay.center(row, col)
            assert 0 <= x < lay.width and 0 <= y < lay.height
            assert lay.square_at(x, y) == (row, col)
    assert lay.square_at(lay.left - 1, lay.top) is None
    assert lay.square_at(lay.left, lay.top + lay.cell * dim) is None


@pytest.mark.parametrize("args, error", [
    ((0, PLAYERO, first_empty, 1), ValueError),
    ((3, 7, first_empty, 1), ValueError),
    ((3, PLAYERO, None, 1), TypeError),
])
def test_run_gui_checks_its_arguments_before_opening_anything(args: tuple, error: type) -> None:
    with pytest.raises(error):
        run_gui(*args)


# -- gui_main: options ------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["-x", "human", "-o", "human"], "but both X and O are human"),
    (["-x", "random", "-o", "random"], "but neither X nor O is human"),
    (["-o", "no_such_module_here:f"], "argument -o/--playero: there is no module"),
    (["-n", "0"], "must be at least 1"),
])
def test_gui_main_usage_errors(argv: list[str], message: str,
                               capsys: pytest.CaptureFixture) -> None:
    assert gui_main(argv, ConsoleConfig(prog="ttt-gui")) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: ttt-gui") and message in err


def test_gui_main_help(capsys: pytest.CaptureFixture) -> None:
    assert gui_main(["--help"], ConsoleConfig(prog="ttt-gui")) == 0
    out = capsys.readouterr().out
    assert "Play Tic-Tac-Toe in a window" in out
    assert "ttt-gui -o student.mm_player:move_wrapper" in out
    assert "Exactly one side is human" in out


# -- no window possible -----------------------------------------------------------------

RUN_GUI = textwrap.dedent("""\
    import sys
    {prelude}
    from provided import PLAYERO
    from provided.gui import GuiUnavailable, run_gui
    try:
        run_gui(3, PLAYERO, lambda board, player, trials: (0, 0), 1)
    except GuiUnavailable as exc:
        print(f"GuiUnavailable: {{exc}}")
        raise SystemExit(3)
    """)


def no_display_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="Tk needs no $DISPLAY there")
def test_no_display_raises_gui_unavailable() -> None:
    done = run_python(RUN_GUI.format(prelude=""), env=no_display_env())
    assert done.returncode == 3, done.stdout + done.stderr
    message = done.stdout.strip()
    assert message.startswith("GuiUnavailable: Cannot open a window because there is no "
                              "display ($DISPLAY is not set)")
    assert "xvfb-run (sudo apt install xvfb)" in message
    assert message.endswith("or play in the terminal instead with python -m student.")
    assert message.count("\n") == 0 and message.count(". ") == 0  # one sentence


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="Tk needs no $DISPLAY there")
def test_gui_main_without_display_exits_1_with_the_message() -> None:
    done = run_python("", env=no_display_env(), args=["-m", "provided.gui", "-o", "random"])
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("Cannot open a window because there is no display")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="Tk needs no $DISPLAY there")
def test_a_display_that_cannot_be_reached_raises_gui_unavailable() -> None:
    if not tkinter_importable():
        pytest.skip("tkinter is not installed: Tk() cannot be tried")
    env = no_display_env()
    env["DISPLAY"] = ":4321"  # no X server there
    done = run_python(RUN_GUI.format(prelude=""), env=env)
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.startswith('GuiUnavailable: Cannot open a window (couldn\'t connect to '
                                  'display ":4321"): run it from a graphical desktop session')


def test_missing_tkinter_raises_gui_unavailable() -> None:
    prelude = "sys.modules['tkinter'] = None  # import tkinter now fails, as without python3-tk"
    done = run_python(RUN_GUI.format(prelude=prelude), env={**os.environ, "DISPLAY": ":0"})
    assert done.returncode == 3, done.stdout + done.stderr
    message = done.stdout.strip()
    assert message.startswith("GuiUnavailable: Cannot open a window because this Python (")
    assert "has no tkinter: install it (Debian/Ubuntu: sudo apt install python3-tk;" in message
    assert "macOS: use Python from the python.org installer" in message
    assert message.endswith("or play in the terminal instead with python -m student.")
    assert message.count("\n") == 0


# -- the real window, under Xvfb --------------------------------------------------------

@pytest.fixture
def xvfb(tmp_path: Path):
    """A virtual X display of its own (Xvfb picks a free number): yields ":N"."""
    for tool, package in (("Xvfb", "xvfb"), ("xdotool", "xdotool")):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (apt-get install {package}): "
                        "the real window is not tried")
    if not tkinter_importable():
        pytest.skip("tkinter is not installed (apt-get install python3-tk): no window to try")
    read_end, write_end = os.pipe()
    log = (tmp_path / "xvfb.log").open("wb")
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        pass_fds=(write_end,), stdout=log, stderr=log, start_new_session=True)
    os.close(write_end)
    number = b""
    deadline = time.monotonic() + 30
    while not number.endswith(b"\n") and time.monotonic() < deadline:
        ready, _, _ = select.select([read_end], [], [], 0.2)
        if ready:
            chunk = os.read(read_end, 16)
            if not chunk:
                break
            number += chunk
    os.close(read_end)
    if not number.strip().isdigit():
        server.kill()
        server.wait()
        log.close()
        pytest.skip("Xvfb did not start: " + (tmp_path / "xvfb.log").read_text(errors="replace"))
    try:
        yield f":{number.strip().decode()}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


GUI_SCRIPT = textwrap.dedent("""\
    import json, sys, time
    from pathlib import Path
    from provided import PLAYERO
    from provided.gui import run_gui

    LOG, GO = Path(sys.argv[1]), Path(sys.argv[2])

    def scripted(board, player, trials):
        \"\"\"Log each call, wait for GO on the first, answer the first empty square.\"\"\"
        dim = board.get_dim()
        grid = [[board.square(r, c) for c in range(dim)] for r in range(dim)]
        calls = len(LOG.read_text().splitlines()) if LOG.exists() else 0
        with LOG.open("a") as log:
            log.write(json.dumps({"player": player, "trials": trials, "board": grid}) + "\\n")
        if calls == 0:  # think until the test says so: it clicks meanwhile
            deadline = time.monotonic() + 60
            while not GO.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
        return board.get_empty_squares()[0]

    print("run_gui returned", repr(run_gui(3, PLAYERO, scripted, 7, False)), flush=True)
    """)


def wait_for(condition: Callable[[], object], what: str, timeout: float = 30) -> object:
    """Poll ``condition`` until it is true (generous: only a hang should time out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def test_the_real_window_under_xvfb(xvfb: str, tmp_path: Path) -> None:
    env = {**os.environ, "DISPLAY": xvfb, "PYTHONPATH": str(ROOT)}
    env.pop("WAYLAND_DISPLAY", None)
    log, go = tmp_path / "calls.jsonl", tmp_path / "go"
    script = tmp_path / "window.py"
    script.write_text(GUI_SCRIPT)
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"

    def xdotool(*args: str) -> str:
        return subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True,
                              timeout=20).stdout.strip()

    def calls() -> list[dict]:
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    with out.open("w") as stdout, err.open("w") as stderr:
        window_process = subprocess.Popen([sys.executable, str(script), str(log), str(go)],
                                          cwd=ROOT, env=env, stdout=stdout, stderr=stderr)
    try:
        def window_id() -> str:
            if window_process.poll() is not None:
                pytest.fail(f"the window's process ended: {err.read_text()}")
            found = xdotool("search", "--onlyvisible", "--name", "^Tic-Tac-Toe 3x3")
            return found.split()[-1] if found else ""

        wid = str(wait_for(window_id, "the window to appear"))
        title = lambda: xdotool("getwindowname", wid)  # noqa: E731
        assert title() == "Tic-Tac-Toe 3x3: your turn"  # the person is X: X moves first
        lay = layout(3)
        geometry = dict(line.split("=") for line in
                        xdotool("getwindowgeometry", "--shell", wid).splitlines())
        assert int(geometry["WIDTH"]) == lay.width  # the canvas sets the window's width

        def click(row: int, col: int) -> None:
            x, y = lay.center(row, col)
            xdotool("mousemove", "--window", wid, str(x), str(y), "click", "1")

        click(1, 1)
        wait_for(lambda: len(calls()) == 1, "the machine to be asked")
        wait_for(lambda: "thinking" in title(), "'thinking...' in the title")
        click(2, 2)          # while the machine thinks: refused
        time.sleep(1.0)      # let the window handle that click before the machine answers
        go.touch()
        wait_for(lambda: title() == "Tic-Tac-Toe 3x3: your turn", "the machine's first move")
        first = calls()[0]
        assert first["player"] == PLAYERO and first["trials"] == 7
        assert first["board"] == [[EMPTY] * 3, [EMPTY, PLAYERX, EMPTY], [EMPTY] * 3]

        click(0, 2)
        wait_for(lambda: len(calls()) == 2, "the machine to be asked again")
        wait_for(lambda: title() == "Tic-Tac-Toe 3x3: your turn", "the machine's second move")
        # The click during thinking was ignored; the machine's answer (0, 0) was played.
        assert calls()[1]["board"] == [[PLAYERO, EMPTY, PLAYERX], [EMPTY, PLAYERX, EMPTY],
                                       [EMPTY] * 3]
        if shutil.which("xwd") and shutil.which("convert"):
            check_screenshot(wid, env, lay)

        click(2, 0)  # X completes the anti-diagonal
        wait_for(lambda: title() == "Tic-Tac-Toe 3x3: X wins!", "the result in the title")
        click(2, 2)  # after the end: refused, and the machine is not asked
        time.sleep(0.3)
        assert len(calls()) == 2

        xdotool("mousemove", "--window", wid, "10", "10")  # keys go to the window under it
        xdotool("key", "ctrl+n")  # New game (the button's shortcut)
        wait_for(lambda: title() == "Tic-Tac-Toe 3x3: your turn", "a new game")
        click(2, 2)
        wait_for(lambda: len(calls()) == 3, "the machine to be asked in the new game")
        assert calls()[2]["board"] == [[EMPTY] * 3, [EMPTY] * 3, [EMPTY, EMPTY, PLAYERX]]
        wait_for(lambda: title() == "Tic-Tac-Toe 3x3: your turn", "the machine's move")
        xdotool("key", "ctrl+q")  # closes the window, as the window manager's close does
        window_process.wait(timeout=30)
        assert window_process.returncode == 0, err.read_text()
        assert out.read_text() == "run_gui returned None\n"
        assert "Traceback" not in err.read_text()
    finally:
        if window_process.poll() is None:
            window_process.kill()
            window_process.wait()


def check_screenshot(wid: str, env: dict[str, str], lay: gui.Layout) -> None:
    """Save the window mid-game as a PNG, and check its squares hold the marks' colors."""
    dump = subprocess.run(["xwd", "-silent", "-id", wid], env=env, capture_output=True,
                          timeout=30)
    assert dump.returncode == 0, dump.stderr
    subprocess.run(["convert", "xwd:-", f"png:{SCREENSHOT}"], input=dump.stdout, check=True,
                   timeout=30)

    def colors(row: int, col: int) -> str:
        x, y = lay.left + col * lay.cell, lay.top + row * lay.cell
        return subprocess.run(
            ["convert", str(SCREENSHOT), "-crop", f"{lay.cell}x{lay.cell}+{x}+{y}", "+repage",
             "-format", "%c", "histogram:info:-"],
            capture_output=True, text=True, check=True, timeout=30).stdout.upper()

    x_color, o_color = gui.COLORS["X"].upper(), gui.COLORS["O"].upper()
    # X at (1, 1) and (0, 2), O at (0, 0) and (0, 1), (2, 2) empty.
    for square, present, absent in (((1, 1), x_color, o_color), ((0, 2), x_color, o_color),
                                    ((0, 0), o_color, x_color), ((0, 1), o_color, x_color),
                                    ((2, 2), None, None)):
        found = colors(*square)
        if present:
            assert present in found, (square, found)
        for color in (absent,) if absent else (x_color, o_color):
            assert color not in found, (square, found)
