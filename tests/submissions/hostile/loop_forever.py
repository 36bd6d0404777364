"""Hostile: an endless loop in every call.

Expected: every call is stopped at its CPU limit and costs that call; after a few the run's
time budget is spent and the remaining calls are not made. Score 0, the grader exits 0 with
a report, the worker is restarted after every timeout and nothing is left running.
"""


def mm_move(board, player):
    while True:
        pass


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
