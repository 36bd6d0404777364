"""How much faster a student's plain minimax runs on our board than on the course's.

Runs the same plain minimax (clone at every step, no pruning: 549,946 calls
from the empty 3x3 board) on ``provided.TTTBoard`` and on ``CourseBoard``, a
board written the way the course's original was (``check_win`` builds lists
of lines, ``clone`` goes through the constructor), in one process, alternating
the two so that machine noise hits both alike. Prints the CPU time of each and
the ratio.

    python tests/benchmarks/bench_board.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from provided import DRAW, EMPTY, PLAYERO, PLAYERX, SCORES, TTTBoard, switch_player


class CourseBoard:
    """The course's board as it was written (rules identical, speed not)."""

    def __init__(self, dim, reverse=False, board=None):
        self._dim = dim
        self._reverse = reverse
        if board is None:
            self._board = [[EMPTY for _ in range(dim)] for _ in range(dim)]
        else:
            self._board = [[board[row][col] for col in range(dim)] for row in range(dim)]

    def get_dim(self):
        return self._dim

    def square(self, row, col):
        return self._board[row][col]

    def get_empty_squares(self):
        return [(row, col) for row in range(self._dim) for col in range(self._dim)
                if self._board[row][col] == EMPTY]

    def move(self, row, col, player):
        if self._board[row][col] == EMPTY:
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
            if len(set(line)) == 1 and line[0] != EMPTY:
                return switch_player(line[0]) if self._reverse else line[0]
        if len(self.get_empty_squares()) == 0:
            return DRAW
        return None

    def clone(self):
        return CourseBoard(self._dim, self._reverse, self._board)


def plain_minimax(board, player):
    """A student's plain minimax: returns (score, move, calls)."""
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1), 1
    best_score, best_move, calls = None, None, 1
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        score, _, sub_calls = plain_minimax(child, switch_player(player))
        calls += sub_calls
        if best_score is None or (score > best_score if player == PLAYERX else score < best_score):
            best_score, best_move = score, (row, col)
    return best_score, best_move, calls


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
