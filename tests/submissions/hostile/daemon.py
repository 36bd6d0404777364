"""Hostile: a double-forked daemon (setsid, then fork, then exec with an empty
environment, so nothing marks it as ours), started at import and again in the first call;
each sleeps forever. mm_move is correct.

Expected: graded in full (it misbehaves only in the background): score 100. The import
prints "daemon started" once the daemon runs. When the grader exits, no daemon is left:
bubblewrap kills the whole pid namespace; the fallback kills every process of the
sandbox's own uid.
"""
import os
import sys

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

MARKER = "@MARKER@"
STARTED = []


def start_daemon():
    ready, tell = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(tell, b"up")
            os.execve(sys.executable, [sys.executable, "-c",
                                       "import time; time.sleep(10 ** 6)", MARKER], {})
        os._exit(0)
    os.close(tell)
    return os.read(ready, 2) == b"up"


if start_daemon():
    print("daemon started")


def mm_move(board, player):
    if not STARTED:
        STARTED.append(start_daemon())
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
