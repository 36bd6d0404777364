"""The yardstick of ``python -m student check``'s speed judgment, timed on this machine.

The grader's time limits are multiples of its *reference*: a plain minimax (clone at every
step, no pruning) on a board written like the course's original. The check cannot ship a
minimax (that would be the answer), so it times a *walk* instead: it visits every node a
plain minimax visits, doing at each node what that minimax does to the board (``clone``,
``move``, ``check_win``, ``get_empty_squares`` on :class:`CourseBoard`, the same code as the
grader's reference board), but computes no score and picks no move. It costs a little less
than the reference; ``WALK_TO_REFERENCE`` (checked against the grader's reference by the
project's tests) turns its time into the reference's.

The parent (``student.speed``) runs this module as a child process, pinned to one CPU like
the grader's reference, and sends one JSON request a line; each answer is one JSON line:

    python -m student.yardstick < {"dim": 2, "reverse": false, "cells": [1, 1, 1, 1],
                                   "player": 2, "runs": 1}
    {"nodes": 41, "seconds": [0.0002]}

>>> walk(CourseBoard(2), PLAYERX)    # every node of the 2x2 game tree, as a plain minimax
41
"""

from __future__ import annotations

import json
import os
import sys
import time

# The course's values (provided.board has the same ones), kept local so the walk's board
# is the grader's reference board line for line.
_EMPTY, _PLAYERX, _PLAYERO, _DRAW = 1, 2, 3, 4
PLAYERX = _PLAYERX

WALK_TO_REFERENCE = 1.03
"""The reference's CPU time for a search over the walk's time for the same tree: the
walk skips the minimax's scores and comparisons. tests/student/test_speed.py measures
it against the grader's own reference."""


class CourseBoard:
    """The course's board as it was written: ``check_win`` builds lists of lines, ``clone``
    goes through the constructor. The same code as the grader's reference board (the
    project's tests compare them), so the walk costs what the reference costs.

    >>> board = CourseBoard(3, False, [[2, 2, 2], [3, 3, 1], [1, 1, 1]])
    >>> board.check_win(), len(board.get_empty_squares())
    (2, 4)
    """

    def __init__(self, dim, reverse=False, board=None):
        self._dim = dim
        self._reverse = reverse
        if board is None:
            self._board = [[_EMPTY for _ in range(dim)] for _ in range(dim)]
        else:
            self._board = [[board[row][col] for col in range(dim)] for row in range(dim)]

    def get_dim(self):
        return self._dim

    def square(self, row, col):
        return self._board[row][col]

    def get_empty_squares(self):
        return [(row, col) for row in range(self._dim) for col in range(self._dim)
                if self._board[row][col] == _EMPTY]

    def move(self, row, col, player):
        if self._board[row][col] == _EMPTY:
            self._board[row][col] = player

    def check_win(self):
        board, dim = self._board, self._dim
        dimrng = range(dim)
        lines = []
        lines.extend(board)
        lines.extend([[board[row][col] for row in dimrng] for col in dimrng])
        lines.append([board[idx][idx] for idx in dimrng])
        lines.append([board[idx][dim - idx - 1] for idx in dimrng])
        for line in lines:
            if len(set(line)) == 1 and line[0] != _EMPTY:
                if self._reverse:
                    return _PLAYERO if line[0] == _PLAYERX else _PLAYERX
                return line[0]
        if len(self.get_empty_squares()) == 0:
            return _DRAW
        return None

    def clone(self):
        return CourseBoard(self._dim, self._reverse, self._board)


def walk(board: CourseBoard, player: int) -> int:
    """Visit every position a plain minimax visits from ``board``; return how many.

    No score is computed: this is what a search costs, not a search.

    >>> walk(CourseBoard(3, False, [[2, 3, 2], [3, 2, 3], [3, 2, 1]]), PLAYERX)
    2
    """
    if board.check_win() is not None:
        return 1
    nodes = 1
    other = _PLAYERO if player == _PLAYERX else _PLAYERX
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        nodes += walk(child, other)
    return nodes


def time_walk(request: dict) -> dict:
    """Walk the requested position ``runs`` times; the CPU seconds of each run.

    >>> time_walk({"dim": 1, "reverse": False, "cells": [1], "player": 2, "runs": 2})["nodes"]
    2
    """
    dim, cells = request["dim"], request["cells"]
    grid = [cells[row * dim:row * dim + dim] for row in range(dim)]
    seconds, nodes = [], 0
    for _ in range(request.get("runs", 1)):
        board = CourseBoard(dim, request["reverse"], grid)
        start = time.process_time()
        nodes = walk(board, request["player"])
        seconds.append(time.process_time() - start)
    return {"nodes": nodes, "seconds": seconds}


def pick_cpu() -> int | None:
    """The CPU to run the yardstick and the student's calls on: the one this process is on
    now (as the grader picks), or None where there is no choice or no way to choose."""
    try:
        allowed = os.sched_getaffinity(0)
        with open("/proc/self/stat", "rb") as file:
            now = int(file.read().rpartition(b")")[2].split()[36])
    except (AttributeError, OSError, ValueError, IndexError):
        return None
    if len(allowed) < 2:
        return None
    return now if now in allowed else min(allowed)


def pin(cpu: int | None) -> None:
    """Run on ``cpu`` only (Linux), as the grader runs its reference and the student's code
    on one CPU: on a virtual machine CPUs differ in speed, and a ratio of two times is only
    fair on the same one."""
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError:
            pass


def main() -> None:
    """Answer one JSON request a line (see the module's doc) until stdin ends."""
    cpu = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else None
    pin(cpu)
    walk(CourseBoard(2), PLAYERX)   # warm the interpreter up before anything is timed
    for line in sys.stdin:
        print(json.dumps(time_walk(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
