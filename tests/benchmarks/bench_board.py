"""How much faster a student's plain minimax runs on our board than on the course's.

Runs the same plain minimax (clone at every step, no pruning: 549,946 calls
from the empty 3x3 board) on ``provided.TTTBoard`` and on ``CourseBoard`` (the
grader's reference, ``grader/sandbox/inside/reference.py``), a board written the
way the course's original was (``check_win`` builds lists of lines, ``clone``
goes through the constructor), in one process, alternating the two so that
machine noise hits both alike. Prints the CPU time of each and
the ratio.

    python tests/benchmarks/bench_board.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# The grader's own yardstick: the same course-style board and plain minimax its limits use.
from grader.sandbox.inside.reference import CourseBoard, plain_minimax  # noqa: E402
from provided import PLAYERX, TTTBoard  # noqa: E402


def timed(board_class) -> tuple[float, int]:
    start = time.process_time()
    score, _, calls = plain_minimax(board_class(3), PLAYERX)
    elapsed = time.process_time() - start
    assert score == 0 and calls == 549_946, (score, calls)
    return elapsed, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each board (default 3)")
    args = parser.parse_args()
    course, ours = [], []
    for _ in range(args.repeats):
        course.append(timed(CourseBoard)[0])
        ours.append(timed(TTTBoard)[0])
    c, o = statistics.median(course), statistics.median(ours)
    print("plain minimax from the empty 3x3 board, 549,946 calls, CPU seconds (median of "
          f"{args.repeats}):")
    print(f"  course-style board   {c:7.3f} s   ({c / 549_946 * 1e6:.2f} us per call)")
    print(f"  provided.TTTBoard    {o:7.3f} s   ({o / 549_946 * 1e6:.2f} us per call)")
    print(f"  speed-up             {c / o:7.2f} x   (the requirement: at least 3x)")


if __name__ == "__main__":
    main()
