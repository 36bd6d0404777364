"""Rubric-bending, a kind seen in real course repositories: mc_move's score grid is
[[0] * dim] * dim, one row object shared by every row. Each square then gets its column's
total, so the player picks the best column, not the best square.

The other three functions are right, and today's statistical checks of mc_move are passed by
chance of the positions; a check whose winning square shares its column and its row with
other empty squares catches it (docs/instructors/montecarlo.md gives the bound). Most it may
score: 98.
"""

import random

from provided import PLAYERO, PLAYERX, switch_player  # noqa: F401

NTRIALS = 100
SCORE_CURRENT = 1.0
SCORE_OTHER = 1.0


def mc_trial(board, player):
    """Play random alternating moves on board until the game is over."""
    while board.check_win() is None:
        row, col = random.choice(board.get_empty_squares())
        board.move(row, col, player)
        player = switch_player(player)


def mc_update_scores(scores, board, player):
    """Score the finished board for player: its squares win or lose with it."""
    winner = board.check_win()
    if winner not in (PLAYERX, PLAYERO):
        return
    sign = 1 if winner == player else -1
    for row in range(board.get_dim()):
        for col in range(board.get_dim()):
            square = board.square(row, col)
            if square == player:
                scores[row][col] += sign * SCORE_CURRENT
            elif square == switch_player(player):
                scores[row][col] -= sign * SCORE_OTHER


def get_best_move(board, scores):
    """An empty square of the highest score, chosen at random among the ties."""
    empty = board.get_empty_squares()
    best = max(scores[row][col] for row, col in empty)
    return random.choice([(row, col) for row, col in empty if scores[row][col] == best])


def mc_move(board, player, trials):
    """Run trials games on clones of board and return the best empty square."""
    dim = board.get_dim()
    scores = [[0] * dim] * dim
    for _ in range(trials):
        trial = board.clone()
        mc_trial(trial, player)
        mc_update_scores(scores, trial, player)
    return get_best_move(board, scores)
