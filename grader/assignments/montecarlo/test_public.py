"""The Monte Carlo assignment's public checks: what ``python -m student check`` runs.

A few cases of each function's rubric item, each asked and judged by the functions the
hidden suite judges its own cases with (``checks``), seeded by the same labels. This file
is part of the assignment's suite too: every grade runs these checks with the hidden
ones, so a file that fails one cannot get full marks, and a file with full marks passes
every one. Each test is one check; its id is the check's name.

``mc_move``'s statistical checks (``rubric.DECISIVE``) are all public: the score constants
the checks judge by are chosen so that each of them can be made (``rubric.choose_constants``).
"""

from __future__ import annotations

import pytest

from grader.assignments.montecarlo.checks import (check_best, check_decisive, check_legal,
                                                  check_random, check_trial, check_update)
from grader.assignments.montecarlo.rubric import DECISIVE
from provided.board import EMPTY as E, PLAYERO as O, PLAYERX as X

TRIALS = [
    ("3x3 empty, X first", [[E] * 3 for _ in range(3)], X, False),
    ("3x3 under way, O", [[X, E, E], [E, E, E], [E, E, E]], O, False),
]
FINISHED = [
    ("X won, scoring for X", [[X, X, X], [O, O, E], [E, E, E]], X, False),
    ("O won, scoring for X", [[O, X, X], [O, X, E], [O, E, E]], X, False),
    ("a draw", [[X, O, X], [X, O, O], [O, X, X]], X, False),
]
BEST = [
    ("one best", [[X, E, E], [E, O, E], [E, E, E]],
     [[0.0, 3.0, -1.0], [2.0, 0.0, 1.0], [0.5, 0.0, -2.0]]),
    ("a tie", [[X, E, E], [E, O, E], [E, E, E]],
     [[0.0, 4.0, -1.0], [2.0, 0.0, 4.0], [0.5, 0.0, -2.0]]),
    ("a full square scores highest", [[X, E, E], [E, O, E], [E, E, E]],
     [[9.0, 1.0, 0.0], [0.0, 9.0, 2.0], [0.0, 0.0, 0.0]]),
    # Every empty square far below any fixed floor a maximum may start at (-100, -NTRIALS,
    # -999.5): only a maximum over the empty squares themselves finds the best.
    ("every score far below zero, ints", [[X, E, E], [E, O, E], [E, E, E]],
     [[-10**12, -10**9 - 5, -10**9 - 2], [-10**9 - 7, -10**12, -10**9 - 1],
      [-10**9 - 3, -10**9 - 9, -10**9 - 4]]),
]
LEGAL = [
    ("3x3 empty", [[E] * 3 for _ in range(3)], X, False, 20),
    ("4x4 under way", [[X, O, E, E], [E, X, E, E], [E, E, O, E], [E, E, E, E]], X, False, 10),
]


def named(function: str):
    """The ids of a table's cases: each check's name, as the student reads it."""
    return lambda case: f"{function}: {case[0]}"


@pytest.mark.rubric("mc_trial")
@pytest.mark.parametrize("case", TRIALS, ids=named("mc_trial"))
def test_mc_trial(mc, record, case):
    check_trial(mc, record, case)


@pytest.mark.rubric("mc_trial")
def test_mc_trial_random(mc, record):
    """mc_trial: different games from the empty board, each with another seed"""
    check_random(mc, record)


@pytest.mark.rubric("mc_update_scores")
@pytest.mark.parametrize("case", FINISHED, ids=named("mc_update_scores"))
def test_mc_update_scores(mc, record, case):
    check_update(mc, record, case)


@pytest.mark.rubric("get_best_move")
@pytest.mark.parametrize("case", BEST, ids=named("get_best_move"))
def test_get_best_move(mc, record, case):
    check_best(mc, record, case)


@pytest.mark.rubric("mc_move")
@pytest.mark.parametrize("case", LEGAL, ids=named("mc_move"))
def test_mc_move(mc, record, case):
    check_legal(mc, record, case)


@pytest.mark.rubric("mc_move")
@pytest.mark.parametrize("case", DECISIVE, ids=named("mc_move"))
def test_mc_move_decisive(mc, record, case):
    check_decisive(mc, record, case)
