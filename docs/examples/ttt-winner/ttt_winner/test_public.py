"""The winner assignment's public checks: what ``python -m student check`` runs.

One grid for each rubric item, each test one check (named by its docstring). This file is
in the assignment's suite too, so every grade runs these checks with the hidden ones
(``test_winner.py``), judged by the same code (``checks.check``): a file that fails one
cannot get full marks.
"""

import pytest

from ttt_winner.checks import check

X, O, _ = "X", "O", " "


@pytest.mark.rubric("rows and columns")
def test_a_full_row(student, record):
    """a full row wins"""
    check(student, record, [[X, X, X], [O, O, _], [_, _, _]], X)


@pytest.mark.rubric("diagonals")
def test_the_other_diagonal(student, record):
    """the diagonal from the top right wins"""
    check(student, record, [[X, X, O], [X, O, _], [O, _, _]], O)


@pytest.mark.rubric("no winner")
def test_an_empty_grid(student, record):
    """an empty grid has no winner"""
    check(student, record, [[_, _, _], [_, _, _], [_, _, _]], None)
