"""A correct player written for the course's older template, whose constants are MCMATCH and
MCOTHER (here tuned to 2.0 and 3.0, with 1000 trials in play).

The grader reads MCMATCH and MCOTHER where SCORE_CURRENT and SCORE_OTHER are absent, judges
with them, and says so. Full marks: 100.
"""

import random

from provided import PLAYERO, PLAYERX, switch_player  # noqa: F401

NTRIALS = 1000
MCMATCH = 2.0  # Score for squares played by the machine player
MCOTHER = 3.0  # Score for squares played by the other player


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
                scores[row][col] += sign * MCMATCH
            elif square == switch_player(player):
                scores[row][col] -= sign * MCOTHER


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
