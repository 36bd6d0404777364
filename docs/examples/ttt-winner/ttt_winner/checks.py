"""How a check of the winner assignment asks ``winner`` and judges its answer.

The public checks (``test_public.py``) and the hidden ones (``test_winner.py``) both judge
their grids with :func:`check`: the same call, the same words, wherever it is asked.
``student`` is the grader's generic session (``grader.assignments.calls``): it asks the
student's ``winner`` in the sandbox; ``record`` (the grader's) counts each check.
"""

from grader.judge.results import Failure


def drawing(grid):
    """The grid as the report shows it: one row a line.

    >>> print(drawing([["X", "O"], [" ", "X"]]))
    X | O
      | X
    """
    return "\n".join(" | ".join(row) for row in grid)


def check(student, record, grid, want):
    """Ask ``winner(grid)``; it must return ``want``."""
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
