"""The hidden checks of the winner assignment: one pytest test per rubric item.

``student`` (the grader's generic session: ``grader.assignments.calls``) asks the
student's ``winner`` in the sandbox; ``record`` (the grader's) counts each check, passed
or failed. An item's points are shared out in proportion to the checks it passed, the
public checks' (``test_public.py``, also in the suite) with these.
"""

import pytest

from ttt_winner.checks import check

X, O, _ = "X", "O", " "

CHECKS = {
    "rows and columns": [
        ([[X, O, X], [X, O, _], [_, O, _]], O),
        ([[O, X, _, _], [O, X, _, _], [O, X, X, _], [O, _, _, _]], O),
        ([[X, O], [X, _]], X),
    ],
    "diagonals": [
        ([[X, O, _], [O, X, _], [_, _, X]], X),
        ([[_, _, _, X], [_, _, X, O], [_, X, O, _], [X, O, _, _]], X),
    ],
    "no winner": [
        ([[X, O, X], [X, O, O], [O, X, X]], None),
        ([[X, X, _], [O, O, _], [_, _, _]], None),
    ],
}


@pytest.mark.rubric("rows and columns")
def test_rows_and_columns(student, record):
    """A full row or column wins, on any size of grid."""
    for grid, want in CHECKS["rows and columns"]:
        check(student, record, grid, want)


@pytest.mark.rubric("diagonals")
def test_diagonals(student, record):
    """Both diagonals win, on any size of grid."""
    for grid, want in CHECKS["diagonals"]:
        check(student, record, grid, want)


@pytest.mark.rubric("no winner")
def test_no_winner(student, record):
    """A draw and a game under way have no winner."""
    for grid, want in CHECKS["no winner"]:
        check(student, record, grid, want)
