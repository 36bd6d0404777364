"""Rubric-bending, a kind seen in real course repositories: get_best_move's maximum starts at
a fixed number (-NTRIALS), so when every empty square scores below it, nothing is chosen and
random.choice([]) raises.

get_best_move is asked on grids whose empty squares all score far below any such floor
(-10**9, and floats): those checks are lost. Most it may score: 97.
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
    best_score = -NTRIALS
    best = []
    for row, col in board.get_empty_squares():
        if scores[row][col] > best_score:
            best_score, best = scores[row][col], [(row, col)]
        elif scores[row][col] == best_score:
            best.append((row, col))
    return random.choice(best)


def mc_move(board, player, trials):
    """Run trials games on clones of board and return the best empty square."""
    dim = board.get_dim()
    scores = [[0.0] * dim for _ in range(dim)]
    for _ in range(trials):
        trial = board.clone()
        mc_trial(trial, player)
        mc_update_scores(scores, trial, player)
    return get_best_move(board, scores)
