"""The Monte Carlo assignment's hidden suite: one test per rubric item.

Each function is judged on its own first (on 3x3, 4x4 and other sizes, and in reverse
games), then ``mc_move`` in whole games. Every call is seeded by the grader
(``grader.assignments.montecarlo.session``), so the same file gets the same answers on
every run; the statistical checks of ``mc_move`` give it enough trials that a correct
player fails one with a chance below one in a hundred million (``bounds``). The score
constants they judge by are the file's where those make a fair test, else the course's, set
in the file's module for every call (``rubric``).

The public checks (``test_public.py``, in the suite too: ``python -m student check`` runs
them) hold some cases of each function's item, ``mc_move``'s statistical checks among
them; the cases here are the others. Both judge each case with the same functions
(``checks``), by the rules of ``provided.montecarlo``.
"""

from __future__ import annotations

import random

import pytest

from grader.assignments.montecarlo.checks import (RANDOM_RUNS, _move_of, ask_move,  # noqa: F401
                                                  check_best, check_legal, check_trial,
                                                  check_update, judge_move, no_answer)
from grader.judge.position import Position
from grader.judge.solver import shared_solver
from provided.board import EMPTY as E, NAMES, PLAYERO as O, PLAYERX as X
from provided.montecarlo import winner_of

GAME_TRIALS = 100      # trials mc_move is given in the games


# --------------------------------------------------------------------------- mc_trial

TRIALS = [
    ("3x3 empty, O first", [[E] * 3 for _ in range(3)], O, False),
    ("3x3 under way, X", [[X, O, E], [E, X, E], [O, E, E]], X, False),
    ("3x3 one square left", [[X, O, X], [X, O, O], [O, X, E]], X, False),
    ("2x2 empty", [[E, E], [E, E]], X, False),
    ("4x4 empty", [[E] * 4 for _ in range(4)], X, False),
    ("4x4 under way, O", [[X, E, E, E], [E, O, E, E], [E, E, X, E], [E, E, E, E]], O, False),
    ("3x3 reverse, empty", [[E] * 3 for _ in range(3)], X, True),
    ("3x3 reverse, under way", [[X, E, O], [E, E, E], [E, E, E]], X, True),
]


@pytest.mark.rubric("mc_trial")
def test_mc_trial(mc, record):
    """Plays to the end from the given board, the given player first, players
    alternating, on empty squares only, on the board itself."""
    for case in TRIALS:
        check_trial(mc, record, case)


# --------------------------------------------------------------------------- mc_update_scores

FINISHED = [
    ("X won, scoring for O", [[X, X, X], [O, O, E], [E, E, E]], O, False),
    ("O won, scoring for O", [[O, X, X], [O, X, E], [O, E, E]], O, False),
    ("2x2, X won", [[X, O], [X, E]], O, False),
    ("4x4, O won", [[O, X, X, E], [X, O, E, X], [E, X, O, E], [E, E, E, O]], X, False),
    ("reverse: X made a line, so O won", [[X, X, X], [O, O, E], [E, E, E]], X, True),
]


@pytest.mark.rubric("mc_update_scores")
def test_mc_update_scores(mc, record):
    """Exact (up to rounding; nan and inf are never right) on finished boards (each side
    winning, a draw), with the constants the checks judge by (the file's where they make a
    fair test), the grid changed in place, the board left alone."""
    for case in FINISHED:
        check_update(mc, record, case)


# --------------------------------------------------------------------------- get_best_move

BEST = [
    ("every score negative", [[E, E, X], [E, O, E], [E, E, E]],
     [[-5.0, -3.0, 0.0], [-2.5, 0.0, -4.0], [-7.0, -1.5, -6.0]]),
    ("every score equal", [[X, E, E], [E, E, E], [E, E, O]],
     [[0.0] * 3 for _ in range(3)]),
    ("one empty square", [[X, O, X], [X, O, O], [O, X, E]],
     [[5.0, 5.0, 5.0], [5.0, 5.0, 5.0], [5.0, 5.0, -9.0]]),
    ("4x4", [[X, E, E, O], [E, E, E, E], [E, O, X, E], [E, E, E, E]],
     [[0, 1, 2, 9], [3, 0, 1, 0], [2, 8, 7, 1], [0, 7, 0, 2]]),
    ("2x2, ints", [[E, X], [E, E]], [[1, 5], [3, -1]]),
    # Far below any fixed floor a maximum may start at, and far above any fixed ceiling:
    # only a maximum over the empty squares themselves finds the best.
    ("every score far below zero, floats", [[E, E, X], [E, O, E], [E, E, E]],
     [[-2.5e12, -3.25e12, -1e15], [-1.75e12, -1e15, -4.5e12], [-3.5e12, -2.25e12, -5e12]]),
    ("every score far above zero", [[X, E, E], [E, E, E], [E, E, O]],
     [[1e11, 2.5e12, 1.5e12], [3.5e12, 2.75e12, 10**12 + 7], [3e12, 10**12, 1e11]]),
]


@pytest.mark.rubric("get_best_move")
def test_get_best_move(mc, record):
    """An empty square of the highest score (among the empty squares), any of the tied
    ones, negative scores included; the board left alone."""
    for case in BEST:
        check_best(mc, record, case)


# --------------------------------------------------------------------------- mc_move

LEGAL = [
    ("3x3 under way, O", [[X, E, E], [E, O, E], [E, E, X]], O, False, 20),
    ("3x3 one square left", [[X, O, X], [X, O, O], [O, X, E]], X, False, 5),
    ("2x2", [[X, E], [E, E]], O, False, 10),
    ("3x3 reverse", [[X, E, E], [E, O, E], [E, E, E]], X, True, 20),
]


@pytest.mark.rubric("mc_move")
def test_mc_move(mc, record):
    """Always an empty square, the board left alone (its statistical checks, which take a
    win in one and block a loss in one, are public)."""
    for case in LEGAL:
        check_legal(mc, record, case)


# --------------------------------------------------------------------------- game play

def _games():
    for reverse in (False, True):
        for side in (X, O):
            for opponent in ("a random player", "a perfect player"):
                yield reverse, side, opponent


@pytest.mark.rubric("game play")
def test_game_play(mc, record):
    """Whole 3x3 games through mc_move (with 100 trials a move) against a random and a
    perfect player, from both sides, normal and reverse: every move legal, every game
    finished. Wins, draws and losses are shown, not scored: a Monte Carlo player may lose
    to a perfect one."""
    solver = shared_solver()
    tally = {}
    for reverse, side, opponent in _games():
        mode = "reverse game" if reverse else "normal game"
        title = f"as {NAMES[side][-1]} against {opponent}, {mode}"
        rng = random.Random(f"{title}")
        board = Position.empty(3, X, reverse)
        moves = []
        failure = None
        while winner_of(board.grid, reverse) is None:
            if board.player == side:
                call = ask_move(mc, board, GAME_TRIALS, f"game {title} move {len(moves)}")
                if call.failure is not None:
                    failure = no_answer(call, board, "mc_move")
                    break
                failure = judge_move(call, board, "an empty square", "",
                                     board_matters=False)   # the mc_move item's business
                if failure is not None:
                    break
                move = _move_of(call.reply.answer)
            elif opponent == "a random player":
                move = rng.choice(board.empty_squares())
            else:
                move = min(solver.best_moves(board))
            moves.append(move)
            board = board.play(move)
        record.check(failure)
        if failure is None:
            winner = winner_of(board.grid, reverse)
            outcome = "draw" if winner == 4 else "win" if winner == side else "loss"
            key = f"against {opponent}"
            tally.setdefault(key, []).append(outcome)
    for key, outcomes in tally.items():
        record.note(f"games {key} ({GAME_TRIALS} trials a move): "
                    + ", ".join(f"{outcomes.count(kind)} {kind}{'es' if kind == 'loss' else 's'}"
                                for kind in ("win", "draw", "loss")))
