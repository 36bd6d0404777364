"""The minimax's public checks: what ``python -m student check`` runs, and every grade too.

Each public position (``public.PUBLIC``) is asked of ``mm_move`` and judged by the solver,
in the rubric item the hidden suite would judge it in (a 3x3 position of a normal game in
"scores" and in "moves"), and its board after the call in "board untouched": one check for
the student, of that name; and one whole game through ``move_wrapper``, as
``play_game(move_wrapper, 1, False)`` plays it (the last check of "game play"). The hidden suite (``grader/suite/test_rubric.py``) asks the other
positions: together they are the hidden positions, each asked once.
"""

from __future__ import annotations

import pytest

from grader.assignments.minimax.public import (FINISHED, NORMAL, OTHER_SIZES, PUBLIC,
                                               REVERSE, of)
from grader.judge import play


def check(student, record, case, *aspects) -> None:
    """One public position, judged on ``aspects`` as the hidden suite judges its own."""
    verdict = student.mm_move(case.position)
    record.check(verdict.first_failure(*aspects))
    record.note(*verdict.notes)


def named(case) -> str:
    return case.name


@pytest.mark.rubric("finished boards")
@pytest.mark.parametrize("case", of(FINISHED), ids=named)
def test_finished_boards(student, record, case):
    check(student, record, case, "score", "move")


@pytest.mark.rubric("scores")
@pytest.mark.parametrize("case", of(NORMAL), ids=named)
def test_scores(student, record, case):
    check(student, record, case, "score")


@pytest.mark.rubric("moves")
@pytest.mark.parametrize("case", of(NORMAL), ids=named)
def test_moves(student, record, case):
    check(student, record, case, "move")


@pytest.mark.rubric("other sizes")
@pytest.mark.parametrize("case", of(OTHER_SIZES), ids=named)
def test_other_sizes(student, record, case):
    check(student, record, case, "score", "move")


@pytest.mark.rubric("reverse games")
@pytest.mark.parametrize("case", of(REVERSE), ids=named)
def test_reverse_games(student, record, case):
    check(student, record, case, "score", "move")


@pytest.mark.rubric("board untouched", last=True)
@pytest.mark.parametrize("case", PUBLIC, ids=named)
def test_board_untouched(student, record, case):
    verdict = student.mm_move(case.position)
    record.check(verdict.failures.get("board"))


@pytest.mark.rubric("game play")
def test_console_game(student, record):
    """play_game(move_wrapper, 1, False): a whole game through move_wrapper"""
    # It only has to reach a legal end: its moves are the self-play game's.
    failure = play.play(student, None, None, False, "play_game(move_wrapper, 1, False)")
    record.check(failure if failure is not None and failure.category != "lost game" else None)
