"""The process boundary around student code: answers, failures, limits, isolation, cleanup.

Most tests run twice, with bubblewrap and with the fallback (skipped with a reason where
bubblewrap is not usable). Submissions are small files written into tmp_path; the two
course-style ones live in tests/submissions/sandbox/.
"""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest

import provided
from grader.judge.position import Position
from grader.sandbox import (SANDBOX_UIDS, Limits, LoadError, Opaque, Sandbox, SandboxError,
                            bwrap_available, python2_fix)
from grader.sandbox.layers import bwrap_problem as _bwrap_problem
from grader.timing.policy import REFERENCE_4X4_RUNS, REFERENCE_RUNS
from fallback import FALLBACK
from provided import EMPTY, PLAYERO, PLAYERX

FIXTURES = Path(__file__).resolve().parents[1] / "submissions" / "sandbox"
FAST = Limits(load_seconds=5.0)
NO_BWRAP = f"bubblewrap is not usable here: {_bwrap_problem()}"
MODES = [pytest.param(False, id="fallback", marks=FALLBACK),
         pytest.param(True, id="bwrap",
                      marks=pytest.mark.skipif(not bwrap_available(), reason=NO_BWRAP))]


@pytest.fixture(params=MODES)
def use_bwrap(request: pytest.FixtureRequest) -> bool:
    return request.param


def write(folder: Path, source: str | bytes, name: str = "mm_player.py") -> Path:
    path = folder / name
    if isinstance(source, str):
        path.write_text(textwrap.dedent(source))
    else:
        path.write_bytes(source)
    return path


def load_error(path: Path, use_bwrap: bool = False, limits: Limits = FAST) -> LoadError:
    with pytest.raises(LoadError) as info:
        Sandbox(path, limits, use_bwrap=use_bwrap).start()
    return info.value


# -- answers ---------------------------------------------------------------------------------

TYPED = """
    from collections import namedtuple

    class Liar:
        def __eq__(self, other):
            return True
        def __repr__(self):
            return "Liar()"

    Move = namedtuple("Move", "row col")
    ANSWERS = {1: (1, (0, 0)), 2: [1, [0, 0]], 3: (True, (0, 0)), 4: (1.0, (0, 0)),
               5: Liar(), 6: (0, Move(1, 2)), 7: list(range(1000)), 8: None, 9: "x" * 5000}

    def mm_move(board, player):
        return ANSWERS[board.get_dim()]
    """


def test_answers_come_back_with_their_exact_types(tmp_path: Path, use_bwrap: bool) -> None:
    with Sandbox(write(tmp_path, TYPED), FAST, use_bwrap=use_bwrap) as box:
        answers = {dim: box.call("mm_move", Position.empty(dim), 2.0) for dim in range(1, 10)}
    assert all(reply.status == "ok" for reply in answers.values())
    first = answers[1].answer
    assert first == (1, (0, 0)) and type(first) is tuple and type(first[1]) is tuple
    assert type(first[0]) is int
    assert answers[2].answer == [1, [0, 0]] and type(answers[2].answer[1]) is list
    assert answers[3].answer[0] is True
    assert type(answers[4].answer[0]) is float
    liar = answers[5].answer
    assert isinstance(liar, Opaque) and liar.type_name.endswith("Liar")
    assert liar.repr == "Liar()" and liar != (0, (0, 0))
    move = answers[6].answer[1]
    assert isinstance(move, Opaque) and move.type_name.endswith("Move")
    assert move.base == (1, 2) and type(move.base) is tuple
    assert isinstance(answers[7].answer, Opaque) and "1000 items" in answers[7].answer.repr
    assert answers[8].answer is None
    assert isinstance(answers[9].answer, Opaque) and answers[9].answer.type_name == "str"


@FALLBACK
def test_move_wrapper_gets_board_player_and_trials(tmp_path: Path) -> None:
    source = """
        def mm_move(board, player):
            return 0, (0, 0)

        def move_wrapper(board, player, trials):
            return (trials, player, board.square(1, 0), board.check_win())
        """
    normal = Position.from_grid([[PLAYERX, PLAYERX], [PLAYERO, EMPTY]], PLAYERO)
    reverse = Position(normal.dim, normal.cells, PLAYERO, reverse=True)
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=False) as box:
        replies = [box.call("move_wrapper", position, 1.0, trials=7)
                   for position in (normal, reverse)]
    assert replies[0].answer == (7, PLAYERO, PLAYERO, PLAYERX)
    assert replies[1].answer == (7, PLAYERO, PLAYERO, PLAYERO)  # completing a line loses


@FALLBACK
def test_output_is_kept_per_call(tmp_path: Path) -> None:
    source = """
        import sys
        def mm_move(board, player):
            if board.get_dim() == 1:
                print("hello")
                print("to stderr", file=sys.stderr)
            return 0, (0, 0)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=False) as box:
        loud = box.call("mm_move", Position.empty(1), 1.0)
        quiet = box.call("mm_move", Position.empty(2), 1.0)
    assert loud.output == "hello\nto stderr\n"
    assert quiet.output == ""


@FALLBACK
def test_cpu_time_is_measured(tmp_path: Path) -> None:
    source = """
        def mm_move(board, player):
            if board.get_dim() == 2:
                sum(range(3_000_000))
            return 0, (0, 0)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=False) as box:
        fast = box.call("mm_move", Position.empty(1), 5.0)
        slow = box.call("mm_move", Position.empty(2), 5.0)
    assert 0 < fast.cpu_seconds < slow.cpu_seconds


# -- failures cost one call --------------------------------------------------------------------

def test_an_exception_names_the_students_line(tmp_path: Path, use_bwrap: bool) -> None:
    source = """
        def helper(board):
            return 1 / 0

        def mm_move(board, player):
            if board.get_dim() == 2:
                board.move(5, 5, player)
            return helper(board)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        division = box.call("mm_move", Position.empty(3), 1.0)
        off_board = box.call("mm_move", Position.empty(2), 1.0)
        again = box.call("mm_move", Position.empty(3), 1.0)
    assert division.status == "error"
    assert division.error.startswith("ZeroDivisionError: division by zero")
    assert 'File "mm_player.py", line 3, in helper' in division.error
    assert "return 1 / 0" in division.error and "line 8, in mm_move" in division.error
    assert division.board_after == Position.empty(3).cells
    assert off_board.error.startswith("IndexError: square (5, 5)")
    assert "(raised in provided/board.py" in off_board.error
    assert again.status == "error" and box.restarts == 0  # an exception needs no restart


def test_an_endless_loop_times_out_and_the_next_call_works(tmp_path: Path,
                                                           use_bwrap: bool) -> None:
    source = """
        import signal, time
        def mm_move(board, player):
            if board.get_dim() == 1:
                while True:
                    try:
                        pass
                    except BaseException:
                        pass
            if board.get_dim() == 2:
                time.sleep(60)
            if board.get_dim() == 4:
                signal.signal(signal.SIGPROF, signal.SIG_IGN)
                while True:
                    pass
            return 0, (0, 0)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        busy = box.call("mm_move", Position.empty(1), 0.3)
        after_busy = box.call("mm_move", Position.empty(3), 0.3)
        start = time.monotonic()
        asleep = box.call("mm_move", Position.empty(2), 0.3)
        slept = time.monotonic() - start
        deaf = box.call("mm_move", Position.empty(4), 0.3)
        last = box.call("mm_move", Position.empty(3), 0.3)
        restarts = box.restarts
    # Measured from outside: the CPU limit, then at most a few polls more.
    assert busy.status == "timeout" and 0.3 <= busy.cpu_seconds < 0.45 and not busy.waited
    assert "CPU time" in busy.error
    assert after_busy.status == "ok" and after_busy.answer == (0, (0, 0))
    # A sleeping call is stopped soon after its limit, and said to have waited.
    assert asleep.status == "timeout" and asleep.waited and "sleeping or waiting" in asleep.error
    assert 0.3 + FAST.grace <= slept < 0.3 + FAST.grace + 0.5
    assert deaf.status == "timeout" and not deaf.waited
    assert last.status == "ok" and restarts == 3


def test_an_endless_loop_that_prints_is_stopped_at_its_limit_not_the_backstop(
        tmp_path: Path, use_bwrap: bool) -> None:
    # A debug print inside an endless loop: the output pipe is never quiet, and the call
    # must still be judged at its CPU limit (the backstop is 0.3 * 20 + 10 = 16 s).
    source = """
        import sys
        def mm_move(board, player):
            while True:
                sys.stdout.write("thinking..." * 1000)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        flood = box.call("mm_move", Position.empty(3), 0.3)
    # By its CPU time, or (a busy machine: it waits on its full pipe) by its active time.
    assert flood.status == "timeout"
    assert "its limit of 0.30 s" in flood.error and "backstop" not in flood.error, flood.error
    assert "thinking..." in flood.output


def test_a_batch_answers_each_call_as_a_single_call_would(tmp_path: Path,
                                                          use_bwrap: bool) -> None:
    source = """
        def mm_move(board, player):
            dim = board.get_dim()
            if dim == 2:
                raise ValueError("no 2x2 please")
            if dim == 3:
                board.move(0, 0, player)
            print("asked", dim)
            return dim, (0, 0)
        """
    positions = [Position.empty(dim) for dim in (1, 2, 3, 4)]
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        batch = box.call_batch("mm_move", positions, 1.0)
        singles = [box.call("mm_move", position, 1.0) for position in positions]
        restarts = box.restarts
    assert batch is not None and restarts == 0
    assert [(r.status, r.answer, r.board_after) for r in batch] == \
        [(r.status, r.answer, r.board_after) for r in singles]
    assert batch[1].error.splitlines()[0] == singles[1].error.splitlines()[0]
    assert "ValueError: no 2x2 please" in batch[1].error
    assert batch[2].board_after == (PLAYERX,) + (EMPTY,) * 8   # the move it made shows
    # Timed as a whole from outside, shared out evenly; the output goes with the first.
    assert len({r.cpu_seconds for r in batch}) == 1 and batch[0].cpu_seconds > 0
    assert batch[0].output.split() == ["asked", "1", "asked", "3", "asked", "4"]


def test_a_batch_that_loops_or_crashes_answers_nothing_and_the_next_call_works(
        tmp_path: Path, use_bwrap: bool) -> None:
    source = """
        import os
        def mm_move(board, player):
            if board.get_dim() == 1:
                while True:
                    pass
            if board.get_dim() == 2:
                os._exit(3)
            return 0, (0, 0)
        """
    fine = Position.empty(3)
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        looped = box.call_batch("mm_move", [fine, Position.empty(1), fine], 0.3)
        after_loop = box.call("mm_move", fine, 0.3)
        crashed = box.call_batch("mm_move", [fine, Position.empty(2)], 0.3)
        after_crash = box.call("mm_move", fine, 0.3)
        restarts = box.restarts
    assert looped is None and crashed is None
    # Restarted at once, and not counted: the student's restarts are the calls' own.
    assert after_loop.status == after_crash.status == "ok" and restarts == 0


def test_a_dying_worker_is_a_crash_and_is_restarted(tmp_path: Path, use_bwrap: bool) -> None:
    source = """
        import os, signal
        def mm_move(board, player):
            if board.get_dim() == 1:
                print("bye")
                os._exit(3)
            if board.get_dim() == 2:
                os.kill(os.getpid(), signal.SIGSEGV)
            return 0, (0, 0)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        exited = box.call("mm_move", Position.empty(1), 1.0)
        killed = box.call("mm_move", Position.empty(2), 1.0)
        fine = box.call("mm_move", Position.empty(3), 1.0)
        restarts = box.restarts
    assert exited.status == "crash" and "exited with status 3" in exited.error
    assert killed.status == "crash" and "SIGSEGV" in killed.error
    assert fine.status == "ok" and restarts == 2


def test_forged_garbled_or_missing_answers_are_crashes(tmp_path: Path, use_bwrap: bool) -> None:
    source = """
        import os, sys, time
        def mm_move(board, player):
            dim = board.get_dim()
            if dim == 2:
                os.closerange(3, 4096)
                return 0, (0, 0)
            if dim == 6:
                return 0, (0, 0)
            # The token can be dug out of the worker's frames; the answer is then garbage.
            frame = sys._getframe(1)
            while "request" not in frame.f_locals:
                frame = frame.f_back
            token = "0" if dim == 1 else frame.f_locals["request"]["tok"]
            head = '{"tok": "%s", "status": "ok", "board": null, "answer": ' % token
            answer = {1: '{"t": "int", "v": 1}', 3: "[" * 100000 + "]" * 100000,
                      4: '{"t": "tuple", "v": [' * 50 + "]}" * 50,
                      5: '{"t": "none"}, "cpu": -1'}[dim]
            for fd in range(3, 4096):  # the answer pipe is one of these (/proc is hidden)
                try:
                    os.write(fd, (head + answer + "}\\n").encode())
                except OSError:
                    pass
            time.sleep(5)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        replies = [box.call("mm_move", Position.empty(dim), 1.0) for dim in range(1, 7)]
        restarts = box.restarts
    assert [reply.status for reply in replies] == ["crash"] * 5 + ["ok"]
    assert "not asked" in replies[0].error and "garbage" in replies[2].error
    assert "malformed" in replies[3].error and "never sends" in replies[4].error
    assert restarts == 5


def test_a_flood_of_output_neither_blocks_nor_grows(tmp_path: Path, use_bwrap: bool) -> None:
    source = """
        import os, sys
        def mm_move(board, player):
            if board.get_dim() == 1:
                for i in range(100_000):
                    print("spam " * 20)
            if board.get_dim() == 2:
                os.write(2, b"x" * 5_000_000)
            return 0, (0, 0)
        """
    limits = Limits(output_bytes=10_000)
    with Sandbox(write(tmp_path, source), limits, use_bwrap=use_bwrap) as box:
        printed = box.call("mm_move", Position.empty(1), 10.0)
        written = box.call("mm_move", Position.empty(2), 10.0)
        quiet = box.call("mm_move", Position.empty(3), 10.0)
    assert printed.status == "ok" and printed.answer == (0, (0, 0))
    assert printed.output.startswith("spam spam")
    assert len(printed.output) < 10_200 and "more bytes of output dropped" in printed.output
    assert written.status == "ok" and "4,990,000 more bytes" in written.output
    assert quiet.output == ""


def test_memory_is_limited(tmp_path: Path, use_bwrap: bool) -> None:
    source = """
        def mm_move(board, player):
            if board.get_dim() == 1:
                block = bytearray(600 << 20)
            return 0, (0, 0)
        """
    limits = Limits(memory_bytes=300 << 20)
    with Sandbox(write(tmp_path, source), limits, use_bwrap=use_bwrap) as box:
        greedy = box.call("mm_move", Position.empty(1), 2.0)
        fine = box.call("mm_move", Position.empty(2), 2.0)
    assert greedy.status == "error" and greedy.error.startswith("MemoryError")
    assert fine.status == "ok"


def test_the_board_after_the_call_shows_mutation(tmp_path: Path, use_bwrap: bool) -> None:
    source = """
        def mm_move(board, player):
            if board.get_dim() == 3:
                board.move(0, 0, player)
                type(board).square = lambda self, row, col: 1  # "nothing changed"
            return 0, (1, 1)
        """
    position = Position.empty(3)
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        untouched = box.call("mm_move", Position.empty(2), 1.0)
        mutated = box.call("mm_move", position, 1.0)
        fresh = box.call("mm_move", position, 1.0)
    assert untouched.board_after == Position.empty(2).cells
    assert mutated.board_after == (PLAYERX,) + position.cells[1:]
    assert fresh.board_after[0] == PLAYERX  # a fresh board each call, moved on again


@FALLBACK
def test_python2_names_at_call_time_get_a_hint(tmp_path: Path) -> None:
    source = """
        def mm_move(board, player):
            for i in xrange(3):
                pass
            return 0, (0, 0)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=False) as box:
        reply = box.call("mm_move", Position.empty(3), 1.0)
    assert reply.status == "error" and "Python 2: write for i in range(3):" in reply.error


# -- loading ---------------------------------------------------------------------------------

# Modules the worker does not need before the submission runs: each would be imported again
# at every worker start (every grade, and every restart after a crash or a timeout).
HEAVY_MODULES = ("typing", "dataclasses", "inspect", "ast", "importlib.abc",
                 "importlib.resources")


@FALLBACK
def test_the_worker_starts_without_modules_it_does_not_need(tmp_path: Path) -> None:
    source = f"""
        import sys
        print(sorted(name for name in {HEAVY_MODULES!r} if name in sys.modules))

        def mm_move(board, player):
            return 0, (0, 0)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=False) as box:
        assert box.load_output == "[]\n"


def test_course_template_loads_without_playing_a_game(use_bwrap: bool) -> None:
    with Sandbox(FIXTURES / "legacy.py", FAST, use_bwrap=use_bwrap) as box:
        assert box.import_calls == ("play_game", "run_gui")
        assert box.load_output == "Loading the mini-max player\n"
        empty = box.call("mm_move", Position.empty(3), 10.0)
        move = box.call("move_wrapper", Position.from_grid(
            [[PLAYERX, PLAYERX, EMPTY], [PLAYERO, PLAYERO, EMPTY], [EMPTY, EMPTY, EMPTY]],
            PLAYERX), 10.0)
    assert empty.status == "ok" and empty.answer[0] == 0
    assert move.answer == (0, 2)


@FALLBACK
def test_play_game_is_real_again_after_import(tmp_path: Path) -> None:
    source = """
        import poc_ttt_provided as provided
        first = lambda board, player, trials: board.get_empty_squares()[0]
        provided.play_game(first, 1)
        def mm_move(board, player):
            provided.play_game(first, 1)
            return 0, (0, 0)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=False) as box:
        reply = box.call("mm_move", Position.empty(3), 5.0)
        assert box.load_output == "" and box.import_calls == ("play_game",)
    assert reply.output.rstrip().endswith("X wins!")


def test_a_python2_file_is_refused_with_the_fix() -> None:
    error = load_error(FIXTURES / "python2.py")
    assert error.kind == "python2" and error.line == 22
    assert error.text == 'print "thinking about", board'
    assert 'line 22: print "thinking about", board  -> write print("thinking about", board)' \
        in error.message


@pytest.mark.parametrize("line, fixed", [
    ('print "hi"', 'print("hi")'),
    ("print x,", 'print(x, end=" ")'),
    ("print >>f, x", "print(x, file=f)"),
    ("    print 'a # b'  # note", "    print('a # b')  # note"),
    ("except (KeyError, ValueError), err:", "except (KeyError, ValueError) as err:"),
    ('raise ValueError, "bad"', 'raise ValueError("bad")'),
    ("x = `y`", "x = repr(y)"),
    ("if a <> b:", "if a != b:"),
    ("mode = 0755", "mode = 0o755"),
    ("exec code in ns", "exec(code, ns)"),
    ("print(x)", None),
    ("print (x)", None),
    ("print", None),
    ("print = 3", None),
])
def test_python2_lines_get_their_python3_spelling(line: str, fixed: str | None) -> None:
    assert python2_fix(line) == fixed


UNLOADABLE = [
    ("missing", None, "missing", None),
    ("folder", None, "not_a_file", None),
    ("empty", "  \n\n", "empty", None),
    ("binary", b"\x00\x01\x02 compiled", "binary", 1),
    ("latin-1", b"# caf\xe9\ndef mm_move(board, player):\n    return 0, (0, 0)\n", "encoding", 1),
    ("syntax", "x = 1\ndef mm_move(board, player)\n    return 0\n", "syntax", 2),
    ("tabs", "def mm_move(board, player):\n    if 1:\n\treturn 0\n", "syntax", 3),
    ("import", "import math\nimport user34_abcdef\n", "import_error", 2),
    ("raises", "def f():\n    return {}['x']\nf()\n", "import_error", 2),
    ("xrange", "for i in xrange(3):\n    pass\n", "python2", 1),
    ("sys.exit", "import sys\nsys.exit(0)\n", "exit", 2),
    ("os._exit", "import os\nos._exit(5)\n", "exit", None),
    ("input", "name = raw_input('name? ')\n", "python2", 1),
    ("no mm_move", "def minimax(board, player):\n    return 0\n", "no_function", None),
    ("not callable", "mm_move = 3\n", "no_function", None),
]


@pytest.mark.parametrize("case, source, kind, line", UNLOADABLE,
                         ids=[case[0] for case in UNLOADABLE])
def test_unloadable_files_say_why(tmp_path: Path, use_bwrap: bool, case: str,
                                  source: str | bytes | None, kind: str,
                                  line: int | None) -> None:
    if case == "missing":
        path = tmp_path / "nothing.py"
    elif case == "folder":
        write(tmp_path, "def mm_move(board, player):\n    return 0, (0, 0)\n")
        path = tmp_path
    else:
        path = write(tmp_path, source)
    error = load_error(path, use_bwrap)
    assert (error.kind, error.line) == (kind, line)
    assert error.message == str(error) and error.message
    expected_words = {"folder": "mm_player.py", "latin-1": "0xe9", "import": "not available",
                      "xrange": "range(3)", "os._exit": "status 5", "no mm_move": "minimax",
                      "input": "input('name? ')", "raises": "KeyError"}
    assert expected_words.get(case, "") in error.message


@FALLBACK
def test_a_slow_import_times_out(tmp_path: Path) -> None:
    path = write(tmp_path, "while True:\n    pass\n")
    start = time.monotonic()
    error = load_error(path, limits=Limits(load_seconds=0.5))
    assert error.kind == "timeout" and time.monotonic() - start < 3


# -- isolation -------------------------------------------------------------------------------

def test_the_child_sees_no_grader_secret(tmp_path: Path, use_bwrap: bool,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TTT_SECRET", "hunter2")
    source = """
        import os
        def mm_move(board, player):
            try:  # after dropping root the process is not dumpable: this may be refused
                with open("/proc/self/environ", "rb") as file:
                    raw = file.read()
            except PermissionError:
                raw = b""
            values = "".join(os.environ.values())
            return tuple(sorted(os.environ)), b"hunter2" in raw or "hunter2" in values
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        reply = box.call("mm_move", Position.empty(1), 1.0)
    names, leaked = reply.answer
    assert set(names) <= {"PATH", "LANG", "LC_ALL", "HOME", "TMPDIR", "PYTHONDONTWRITEBYTECODE",
                          "TTT_SANDBOX",  # this worker's own mark, a random token
                          "PWD"}  # bubblewrap sets PWD to /box
    assert "HOME" in names and leaked is False


@pytest.mark.skipif(not bwrap_available(), reason=NO_BWRAP)
def test_under_bwrap_the_child_cannot_write_outside_its_box(tmp_path: Path) -> None:
    outside = tmp_path / "escaped" / "note.txt"
    project = Path(provided.__file__).parent / "escaped.txt"
    source = f"""
        import os
        def mm_move(board, player):
            results = []
            for target in ({str(outside)!r}, {str(project)!r}, "/box/x.txt", "/tmp/ok.txt"):
                try:
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    with open(target, "w") as file:
                        file.write("escaped")
                    results.append("written")
                except OSError as exc:
                    results.append(type(exc).__name__)
            return results
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=True) as box:
        reply = box.call("mm_move", Position.empty(1), 1.0)
    assert reply.status == "ok"
    assert not outside.exists() and not project.exists()
    assert reply.answer[1:] == ["OSError", "OSError", "written"]  # read-only, private /tmp


@pytest.mark.skipif(not bwrap_available(), reason=NO_BWRAP)
def test_under_bwrap_there_is_no_network_and_no_grader(tmp_path: Path) -> None:
    source = """
        import os, socket
        def mm_move(board, player):
            inside = os.path.dirname(__import__("worker").__file__)
            grader = os.path.dirname(os.path.dirname(inside))
            seen = list(os.listdir(inside))
            for folder, folders, files in os.walk(grader):  # what cannot be listed is skipped
                seen += files
            return tuple(name for _, name in socket.if_nameindex()), os.getuid(), tuple(seen)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=True) as box:
        reply = box.call("mm_move", Position.empty(1), 1.0)
    interfaces, uid, grader_files = reply.answer
    assert interfaces == ("lo",)
    assert uid in SANDBOX_UIDS if os.geteuid() == 0 else uid == os.getuid()
    # Of the grader, only the code that runs inside and the course's modules are there.
    visible = {name.split(".")[0] for name in grader_files}
    assert visible <= {"__init__", "__pycache__", "worker", "confine", "encode",
                       "reference", "entropy"}, visible
    assert "worker" in visible and "solver" not in visible


def zombie_children() -> list[int]:
    """Children of this process that ended and were never waited for."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as file:
                    fields = file.read().rpartition(b")")[2].split()
            except OSError:
                continue
            if fields[0] == b"Z" and int(fields[1]) == os.getpid():
                found.append(int(entry.name))
    return found


def test_every_child_is_reaped(tmp_path: Path, use_bwrap: bool) -> None:
    source = """
        import os, time
        def mm_move(board, player):
            if board.get_dim() == 1:
                os._exit(1)
            if board.get_dim() == 2:
                time.sleep(60)
            if board.get_dim() == 3 and os.fork() == 0:
                os.setsid()
                time.sleep(60)
            return 0, (0, 0)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        statuses = [box.call("mm_move", Position.empty(dim), 0.3).status for dim in (1, 2, 3)]
        assert box.restarts == 2
    assert statuses == ["crash", "timeout", "ok"]
    assert zombie_children() == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a sandbox a uid of its own")
def test_as_root_each_sandbox_has_a_uid_of_its_own(tmp_path: Path, use_bwrap: bool) -> None:
    path = write(tmp_path, "import os\ndef mm_move(board, player):\n    return os.getuid()\n")
    with Sandbox(path, FAST, use_bwrap=use_bwrap) as one, \
            Sandbox(path, FAST, use_bwrap=use_bwrap) as two:
        uids = [box.call("mm_move", Position.empty(1), 1.0).answer for box in (one, two)]
    assert all(uid in SANDBOX_UIDS for uid in uids) and uids[0] != uids[1]


@FALLBACK
def test_a_closed_sandbox_refuses_calls_and_removes_its_folder(tmp_path: Path) -> None:
    source = """
        import os
        def mm_move(board, player):
            return os.getcwd()
        """
    box = Sandbox(write(tmp_path, source), FAST, use_bwrap=False)
    with box:
        folder = Path(box.call("mm_move", Position.empty(1), 1.0).answer)
        assert (folder / "mm_player.py").is_file()
    assert not folder.exists()
    with pytest.raises(SandboxError):
        box.call("mm_move", Position.empty(1), 1.0)


def test_isolation_says_which_layers_are_active(tmp_path: Path, use_bwrap: bool) -> None:
    path = write(tmp_path, "def mm_move(board, player):\n    return 0, (0, 0)\n")
    with Sandbox(path, FAST, use_bwrap=use_bwrap) as box:
        layers = box.isolation
    assert "separate process" in layers and any(layer.startswith("rlimits") for layer in layers)
    assert ("pid namespace" in layers) is use_bwrap
    assert any(layer.startswith("bubblewrap") for layer in layers) is use_bwrap


@FALLBACK
def test_the_environment_switch_forces_the_fallback(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TTT_GRADER_NO_BWRAP", "1")
    path = write(tmp_path, "def mm_move(board, player):\n    return 0, (0, 0)\n")
    with Sandbox(path, FAST) as box:
        assert box.call("mm_move", Position.empty(1), 1.0).status == "ok"
        assert "pid namespace" not in box.isolation


# -- time, measured from outside ---------------------------------------------------------------

def test_a_clock_forged_inside_the_worker_changes_nothing(tmp_path: Path,
                                                          use_bwrap: bool) -> None:
    source = """
        import resource, signal, time
        time.process_time = time.perf_counter = time.monotonic = lambda: 0.0
        resource.getrusage = lambda who: resource.struct_rusage((0.0,) * 16)
        signal.signal(signal.SIGPROF, signal.SIG_IGN)
        def mm_move(board, player):
            signal.setitimer(signal.ITIMER_PROF, 0)
            total = 0
            for i in range(board.get_dim() * 10_000_000):
                total += i
            return 0, (0, 0)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        small = box.call("mm_move", Position.empty(1), 5.0)
        big = box.call("mm_move", Position.empty(4), 0.2)
    assert small.status == "ok" and small.cpu_seconds > 0.02   # not the 0.0 it claims
    assert big.status == "timeout" and not big.waited
    assert 0.2 <= big.cpu_seconds < 0.35


def test_threads_are_counted(tmp_path: Path, use_bwrap: bool) -> None:
    source = """
        import threading
        def burn():
            total = 0
            for i in range(3_000_000):
                total += i
        def mm_move(board, player):
            if board.get_dim() == 1:
                burn()
                return 0, (0, 0)
            threads = [threading.Thread(target=burn) for _ in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            return 0, (0, 0)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        alone = box.call("mm_move", Position.empty(1), 20.0)
        threaded = box.call("mm_move", Position.empty(2), 20.0)
    assert alone.status == threaded.status == "ok"
    # Not counted, the threads would cost next to nothing: the main thread only waits.
    assert threaded.cpu_seconds > 1.2 * alone.cpu_seconds > 0


def test_the_reference_is_timed_before_any_student_code_and_again_on_demand(
        tmp_path: Path, use_bwrap: bool) -> None:
    source = """
        import builtins, os
        builtins.len = lambda value: 0   # would break (or slow) any reference run after it
        def mm_move(board, player):
            if board.get_dim() == 1:
                while True:
                    pass
            os._exit(1)
        """
    with Sandbox(write(tmp_path, source), FAST, use_bwrap=use_bwrap) as box:
        assert box.calibration is not None and box.calibrations == 1
        # Five runs of the 3x3 search, three of the 4x4 one (it only sets their ratio).
        assert box.reference_timings == REFERENCE_RUNS + REFERENCE_4X4_RUNS == 8
        first = box.calibration
        # 1,277 nodes of the reference take some milliseconds, not microseconds or seconds.
        assert 1e-7 < first.per_node_3x3 < 1e-4 and 0.5 < first.ratio_4x4 < 4
        box.call("mm_move", Position.empty(1), 0.2)            # out of CPU time
        box.call("mm_move", Position.empty(2), 0.2)            # a crash
        assert box.calibrations == 1                           # nothing on its own
        again = box.calibrate()          # in a worker of its own, which never loads the file
        assert box.calibrations == 2 and again is box.calibration
        assert 0.2 < again.per_node_3x3 / first.per_node_3x3 < 5
        reference = box._resources.reference
        assert reference is not None and reference is not box._resources.worker
        box.calibrate()
        assert box._resources.reference is reference and box.calibrations == 3
        # The reference on any position, in the same worker: about its nodes' worth of time
        # (the 4x4 endgame of the calibration: 1,609 nodes; the empty 2x2 board: 81).
        from grader.timing.policy import REFERENCE_4X4
        endgame = box.reference_seconds(REFERENCE_4X4)
        assert 0.2 < endgame / again.seconds(4, 1_609) < 5
        assert box.reference_seconds(Position.empty(2)) < endgame
        assert box._resources.reference is reference
        # A timeout stops the student's worker; without a pid namespace that kills every
        # process of the sandbox's uid, the reference worker's too: it is started again.
        box.call("mm_move", Position.empty(1), 0.2)
        assert 0.2 < box.reference_seconds(REFERENCE_4X4) / again.seconds(4, 1_609) < 5
        assert box.calibrate() is box.calibration


def test_killing_one_sandbox_by_its_mark_spares_the_others(tmp_path: Path,
                                                          use_bwrap: bool) -> None:
    from grader.sandbox.process import kill_tagged
    source = """
        def mm_move(board, player):
            return 0, (0, 0)
        """
    first_dir, second_dir = tmp_path / "a", tmp_path / "b"
    first_dir.mkdir()
    second_dir.mkdir()
    with Sandbox(write(first_dir, source), FAST, use_bwrap=use_bwrap) as first, \
            Sandbox(write(second_dir, source), FAST, use_bwrap=use_bwrap) as second:
        tags = first._resources.worker.tag, second._resources.worker.tag
        assert tags[0] != tags[1]                 # HOME is /tmp in every bubblewrap sandbox
        kill_tagged(tags[0])
        assert second.call("mm_move", Position.empty(1), 1.0).status == "ok"
        assert first.call("mm_move", Position.empty(1), 1.0).status == "crash"
