"""The minimax's public checks, as data: a dozen positions students may see, each with its
rubric items, and the positions that decide the grader's time limits.

Every public position is one of the hidden positions (the image the hidden suite asks of
its class of the board's 8 symmetries), so it is asked and judged exactly as in a grade;
the hidden suite asks the others (``grader.assignments.minimax.session``). Nothing here
says what a position is worth: the grader's solver does, when a check is judged.

``SPEED`` holds, for each size and mode, the hardest hidden position of every tier timed by
ratio and of its largest small tier, as the grader's pacing finds them
(``grader.timing.pacing``): asked in the grader's order with the grader's limits, they say
whether ``mm_move`` is fast enough (``test_speed.py``). The project's tests compute them
again from the hidden positions.

>>> [case.name for case in PUBLIC][:2]
['finished board: X has won', 'finished board: O has won']
>>> len(PUBLIC), len(SPEED)
(12, 19)
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.judge.position import Position
from provided.board import EMPTY as E, PLAYERO as O, PLAYERX as X

FINISHED, OTHER_SIZES, NORMAL, REVERSE = ("finished boards", "other sizes", "scores",
                                          "reverse games")


@dataclass(frozen=True)
class PublicPosition:
    """A public check: a name, a position, and the hidden suite's part it belongs to
    (``FINISHED``, ``OTHER_SIZES``, ``NORMAL``: 3x3 normal games, judged in the items
    "scores" and "moves", ``REVERSE``)."""

    name: str
    position: Position
    part: str


def _at(grid, player, reverse=False) -> Position:
    return Position.from_grid(grid, player, reverse)


PUBLIC: tuple[PublicPosition, ...] = (
    PublicPosition("finished board: X has won", _at([[E, E, E], [O, O, E], [X, X, X]], O),
                   FINISHED),
    PublicPosition("finished board: O has won", _at([[O, E, E], [X, O, E], [X, X, O]], X),
                   FINISHED),
    PublicPosition("finished board: a draw", _at([[O, X, X], [X, O, O], [X, O, X]], O),
                   FINISHED),
    PublicPosition("a 1x1 board", Position.empty(1), OTHER_SIZES),
    PublicPosition("X wins now", _at([[X, O, E], [X, O, E], [E, E, E]], X), NORMAL),
    PublicPosition("O wins now", _at([[X, X, E], [E, O, E], [O, E, X]], O), NORMAL),
    PublicPosition("X must block", _at([[E, E, X], [X, E, E], [O, O, E]], X), NORMAL),
    PublicPosition("O must block", _at([[O, E, X], [E, X, E], [E, E, E]], O), NORMAL),
    PublicPosition("O must not let X fork", _at([[E, E, X], [E, O, E], [X, E, E]], O),
                   NORMAL),
    PublicPosition("2x2: O loses whatever it does", _at([[X, E], [E, E]], O), OTHER_SIZES),
    PublicPosition("2x2: X wins now", _at([[X, O], [E, E]], X), OTHER_SIZES),
    PublicPosition("reverse game: O must not complete a line",
                   _at([[X, O, X], [E, O, X], [X, E, O]], O, True), REVERSE),
)


def of(part: str) -> tuple[PublicPosition, ...]:
    """The public positions of one part of the hidden suite.

    >>> [case.name for case in of(REVERSE)]
    ['reverse game: O must not complete a line']
    """
    return tuple(case for case in PUBLIC if case.part == part)


def _tier(dim: int, reverse: bool, cells: tuple[int, ...], player: int) -> Position:
    return Position(dim, cells, player, reverse)


# Computed by the grader's pacing from its hidden positions (tests/student/test_speed.py
# computes them again and compares), in its order: by size and mode, fewest empty squares
# first.
SPEED: tuple[Position, ...] = (
    _tier(3, False, (2, 1, 1, 3, 1, 2, 1, 1, 3), 2),
    _tier(3, False, (1, 2, 1, 1, 1, 1, 1, 3, 2), 3),
    _tier(3, False, (1, 1, 1, 2, 1, 3, 1, 1, 1), 2),
    _tier(3, False, (1, 1, 1, 1, 1, 1, 1, 2, 1), 3),
    _tier(3, False, (1, 1, 1, 1, 1, 1, 1, 1, 1), 2),
    _tier(3, True, (2, 1, 1, 3, 1, 2, 1, 1, 3), 2),
    _tier(3, True, (1, 2, 1, 1, 1, 1, 1, 3, 2), 3),
    _tier(3, True, (1, 1, 1, 2, 1, 3, 1, 1, 1), 2),
    _tier(3, True, (1, 1, 1, 1, 1, 1, 1, 2, 1), 3),
    _tier(3, True, (1, 1, 1, 1, 1, 1, 1, 1, 1), 2),
    _tier(2, False, (1, 1, 1, 1), 2),
    _tier(2, True, (1, 1, 1, 1), 2),
    _tier(1, False, (1,), 2),
    _tier(1, True, (1,), 2),
    _tier(4, False, (2, 2, 3, 2, 1, 3, 3, 3, 3, 1, 2, 2, 1, 1, 2, 1), 3),
    _tier(4, False, (1, 2, 3, 3, 3, 1, 1, 1, 3, 2, 3, 2, 2, 1, 1, 2), 2),
    _tier(4, False, (3, 2, 1, 3, 1, 1, 2, 2, 3, 1, 3, 1, 1, 2, 1, 2), 3),
    _tier(4, True, (1, 3, 2, 1, 3, 1, 3, 1, 3, 2, 2, 2, 2, 2, 1, 3), 3),
    _tier(4, True, (3, 1, 2, 1, 2, 2, 3, 2, 2, 3, 1, 1, 1, 1, 3, 3), 2),
)
