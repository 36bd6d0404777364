"""Whole games through the student's ``move_wrapper``.

The grader drives every game itself, asking the sandboxed ``move_wrapper`` at
the student's turns and the opponent (the solver, a random player with a fixed
seed, or every possible reply in turn) at the others. Every opponent is the same
for every student and every run. A game the student loses comes back as a
``Failure`` listing its moves; a game that stopped because ``move_wrapper`` gave
no answer comes back as a failure that was not judged (``judged=False``).

    failure = play(client, None, None, reverse=False, title="self-play")  # None: a draw
    lost, walked = every_reply(client, PLAYERO, reverse=True)
"""

from __future__ import annotations

import random
from typing import Callable, Protocol

from grader.judge.checks import OUTCOME, expected_move, line_of_play
from grader.judge.position import Move, Position
from grader.judge.results import Failure
from grader.judge.solver import Solver
from provided.board import DRAW, PLAYERO, PLAYERX, STRMAP


class Player(Protocol):
    """The student as games see it (``grader.assignments.minimax.client.StudentClient`` is one)."""

    solver: Solver

    def move_wrapper(self, position: Position) -> tuple[Move | None, Failure | None]:
        """The legal move chosen, or None and why there is none."""

    def ask_ahead(self, positions: list[Position]) -> None:
        """Ask ``move_wrapper`` about these positions now, in as few round trips as it can;
        ``move_wrapper`` then answers from what it was told."""

Opponent = Callable[[Position], Move]
RESULT = {PLAYERX: "X wins", PLAYERO: "O wins", DRAW: "a draw"}


def perfect_opponent(client: Player) -> Opponent:
    """An opponent that always plays the first of the solver's best moves (square order)."""
    return lambda position: min(client.solver.best_moves(position))


def random_opponent(seed: int) -> Opponent:
    """Random moves from a fixed seed: the same game for every student, on every run."""
    rng = random.Random(seed)
    return lambda position: rng.choice(position.empty_squares())


def play(client: Player, student: int, opponent: Opponent | None, reverse: bool,
         title: str) -> Failure | None:
    """Play one 3x3 game; ``student`` is the student's side (None: both sides).

    Returns None if the student did not lose (or, in self-play, if the game was
    drawn, its value with perfect play on both sides).
    """
    position, moves = Position.empty(3, reverse=reverse), []
    while (winner := client.solver.winner(position)) is None:
        if opponent is None or position.player == student:
            move, failure = client.move_wrapper(position)
            if failure is not None:
                return _game_failure(title, moves, failure.category, failure.received,
                                     f"in this game, {failure.why}", position,
                                     judged=failure.judged)
        else:
            move = opponent(position)
        moves.append(move)
        position = position.play(move)
    # Self-play must draw (the game's value); otherwise the student must not lose.
    lost = winner != DRAW if opponent is None else winner not in (DRAW, student)
    if not lost:
        return None
    return _lost_game(client, title, moves, reverse, student,
                      "the game ended: " + RESULT[winner])


def every_reply(client: Player, student: int, reverse: bool,
                examples: int = 1) -> tuple[list[Failure], int]:
    """Walk every opponent reply on 3x3: the student must never lose to ANY opponent.

    Returns the failed games (at most ``examples``, the rest counted in the text of the
    first lost one) and the number of games walked. Judged failures (a lost game, an
    illegal move) come first; a game where ``move_wrapper`` gave no answer comes after.
    """
    _ask_level_by_level(client, student, reverse)
    lost: list[list[Move]] = []
    stopped: list[Failure] = []
    games = 0
    title = _side_title(student, reverse, "against every reply")
    stack: list[tuple[Position, list[Move]]] = [(Position.empty(3, reverse=reverse), [])]
    while stack:
        position, moves = stack.pop()
        winner = client.solver.winner(position)
        if winner is not None:
            games += 1
            if winner not in (DRAW, student):
                lost.append(moves)
            continue
        if position.player == student:
            move, failure = client.move_wrapper(position)
            if failure is not None:
                if len(stopped) < examples:
                    stopped.append(_game_failure(
                        title, moves, failure.category, failure.received, failure.why,
                        position, judged=failure.judged))
                games += 1
                continue
            stack.append((position.play(move), moves + [move]))
        else:
            for move in reversed(position.empty_squares()):
                stack.append((position.play(move), moves + [move]))
    failures = []
    for moves in lost[:examples]:
        final = _replay(moves, reverse)
        failures.append(_lost_game(
            client, title, moves, reverse, student,
            f"{len(lost)} of the {games} games against every possible opponent were lost; "
            f"this one ended: {RESULT[client.solver.winner(final)]}"))
    failures += sorted(stopped, key=lambda failure: not failure.judged)
    return failures[:examples], games


def _ask_level_by_level(client: Player, student: int, reverse: bool) -> None:
    """Ask ``move_wrapper`` about every position of ``every_reply``'s walk, a level (moves
    played) at a time, so that the many small positions near the games' ends go in a few
    batches (``Player.ask_ahead``); the walk then only reads the answers."""
    level = [Position.empty(3, reverse=reverse)]
    while level:
        live = [position for position in level if client.solver.winner(position) is None]
        client.ask_ahead([p for p in live if p.player == student])
        following: dict[Position, None] = {}
        for position in live:
            if position.player == student:
                move, failure = client.move_wrapper(position)
                if failure is None:
                    following[position.play(move)] = None
            else:
                following.update(dict.fromkeys(position.play(move)
                                               for move in position.empty_squares()))
        level = list(following)


def _side_title(student: int, reverse: bool, what: str) -> str:
    mode = "reverse" if reverse else "normal"
    return f"as {STRMAP[student]}, {mode} game, {what}"


def _replay(moves: list[Move], reverse: bool) -> Position:
    position = Position.empty(3, reverse=reverse)
    for move in moves:
        position = position.play(move)
    return position


def _turning_point(client: Player, moves: list[Move], reverse: bool,
                   student: int | None) -> tuple[Position, Move] | None:
    """The student's first move that threw the game's value away: (position before, move)."""
    solver = client.solver
    position = Position.empty(3, reverse=reverse)
    for move in moves:
        before, after = solver.value(position), solver.value(position.play(move))
        mover = position.player
        worse = after < before if mover == PLAYERX else after > before
        if worse and student in (None, mover):
            return position, move
        position = position.play(move)
    return None


def _lost_game(client: Player, title: str, moves: list[Move], reverse: bool,
               student: int | None, ends: str) -> Failure:
    """A lost game, told from the move that lost it: its call to paste (move_wrapper on the
    position before it), the moves that were best there, the one played, and why (the line
    of best play that refutes it); then the whole game's moves.

    Without such a move (the game was lost before the student moved), the game's end."""
    turning = _turning_point(client, moves, reverse, student)
    final = _replay(moves, reverse)
    winner = client.solver.winner(final)
    if turning is None:
        return _game_failure(title, moves, "lost game", RESULT[winner], ends, final)
    position, move = turning
    solver = client.solver
    before, after = solver.value(position), solver.value(position.play(move))
    why = (f"{ends} (game: {title}); it was lost here: {line_of_play(solver, position, move)}"
           f": {OUTCOME[after]}, but best play gives {OUTCOME[before]}")
    shown = tuple(f"{'XO'[i % 2]} {step}" for i, step in enumerate(moves))
    return Failure(category="lost game", call=position.call("move_wrapper"),
                   expected=expected_move(solver, position), received=repr(move), why=why,
                   board=position.drawing(), moves=shown)


def _game_failure(title: str, moves: list[Move], category: str, received: str, why: str,
                  position: Position, judged: bool = True) -> Failure:
    """A failed game: its moves in order (X first), and the board where it ended."""
    shown = tuple(f"{'XO'[i % 2]} {move}" for i, move in enumerate(moves))
    return Failure(category=category, call=f"game: {title}", expected="no loss",
                   received=received, why=why, board=position.drawing(), moves=shown,
                   judged=judged)
