"""Hostile: in every call, SIGKILL to its parent, to pid 1, and to its parent's
process group (under bubblewrap the parent is bubblewrap's init; in the fallback it is the
worker's supervisor, which keeps the grader's uid). Failures are ignored and the answer is
correct.

Expected: every kill is refused (another uid; Landlock scopes signals to the sandbox;
a pid namespace's init ignores them): the grader is untouched and the score is 100.
"""
import os
import signal

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


def mm_move(board, player):
    for target in (lambda: os.kill(os.getppid(), signal.SIGKILL),
                   lambda: os.kill(1, signal.SIGKILL),
                   lambda: os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
