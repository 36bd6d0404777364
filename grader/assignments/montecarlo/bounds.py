"""How many trials a statistical check gives ``mc_move``, so that chance never costs a mark.

A correct ``mc_move`` is random: with a fixed number of trials it may, by bad luck, prefer
another square to the one a check expects (the win in one, the block). The grader seeds
each check, so a file gets the same answer on every run; but the seed is arbitrary, so a
correct player's chance of failing the check over seeds must be negligible. This module
computes it, exactly where it can and by a proven bound where it cannot:

- One trial from the position is a random game (each move a uniformly random empty
  square). Its exact distribution is computed by walking every game, with its probability.
- For the expected square ``w`` and any other empty square ``s``, one trial adds
  ``D = change(w) - change(s)`` to the difference of their scores; its mean ``mu`` and
  its range ``r`` follow exactly from that distribution (with the SCORE_CURRENT and
  SCORE_OTHER the checks judge by).
- Over ``T`` independent trials, Hoeffding's inequality bounds the chance that ``s`` ends
  with a score at least ``w``'s: ``exp(-2 T mu^2 / r^2)``. A sum over the other squares
  bounds the chance of not choosing ``w`` (ties counted as failures).

A check may also be asked to catch a known wrong player: one whose score grid is
``[[0] * dim] * dim`` (one row shared by every row, so each square gets its column's
total and the player picks the best column). It chooses ``w`` only if ``w``'s column ends
with a total at least that of every other column with an empty square; for one such column
``c`` the same inequality, on ``D = total change(c) - total change(w's column)``, bounds
that chance (``Plan.shared_rows``).

:func:`trials_for` picks the fewest trials (from ``STEPS``) for which each bound asked is at
most ``PER_CHECK``; the docs' table (docs/instructors/montecarlo.md) is this module's output
(tests/test_docs_montecarlo.py recomputes it).

>>> from provided.board import EMPTY as E, PLAYERO as O, PLAYERX as X
>>> grid = [[X, X, E], [O, O, E], [E, E, E]]
>>> plan = trials_for(grid, X, (0, 2), 1.0, 1.0)
>>> plan.trials, plan.bound <= PER_CHECK
(2000, True)
>>> plan = trials_for([[X, E, O], [X, E, E], [O, X, E]], O, (1, 1), 1.0, 1.0, shared_rows=True)
>>> plan.trials, plan.fair, f"{plan.shared_rows:.0e}"
(2000, True, '2e-16')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from provided.board import DRAW, EMPTY, TTTBoard, switch_player

PER_CHECK = 1e-8    # the most a correct player may risk on one statistical check
STEPS = (100, 200, 500, 1000, 2000, 5000, 10000)   # the trial counts tried, fewest first
Margin = tuple[tuple[int, int], float, float]     # (a square, mu, range) of one comparison


@dataclass(frozen=True)
class Plan:
    """The trials a check asks for, and the bound on a correct player failing it."""

    trials: int
    bound: float               # at most this chance of failing, for a correct player
    margins: tuple[Margin, ...]   # (square, mu, range): against each other empty square
    shared_rows: float | None = None   # at most this chance of passing, for a player whose
    #                                    grid shares one row (None: the check is not for it)

    @property
    def fair(self) -> bool:
        """Whether the check can be made: the expected square is better on average than
        every other one, and the bound is small enough (and, where asked, a shared-row
        player fails it surely enough)."""
        return self.bound <= PER_CHECK and (self.shared_rows is None
                                            or self.shared_rows <= PER_CHECK)


def outcomes(grid: list[list[int]], player: int,
             reverse: bool = False) -> dict[tuple[tuple[int, ...], int], Fraction]:
    """Every way one random trial from ``grid`` (``player`` to move) can end: the final
    cells and the winner, with their exact probability.

    >>> from provided.board import EMPTY as E, PLAYERO as O, PLAYERX as X
    >>> ends = outcomes([[X, O], [E, E]], X)
    >>> sum(ends.values()), len(ends)
    (Fraction(1, 1), 2)
    """
    dim = len(grid)
    start = tuple(cell for row in grid for cell in row)
    layer = {start: Fraction(1)}
    ends: dict[tuple[tuple[int, ...], int], Fraction] = {}
    mover = player
    while layer:
        following: dict[tuple[int, ...], Fraction] = {}
        for cells, chance in layer.items():
            empty = [i for i, cell in enumerate(cells) if cell == EMPTY]
            share = chance / len(empty)
            for index in empty:
                after = cells[:index] + (mover,) + cells[index + 1:]
                board = TTTBoard(dim, reverse, [list(after[r * dim:r * dim + dim])
                                                for r in range(dim)])
                winner = board.check_win()
                if winner is None:
                    following[after] = following.get(after, Fraction(0)) + share
                else:
                    key = (after, winner)
                    ends[key] = ends.get(key, Fraction(0)) + share
        layer = following
        mover = switch_player(mover)
    return ends


def _change(cells: tuple[int, ...], winner: int, index: int, player: int,
            score_current: float, score_other: float) -> float:
    """What mc_update_scores adds to one square's score after one trial."""
    if winner == DRAW:
        return 0.0
    sign = 1.0 if winner == player else -1.0
    if cells[index] == player:
        return sign * score_current
    if cells[index] == switch_player(player):
        return -sign * score_other
    return 0.0


def trials_for(grid: list[list[int]], player: int, expected: tuple[int, int],
               score_current: float, score_other: float, reverse: bool = False,
               shared_rows: bool = False) -> Plan:
    """The fewest trials (of ``STEPS``) after which a correct ``mc_move`` fails to choose
    ``expected`` with chance at most ``PER_CHECK`` (and, with ``shared_rows``, a player
    whose grid shares one row chooses it with chance at most ``PER_CHECK``); the largest
    step, with its bounds, when none is enough (the check is then not fair: see
    ``Plan.fair``)."""
    ends = outcomes(grid, player, reverse)
    margins = _margins(grid, player, expected, score_current, score_other, ends)
    columns = (_column_margins(grid, player, expected, score_current, score_other, ends)
               if shared_rows else None)
    plan = None
    for trials in STEPS:
        plan = Plan(trials, _bound(margins, trials), tuple(margins),
                    None if columns is None else _column_bound(columns, trials))
        if plan.fair:
            return plan
    assert plan is not None
    return plan


def _margins(grid: list[list[int]], player: int, expected: tuple[int, int],
             score_current: float, score_other: float,
             ends: dict[tuple[tuple[int, ...], int], Fraction]) -> list[Margin]:
    """For each other empty square: the mean and range of what one trial adds to
    ``expected``'s score less that square's."""
    dim = len(grid)
    target = expected[0] * dim + expected[1]
    margins = []
    for row in range(dim):
        for col in range(dim):
            index = row * dim + col
            if grid[row][col] != EMPTY or index == target:
                continue
            values = [(float(chance), _change(cells, winner, target, player, score_current,
                                              score_other)
                       - _change(cells, winner, index, player, score_current, score_other))
                      for (cells, winner), chance in ends.items()]
            mean = sum(chance * value for chance, value in values)
            spread = max(v for _, v in values) - min(v for _, v in values)
            margins.append(((row, col), mean, spread))
    return margins


def _column_margins(grid: list[list[int]], player: int, expected: tuple[int, int],
                    score_current: float, score_other: float,
                    ends: dict[tuple[tuple[int, ...], int], Fraction]) -> list[Margin]:
    """For each other column with an empty square (named by its first empty square): the
    mean and range of what one trial adds to that column's total less ``expected``'s
    column's total (what a grid of one shared row holds)."""
    dim = len(grid)
    margins = []
    for col in range(dim):
        empty = [row for row in range(dim) if grid[row][col] == EMPTY]
        if col == expected[1] or not empty:
            continue
        values = [(float(chance),
                   sum(_change(cells, winner, row * dim + col, player, score_current,
                               score_other)
                       - _change(cells, winner, row * dim + expected[1], player,
                                 score_current, score_other) for row in range(dim)))
                  for (cells, winner), chance in ends.items()]
        mean = sum(chance * value for chance, value in values)
        spread = max(v for _, v in values) - min(v for _, v in values)
        margins.append(((empty[0], col), mean, spread))
    return margins


def _bound(margins: list[Margin], trials: int) -> float:
    """At most this chance that some square's score ends at least the expected one's: the
    sum of Hoeffding's bounds."""
    total = 0.0
    for _, mean, spread in margins:
        if mean <= 0 or spread <= 0:
            return 1.0     # no bound: this square is as good on average
        total += math.exp(-2 * trials * mean * mean / (spread * spread))
    return min(total, 1.0)


def _column_bound(margins: list[Margin], trials: int) -> float:
    """At most this chance that the expected square's column ends with the highest total:
    it must beat every other column, so the smallest of Hoeffding's bounds."""
    bounds = [math.exp(-2 * trials * mean * mean / (spread * spread))
              for _, mean, spread in margins if mean > 0 and spread > 0]
    return min(bounds, default=1.0)
