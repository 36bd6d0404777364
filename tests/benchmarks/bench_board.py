"""Our board against the course's, operation by operation, and under a plain minimax.

Every operation a student can reach on a board (``clone``, ``copy.copy``,
``copy.deepcopy``, a pickle round trip, ``str``, ``==``, ``get_empty_squares``,
``check_win`` (settled, and just after a move), ``square``, ``move``) is timed on
``provided.TTTBoard`` and on a board written the way the course's original was: the
grader's ``CourseBoard`` (``grader/sandbox/inside/reference.py``: ``check_win`` builds
lists of lines, ``clone`` goes through the constructor) with the course's ``__str__``.
Each operation is timed on both boards in turn, round after round, and the best round
of each is kept (machine noise only ever adds time), in microseconds per operation;
the ratio is ours / the course's. Copies, pickles, ``str``, ``get_empty_squares`` and
``check_win`` cost less; ``square`` and ``move`` a few hundredths of a microsecond more (the
test that refuses a negative index, and noting the square for ``check_win``), which any
search that also copies or checks the board wins back many times over.

Then whole searches from the empty 3x3 board (549,946 calls): the plain minimax the
grader's limits are measured against (clone at every step, no pruning) on both boards,
and the same search copying with ``copy.deepcopy``, in CPU seconds.

    python tests/benchmarks/bench_board.py [--rounds N] [--repeats N]
"""

from __future__ import annotations

import argparse
import copy
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# The grader's own yardstick: the same course-style board and plain minimax its limits use.
from grader.sandbox.inside.reference import CourseBoard, plain_minimax  # noqa: E402
from provided import DRAW, EMPTY, PLAYERO, PLAYERX, SCORES, STRMAP, TTTBoard  # noqa: E402


class CourseStyleBoard(CourseBoard):
    """The grader's course-style board with the course's ``__str__`` (the grader needs none)."""

    def __str__(self):
        rep = ""
        for row in range(self._dim):
            for col in range(self._dim):
                rep += STRMAP[self._board[row][col]]
                if col == self._dim - 1:
                    rep += "\n"
                else:
                    rep += " | "
            if row != self._dim - 1:
                rep += "-" * (4 * self._dim - 3)
                rep += "\n"
        return rep


X, O, E = PLAYERX, PLAYERO, EMPTY
MIDGAME = [[X, E, O], [E, X, E], [E, E, O]]  # 5 empty squares, no line: X to move

# name: (the statement, timed; what each timing starts from: "board", or "fresh" for a
# new clone per operation, made before the clock starts)
OPERATIONS: dict[str, tuple[str, str]] = {
    "clone()": ("board.clone()", "board"),
    "copy.copy": ("copy.copy(board)", "board"),
    "copy.deepcopy": ("copy.deepcopy(board)", "board"),
    "pickle dumps+loads": ("pickle.loads(pickle.dumps(board))", "board"),
    "pickle, protocol 0": ("pickle.loads(pickle.dumps(board, 0))", "board"),
    "str": ("str(board)", "board"),
    "==": ("board == other", "board"),
    "get_empty_squares": ("board.get_empty_squares()", "board"),
    "check_win": ("board.check_win()", "board"),
    "check_win after a move": ("board.check_win()", "moved"),
    "square": ("board.square(1, 2)", "board"),
    "move, taken square": ("board.move(0, 0, X)", "board"),
    "move, empty square": ("board.move(2, 1, X)", "fresh"),
    "clone, move, check_win": ("c = board.clone(); c.move(2, 1, X); c.check_win()", "board"),
}


def per_operation(cls: type, statement: str, start: str, number: int) -> tuple[float, float]:
    """Seconds to run ``statement`` on ``number`` boards (or one board) of ``cls``, and the
    seconds of the same loop doing nothing."""
    code = compile(f"for board in boards:\n    {statement}", "<bench>", "exec")
    empty_loop = compile("for board in boards:\n    pass", "<bench>", "exec")
    board = cls(3, False, MIDGAME)
    if start == "board":
        boards = [board] * number
    else:
        boards = [board.clone() for _ in range(number)]
        if start == "moved":
            for fresh in boards:
                fresh.move(2, 1, X)
    names = {"boards": boards, "other": board.clone(), "copy": copy, "pickle": pickle,
             "X": X}
    started = time.perf_counter()
    exec(empty_loop, names)
    loop = time.perf_counter() - started
    started = time.perf_counter()
    exec(code, names)
    return time.perf_counter() - started, loop


def compare_operations(rounds: int) -> None:
    print(f"each operation on a 3x3 board in play (5 empty squares), microseconds per "
          f"operation, best of {rounds} rounds:")
    print(f"  {'operation':24s} {'course-style':>12s} {'TTTBoard':>10s}  {'ratio':>6s}")
    for name, (statement, start) in OPERATIONS.items():
        number = 300 if "deepcopy" in statement or "pickle" in statement else 3000
        best = {CourseStyleBoard: [float("inf")] * 2, TTTBoard: [float("inf")] * 2}
        for _ in range(rounds):
            for cls, (total, loop) in best.items():
                timed_total, timed_loop = per_operation(cls, statement, start, number)
                best[cls] = [min(total, timed_total), min(loop, timed_loop)]
        course, ours = ((total - loop) / number * 1e6 for total, loop in best.values())
        print(f"  {name:24s} {course:10.3f} us {ours:8.3f} us  {ours / course:6.2f}")


def deepcopy_minimax(board, player):
    """The plain minimax copying with copy.deepcopy: (score, move, nodes visited)."""
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1), 1
    best_score, best_move, nodes = None, (-1, -1), 1
    other = PLAYERO if player == PLAYERX else PLAYERX
    for row, col in board.get_empty_squares():
        child = copy.deepcopy(board)
        child.move(row, col, player)
        score, _, below = deepcopy_minimax(child, other)
        nodes += below
        if best_score is None or (score > best_score if player == PLAYERX
                                  else score < best_score):
            best_score, best_move = score, (row, col)
    return best_score, best_move, nodes


def timed(search: Callable, cls: type) -> float:
    start = time.process_time()
    score, _, calls = search(cls(3), PLAYERX)
    elapsed = time.process_time() - start
    assert score == SCORES[DRAW] and calls == 549_946, (score, calls)
    return elapsed


def compare_searches(repeats: int) -> None:
    runs = {(search, cls): [] for search in (plain_minimax, deepcopy_minimax)
            for cls in (CourseStyleBoard, TTTBoard)}
    for _ in range(repeats):
        for search, cls in runs:
            runs[search, cls].append(timed(search, cls))
    median = {key: statistics.median(values) for key, values in runs.items()}
    reference = median[plain_minimax, CourseStyleBoard]
    print(f"\nwhole searches from the empty 3x3 board, 549,946 calls, CPU seconds (median of "
          f"{repeats}), and as a multiple of the grader's reference (the first line):")
    for (search, cls), seconds in median.items():
        how = "clone()" if search is plain_minimax else "copy.deepcopy"
        print(f"  plain minimax, {how:13s} on {cls.__name__:16s} {seconds:7.3f} s   "
              f"{seconds / reference:5.2f} x   ({seconds / 549_946 * 1e6:.2f} us per call)")
    print(f"  speed-up of a plain minimax on TTTBoard: "
          f"{reference / median[plain_minimax, TTTBoard]:.2f} x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20,
                        help="rounds of each operation, the best kept (default 20)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="whole searches of each kind, the median kept (default 3)")
    args = parser.parse_args()
    compare_operations(args.rounds)
    if args.repeats > 0:
        compare_searches(args.repeats)


if __name__ == "__main__":
    main()
