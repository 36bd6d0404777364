"""Crash: ends its own process with os._exit(1) in every mm_move call (a leftover debug exit)."""
import os

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player):
    print(board)
    os._exit(1)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
