"""The course's Monte Carlo player: ``mc_trial``, ``mc_update_scores``, ``get_best_move``,
``mc_move``, judged function by function and then in games.

Its hidden checks are ``test_montecarlo.py`` (this folder), its defaults ``default.cfg``,
its session ``grader.assignments.montecarlo.session``: each call seeded by the grader (so a
random player gets the same grade on every run), and each statistical check's trials chosen
from a bound on a correct player's chance of failing it (``bounds``).
"""

from pathlib import Path

from grader.assignments.assignment import Assignment

_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parents[2]


def _prepare(sandbox, config, exhaustive):
    from grader.assignments.montecarlo.session import MonteCarloSession
    return MonteCarloSession(sandbox, config)


assignment = Assignment(
    name="montecarlo",
    title="Monte Carlo Tic-Tac-Toe",
    functions=("mc_trial", "mc_update_scores", "get_best_move", "mc_move"),
    recognise=("mc_trial", "mc_update_scores", "get_best_move", "mc_move"),
    suite=(_HERE / "test_montecarlo.py", _ROOT / "grader" / "suite" / "test_style.py"),
    default_config=_HERE / "default.cfg",
    prepare=_prepare,
    template=_ROOT / "student" / "mc_player.py",
    constants=("NTRIALS", "SCORE_CURRENT", "SCORE_OTHER", "MCMATCH", "MCOTHER"),
    docs="students/montecarlo.md",
    known_answers=_HERE / "submissions",
)
