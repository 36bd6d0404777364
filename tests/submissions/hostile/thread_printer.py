"""Hostile: a background thread, started at import, that keeps printing after every
call has returned (and between calls), forever.

Expected: its output is drained and capped like any other; the answers are correct and
arrive in time: score 100. The thread dies with the worker.
"""
import threading
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


def chatter():
    while True:
        print("tick " * 20)
        time.sleep(0.001)


threading.Thread(target=chatter, daemon=True).start()


def mm_move(board, player):
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
