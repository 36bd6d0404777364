"""Rubric-bending: an mc_update_scores that writes nan into every held square of a won or
lost game (a draw changes nothing, as it should).

nan is never within a tolerance of anything (abs(nan - want) > 1e-9 is False, which once let
it pass): each finished game with a winner is a wrong grid. Its mc_move then finds no best
square (nothing equals nan) and raises. Most it may score: 55.
"""

import random

from provided import EMPTY, PLAYERO, PLAYERX, switch_player  # noqa: F401

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
    """Every square a player holds scores nan after a win or a loss."""
    winner = board.check_win()
    if winner not in (PLAYERX, PLAYERO):
        return
    sign = 1 if winner == player else -1
    for row in range(board.get_dim()):
        for col in range(board.get_dim()):
            square = board.square(row, col)
            if square != EMPTY:
                scores[row][col] = float("nan")


def get_best_move(board, scores):
    """An empty square of the highest score, chosen at random among the ties."""
    empty = board.get_empty_squares()
    best = max(scores[row][col] for row, col in empty)
    return random.choice([(row, col) for row, col in empty if scores[row][col] == best])


def mc_move(board, player, trials):
    """Run trials games on clones of board and return the best empty square."""
    dim = board.get_dim()
    scores = [[0.0] * dim for _ in range(dim)]
    for _ in range(trials):
        trial = board.clone()
        mc_trial(trial, player)
        mc_update_scores(scores, trial, player)
    return get_best_move(board, scores)
