"""The hidden positions: families of positions, drawn reproducibly per student.

The seed comes from the instructor's secret and the student id, so two
students get different sets and a regrade gets the same set. Every family
covers what its rubric item is about: every stage of a 3x3 game, both players
to move, win-now and must-block positions, one square left, finished boards of
every kind, every 2x2 position, 4x4 endgames, 1x1, and reverse boards.

>>> a = hidden_positions(seed_for("secret", "alice"))
>>> a == hidden_positions(seed_for("secret", "alice"))
True
>>> a.normal != hidden_positions(seed_for("secret", "bob")).normal
True
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from functools import lru_cache

from grader.position import Position
from grader.solver import Solver, reachable
from provided.board import EMPTY, PLAYERO, PLAYERX

# How many 3x3 positions to draw at each ply (0 = the empty board, 8 = one square left).
NORMAL_PER_PLY = (1, 3, 4, 4, 4, 4, 3, 3, 2)
REVERSE_PER_PLY = (1, 2, 3, 3, 3, 3, 2, 2, 1)


@dataclass(frozen=True)
class HiddenPositions:
    """The positions of one run, by rubric item."""

    finished: tuple[Position, ...]
    normal: tuple[Position, ...]        # 3x3, normal game: the scores and moves items
    other_sizes: tuple[Position, ...]   # 2x2 (all), 4x4 endgames, 1x1
    reverse: tuple[Position, ...]       # reverse boards, 3x3 and 2x2 (all) and 1x1

    def all(self) -> tuple[Position, ...]:
        return self.finished + self.normal + self.other_sizes + self.reverse


def seed_for(secret: str, student_id: str) -> int:
    """A seed only the instructor can predict, different for every student.

    >>> seed_for("s3cret", "alice") == seed_for("s3cret", "alice") != seed_for("s3cret", "bob")
    True
    """
    digest = hashlib.sha256(f"{secret}\0{student_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def hidden_positions(seed: int, exhaustive: bool = False) -> HiddenPositions:
    """Draw the positions of one run; ``exhaustive`` takes every reachable 3x3 position."""
    rng = random.Random(seed)
    solver = _solver()
    if exhaustive:
        normal = _in_play(3, False)
        reverse = _in_play(3, True)
        finished = _finished(3, False) + _finished(3, True)
    else:
        normal = _by_ply(rng, _in_play(3, False), NORMAL_PER_PLY)
        normal += _special(rng, solver, normal)
        reverse = _by_ply(rng, _in_play(3, True), REVERSE_PER_PLY)
        finished = _some_finished(rng, solver)
    other = _in_play(2, False) + _endgames_4x4(rng, count=4) + (Position.empty(1),)
    reverse += _in_play(2, True) + (Position.empty(1, reverse=True),)
    finished += _small_finished(rng)
    return HiddenPositions(finished, normal, other, reverse)


@lru_cache(maxsize=None)
def _solver() -> Solver:
    return Solver()


@lru_cache(maxsize=None)
def _reachable(dim: int, reverse: bool) -> tuple[Position, ...]:
    # A fixed order, so that a seed always draws the same positions.
    return tuple(sorted(reachable(dim, reverse), key=lambda p: p.cells))


@lru_cache(maxsize=None)
def _in_play(dim: int, reverse: bool) -> tuple[Position, ...]:
    solver = _solver()
    return tuple(p for p in _reachable(dim, reverse) if solver.winner(p) is None)


@lru_cache(maxsize=None)
def _finished(dim: int, reverse: bool) -> tuple[Position, ...]:
    solver = _solver()
    return tuple(p for p in _reachable(dim, reverse) if solver.winner(p) is not None)


def _by_ply(rng: random.Random, pool: tuple[Position, ...],
            per_ply: tuple[int, ...]) -> tuple[Position, ...]:
    by_ply: dict[int, list[Position]] = {}
    for position in pool:
        by_ply.setdefault(position.ply, []).append(position)
    chosen: list[Position] = []
    for ply, count in enumerate(per_ply):
        at_ply = by_ply.get(ply, [])
        chosen += rng.sample(at_ply, min(count, len(at_ply)))
    return tuple(chosen)


def _special(rng: random.Random, solver: Solver,
             already: tuple[Position, ...]) -> tuple[Position, ...]:
    """Win-now and must-block positions, and the same grids with the other player to move."""
    taken = set(already)
    pool = [p for p in _in_play(3, False) if p not in taken]
    rng.shuffle(pool)  # then take the first of each kind: no need to classify them all
    win_now: list[Position] = []
    must_block: list[Position] = []
    for position in pool:
        if len(win_now) == 3 and len(must_block) == 3:
            break
        if _wins_now(solver, position, position.player):
            kind = win_now
        elif _wins_now(solver, position, _other(position.player)):
            kind = must_block
        else:
            continue
        if len(kind) < 3:
            kind.append(position)
    off_turn = [p.with_player(_other(p.player)) for p in pool[-2:]]
    return tuple(win_now + must_block + off_turn)


def _wins_now(solver: Solver, position: Position, player: int) -> bool:
    """Whether ``player`` could win with one move (normal game)."""
    mover = position.with_player(player)
    return any(solver.winner(mover.play(move)) == player for move in mover.empty_squares())


def _some_finished(rng: random.Random, solver: Solver) -> tuple[Position, ...]:
    """3x3 boards where X won, O won, or nobody did, in both modes, either player to move."""
    chosen: list[Position] = []
    for reverse in (False, True):
        done = _finished(3, reverse)
        for winner, count in ((PLAYERX, 3), (PLAYERO, 3), (None, 2)):
            kind = [p for p in done if _line_owner(solver, p) == winner]
            chosen += rng.sample(kind, count)
    return tuple(p.with_player(rng.choice((PLAYERX, PLAYERO))) for p in chosen)


def _line_owner(solver: Solver, position: Position) -> int | None:
    """Who completed the line (None for a full board without one)."""
    winner = solver.winner(position.with_player(PLAYERX))
    if winner not in (PLAYERX, PLAYERO):
        return None
    return _other(winner) if position.reverse else winner


def _small_finished(rng: random.Random) -> tuple[Position, ...]:
    """Finished boards of other sizes: 1x1, two 2x2 and a 4x4 game that ended early."""
    two = rng.sample(_finished(2, False), 1) + rng.sample(_finished(2, True), 1)
    one = [Position(1, (PLAYERX,), PLAYERO), Position(1, (PLAYERO,), PLAYERX, reverse=True)]
    return tuple(two + one + [_finished_4x4(rng)])


def _endgames_4x4(rng: random.Random, count: int) -> tuple[Position, ...]:
    """Reachable 4x4 positions with 5 to 7 empty squares and the game still on."""
    found: list[Position] = []
    solver = _solver()
    while len(found) < count:
        empties = rng.choice((5, 6, 7))
        position = _random_game(rng, 4, stop_at_empty=empties)
        if position is not None and solver.winner(position) is None:
            found.append(position)
    return tuple(found)


def _finished_4x4(rng: random.Random) -> Position:
    while True:
        position = _random_game(rng, 4, stop_at_empty=0, stop_when_over=True)
        if position is not None and _solver().winner(position) is not None:
            return position


def _random_game(rng: random.Random, dim: int, stop_at_empty: int,
                 stop_when_over: bool = False) -> Position | None:
    """Random moves from the empty board; None if the game ended before ``stop_at_empty``."""
    solver = _solver()
    position = Position.empty(dim)
    while position.cells.count(EMPTY) > stop_at_empty:
        if solver.winner(position) is not None:
            return position if stop_when_over else None
        position = position.play(rng.choice(position.empty_squares()))
    return position


def _other(player: int) -> int:
    return PLAYERO if player == PLAYERX else PLAYERX
