"""Which calls to make, in which order, with which limit: speed judged by tiers, a budget.

A *tier* is every position of one size and mode with the same number of empty squares
(finished boards form their own tier), for one function. A tier's limit is the same for
all its positions: the one of its hardest position (``grader.timing.policy``). The first call of
a tier that answers or runs out of time decides the tier; the hidden positions are asked
tier by tier, fewest empty squares first, and within a tier hardest first, so that the
first call of a tier is its hardest. When a tier is too slow:

- its other positions, and every position with more empty squares in the same size and
  mode, are not asked: each counts as too slow (a search that could not finish the
  hardest position with 7 empty squares would take longer on one with 8);
- ``move_wrapper`` is presumed too slow wherever ``mm_move`` was.

When the tier's first call answers in time, the tier passes, and its other calls may take
``PASSED_MARGIN`` times its limit (on tiers timed by ratio): its hardest position decided
its speed, and a search that costs a little more on another of its positions (a double
search costs more where the game runs longer, not where the reference searches most) is
not judged again at the same edge. So a solution's speed is judged on a few calls, the
same ones on every run, instead of on whichever calls happen to end just above or just
below their limits on a given day; and a solution that is too slow (or sleeps, or loops)
costs a few limits, not hundreds.

Likewise, when the first ``CRASH_RUN`` calls of a tier all end the student's process
(each costs a restart), the tier's other calls are not made: they would crash too, and
each is no answer, as theirs were.

The grade's budget bounds everything else: once it is spent no call is made, and a call
may not run past what is left of it. Spending is counted in reference searches of the
empty 3x3 board, so it does not depend on the machine's speed; a call that ran out of time
costs exactly its limit.

>>> from grader.judge.solver import Solver
>>> pacing = Pacing(TimePolicy(), Solver(), [Position.empty(3), Position.empty(2)])
>>> pacing.tier("mm_move", Position.empty(3)).describe()
'3x3 positions with 9 empty squares (normal game)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from grader.judge.position import Position
from grader.judge.solver import Solver, SolverTooLarge
from grader.timing.policy import MEASURED_NODES, Calibration, TimePolicy

MM_MOVE, MOVE_WRAPPER = "mm_move", "move_wrapper"
CRASH_RUN = 3   # calls of a tier that crashed before any answered: the rest are not made
PASSED_MARGIN = 2.0   # the limit of the other calls of a tier timed by ratio that passed


@dataclass(frozen=True, order=True)
class Tier:
    """Positions of one size and mode with as many empty squares (0: finished boards)."""

    function: str
    dim: int
    reverse: bool
    empties: int

    @property
    def family(self) -> tuple[int, bool]:
        return self.dim, self.reverse

    def describe(self) -> str:
        mode = "reverse game" if self.reverse else "normal game"
        size = f"{self.dim}x{self.dim}"
        if self.empties == 0:
            return f"finished {size} boards ({mode})"
        squares = "empty square" if self.empties == 1 else "empty squares"
        return f"{size} positions with {self.empties} {squares} ({mode})"


@dataclass(frozen=True)
class TooSlow:
    """Why a tier is too slow: its first decisive call ran out of time."""

    tier: Tier
    call: str          # the call that ran out of time, to paste
    limit: float       # its limit, in CPU seconds
    retried: bool      # measured again, beside the reference on the tier's hardest
    waited: bool       # it was sleeping or waiting, not computing
    stuck: bool = False   # a small tier: it did not return where a search takes milliseconds


class Pacing:
    """The tiers' verdicts and the budget of one grading run (no I/O)."""

    def __init__(self, policy: TimePolicy, solver: Solver,
                 planned: Iterable[Position] = ()) -> None:
        self.policy = policy
        self.solver = solver
        self._nodes: dict[Position, int] = {}   # each call looks its tier's up several times
        self._keys: dict[Position, tuple[int, bool, int]] = {}   # and its tier's key
        self.hardest: dict[tuple[int, bool, int], Position] = {}
        for position in planned:
            key = self._key(position)
            if key not in self.hardest or self.nodes(position) > self.nodes(self.hardest[key]):
                self.hardest[key] = position
        self.passed: set[Tier] = set()
        self.too_slow: dict[Tier, TooSlow] = {}
        self.crashes: dict[Tier, int] = {}   # crashes before any call of the tier answered
        self.spent = 0.0   # reference searches of the empty 3x3 board

    # -- tiers -----------------------------------------------------------------------------

    def _key(self, position: Position) -> tuple[int, bool, int]:
        key = self._keys.get(position)
        if key is None:
            finished = self.solver.winner(position) is not None
            empties = 0 if finished else len(position.empty_squares())
            key = self._keys[position] = position.dim, bool(position.reverse), empties
        return key

    def tier(self, function: str, position: Position) -> Tier:
        return Tier(function, *self._key(position))

    def nodes(self, position: Position) -> int:
        """Nodes of the reference's search of ``position`` (1 for a finished board)."""
        nodes = self._nodes.get(position)
        if nodes is None:
            try:
                nodes = self.solver.tree_size(position)
            except SolverTooLarge:
                nodes = 1  # too big to count: a small limit (the solver cannot judge it anyway)
            self._nodes[position] = nodes
        return nodes

    def order(self, positions: Iterable[Position]) -> list[Position]:
        """The order to ask ``mm_move``: by size and mode as first met, then tier by tier
        (finished boards, then fewest empty squares first), hardest first within a tier."""
        positions = list(dict.fromkeys(positions))
        families = list(dict.fromkeys((p.dim, bool(p.reverse)) for p in positions))
        return sorted(positions, key=lambda p: (
            families.index((p.dim, bool(p.reverse))), self._key(p)[2], -self.nodes(p),
            p.cells, p.player))

    def yardstick(self, tier: Tier, position: Position) -> Position:
        """The hardest position of ``tier`` (``position`` itself if it is harder): the
        one whose reference search sets the tier's limit."""
        hardest = self.hardest.get((tier.dim, tier.reverse, tier.empties), position)
        return hardest if self.nodes(hardest) > self.nodes(position) else position

    def careful_yardstick(self, tier: Tier, position: Position, nodes: float) -> Position:
        """The position to time the reference on beside a careful measurement of a call on
        ``position``: the hardest planned one of its size and mode whose search has at most
        ``nodes`` nodes (so that timing it costs a small share of the call's limit), but at
        least ``MEASURED_NODES`` (a few milliseconds: enough to time), and never one harder
        than the tier's own hardest. Its time, scaled by the nodes, stands for the tier's.

        >>> from grader.judge.solver import Solver
        >>> pacing = Pacing(TimePolicy(), Solver(), [Position.empty(3)])
        >>> tier = pacing.tier("mm_move", Position.empty(3))
        >>> pacing.careful_yardstick(tier, Position.empty(3), 10**6) == Position.empty(3)
        True
        """
        hardest = self.yardstick(tier, position)
        cap = max(nodes, MEASURED_NODES)
        if self.nodes(hardest) <= cap:
            return hardest
        smaller = [other for (dim, reverse, _), other in self.hardest.items()
                   if (dim, reverse) == tier.family
                   and MEASURED_NODES <= self.nodes(other) <= cap]
        if smaller:
            return max(smaller, key=lambda other: (self.nodes(other), other.cells))
        measured = [other for (dim, reverse, _), other in self.hardest.items()
                    if (dim, reverse) == tier.family
                    and MEASURED_NODES <= self.nodes(other) < self.nodes(hardest)]
        return min(measured, key=lambda other: (self.nodes(other), other.cells),
                   default=hardest)

    def tier_nodes(self, tier: Tier, position: Position) -> int:
        """Nodes of the reference's search of the hardest position of ``tier``."""
        return self.nodes(self.yardstick(tier, position))

    def limit(self, calibration: Calibration, tier: Tier, position: Position) -> float:
        """The CPU seconds a call on ``position`` may take: its tier's limit (times
        ``margin``)."""
        return (self.policy.limit(calibration, tier.dim, self.tier_nodes(tier, position))
                * self.margin(tier, position))

    def margin(self, tier: Tier, position: Position) -> float:
        """How many times its tier's limit a call may take: ``PASSED_MARGIN`` once the tier,
        timed by ratio, has passed (its deciding call answered in time), else 1.

        >>> from grader.judge.solver import Solver
        >>> pacing = Pacing(TimePolicy(), Solver(), [Position.empty(3)])
        >>> tier = pacing.tier("mm_move", Position.empty(3))
        >>> pacing.margin(tier, Position.empty(3)), pacing.answered(tier)
        (1.0, None)
        >>> pacing.margin(tier, Position.empty(3))
        2.0
        """
        if tier in self.passed and self.measured(tier, position):
            return PASSED_MARGIN
        return 1.0

    def measured(self, tier: Tier, position: Position) -> bool:
        """Whether ``tier`` is timed by ratio (a timeout there may be load: measure again)."""
        return self.policy.measured(self.tier_nodes(tier, position))

    def verdict(self, tier: Tier) -> TooSlow | None:
        """Why calls of ``tier`` are presumed too slow, or None if they may be made."""
        for other, why in self.too_slow.items():
            if other.family != tier.family:
                continue
            same = other.empties == tier.empties
            above = 0 < other.empties < tier.empties
            if (same or above) and (other.function == tier.function
                                    or other.function == MM_MOVE):
                return why
        return None

    def crashed(self, tier: Tier) -> bool:
        """Whether the first CRASH_RUN calls of ``tier`` all ended the student's process."""
        return self.crashes.get(tier, 0) >= CRASH_RUN

    def crash(self, tier: Tier) -> None:
        """A call of ``tier`` ended the process; it counts while no call has answered."""
        if tier not in self.passed and tier not in self.too_slow:
            self.crashes[tier] = self.crashes.get(tier, 0) + 1

    def decided(self, tier: Tier) -> bool:
        return tier in self.passed or tier in self.too_slow

    def answered(self, tier: Tier) -> None:
        """A call of ``tier`` answered within its limit: if it was the first, the tier passes."""
        if not self.decided(tier):
            self.passed.add(tier)

    def timed_out(self, tier: Tier, why: TooSlow) -> bool:
        """A call of ``tier`` ran out of time; if it decides the tier, the tier is too slow.
        Returns whether it did."""
        if self.decided(tier):
            return False
        self.too_slow[tier] = why
        return True

    # -- the budget --------------------------------------------------------------------------

    @property
    def left(self) -> float:
        return max(0.0, self.policy.budget - self.spent)

    def left_seconds(self, calibration: Calibration) -> float:
        """CPU seconds left in the budget."""
        return self.left * calibration.empty_board_seconds

    def charge(self, calibration: Calibration, seconds: float) -> None:
        self.spent += seconds / calibration.empty_board_seconds
