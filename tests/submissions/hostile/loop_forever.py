"""Hostile: an endless loop in every call.

Expected: the first call of each small tier (finished boards, one empty square) is stopped
at its CPU limit, and every larger position of its size and mode is then not asked: too
slow. A few seconds per size and mode, whatever the budget. Score 0, the grader exits 0
with a report, the worker is restarted after every timeout and nothing is left running.
"""


def mm_move(board, player):
    while True:
        pass


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
