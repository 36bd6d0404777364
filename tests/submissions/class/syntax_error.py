"""Syntax error: a missing colon after the def line."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player)
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    return 0, board.get_empty_squares()[0]


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
