"""Time limits that are fair on any machine.

A call's limit is proportional to what a plain minimax (clone at every step,
no pruning) needs for its position: the solver counts the nodes of that
search exactly, and a calibration run on this machine, once per grading run,
says how much CPU time one node costs here. Limits are CPU time, measured in
the worker, so a busy machine does not make a correct solution time out; the
parent adds a wall-clock backstop on top.

>>> policy = TimePolicy(factor=10, floor=1.0)
>>> policy.limit(nodes=549_946, seconds_per_node=1e-6)
5.49946
>>> policy.limit(nodes=10, seconds_per_node=1e-6)
1.0
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from provided import PLAYERX, SCORES, TTTBoard, switch_player

# After X's first move in a corner: 59,705 nodes, about a tenth of a second.
_CALIBRATION_GRID = [[PLAYERX, 1, 1], [1, 1, 1], [1, 1, 1]]
_CALIBRATION_NODES = 59_705


@dataclass(frozen=True)
class TimePolicy:
    """How generous the limits are, in multiples of a plain minimax's CPU time."""

    factor: float = 10.0          # a call may take this many times a plain minimax
    floor: float = 1.0            # CPU seconds every call gets at least
    budget_searches: float = 60.0  # the whole run: this many plain searches of the empty board

    def limit(self, nodes: int, seconds_per_node: float) -> float:
        """The CPU-time limit of one call whose plain search visits ``nodes`` nodes."""
        return max(self.floor, self.factor * nodes * seconds_per_node)

    def budget(self, seconds_per_node: float) -> float:
        """The CPU time the whole run may spend in the student's code."""
        return self.budget_searches * 549_946 * seconds_per_node


def calibrate(repeats: int = 3) -> float:
    """CPU seconds per node of a plain minimax on this machine (best of ``repeats``).

    It runs in the grader's process on the course's board, never on student code.
    """
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        _plain_minimax(TTTBoard(3, False, _CALIBRATION_GRID), switch_player(PLAYERX))
        best = min(best, time.process_time() - start)
    return best / _CALIBRATION_NODES


def _plain_minimax(board: TTTBoard, player: int) -> int:
    """The search a student writes first (it visits _CALIBRATION_NODES nodes here)."""
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner]
    best = None
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        score = _plain_minimax(child, switch_player(player))
        if best is None or (score > best if player == PLAYERX else score < best):
            best = score
    return best
