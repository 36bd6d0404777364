"""Correct: picks at random among all the best moves."""
import random

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    results = []
    for move in board.get_empty_squares():
        child = board.clone()
        child.move(move[0], move[1], player)
        results.append((mm_move(child, switch_player(player))[0], move))
    best = max(score * SCORES[player] for score, _ in results) * SCORES[player]
    return best, random.choice([move for score, move in results if score == best])


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
