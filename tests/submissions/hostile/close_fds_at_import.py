"""Hostile (an old daemon idiom): os.closerange(3, 1024) at import; mm_move is correct.

Expected: the worker keeps its channel to the grader above descriptor 1024, so nothing is
lost: graded in full, score 100.
"""
import os

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

os.closerange(3, 1024)


def mm_move(board, player):
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
