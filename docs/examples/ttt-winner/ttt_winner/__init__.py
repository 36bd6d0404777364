"""Who won this Tic-Tac-Toe grid? The students write ``winner(grid)``.

An assignment is one value, ``assignment``, that the grader finds through the entry point
in pyproject.toml: what students must define, the checks (``test_public.py``, which
students run with ``python -m student check``, and the hidden ``test_winner.py``), the
rubric's defaults (``default.cfg``), the template, the known answers, and how a grading
run asks the student's code (the grader's generic session: its tests take the fixture
``student``).
"""

from pathlib import Path

from grader.assignments import Assignment
from grader.assignments.calls import Caller, CallSession

HERE = Path(__file__).resolve().parent


def prepare(sandbox, config, exhaustive):
    """One grading run's session: the student's functions asked by name, in the sandbox."""
    return CallSession(Caller(sandbox, config))


assignment = Assignment(
    name="winner",
    title="Who won? (Tic-Tac-Toe)",
    functions=("winner",),               # a file must define these
    recognise=("winner",),               # a file defining these is for this assignment
    suite=(HERE / "test_public.py", HERE / "test_winner.py"),   # every check a grade makes
    public_checks=(HERE / "test_public.py",),   # those students run too: each test one check
    default_config=HERE / "default.cfg",
    prepare=prepare,
    template=HERE / "handout" / "winner.py",
    known_answers=HERE / "submissions",
)
