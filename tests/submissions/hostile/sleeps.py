"""Hostile: sleeps for an hour in one call (no CPU used, so no CPU limit fires).

Expected: stopped soon after its limit (it is active, sleeping, not waiting for a CPU);
that costs the one call (the empty 1x1 board): "other sizes" and "time" lose a check,
every other item is full; one timeout.
"""
import time

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


def mm_move(board, player):
    if repr(board) == ONE_BY_ONE:
        time.sleep(3600)
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
