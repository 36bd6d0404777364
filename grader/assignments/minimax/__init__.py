"""The course's minimax player: ``mm_move(board, player)`` and ``move_wrapper``.

Its hidden checks are ``grader/suite/test_rubric.py`` (the rubric of DESIGN.md), its defaults
``grader/default.cfg``, its session ``grader.assignments.minimax.session`` (the hidden
positions, asked tier by tier, judged by the solver, timed against the reference search).
"""

from pathlib import Path

from grader.assignments.assignment import Assignment

_GRADER = Path(__file__).resolve().parents[2]
_ROOT = _GRADER.parent


def _prepare(sandbox, config, exhaustive):
    from grader.assignments.minimax.session import MinimaxSession
    return MinimaxSession(sandbox, config, exhaustive)


assignment = Assignment(
    name="minimax",
    title="Mini-max Tic-Tac-Toe",
    functions=("mm_move",),
    recognise=("mm_move", "move_wrapper"),
    suite=(_GRADER / "suite" / "test_rubric.py", _GRADER / "suite" / "test_style.py"),
    default_config=_GRADER / "default.cfg",
    prepare=_prepare,
    template=_ROOT / "student" / "mm_player.py",
    docs="students/index.md",
    known_answers=Path(__file__).resolve().parent / "submissions",
)
