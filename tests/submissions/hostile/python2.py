"""Hostile (old course code): Python 2.

Expected: load error of kind "python2" naming the first Python 2 line and its Python 3
spelling; score 0.
"""
import poc_ttt_provided as provided


def mm_move(board, player):
    print "thinking about", board
    return 0, (-1, -1)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
