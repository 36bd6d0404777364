"""The grader's time policy, as data: what ``python -m student check`` needs to judge speed
as the grader does.

The grader asks its hidden positions *tier by tier*: a tier is every position of one size
and mode with as many empty squares. A call may take ``FACTOR`` times the reference's
CPU time for the hardest position of its tier (the reference: a plain minimax on a board
written like the course's, timed on this machine; ``student.yardstick``). On *small*
tiers (that hardest search has fewer than ``MEASURED_NODES`` nodes) a call may take
``SMALL`` reference searches of the empty 3x3 board, so only a stuck call fails there. The
first call of a tier, its hardest position, decides it; when it runs out of time, that
tier and every larger one of the same size and mode are too slow.

``TIERS`` holds the positions that decide: the hardest of every tier judged by ratio and
of the largest small tier, for each size and mode, with the exact number of nodes the
reference visits on each. They are the grader's own (computed by its solver from its
hidden positions); the project's tests regenerate them with the grader and check that
they are equal, and that ``FACTOR`` and ``SMALL`` are the defaults of the grader's
configuration. Nothing here says what a position is worth.

>>> TIERS[0].describe()
'3x3, 5 empty squares'
>>> TIERS[0].measured, TIERS[1].measured
(False, True)
"""

from __future__ import annotations

from dataclasses import dataclass

FACTOR = 5.0
"""A call may take this many times the reference's time for the hardest of its tier."""
SMALL = 0.2
"""On small tiers, a call may take this many reference searches of the empty 3x3 board."""
EMPTY_BOARD_NODES = 549_946
"""Nodes of the reference's search of the empty 3x3 board: the unit of SMALL."""
MEASURED_NODES = 1_000
"""Tiers whose hardest search has at least this many nodes are judged by ratio."""


@dataclass(frozen=True)
class Tier:
    """The hardest position of one tier, and how many nodes the reference visits on it.

    >>> Tier(2, False, 4, (1, 1, 1, 1), 2, 41).grid
    [[1, 1], [1, 1]]
    """

    dim: int
    reverse: bool
    empties: int
    cells: tuple[int, ...]
    player: int
    nodes: int

    @property
    def measured(self) -> bool:
        """Whether the grader judges this tier by ratio (else: the small rule)."""
        return self.nodes >= MEASURED_NODES

    @property
    def family(self) -> tuple[int, bool]:
        return self.dim, self.reverse

    @property
    def grid(self) -> list[list[int]]:
        return [list(self.cells[row * self.dim:(row + 1) * self.dim])
                for row in range(self.dim)]

    def describe(self) -> str:
        mode = ", reverse game" if self.reverse else ""
        squares = "empty square" if self.empties == 1 else "empty squares"
        return f"{self.dim}x{self.dim}, {self.empties} {squares}{mode}"


# The positions the reference is timed on (a few milliseconds each), as the grader does:
# per node on 3x3, and how much more a 4x4 node costs.
REFERENCE_3X3 = Tier(3, False, 6, (2, 1, 1, 1, 3, 1, 1, 2, 1), 3, 1_277)
REFERENCE_4X4 = Tier(4, False, 6, (3, 1, 1, 1, 1, 2, 1, 1, 2, 3, 2, 2, 3, 3, 2, 3), 2, 1_609)

# Computed by the grader's pacing from its hidden positions (tests/student/test_speed.py
# computes them again and compares).
TIERS: tuple[Tier, ...] = (
    Tier(3, False, 5, (2, 1, 1, 3, 1, 2, 1, 1, 3), 2, 294),
    Tier(3, False, 6, (1, 2, 1, 1, 1, 1, 1, 3, 2), 3, 1_585),
    Tier(3, False, 7, (1, 1, 1, 2, 1, 3, 1, 1, 1), 2, 9_400),
    Tier(3, False, 8, (1, 1, 1, 1, 1, 1, 1, 2, 1), 3, 63_905),
    Tier(3, False, 9, (1, 1, 1, 1, 1, 1, 1, 1, 1), 2, 549_946),
    Tier(3, True, 5, (2, 1, 1, 3, 1, 2, 1, 1, 3), 2, 294),
    Tier(3, True, 6, (1, 2, 1, 1, 1, 1, 1, 3, 2), 3, 1_585),
    Tier(3, True, 7, (1, 1, 1, 2, 1, 3, 1, 1, 1), 2, 9_400),
    Tier(3, True, 8, (1, 1, 1, 1, 1, 1, 1, 2, 1), 3, 63_905),
    Tier(3, True, 9, (1, 1, 1, 1, 1, 1, 1, 1, 1), 2, 549_946),
    Tier(2, False, 4, (1, 1, 1, 1), 2, 41),
    Tier(2, True, 4, (1, 1, 1, 1), 2, 41),
    Tier(1, False, 1, (1,), 2, 2),
    Tier(1, True, 1, (1,), 2, 2),
    Tier(4, False, 5, (2, 2, 3, 2, 1, 3, 3, 3, 3, 1, 2, 2, 1, 1, 2, 1), 3, 214),
    Tier(4, False, 6, (1, 2, 3, 3, 3, 1, 1, 1, 3, 2, 3, 2, 2, 1, 1, 2), 2, 1_497),
    Tier(4, False, 7, (3, 2, 1, 3, 1, 1, 2, 2, 3, 1, 3, 1, 1, 2, 1, 2), 3, 8_304),
    Tier(4, True, 5, (1, 3, 2, 1, 3, 1, 3, 1, 3, 2, 2, 2, 2, 2, 1, 3), 3, 302),
    Tier(4, True, 6, (3, 1, 2, 1, 2, 2, 3, 2, 2, 3, 1, 1, 1, 1, 3, 3), 2, 1_765),
)


def judged_by_ratio(dim: int, reverse: bool, empties: int) -> bool:
    """Whether the grader judges positions of this size, mode and number of empty squares
    by ratio (a tier's hardest search grows with its empty squares).

    >>> judged_by_ratio(3, False, 6), judged_by_ratio(3, False, 5), judged_by_ratio(2, True, 4)
    (True, False, False)
    """
    return any(tier.measured and tier.family == (dim, reverse) and tier.empties <= empties
               for tier in TIERS)
