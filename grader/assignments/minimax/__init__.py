"""The course's minimax player: ``mm_move(board, player)`` and ``move_wrapper``.

Its hidden checks are ``grader/suite/test_rubric.py`` (the rubric of DESIGN.md), its defaults
``grader/default.cfg``, its session ``grader.assignments.minimax.session`` (the hidden
positions, asked tier by tier, judged by the solver, timed against the reference search).
Its public checks (``test_public.py``, in the suite too) are a dozen of those positions and
the console game; ``test_speed.py`` judges speed for students as the grader does.
"""

from pathlib import Path

from grader.assignments.assignment import Assignment

_GRADER = Path(__file__).resolve().parents[2]
_ROOT = _GRADER.parent


_HERE = Path(__file__).resolve().parent


def _prepare(sandbox, config, exhaustive):
    from grader.assignments.minimax.session import MinimaxSession
    return MinimaxSession(sandbox, config, exhaustive)


def _prepare_public(sandbox, config, exhaustive):
    from grader.assignments.minimax.session import PublicSession
    return PublicSession(sandbox, config)


assignment = Assignment(
    name="minimax",
    title="Mini-max Tic-Tac-Toe",
    functions=("mm_move",),
    recognise=("mm_move", "move_wrapper"),
    suite=(_HERE / "test_public.py", _GRADER / "suite" / "test_rubric.py",
           _GRADER / "suite" / "test_style.py"),
    default_config=_GRADER / "default.cfg",
    prepare=_prepare,
    template=_ROOT / "student" / "mm_player.py",
    docs="students/index.md",
    known_answers=_HERE / "submissions",
    public_checks=(_HERE / "test_public.py",),
    student_speed=_HERE / "test_speed.py",
    prepare_public=_prepare_public,
)
