"""One answer of the student's -> a verdict, with the evidence a student can act on.

A call is judged on four aspects, each a rubric item's business:
``score`` (the value is right), ``move`` (the move is legal and optimal, or
``(-1, -1)`` on a finished board), ``board`` (the board was left as it was)
and ``time`` (within its limit). The truth comes from the grader's own solver.

>>> from grader.judge.solver import Solver
>>> pos = Position.from_grid([[2, 2, 1], [3, 3, 1], [1, 1, 1]], PLAYERX)
>>> verdict = judge_answer(Solver(), pos, (1, (0, 2)))
>>> verdict.ok("score"), verdict.ok("move")
(True, True)
>>> judge_answer(Solver(), pos, (1, (2, 2))).failures["move"].category
'losing move'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from provided.answers import BadAnswer, read_answer, show  # noqa: F401 (the API)
from grader.judge.position import NO_MOVE, Move, Position
from grader.judge.results import Failure
from grader.judge.solver import Solver
from provided.board import DRAW, PLAYERO, PLAYERX, SCORES, STRMAP


OUTCOME = {1: "X wins", 0: "a draw", -1: "O wins"}


@dataclass(frozen=True)
class Verdict:
    """What one call got right and wrong; ``failures`` maps a failed aspect to its evidence."""

    position: Position
    failures: Mapping[str, Failure] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    cpu_seconds: float = 0.0
    answered: bool = True     # False: timeout, exception, crash or not run (nothing to judge)

    def ok(self, aspect: str) -> bool:
        return aspect not in self.failures

    def first_failure(self, *aspects: str) -> Failure | None:
        for aspect in aspects:
            if aspect in self.failures:
                return self.failures[aspect]
        return None


def judge_answer(solver: Solver, position: Position, answer: Any,
                 function: str = "mm_move") -> Verdict:
    """Judge a returned value on the score and move aspects (the caller adds board and time)."""
    received = show(answer)
    try:
        parsed = read_answer(answer)
    except BadAnswer as problem:
        failure = failed_call(position, function, "bad answer", _expected(solver, position),
                           received, str(problem))
        return Verdict(position, {"score": failure, "move": failure})
    failures: dict[str, Failure] = {}
    value = solver.value(position)
    if parsed.score != value:
        failures["score"] = failed_call(
            position, function, "wrong score", f"score {value}", received,
            _why_value(solver, position, value))
    problem = _move_problem(solver, position, parsed.move, value)
    if problem is not None:
        category, why = problem
        failures["move"] = failed_call(position, function, category,
                                    expected_move(solver, position), received, why)
    return Verdict(position, failures, parsed.notes)


def judge_move(solver: Solver, position: Position, move: Any) -> tuple[Move | None, str]:
    """Read a ``move_wrapper`` answer: the legal move, or None and why not.

    >>> judge_move(Solver(), Position.empty(3), [1, 1])
    ((1, 1), '')
    """
    try:
        row, col = _move_pair(move)
    except BadAnswer as problem:
        return None, str(problem)
    if (row, col) not in position.empty_squares():
        return None, f"{show(move)} is not an empty square of the board"
    return (row, col), ""


def _move_pair(move: Any) -> Move:
    if type(move) not in (tuple, list) or len(move) != 2 or any(type(v) is not int for v in move):
        raise BadAnswer(f"the move should be a pair of ints (row, col), got {show(move)}")
    return move[0], move[1]


def failed_call(position: Position, function: str, category: str, expected: str,
                received: str, why: str, judged: bool = True) -> Failure:
    """The evidence of one failed check on ``function(position)``: call, board, why.

    ``judged=False``: the call gave no answer, so the check could not be judged."""
    return Failure(category=category, call=position.call(function), expected=expected,
                   received=received, why=why, board=position.drawing(), judged=judged)


BOARD_CHANGED = "board changed"


def board_changed(position: Position, after: Position, function: str = "mm_move") -> Failure:
    """The evidence of a call that changed its board: the call, the board before the call
    and as the call left it (each drawn, for the report to label).

    >>> before = Position.from_grid([[1, 2], [1, 1]], PLAYERO)
    >>> after = Position.from_grid([[3, 2], [1, 1]], PLAYERO)
    >>> failure = board_changed(before, after)
    >>> failure.received, failure.board_after.splitlines()[1].split()
    ('a changed board', ['0', 'O', '|', 'X'])
    """
    return Failure(category=BOARD_CHANGED, call=position.call(function),
                   expected="the board as it was", received="a changed board",
                   why=f"{function} must not change the board it is given: clone it "
                       "(board.clone()) and move on the copy",
                   board=position.drawing(), board_after=after.drawing())


def _expected(solver: Solver, position: Position) -> str:
    return f"score {solver.value(position)} and {expected_move(solver, position)}"


def expected_move(solver: Solver, position: Position) -> str:
    if solver.winner(position) is not None:
        return f"the move {NO_MOVE} (the game is over)"
    best = sorted(solver.best_moves(position))
    if len(best) == 1:
        return f"the move {best[0]}"
    return "one of the moves " + ", ".join(map(str, best))


def _move_problem(solver: Solver, position: Position, move: Move,
                  value: int) -> tuple[str, str] | None:
    winner = solver.winner(position)
    if winner is not None:
        if move == NO_MOVE:
            return None
        result = {PLAYERX: "X has won", PLAYERO: "O has won", DRAW: "the board is full"}[winner]
        return "move on a finished board", f"{result}, so there is no move to make: return (-1, -1)"
    if move == NO_MOVE:
        return "no move", (f"the game is not over, so {STRMAP[position.player]} must move; "
                           "return the best move even when every move loses")
    if move not in position.empty_squares():
        dim = position.dim
        on_board = 0 <= move[0] < dim and 0 <= move[1] < dim
        where = "is taken" if on_board else f"is not on the {dim}x{dim} board"
        return "illegal move", f"the square {move} {where}"
    if move in solver.best_moves(position):
        return None
    after = position.play(move)
    got = solver.value(after)
    return ("losing move" if got != 0 else "drawing move",
            f"{line_of_play(solver, position, move)}: {OUTCOME[got]}, but best play gives {OUTCOME[value]}")


def _why_value(solver: Solver, position: Position, value: int) -> str:
    winner = solver.winner(position)
    if winner is not None:
        name = {PLAYERX: "X has won", PLAYERO: "O has won", DRAW: "the board is full: a draw"}
        reverse = " (reverse game: completing a line loses)" if position.reverse and winner != DRAW else ""
        return f"the game is over: {name[winner]}{reverse}, so the score is SCORES[...] = {SCORES[winner]}"
    move = min(solver.best_moves(position))
    return f"with best play, {line_of_play(solver, position, move)}: {OUTCOME[value]}"


def line_of_play(solver: Solver, position: Position, move: Move) -> str:
    """'after X (1, 1), O (0, 2), X (2, 0), ...': the move, then the best replies."""
    moves = [move] + solver.line_of_play(position, move)
    player, steps = position.player, []
    for step in moves:
        steps.append(f"{STRMAP[player]} {step}")
        player = PLAYERO if player == PLAYERX else PLAYERX
    return "after " + ", ".join(steps)
