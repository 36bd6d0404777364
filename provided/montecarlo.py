"""The Monte Carlo player's rules, as pure functions: what each of its four functions must do.

The course's Monte Carlo assignment (``student/mc_player.py``) asks for ``mc_trial``,
``mc_update_scores``, ``get_best_move`` and ``mc_move``. These functions say what a correct
one does with a given board, so that the grader's hidden checks and ``python -m student
check`` judge by the same rule. They never run student code; boards are grids (lists of
rows of cell values), so a check can hold the board as it was before and after a call.

>>> board = [[PLAYERX, PLAYERX, PLAYERX], [PLAYERO, PLAYERO, EMPTY], [EMPTY, EMPTY, EMPTY]]
>>> expected_scores([[0.0] * 3 for _ in range(3)], board, PLAYERX, 1.0, 1.0)
[[1.0, 1.0, 1.0], [-1.0, -1.0, 0.0], [0.0, 0.0, 0.0]]
>>> best_moves([[EMPTY, PLAYERX], [EMPTY, EMPTY]], [[5, 9], [-1, 5]])
[(0, 0), (1, 1)]
"""

from __future__ import annotations

import math

from provided.board import DRAW, EMPTY, NAMES, PLAYERO, PLAYERX, TTTBoard, switch_player

Grid = list  # a list of rows, each a list of cell values (or of scores)
Move = tuple  # (row, col)

# How long a call may take (the grader's limits, and ``python -m student check``'s speed
# part, which says what the grader would say): a trial costs about as much as a few nodes
# of the reference search (a plain minimax on a board written like the course's original,
# timed on the machine) per square it may fill.
TRIAL_NODES = 3
"""Reference nodes a trial may spend per square it may fill."""
FACTOR = 5.0
"""A call may take this many times what its work costs the reference (the Monte Carlo
assignment's default ``[time] factor``, grader/assignments/montecarlo/default.cfg)."""
SMALL = 0.2
"""Every call may also take this many reference searches of the empty 3x3 board (the
default ``[time] small``): a quick call is never judged on its time, only a stuck one."""
SPEED_HINT = ("Look for repeated work: a trial needs one copy of the board (board.clone()), "
              "not one per move, and a finished game needs no more moves.")


# The scores a square gains or loses (the course's values), the names of the course's older
# template for the same constants, and the range of values that make a fair test: a change
# far above the rounding of the scores already in a grid, and no score so large that adding
# the other constant to it is lost in the rounding.
COURSE_CONSTANTS = {"SCORE_CURRENT": 1.0, "SCORE_OTHER": 1.0}
OLD_NAMES = {"SCORE_CURRENT": "MCMATCH", "SCORE_OTHER": "MCOTHER"}
CONSTANT_RANGE = (0.001, 1000.0)
TOLERANCE = 1e-9
"""Two scores are the same when they differ by at most this share of their size (or of the
smallest constant, for a score near 0): rounding, never a mistake."""


def constant_problem(value: object) -> str | None:
    """Why ``value`` cannot be a score constant the checks judge by, or None when it can:
    a finite int or float within ``CONSTANT_RANGE``.

    >>> constant_problem(2.0) is None, constant_problem(0.0), constant_problem(float("nan"))
    (True, 'it is not from 0.001 to 1000', 'it is not a finite number')
    """
    if type(value) not in (int, float):
        return "it is not a number"
    if not math.isfinite(value):
        return "it is not a finite number"
    low, high = CONSTANT_RANGE
    if not low <= value <= high:
        return f"it is not from {low:g} to {high:g}"
    return None


def same_score(got: object, want: float, scale: float = 1.0) -> bool:
    """Whether ``got`` is the score ``want``, up to rounding: a finite int or float (never a
    bool, never nan or inf) within ``TOLERANCE`` of ``want``'s size, or of ``scale`` (the
    smallest constant) where ``want`` is smaller.

    >>> same_score(0.1 + 0.2, 0.3), same_score(float("nan"), 0.3), same_score(1e-12, 0.0)
    (True, False, True)
    >>> same_score(0.5, 0.5 + 1e-3, scale=1e-3), same_score(True, 1)
    (False, False)
    """
    if type(got) not in (int, float) or not math.isfinite(got):
        return False
    return abs(got - want) <= TOLERANCE * max(abs(want), scale)


def same_scores(got: object, want: Grid, scale: float = 1.0) -> bool:
    """Whether ``got`` is the grid of scores ``want`` (a list of lists of the same shape),
    each score the same up to rounding (:func:`same_score`).

    >>> same_scores([[0.30000000000000004, 1]], [[0.3, 1.0]]), same_scores([[0.3]], [[0.3, 1]])
    (True, False)
    """
    if type(got) is not list or len(got) != len(want):
        return False
    for got_row, want_row in zip(got, want):
        if type(got_row) is not list or len(got_row) != len(want_row):
            return False
        if not all(same_score(g, w, scale) for g, w in zip(got_row, want_row)):
            return False
    return True


def call_limit(trials: int, empties: int, per_node: float, empty_board_seconds: float,
               factor: float = FACTOR, small: float = SMALL) -> float:
    """The CPU seconds a call with ``trials`` trials on a board with ``empties`` empty
    squares may take: ``factor`` times its work in reference nodes (``TRIAL_NODES`` per
    square a trial may fill, the empty ones and one more, per trial), each costing
    ``per_node`` seconds, plus ``small`` times the reference's ``empty_board_seconds``.

    >>> round(call_limit(1000, 9, per_node=4e-6, empty_board_seconds=2.2), 2)  # 0.6 + 0.44
    1.04
    """
    work = trials * TRIAL_NODES * (empties + 1) * per_node
    return factor * work + small * empty_board_seconds


def limit_rule(factor: float = FACTOR, small: float = SMALL) -> str:
    """The rule of :func:`call_limit` in words, for reports and timeout messages.

    >>> limit_rule()[:40]
    'a call may take 5 times what its work co'
    """
    return (f"a call may take {factor:g} times what its work costs a plain minimax's search "
            f"on this machine ({TRIAL_NODES} nodes per square a trial may fill, per trial), "
            f"plus {small:g} times that minimax's time for the empty 3x3 board.")


def winner_of(grid: Grid, reverse: bool = False) -> int | None:
    """``check_win`` of the board ``grid`` (PLAYERX, PLAYERO, DRAW, or None: not over).

    >>> winner_of([[PLAYERX, PLAYERO], [PLAYERX, EMPTY]]) == PLAYERX
    True
    """
    return TTTBoard(len(grid), reverse, grid).check_win()


def expected_scores(scores: Grid, grid: Grid, player: int, score_current: float,
                    score_other: float, reverse: bool = False) -> Grid:
    """The grid ``mc_update_scores(scores, board, player)`` leaves on the finished board
    ``grid``: a draw changes nothing; when ``player`` won, its squares gain
    ``score_current`` and the other's lose ``score_other``; when it lost, its squares lose
    ``score_current`` and the other's gain ``score_other``. Empty squares never change.

    >>> expected_scores([[0, 0], [0, 0]], [[PLAYERO, PLAYERX], [PLAYERO, EMPTY]], PLAYERX,
    ...                 1.0, 2.0)
    [[2.0, -1.0], [2.0, 0]]
    """
    winner = winner_of(grid, reverse)
    result = [list(row) for row in scores]
    if winner in (None, DRAW):
        return result
    sign = 1 if winner == player else -1
    for row, cells in enumerate(grid):
        for col, cell in enumerate(cells):
            if cell == player:
                result[row][col] += sign * score_current
            elif cell == switch_player(player):
                result[row][col] -= sign * score_other
    return result


def best_moves(grid: Grid, scores: Grid) -> list[Move]:
    """The empty squares of ``grid`` with the highest score: ``get_best_move`` may return
    any of them.

    >>> best_moves([[PLAYERX, EMPTY], [EMPTY, EMPTY]], [[9, -3], [-2, -2]])
    [(1, 0), (1, 1)]
    """
    empty = [(row, col) for row, cells in enumerate(grid)
             for col, cell in enumerate(cells) if cell == EMPTY]
    if not empty:
        return []
    top = max(scores[row][col] for row, col in empty)
    return [(row, col) for row, col in empty if scores[row][col] == top]


def trial_problem(before: Grid, after: Grid, player: int, reverse: bool = False) -> str | None:
    """Why the board ``after`` cannot be what ``mc_trial(board, player)`` leaves on the
    board ``before`` (a game played on, ``player`` first, players alternating, each move an
    empty square, until the game is over), or None when it can be.

    >>> print(trial_problem([[EMPTY, EMPTY], [EMPTY, EMPTY]],
    ...                     [[PLAYERX, PLAYERX], [EMPTY, EMPTY]], PLAYERX))
    the trial's moves do not alternate: PLAYERX played 2 moves and PLAYERO 0; moving first, PLAYERX plays as many moves as PLAYERO, or one more
    """
    dim = len(before)
    other = switch_player(player)
    if after == before:
        return ("the board was not changed: mc_trial must play the game on the board it is "
                "given (in place), not on a copy")
    mine = theirs = 0
    for row in range(dim):
        for col in range(dim):
            was, now = before[row][col], after[row][col]
            if was != EMPTY and now != was:
                return (f"the square ({row}, {col}) held {NAMES[was]} and the trial changed "
                        f"it to {NAMES.get(now, now)}: a move may only go on an empty square")
            if was == EMPTY and now == player:
                mine += 1
            elif was == EMPTY and now == other:
                theirs += 1
            elif was == EMPTY and now != EMPTY:
                return f"the square ({row}, {col}) holds {now!r}, which is not a player"
    if mine - theirs not in (0, 1):
        return (f"the trial's moves do not alternate: {NAMES[player]} played {mine} moves "
                f"and {NAMES[other]} {theirs}; moving first, {NAMES[player]} plays as many "
                f"moves as {NAMES[other]}, or one more")
    if winner_of(after, reverse) is None:
        return "the game is not over: mc_trial must play until board.check_win() is not None"
    if not _could_end_last(after, before, player if mine > theirs else other, reverse):
        return ("the game went on after it was over: mc_trial must stop as soon as "
                "board.check_win() is not None")
    return None


def _could_end_last(after: Grid, before: Grid, last: int, reverse: bool) -> bool:
    """Whether some square that ``last`` played in the trial, taken back, leaves a game
    still going: the move that ended the game was one of them."""
    dim = len(after)
    for row in range(dim):
        for col in range(dim):
            if before[row][col] == EMPTY and after[row][col] == last:
                taken_back = [list(cells) for cells in after]
                taken_back[row][col] = EMPTY
                if winner_of(taken_back, reverse) is None:
                    return True
    return False


__all__ = ["expected_scores", "best_moves", "trial_problem", "winner_of", "call_limit",
           "limit_rule", "constant_problem", "same_score", "same_scores", "COURSE_CONSTANTS",
           "OLD_NAMES", "CONSTANT_RANGE", "TOLERANCE", "TRIAL_NODES", "FACTOR", "SMALL",
           "SPEED_HINT",
           "PLAYERX", "PLAYERO", "EMPTY", "DRAW"]
