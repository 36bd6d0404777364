"""Hostile (an old editor): saved as Latin-1, not UTF-8.

Expected: load error of kind "encoding" naming the line and the byte; score 0.
"""
# Joueur minimax écrit en café


def mm_move(board, player):
    return 0, (-1, -1)
