"""The hidden positions: the same for every student, covering the whole game.

- 3x3, both modes: every position reachable from the empty board, one per class of the
  board's 8 symmetries (rotations and reflections): 765 per mode (FACTS.md), 627 in play
  and 138 finished. The rules do not change under a symmetry, so a correct answer on one
  position of a class gives a correct answer on the others; asking one of each judges the
  whole game for about 40% of the cost of asking every position. The position asked is
  the image whose SHA-256 is the smallest: a fixed choice, the same for everyone, spread
  over every orientation, so that a mistake that shows in one orientation only (a
  forgotten anti-diagonal) still shows. ``exhaustive=True`` asks every position instead.
- 3x3, normal game, the other player to move: every position with one empty square, with
  the "wrong" player to move (mm_move must use its ``player`` argument).
- 2x2, both modes: every reachable position. 1x1: the empty board and a finished one.
- 4x4: fixed endgames with 5 to 7 empty squares in which not every move is optimal, in
  both modes, and a few finished boards.

There is nothing left to draw at random, so there is no secret and no seed: two
students with the same file get the same score.

>>> hidden = hidden_positions()
>>> len([p for p in hidden.normal if p.player == p.implied_player()])
627
>>> hidden == hidden_positions()
True
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter

from grader.judge.position import Position, symmetries
from grader.judge.solver import Solver, reachable
from provided.board import EMPTY, PLAYERO, PLAYERX

# The fixed 4x4 positions are drawn once, from this seed, by the code below: changing
# either changes every grade, so change neither without a reason.
FIXED_SEED = 20261123
ENDGAMES_4X4 = {5: 4, 6: 4, 7: 4}        # empty squares -> how many, normal game
REVERSE_ENDGAMES_4X4 = {5: 2, 6: 2}      # the same, reverse game
FINISHED_4X4 = 3


@dataclass(frozen=True)
class HiddenPositions:
    """The positions of every run, by rubric item."""

    finished: tuple[Position, ...]
    normal: tuple[Position, ...]        # 3x3, normal game: the scores and moves items
    other_sizes: tuple[Position, ...]   # 2x2 (all), 4x4 endgames, 1x1
    reverse: tuple[Position, ...]       # reverse boards: 3x3, 2x2 (all), 1x1, 4x4

    def all(self) -> tuple[Position, ...]:
        return self.finished + self.normal + self.other_sizes + self.reverse


def hidden_positions(exhaustive: bool = False) -> HiddenPositions:
    """The hidden positions; ``exhaustive`` asks every reachable 3x3 position, not one
    per symmetry class (about 2.4 times the student's CPU time)."""
    return _hidden(exhaustive)


@lru_cache(maxsize=None)
def _hidden(exhaustive: bool) -> HiddenPositions:
    pick = _reachable if exhaustive else _classes
    normal = _in_play(pick(3, False)) + _off_turn(_in_play(pick(3, False)))
    reverse = _in_play(pick(3, True))
    finished = _finished(pick(3, False)) + _finished(pick(3, True))
    finished += _finished(_reachable(2, False)) + _finished(_reachable(2, True))
    finished += (Position(1, (PLAYERX,), PLAYERO), Position(1, (PLAYERX,), PLAYERO, True))
    finished += _fixed_4x4(FINISHED_4X4, None, False)
    other = (_in_play(_reachable(2, False)) + _endgames(False, ENDGAMES_4X4)
             + (Position.empty(1),))
    reverse += (_in_play(_reachable(2, True)) + _endgames(True, REVERSE_ENDGAMES_4X4)
                + (Position.empty(1, reverse=True),))
    return HiddenPositions(finished, normal, other, reverse)


@lru_cache(maxsize=None)
def _solver() -> Solver:
    return Solver()


@lru_cache(maxsize=None)
def _reachable(dim: int, reverse: bool) -> tuple[Position, ...]:
    return tuple(sorted(reachable(dim, reverse), key=lambda p: (p.ply, p.cells)))


@lru_cache(maxsize=None)
def _classes(dim: int, reverse: bool) -> tuple[Position, ...]:
    """One position of each symmetry class of the reachable positions."""
    chosen: dict[tuple[int, ...], Position] = {}
    images_of = _images(dim)
    for position in _reachable(dim, reverse):
        images = images_of(position.cells)
        key = min(images)
        if key not in chosen:
            shown = min(images, key=lambda image: hashlib.sha256(bytes(image)).digest())
            chosen[key] = Position(dim, shown, position.player, reverse)
    return tuple(sorted(chosen.values(), key=lambda p: (p.ply, p.cells)))


def _images(dim: int):
    """A function from a position's cells to the set of its images under the symmetries.
    (``itemgetter`` builds each image in C: this is most of the hidden positions' cost, and
    every cold grade and every warm server pays it.)

    >>> sorted(_images(2)((2, 1, 1, 1)))
    [(1, 1, 1, 2), (1, 1, 2, 1), (1, 2, 1, 1), (2, 1, 1, 1)]
    """
    sources = symmetries(dim)
    if dim * dim == 1:   # itemgetter of one index gives the item, not a 1-tuple
        return lambda cells: {tuple(cells)}
    getters = [itemgetter(*source) for source in sources]
    return lambda cells: {image(cells) for image in getters}


def _in_play(positions: tuple[Position, ...]) -> tuple[Position, ...]:
    return tuple(p for p in positions if _solver().winner(p) is None)


def _finished(positions: tuple[Position, ...]) -> tuple[Position, ...]:
    return tuple(p for p in positions if _solver().winner(p) is not None)


def _off_turn(positions: tuple[Position, ...]) -> tuple[Position, ...]:
    """Positions with one empty square, with the other player to move."""
    return tuple(p.with_player(PLAYERO if p.player == PLAYERX else PLAYERX)
                 for p in positions if p.cells.count(EMPTY) == 1)


def _endgames(reverse: bool, wanted: dict[int, int]) -> tuple[Position, ...]:
    return _fixed_4x4(0, wanted, reverse)


def _fixed_4x4(finished: int, wanted: dict[int, int] | None,
               reverse: bool) -> tuple[Position, ...]:
    """4x4 positions from random games with FIXED_SEED: endgames with some empty squares
    in which not every move is optimal, or (``wanted`` None) ``finished`` finished boards."""
    rng = random.Random(f"{FIXED_SEED}-{reverse}-{finished}")
    solver = _solver()
    left = dict(wanted or {})
    found: list[Position] = []
    while (len(found) < finished) if wanted is None else any(left.values()):
        position = Position.empty(4, reverse=reverse)
        stop = rng.choice(sorted(left)) if wanted else 0
        while position.cells.count(EMPTY) > stop and solver.winner(position) is None:
            position = position.play(rng.choice(position.empty_squares()))
        if wanted is None:
            if solver.winner(position) is not None:
                found.append(position)
            continue
        if (solver.winner(position) is None and position.cells.count(EMPTY) == stop
                and len(solver.best_moves(position)) < stop and position not in found):
            found.append(position)
            left[stop] -= 1
            if not left[stop]:
                del left[stop]
    return tuple(found)
