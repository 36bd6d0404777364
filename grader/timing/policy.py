"""Time limits that are fair to every reasonable style, on any machine, under any load.

The yardstick is the *reference*: a plain minimax (clone at every step, no pruning) on a
board written like the course's original (``grader.sandbox.inside.reference.CourseBoard``:
``check_win`` builds lists of lines), the slowest approach a student reasonably writes.
The sandbox times it on the student's CPU, before the submission is loaded, again as the
student's time goes by, and, for a call near its limit, on the tier's hardest position
just before and after each new measurement of that call (``grader.assignments.minimax.client``), so
that the limits and the calls they judge see the same machine and the same load. The solver counts exactly how many nodes the
reference visits for any position, so its time for a position is known without running it.

A call's limit is ``factor`` times the reference's time for the hardest position of its
tier (same size, mode and number of empty squares; see ``grader.timing.pacing``). Positions whose
tier is *small* (its hardest reference search has fewer than ``MEASURED_NODES`` nodes, a
few milliseconds) are not timed by ratio: their calls may take ``small`` reference searches
of the empty 3x3 board (half a second here), so that only a call that is stuck fails there.
With no minimum mixed into the ratio, a solution is too slow on a tier exactly when it is
more than ``factor`` times the reference (or, on a small tier, hundreds of times): its
verdict does not hinge on where a minimum meets a ratio. The whole grade may spend at
most ``budget`` reference searches of the empty 3x3 board of the student's time.

>>> calibration = Calibration(per_node_3x3=4e-6, ratio_4x4=1.5)
>>> round(calibration.empty_board_seconds, 2)
2.2
>>> policy = TimePolicy(factor=10, small=0.4, budget=40)
>>> round(policy.limit(calibration, dim=3, nodes=63_905), 2)    # 10 x 0.256 s
2.56
>>> round(policy.limit(calibration, dim=3, nodes=294), 2)       # small: 0.4 x 2.2 s
0.88
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from grader.judge.position import Position
from provided.board import PLAYERO, PLAYERX

EMPTY_BOARD_NODES = 549_946
"""Nodes of the plain search of the empty 3x3 board (FACTS.md), the unit of small and budget."""
MEASURED_NODES = 1_000
"""Tiers whose hardest search has at least this many nodes are timed by ratio. It falls in
a gap: 3x3 tiers have 294 then 1,585 nodes, the 4x4 endgames' at most 302 then 1,497."""

# The positions the reference is timed on, a few milliseconds each here: a 3x3 position
# after three moves (1,277 nodes) and a 4x4 endgame with 6 empty squares (1,609 nodes).
REFERENCE_3X3 = Position.from_grid([[PLAYERX, 1, 1], [1, PLAYERO, 1], [1, PLAYERX, 1]],
                                   PLAYERO)
REFERENCE_3X3_NODES = 1_277
REFERENCE_4X4 = Position(4, (3, 1, 1, 1, 1, 2, 1, 1, 2, 3, 2, 2, 3, 3, 2, 3), PLAYERX)
REFERENCE_4X4_NODES = 1_609
REFERENCE_RUNS = 5   # the median of five: runs disturbed by the machine do not count
# The 4x4 search only sets how much longer a 4x4 node takes than a 3x3 one, a property of
# the interpreter rather than of the load (1.28 to 1.34 here over 138 grades under load),
# and a call near a 4x4 limit is measured again beside a 4x4 timing anyway: three runs,
# alternating with the first three 3x3 ones (their median still ignores a disturbed one).
REFERENCE_4X4_RUNS = 3


class TimingError(ValueError):
    """A time policy or a measurement that makes no sense (a limit of zero, say)."""


@dataclass(frozen=True)
class Calibration:
    """What one node of the reference costs on this machine, now, in CPU seconds.

    A 4x4 node costs more than a 3x3 one (longer lines, more squares to copy): that cost is
    ``ratio_4x4`` times the 3x3 one; other sizes scale with their number of squares.
    """

    per_node_3x3: float
    ratio_4x4: float = 1.0

    def __post_init__(self) -> None:
        if not self.per_node_3x3 > 0 or not self.ratio_4x4 > 0:
            raise TimingError(f"a calibration must be positive: {self}")

    @classmethod
    def from_runs(cls, runs_3x3: list[float], runs_4x4: list[float] | None = None,
                  ratio_4x4: float | None = None) -> "Calibration":
        """The calibration from timed reference runs (median of each).

        >>> Calibration.from_runs([0.03, 0.04, 0.1]).per_node_3x3 * REFERENCE_3X3_NODES
        0.04
        """
        per_node = statistics.median(runs_3x3) / REFERENCE_3X3_NODES
        if runs_4x4:
            ratio_4x4 = statistics.median(runs_4x4) / REFERENCE_4X4_NODES / per_node
        return cls(per_node, ratio_4x4 if ratio_4x4 is not None else 1.0)

    def per_node(self, dim: int) -> float:
        """CPU seconds of one reference node on a ``dim`` x ``dim`` board."""
        if dim <= 3:
            return self.per_node_3x3
        return self.per_node_3x3 * self.ratio_4x4 * (dim * dim) / 16

    def seconds(self, dim: int, nodes: int) -> float:
        """The reference's CPU time for a search of ``nodes`` nodes."""
        return nodes * self.per_node(dim)

    @property
    def empty_board_seconds(self) -> float:
        """The reference's time for the empty 3x3 board: the unit of small and budget."""
        return self.seconds(3, EMPTY_BOARD_NODES)

    def to_json(self) -> dict[str, float]:
        return {"reference_per_node_3x3": self.per_node_3x3, "ratio_4x4": self.ratio_4x4,
                "reference_empty_board_seconds": round(self.empty_board_seconds, 4)}


@dataclass(frozen=True)
class TimePolicy:
    """How generous the limits are, in multiples of the reference.

    ``factor``: a call may take this many times the reference's time for the hardest
    position of its tier. ``small``: a call on a small position (see ``MEASURED_NODES``)
    may take this many reference searches of the empty 3x3 board (half a second here).
    ``budget``: the whole grade may spend this many reference searches of the empty 3x3
    board of the student's time.
    """

    factor: float = 5.0
    small: float = 0.2
    budget: float = 45.0

    def __post_init__(self) -> None:
        for name in ("factor", "small", "budget"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0:
                raise TimingError(f"[time] {name} must be a number above 0, got {value!r}")

    @staticmethod
    def measured(nodes: int) -> bool:
        """Whether a tier whose hardest search has ``nodes`` nodes is timed by ratio."""
        return nodes >= MEASURED_NODES

    def limit(self, calibration: Calibration, dim: int, nodes: int) -> float:
        """The CPU seconds a call may take when the hardest position of its tier has a
        reference search of ``nodes`` nodes."""
        if not self.measured(nodes):
            return self.small * calibration.empty_board_seconds
        return self.factor * calibration.seconds(dim, nodes)

    def budget_seconds(self, calibration: Calibration) -> float:
        return self.budget * calibration.empty_board_seconds

    def describe(self) -> str:
        """The policy in one sentence, for reports and timeout messages."""
        return (f"a call may take {self.factor:g} times the CPU time that a plain minimax "
                "(clone at every step, no pruning) on a board written like the course's "
                "original needs, on this machine, for the hardest position with as many "
                f"empty squares; on small positions (fewer than {MEASURED_NODES:,} nodes "
                f"in that search), {self.small:g} times that minimax's time for the empty "
                "3x3 board")
