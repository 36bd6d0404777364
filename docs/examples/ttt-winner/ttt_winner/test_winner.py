"""The hidden checks of the winner assignment: one pytest test per rubric item.

``student`` (the grader's generic session: ``grader.assignments.calls``) asks the
student's ``winner`` in the sandbox; ``record`` (the grader's) counts each check, passed
or failed. An item's points are shared out in proportion to the checks it passed.
"""

import pytest

from grader.judge.results import Failure

X, O, _ = "X", "O", " "

CHECKS = {
    "rows and columns": [
        ([[X, X, X], [O, O, _], [_, _, _]], X),
        ([[X, O, X], [X, O, _], [_, O, _]], O),
        ([[O, X, _, _], [O, X, _, _], [O, X, X, _], [O, _, _, _]], O),
        ([[X, O], [X, _]], X),
    ],
    "diagonals": [
        ([[X, O, _], [O, X, _], [_, _, X]], X),
        ([[X, X, O], [X, O, _], [O, _, _]], O),
        ([[_, _, _, X], [_, _, X, O], [_, X, O, _], [X, O, _, _]], X),
    ],
    "no winner": [
        ([[_, _, _], [_, _, _], [_, _, _]], None),
        ([[X, O, X], [X, O, O], [O, X, X]], None),
        ([[X, X, _], [O, O, _], [_, _, _]], None),
    ],
}


def drawing(grid):
    """The grid as the report shows it: one row a line."""
    return "\n".join(" | ".join(row) for row in grid)


def check(student, record, grid, want):
    code = f"winner({grid!r})"
    call = student.call("winner", [{"value": grid}], code, label=code)
    if call.failure is not None:          # no answer: an exception, a timeout...
        record.check(call.failure)
        return
    got = call.reply.answer
    record.check(None if got == want else Failure(
        "wrong winner", code, repr(want), repr(got),
        "a player wins with a full row, column or diagonal of their mark; "
        "with no such line, winner returns None", drawing(grid)))


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
    """An empty grid, a draw and a game under way have no winner."""
    for grid, want in CHECKS["no winner"]:
        check(student, record, grid, want)
