"""Hostile: sleeps for an hour at the start of every mm_move call; otherwise a correct plain
minimax. It uses no CPU while it sleeps, so a pure CPU-time limit would never fire.

Expected: the grader stops each call soon after its limit (the call is active, not waiting
for a CPU); the first call of each small tier times out and every larger position of its
size and mode is not asked. Score 0, in seconds, not an hour per call, nor the budget.
"""
import time

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def search(board, player):
    """A correct plain minimax: (score, (row, col))."""
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best_score, best_move = None, (-1, -1)
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        score, _ = search(child, switch_player(player))
        if best_score is None or score * SCORES[player] > best_score * SCORES[player]:
            best_score, best_move = score, (row, col)
    return best_score, best_move


def mm_move(board, player):
    time.sleep(3600)
    return search(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
