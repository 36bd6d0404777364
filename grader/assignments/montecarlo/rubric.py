"""What the Monte Carlo checks judge by: the score constants in effect, and the positions of
``mc_move``'s statistical checks.

A student may tune ``SCORE_CURRENT`` and ``SCORE_OTHER`` (``MCMATCH`` and ``MCOTHER`` in the
course's older template). The checks use the file's values only where they make a fair and
decisive test: each a finite number from 0.001 to 1000 (``provided.montecarlo.CONSTANT_RANGE``),
and, with them, every statistical check of ``mc_move`` can be made within the trials it may
use (``bounds.trials_for``). Otherwise the checks judge with the course's 1.0 and 1.0, every
call of the student's functions runs with those values set in the file's module (the names
it defines), and the report says so: a file cannot pick a rubric under which doing nothing
is exact, or no statistical check can be made.

>>> chosen = choose_constants({"SCORE_CURRENT": 0.0, "SCORE_OTHER": 0.0})
>>> chosen.current, chosen.other, chosen.files, chosen.settings
(1.0, 1.0, False, {'SCORE_CURRENT': 1.0, 'SCORE_OTHER': 1.0})
>>> choose_constants({"MCMATCH": 2.0, "MCOTHER": 3.0}).note()
"the checks use the file's MCMATCH = 2.0 and MCOTHER = 3.0 (the course's older template's names)"
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from grader.assignments.montecarlo.bounds import PER_CHECK, trials_for
from provided.board import EMPTY as E, PLAYERO as O, PLAYERX as X
from provided.montecarlo import COURSE_CONSTANTS, OLD_NAMES, constant_problem

# (name, board, player, the square a correct player chooses with enough trials, whether the
# check is also made to catch a grid of one shared row: [[0] * dim] * dim)
DECISIVE = [
    ("takes a win in one, X", [[X, X, E], [O, O, E], [E, E, E]], X, (0, 2), False),
    ("takes a win in one, O", [[O, X, X], [O, X, E], [E, E, E]], O, (2, 0), False),
    ("blocks a loss in one, X", [[O, O, E], [X, E, E], [E, E, X]], X, (0, 2), False),
    ("blocks a loss in one, O", [[X, E, E], [X, O, E], [E, E, E]], O, (2, 0), False),
    # The win shares its row and its column with empty squares, and another column wins
    # more often than its own: a player scoring each square with its column's total
    # chooses the wrong column, except with a chance below the bound of the docs' table.
    ("takes a win in one, O, the square's row and column open",
     [[X, E, O], [X, E, E], [O, X, E]], O, (1, 1), True),
]
ROLES = ("SCORE_CURRENT", "SCORE_OTHER")


@dataclass(frozen=True)
class RubricConstants:
    """The constants the checks judge by, where they come from, and what the student's
    module is given for every call.

    ``files``: the file's own values (else the course's); ``names``: the file's names read
    for each role (``None``: it defines neither); ``why``: why the file's values were not
    used; ``settings``: the module values every call sets (empty when the file's are used).
    """

    current: float
    other: float
    files: bool
    names: tuple[str | None, str | None]
    why: str = ""
    settings: dict[str, float] = field(default_factory=dict)

    def note(self) -> str:
        """One line for the report: which values were used, and why."""
        if self.files:
            shown = " and ".join(f"{name} = {value!r}" if name else
                                 f"{role} = {value!r} (the course's: the file defines none)"
                                 for role, name, value in zip(ROLES, self.names,
                                                              (self.current, self.other)))
            old = (" (the course's older template's names)"
                   if any(name in OLD_NAMES.values() for name in self.names) else "")
            return f"the checks use the file's {shown}{old}"
        setting = ""
        if self.settings:
            names = " and ".join(f"{name} = {value!r}" for name, value in self.settings.items())
            setting = (f"; every call ran with {names} set in the file's module (set them so "
                       "in the file to reproduce a call below)")
        return (f"the checks use the course's SCORE_CURRENT = {self.current!r} and "
                f"SCORE_OTHER = {self.other!r}: {self.why}{setting}")

    def short_note(self) -> str:
        """Which values the statistical checks' trials were computed with, for the report
        (:meth:`note` says it all once, in mc_update_scores)."""
        whose = "the file's" if self.files else "the course's"
        return (f"the trials of the statistical checks were computed with {whose} "
                f"SCORE_CURRENT = {self.current!r} and SCORE_OTHER = {self.other!r} (see the "
                "note of mc_update_scores)")


def choose_constants(found: dict[str, object]) -> RubricConstants:
    """The constants the checks judge by, from the module values ``found`` in the file
    (``SCORE_CURRENT``, ``SCORE_OTHER``, else ``MCMATCH``, ``MCOTHER``)."""
    names: list[str | None] = []
    values: list[object] = []
    for role in ROLES:
        name = next((n for n in (role, OLD_NAMES[role]) if n in found), None)
        names.append(name)
        values.append(found[name] if name is not None else COURSE_CONSTANTS[role])
    why = _unfair(names, values)
    if why is None:
        current, other = float(values[0]), float(values[1])  # type: ignore[arg-type]
        return RubricConstants(current, other, True, (names[0], names[1]))
    current, other = COURSE_CONSTANTS["SCORE_CURRENT"], COURSE_CONSTANTS["SCORE_OTHER"]
    # Every name the file defines for a role is set: its functions may read either.
    settings = {name: value for role, value in zip(ROLES, (current, other))
                for name in (role, OLD_NAMES[role]) if name in found}
    return RubricConstants(current, other, False, (names[0], names[1]), why, settings)


def _unfair(names: list[str | None], values: list[object]) -> str | None:
    """Why the file's values make no fair test, or None when they do."""
    if not any(names):
        return "the file defines neither SCORE_CURRENT nor SCORE_OTHER"
    for role, name, value in zip(ROLES, names, values):
        problem = constant_problem(value)
        if problem is not None:
            return f"the file's {name or role} = {value!r} makes no fair test: {problem}"
    check = unfair_check(float(values[0]), float(values[1]))  # type: ignore[arg-type]
    if check is not None:
        return (f"with the file's {names[0] or ROLES[0]} = {values[0]!r} and "
                f"{names[1] or ROLES[1]} = {values[1]!r}, {check}")
    return None


@functools.lru_cache(maxsize=16)
def unfair_check(current: float, other: float) -> str | None:
    """The first statistical check of ``mc_move`` that cannot be made with these
    constants, in words, or None when every one can.

    >>> unfair_check(1.0, 1.0) is None
    True
    >>> print(unfair_check(1.0, 10.0))
    a correct mc_move does not choose (0, 2) surely enough in "takes a win in one, X", even with 10,000 trials
    """
    for name, grid, player, wanted, shared in DECISIVE:
        plan = trials_for(grid, player, wanted, current, other, shared_rows=shared)
        if not plan.fair:
            if plan.bound > PER_CHECK:
                return (f"a correct mc_move does not choose {wanted} surely enough in "
                        f'"{name}", even with {plan.trials:,} trials')
            return (f'the check "{name}" cannot tell a correct mc_move from one whose grid '
                    f"shares one row, even with {plan.trials:,} trials")
    return None
