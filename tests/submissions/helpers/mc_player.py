"""grader/assignments/montecarlo/submissions/correct_clone.py split in two files: its play-outs
and its best squares live in mc_trials.py beside it, which it imports. Graded with that
helper it scores what correct_clone.py scores (100); graded alone, 0 (it cannot import it)."""

import random

from provided import PLAYERO, PLAYERX, switch_player  # noqa: F401
import mc_trials

NTRIALS = 100
SCORE_CURRENT = 1.0
SCORE_OTHER = 1.0


def mc_trial(board, player):
    """Play random alternating moves on board until the game is over."""
    mc_trials.play_out(board, player)


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
    return random.choice(mc_trials.best_squares(board, scores))


def mc_move(board, player, trials):
    """Run trials games on clones of board and return the best empty square."""
    dim = board.get_dim()
    scores = [[0.0] * dim for _ in range(dim)]
    for _ in range(trials):
        trial = board.clone()
        mc_trial(trial, player)
        mc_update_scores(scores, trial, player)
    return get_best_move(board, scores)
