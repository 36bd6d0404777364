"""The helper module of mc_player.py beside it: the random play-outs and the best squares."""

import random

from provided import switch_player


def play_out(board, player):
    """Play random alternating moves on board until the game is over."""
    while board.check_win() is None:
        row, col = random.choice(board.get_empty_squares())
        board.move(row, col, player)
        player = switch_player(player)


def best_squares(board, scores):
    """The empty squares of the highest score."""
    empty = board.get_empty_squares()
    best = max(scores[row][col] for row, col in empty)
    return [(row, col) for row, col in empty if scores[row][col] == best]


def add_scores(scores, board, won, player, weights):
    """Add each square's score for player to scores: up for the winner's squares, down
    for the loser's (weights: the scores of the current player's and the other's)."""
    sign = 1 if won else -1
    dim = board.get_dim()
    for square in range(dim * dim):
        row, col = divmod(square, dim)
        owner = board.square(row, col)
        if owner == player:
            scores[row][col] += sign * weights[0]
        elif owner == switch_player(player):
            scores[row][col] -= sign * weights[1]
