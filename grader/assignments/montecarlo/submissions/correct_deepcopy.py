"""Correct, another style: copy.deepcopy per trial, random.randrange, scores by sign."""
import copy
import random

from provided import DRAW, EMPTY, switch_player

NTRIALS = 50
SCORE_CURRENT = 1.0
SCORE_OTHER = 1.0


def mc_trial(board, player):
    empty = board.get_empty_squares()
    while board.check_win() is None:
        row, col = empty.pop(random.randrange(len(empty)))
        board.move(row, col, player)
        player = switch_player(player)


def mc_update_scores(scores, board, player):
    winner = board.check_win()
    if winner in (None, DRAW):
        return
    sign = 1 if winner == player else -1
    dim = board.get_dim()
    for row in range(dim):
        for col in range(dim):
            square = board.square(row, col)
            if square == EMPTY:
                continue
            if square == player:
                scores[row][col] += sign * SCORE_CURRENT
            else:
                scores[row][col] -= sign * SCORE_OTHER


def get_best_move(board, scores):
    empty = board.get_empty_squares()
    best = max(scores[row][col] for row, col in empty)
    tied = [move for move in empty if scores[move[0]][move[1]] == best]
    return tied[random.randrange(len(tied))]


def mc_move(board, player, trials):
    dim = board.get_dim()
    scores = [[0.0] * dim for _ in range(dim)]
    for _ in range(trials):
        game = copy.deepcopy(board)
        mc_trial(game, player)
        mc_update_scores(scores, game, player)
    return get_best_move(board, scores)
