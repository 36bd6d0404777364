"""A correct Monte Carlo player: copy.deepcopy per trial, the first tied square, SCORE_CURRENT 2.0.

Every public check passes; the grader gives it full marks. Its constants are tuned
(SCORE_CURRENT = 2.0, SCORE_OTHER = 1.0): the checks use the file's own values.
"""

import copy
import random

import provided

NTRIALS = 50
SCORE_CURRENT = 2.0
SCORE_OTHER = 1.0


def mc_trial(board, player):
    """Random alternating moves until the game is over, on board itself."""
    current = player
    while board.check_win() is None:
        empty = board.get_empty_squares()
        square = random.choice(empty)
        board.move(square[0], square[1], current)
        current = provided.switch_player(current)


def mc_update_scores(scores, board, player):
    """Add the finished board to scores, from player's side."""
    winner = board.check_win()
    if winner == provided.DRAW:
        return
    other = provided.switch_player(player)
    for row in range(board.get_dim()):
        for col in range(board.get_dim()):
            owner = board.square(row, col)
            if winner == player and owner == player:
                scores[row][col] += SCORE_CURRENT
            elif winner == player and owner == other:
                scores[row][col] -= SCORE_OTHER
            elif winner == other and owner == player:
                scores[row][col] -= SCORE_CURRENT
            elif winner == other and owner == other:
                scores[row][col] += SCORE_OTHER


def get_best_move(board, scores):
    """The first empty square (row by row) of the highest score."""
    best_square = None
    for row, col in board.get_empty_squares():
        if best_square is None or scores[row][col] > scores[best_square[0]][best_square[1]]:
            best_square = (row, col)
    return best_square


def mc_move(board, player, trials):
    """Trials on deep copies of board; the best empty square of the original."""
    dim = board.get_dim()
    scores = [[0 for _ in range(dim)] for _ in range(dim)]
    for _ in range(trials):
        trial = copy.deepcopy(board)
        mc_trial(trial, player)
        mc_update_scores(scores, trial, player)
    return get_best_move(board, scores)
