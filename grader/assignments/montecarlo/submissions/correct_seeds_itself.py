"""Correct, though it draws its own randomness: random.seed() (from the clock) in every
mc_move and SystemRandom for the ties. The grader must still give it the same grade on
every run (it is correct: full marks)."""
import random

import poc_ttt_provided as provided

NTRIALS = 100
SCORE_CURRENT = 1.0
SCORE_OTHER = 1.0

TIES = random.SystemRandom()


def mc_trial(board, player):
    while board.check_win() is None:
        row, col = random.choice(board.get_empty_squares())
        board.move(row, col, player)
        player = provided.switch_player(player)


def mc_update_scores(scores, board, player):
    winner = board.check_win()
    if winner not in (provided.PLAYERX, provided.PLAYERO):
        return
    won = winner == player
    for row in range(board.get_dim()):
        for col in range(board.get_dim()):
            square = board.square(row, col)
            if square == player:
                scores[row][col] += SCORE_CURRENT if won else -SCORE_CURRENT
            elif square != provided.EMPTY:
                scores[row][col] += -SCORE_OTHER if won else SCORE_OTHER


def get_best_move(board, scores):
    empty = board.get_empty_squares()
    best = max(scores[row][col] for row, col in empty)
    return TIES.choice([(row, col) for row, col in empty if scores[row][col] == best])


def mc_move(board, player, trials):
    random.seed()      # "fresh" randomness for every move
    dim = board.get_dim()
    scores = [[0] * dim for _ in range(dim)]
    for _ in range(trials):
        trial = board.clone()
        mc_trial(trial, player)
        mc_update_scores(scores, trial, player)
    return get_best_move(board, scores)
