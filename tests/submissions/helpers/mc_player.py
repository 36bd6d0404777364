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
    if winner in (PLAYERX, PLAYERO):
        mc_trials.add_scores(scores, board, winner == player, player,
                             (SCORE_CURRENT, SCORE_OTHER))


def get_best_move(board, scores):
    """An empty square of the highest score, chosen at random among the ties."""
    return random.choice(mc_trials.best_squares(board, scores))


def mc_move(board, player, trials):
    """Run trials games on clones of board and return the best empty square."""
    scores = [[0.0 for _ in range(board.get_dim())] for _ in range(board.get_dim())]
    for _ in range(trials):
        played = board.clone()
        mc_trial(played, player)
        mc_update_scores(scores, played, player)
    return get_best_move(board, scores)
