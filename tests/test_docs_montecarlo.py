"""The instructors' Monte Carlo page shows the numbers the grader uses.

docs/instructors/montecarlo.md has a table of each statistical check of ``mc_move``: the
position, the square a correct player must choose, the trials the grader gives it, and the
bound on a correct player's chance of failing it; and their total per grade; and, for the
check made to catch a grid of one shared row, the bound on such a player passing it. The
numbers are recomputed here from ``bounds.trials_for`` on the hidden suite's ``DECISIVE``
positions (with the course's SCORE_CURRENT = SCORE_OTHER = 1.0): a change to the checks or
the bounds that the page does not follow fails here.
"""

from __future__ import annotations

from pathlib import Path

from grader.assignments.montecarlo import test_montecarlo
from grader.assignments.montecarlo.bounds import PER_CHECK, outcomes, trials_for
from grader.assignments.montecarlo.rubric import DECISIVE
from provided.board import EMPTY, NAMES, PLAYERX

PAGE = Path(__file__).resolve().parents[1] / "docs" / "instructors" / "montecarlo.md"
MARKS = {EMPTY: ".", 2: "X", 3: "O"}


def position(grid: list[list[int]]) -> str:
    """A grid in one line, a row between slashes.

    >>> position([[2, 2, 1], [3, 3, 1], [1, 1, 1]])
    '`XX. / OO. / ...`'
    """
    return "`" + " / ".join("".join(MARKS[cell] for cell in row) for row in grid) + "`"


def rows() -> tuple[list[str], float, list[str]]:
    """The table's rows, as the page writes them, the total of the bounds, and what the
    page says of each check made to catch a grid of one shared row."""
    lines, total, shared = [], 0.0, []
    for name, grid, player, wanted, catches in DECISIVE:
        plan = trials_for(grid, player, wanted, 1.0, 1.0, shared_rows=catches)
        assert plan.fair, name
        total += plan.bound
        lines.append(f"| {name} | {position(grid)} | {NAMES[player]} | {wanted} | "
                     f"{plan.trials:,} | {plan.bound:.1e} |")
        if catches:
            assert plan.shared_rows is not None
            shared.append(f"such a player chooses {wanted} after {plan.trials:,} trials with "
                          f"a chance below {plan.shared_rows:.1e}")
    return lines, total, shared


def trial_bound() -> float:
    """The chance that ``mc_trial``'s randomness check fails a correct player: all of its
    runs from the empty board end on the same board, at most the likeliest end's chance
    to the power of the runs but one."""
    empty = [[EMPTY] * 3 for _ in range(3)]
    likeliest = max(outcomes(empty, PLAYERX).values())
    return float(likeliest) ** (test_montecarlo.RANDOM_RUNS - 1)


def test_the_page_shows_the_bounds_the_grader_uses() -> None:
    page = PAGE.read_text(encoding="utf-8")
    lines, total, shared = rows()
    for line in lines:
        assert line in page, f"docs/instructors/montecarlo.md should have the row\n{line}"
    assert test_montecarlo.DECISIVE is DECISIVE      # the checks the grade makes
    prose = " ".join(page.split())
    for words in shared:
        assert words in prose, f"docs/instructors/montecarlo.md should say\n{words}"
    everything = total + trial_bound()
    assert everything <= 1e-6     # the promise: at most one in a million per grade
    assert f"| **every statistical check of a grade** | | | | | **{everything:.1e}** |" in page
    assert f"| mc_trial's randomness | `... / ... / ...` | PLAYERX | different games | " \
           f"{test_montecarlo.RANDOM_RUNS} | {trial_bound():.1e} |" in page
    assert f"{PER_CHECK:.0e}" in page   # the most one check may risk, as bounds says
