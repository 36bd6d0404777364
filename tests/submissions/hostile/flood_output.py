"""Hostile: 40 MB of output at import, a line in every call, and an endless flood of
output in one call (the empty 1x1 board).

Expected: output never blocks the answers and is capped (64 KiB kept, the rest counted):
the load succeeds and the import's output is cut with "more bytes of output dropped"; the
flooding call hits its CPU limit and costs that call ("other sizes", "time" lose a check);
every other item is full, and results.json stays small.
"""
import os
import sys

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
MEMO = {}


def solve(board, player):
    """A correct, memoised minimax: (score, (row, col))."""
    key = (repr(board), player)
    if key not in MEMO:
        winner = board.check_win()
        if winner is not None:
            MEMO[key] = SCORES[winner], (-1, -1)
        else:
            best = None
            for row, col in board.get_empty_squares():
                child = board.clone()
                child.move(row, col, player)
                score = solve(child, switch_player(player))[0]
                if best is None or score * SCORES[player] > best[0] * SCORES[player]:
                    best = score, (row, col)
            MEMO[key] = best
    return MEMO[key]

# The one position the trigger picks: the empty 1x1 board of the "other sizes" item.
ONE_BY_ONE = "TTTBoard(1, False, [[EMPTY]])"

for _ in range(160):
    os.write(1, b"o" * (1 << 17))
    os.write(2, b"e" * (1 << 17))


def mm_move(board, player):
    print("thinking about", board)
    if repr(board) == ONE_BY_ONE:
        while True:
            sys.stdout.write("x" * 65536)
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
