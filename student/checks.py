"""The public checks behind ``python -m student check``.

A dozen small, hand-picked positions with their value and EVERY optimal move
(any of them is accepted), and the code that asks ``mm_move`` about one of them
in a child process with a time limit and judges the answer. The child is
``python -m student.runner``; only JSON travels back, so a crash, an endless
loop or a stray print in ``mm_move`` costs one check, never the run.

>>> CHECKS[3].call()
'mm_move(TTTBoard(1, False, [[EMPTY]]), PLAYERX)'
>>> CHECKS[3].expected()
'(1, (0, 0))'
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from provided.board import EMPTY, NAMES, PLAYERO, PLAYERX, TTTBoard

Move = tuple[int, int]
Grid = tuple[tuple[int, ...], ...]
NO_MOVE: Move = (-1, -1)

# Reply kinds: what became of one call.
ANSWER = "answer"          # mm_move returned something
ERROR = "error"            # mm_move raised an exception
TIMEOUT = "timeout"        # the call did not finish in time; its process was killed
CRASH = "crash"            # the process ended without reporting anything
NOT_WRITTEN = "not_written"  # mm_move raised NotImplementedError (the unfilled template)
LOAD_ERROR = "load_error"  # the file could not be imported, or has no mm_move

# What to look for when a call never returned: the check's own "why" explains an answer,
# and there is none (a 1x1 board's "do not assume the board is 3x3" misleads here).
STUCK_WHY = ("mm_move never returned, so there is no answer to judge; a correct mm_move "
             "answers this position in a few milliseconds. Look for a loop whose condition "
             "never changes (a while loop whose test depends on nothing the loop changes), or a "
             "recursion that never reaches a finished board (each recursive call must play "
             "one move on board.clone(), so the board fills up, and return as soon as "
             "board.check_win() is not None).")

FINISHED_STUCK_WHY = ("The game on this board is already over, so mm_move must return at "
                      "once, before any loop or recursion: check board.check_win() first. ")

WAITING_WHY = ("mm_move never returned, and it was not computing. Does mm_move sleep "
               "(time.sleep) or wait for input (input())? The grader stops such a call at "
               "its limit too, and it gets no answer.")

# Project root: the child must find `provided` and `student` even when they are not installed.
_ROOT = Path(__file__).resolve().parent.parent


class SubmissionError(Exception):
    """The file cannot be checked at all; the message says what to do."""


class NotWrittenError(SubmissionError):
    """mm_move still raises NotImplementedError: it is the unfilled template."""


class LoadError(SubmissionError):
    """The file does not import (syntax error, missing module, ...) or has no mm_move."""


@dataclass(frozen=True)
class Check:
    """One public check: a position, its value, and every move that achieves it.

    >>> CHECKS[0].expected()
    '(1, (-1, -1))'
    """

    name: str
    grid: Grid
    player: int
    score: int
    moves: frozenset[Move]
    why: str
    reverse: bool = False

    @property
    def dim(self) -> int:
        return len(self.grid)

    def board(self) -> TTTBoard:
        """A fresh board for this check."""
        return TTTBoard(self.dim, self.reverse, self.grid)

    def call(self) -> str:
        """The call in the course grader's style, ready to paste into Python."""
        return f"mm_move({self.board()!r}, {NAMES[self.player]})"

    def expected(self) -> str:
        """The expected answer, in words when several moves are accepted."""
        moves = sorted(self.moves)
        if len(moves) == 1:
            return f"({self.score}, {moves[0]})"
        return f"score {self.score}, with any of the moves {', '.join(map(str, moves))}"


@dataclass(frozen=True)
class Reply:
    """What came back from the child process for one call (decoded JSON, never pickles)."""

    kind: str
    answer: str = ""            # what mm_move returned, as a student reads it
    score: int | None = None    # set only if the answer reads as (score, (row, col))
    move: Move | None = None
    board_after: str = ""       # repr of the board after the call, if the call changed it
    message: str = ""           # the error: exception and traceback, or the end of stderr
    problem: str = ""           # why the answer does not read as (score, (row, col))
    notes: tuple[str, ...] = ()           # what was forgiven to read it (as the grader does)
    import_calls: tuple[str, ...] = ()    # games the file started when imported (paused)
    cpu_seconds: float = 0.0    # the call's CPU time (not the import's)
    waited: bool = False        # stopped by the wall clock: it was not computing
    printed: tuple[str, ...] = ()          # the first lines the call printed
    printed_lines: int = 0                 # how many lines it printed in all
    import_printed: tuple[str, ...] = ()   # the same for the import of the file
    import_printed_lines: int = 0
    # What else the child said (the Monte Carlo runner: boards, scores, constants).
    extra: dict = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Verdict:
    """The judgement of one check: passed, or the problem and the evidence."""

    check: Check
    passed: bool
    problem: str = ""    # one line, e.g. "expected score 0 but received (1, (2, 2))"
    received: str = ""   # what mm_move returned, as it printed
    details: str = ""    # a traceback, or the board as mm_move left it
    notes: tuple[str, ...] = ()   # accepted, but not quite as asked (a list for a tuple)
    why: str = ""        # what to look for, when the check's own "why" (of its answer) does not fit


X, O, E = PLAYERX, PLAYERO, EMPTY

# The project's own tests verify the expected scores and moves by brute force.
# None of these is one of the course grader's example positions.
CHECKS: tuple[Check, ...] = (
    Check("finished board: X has won",
          ((X, X, X), (O, O, E), (E, E, E)), O, 1, frozenset({NO_MOVE}),
          "X has completed the top row, so the game is over: return (SCORES[board.check_win()], (-1, -1))."),
    Check("finished board: O has won",
          ((X, X, O), (X, O, E), (O, E, E)), X, -1, frozenset({NO_MOVE}),
          "O has completed the diagonal from (0, 2) to (2, 0), so the game is over: "
          "return (SCORES[board.check_win()], (-1, -1))."),
    Check("finished board: a draw",
          ((X, O, X), (X, O, O), (O, X, X)), O, 0, frozenset({NO_MOVE}),
          "The board is full and nobody has a line: check_win() returns DRAW, and SCORES[DRAW] is 0."),
    Check("a 1x1 board",
          ((E,),), X, 1, frozenset({(0, 0)}),
          "X's only move (0, 0) fills the only row, so X wins: do not assume the board is 3x3."),
    Check("X wins now",
          ((X, X, E), (O, O, E), (E, E, E)), X, 1, frozenset({(0, 2)}),
          "X completes the top row at (0, 2) and wins at once."),
    Check("O wins now",
          ((X, E, O), (X, O, E), (E, E, X)), O, -1, frozenset({(2, 0)}),
          "O completes the diagonal at (2, 0), which also stops X's left column. "
          "O wins, so the score is -1 (scores are always from X's side)."),
    Check("X must block",
          ((O, O, E), (X, E, E), (E, E, X)), X, 1, frozenset({(0, 2)}),
          "O threatens the top row, so X must take (0, 2); with best play X then goes on to win."),
    Check("O must block",
          ((X, E, E), (E, X, E), (O, E, E)), O, 0, frozenset({(2, 2)}),
          "X threatens the diagonal, so O must take (2, 2); after that best play is a draw."),
    Check("O must not let X fork",
          ((X, E, E), (E, O, E), (E, E, X)), O, 0,
          frozenset({(0, 1), (1, 0), (1, 2), (2, 1)}),
          "After O takes a corner, X can block and threaten two lines at once; after a side "
          "square X must block instead, and the game is drawn. Any side square is correct."),
    Check("2x2: O loses whatever it does",
          ((X, E), (E, E)), O, 1, frozenset({(0, 1), (1, 0), (1, 1)}),
          "On a 2x2 board any two squares make a line, so X's next mark wins. "
          "O still has to return a move: any empty square is correct."),
    Check("2x2: X wins now",
          ((X, O), (E, E)), X, 1, frozenset({(1, 0), (1, 1)}),
          "X completes the left column at (1, 0) or the diagonal at (1, 1): either is correct."),
    Check("reverse game: O must not complete a line",
          ((X, X, O), (O, O, E), (X, E, X)), O, 0, frozenset({(2, 1)}), reverse=True,
          why="In the reverse game completing a line LOSES: O at (1, 2) would complete the "
              "middle row and hand X the win; O at (2, 1) leads to a draw."),
)


@dataclass(frozen=True)
class Limits:
    """How long one call may run: ``cpu`` seconds of CPU time (None: no such limit), and in
    any case ``wall`` seconds (a call that sleeps or waits uses no CPU time). ``pin``: the
    CPU to run on (see ``student.yardstick.pin``)."""

    cpu: float | None
    wall: float
    pin: int | None = None


def run_check(check: Check, path: Path, limits: Limits) -> Reply:
    """Call ``mm_move`` from ``path`` on ``check``'s board in a child process.

    Raises NotWrittenError or LoadError when the file cannot be checked at all.
    """
    return call_mm_move(path, check.dim, check.reverse, check.grid, check.player, limits)


def call_mm_move(path: Path, dim: int, reverse: bool, grid: Sequence[Sequence[int]],
                 player: int, limits: Limits) -> Reply:
    """Call ``mm_move`` from ``path`` on one board in a child process (``student.runner``).

    Raises NotWrittenError or LoadError when the file cannot be checked at all.
    """
    return call_child(path, {"dim": dim, "reverse": reverse,
                             "grid": [list(row) for row in grid], "player": player},
                      limits)


# What call_child reads into a Reply's own fields; anything else the child says goes to
# Reply.extra (the Monte Carlo runner's boards and scores after the call).
_REPLY_KEYS = {"kind", "answer", "score", "move", "board_after", "message", "problem",
               "notes", "import_calls", "cpu_seconds", "waited", "printed", "printed_lines",
               "import_printed", "import_printed_lines"}


def call_child(path: Path, request: dict, limits: Limits, runner: str = "student.runner",
               who: str = "mm_move") -> Reply:
    """Run ``python -m RUNNER PATH`` with ``request`` (JSON) and ``limits``, and read its one
    JSON line: what became of one call of the student's function ``who`` (see
    ``student.runner``; ``student.mc_runner`` is the Monte Carlo functions' child).

    Raises NotWrittenError or LoadError when the file cannot be checked at all.
    """
    request = json.dumps({**request, "cpu_limit": limits.cpu, "cpu": limits.pin})
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_ROOT), env.get("PYTHONPATH")]))
    try:
        # run() kills the child when the time is up.
        done = subprocess.run([sys.executable, "-m", runner, str(path)],
                              input=request, capture_output=True, text=True,
                              timeout=limits.wall, env=env)
    except subprocess.TimeoutExpired:
        return Reply(TIMEOUT, message=f"did not return within {limits.wall:.1f} s (wall-clock "
                                      "time): is it waiting for input, or sleeping?",
                     waited=True)
    data = _decode(done.stdout)
    if data is None:
        tail = "\n".join(done.stderr.strip().splitlines()[-10:])
        return Reply(CRASH, message=(
            f"the process running {who} ended without an answer "
            f"(exit status {done.returncode})" + (f"; its last output:\n{tail}" if tail else "")))
    kind = data.get("kind")
    if kind == NOT_WRITTEN:
        raise NotWrittenError(str(data.get("message", "")))
    if kind == LOAD_ERROR:
        raise LoadError(str(data.get("message", "")))
    move = data.get("move")
    score = data.get("score")
    cpu = data.get("cpu_seconds")
    cpu = float(cpu) if isinstance(cpu, (int, float)) else 0.0
    outputs = _outputs(data)   # what the file printed at import and in the call
    if kind == TIMEOUT and data.get("waited") is True:
        return Reply(TIMEOUT, cpu_seconds=cpu, waited=True, message=(
            f"did not return within its limit of {limits.cpu:.2f} s: it computed for only "
            f"{cpu:.2f} s, the rest it spent sleeping or waiting"), **outputs)
    if kind == TIMEOUT:
        return Reply(TIMEOUT, cpu_seconds=cpu, message=(
            f"did not return within its limit of {limits.cpu:.2f} s of CPU time"), **outputs)
    return Reply(
        kind=str(kind), answer=str(data.get("answer", "")),
        score=score if type(score) is int else None,
        move=tuple(move) if isinstance(move, list) else None,  # type: ignore[arg-type]
        board_after=str(data.get("board_after", "")), message=str(data.get("message", "")),
        problem=str(data.get("problem", "")),
        notes=tuple(str(note) for note in data.get("notes", ())),
        import_calls=tuple(str(call) for call in data.get("import_calls", ())),
        cpu_seconds=cpu, extra={key: value for key, value in data.items()
                                if key not in _REPLY_KEYS}, **outputs)


def _outputs(data: dict) -> dict:
    """What the child says the file printed, checked: lists of text and counts, or none.

    >>> _outputs({"printed": ["hi"], "printed_lines": 1, "import_printed": 3})
    {'printed': ('hi',), 'printed_lines': 1, 'import_printed': (), 'import_printed_lines': 0}
    """
    found = {}
    for name in ("printed", "import_printed"):
        lines, count = data.get(name), data.get(f"{name}_lines")
        valid = isinstance(lines, list) and type(count) is int and count >= 0
        found[name] = tuple(str(line) for line in lines) if valid else ()
        found[f"{name}_lines"] = count if valid else 0
    return found


def _decode(stdout: str) -> dict | None:
    """The child's one JSON line, or None if it did not write one."""
    lines = stdout.strip().splitlines()
    try:
        data = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def judge(check: Check, reply: Reply) -> Verdict:
    """Compare one reply with the check's expected score and accepted moves.

    >>> judge(CHECKS[3], Reply(ANSWER, "(1, (0, 0))", 1, (0, 0))).passed
    True
    >>> judge(CHECKS[3], Reply(ANSWER, "(0, (0, 0))", 0, (0, 0))).problem
    'expected score 1 but received (0, (0, 0))'
    >>> judge(CHECKS[3], Reply(TIMEOUT, message="did not return")).why[:49]
    'mm_move never returned, so there is no answer to '
    """
    received = reply.answer
    if reply.kind == TIMEOUT:    # no answer: the check's "why" of its answer does not help
        if reply.waited:
            return Verdict(check, False, reply.message, why=WAITING_WHY)
        finished = FINISHED_STUCK_WHY if check.moves == {NO_MOVE} else ""
        return Verdict(check, False, f"{reply.message}: an endless loop?",
                       why=finished + STUCK_WHY)
    if reply.kind == ERROR:
        lines = [line for line in reply.message.strip().splitlines()
                 if not line.startswith("This looks like Python 2:")]
        raised = lines[-1] if lines else "an exception"  # the traceback's last line names it
        return Verdict(check, False, f"raised {raised}", details=reply.message)
    if reply.kind != ANSWER:
        return Verdict(check, False, reply.message)
    if reply.score is None or reply.move is None:
        why = reply.problem or "it is not a tuple (score, (row, col)) of whole numbers"
        return Verdict(check, False, f"returned {received}: {why}", received)
    if reply.board_after:
        return Verdict(check, False,
                       "changed the board it was given: try moves on board.clone() instead",
                       received, f"the board after the call: {reply.board_after}")
    answer = f"({reply.score}, {reply.move})"
    if reply.score != check.score:
        return Verdict(check, False,
                       f"expected score {check.score} but received {answer}", received)
    if reply.move not in check.moves:
        if check.moves == {NO_MOVE}:
            problem = f"returned bad move {answer}: the game is over, the move must be (-1, -1)"
        elif reply.move not in check.board().get_empty_squares():
            problem = (f"returned invalid move {answer}: {reply.move} is not an empty square "
                       "of this board")
        else:
            problem = (f"returned bad move {answer}: the score is right but {reply.move} "
                       "does not achieve it")
        return Verdict(check, False, problem, received)
    return Verdict(check, True, received=received, notes=reply.notes)
