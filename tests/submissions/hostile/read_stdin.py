"""Hostile: reads standard input at import and in every call (sys.stdin.read() and
input(), whose EOFError it catches); a grader that passed its own stdin on would hang here.

Expected: stdin is /dev/null, so every read sees end-of-file at once: score 100.
"""
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

HEARD = sys.stdin.read()
try:
    HEARD += input("your move? ")
except EOFError:
    pass


def mm_move(board, player):
    if sys.stdin.read() or HEARD:
        raise RuntimeError("stdin was not empty")
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
