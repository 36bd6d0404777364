"""Hostile: a background thread, started at import, that burns CPU forever, between
calls and during them; and one call (the empty 1x1 board) that just sleeps, using no CPU
itself.

Expected: a call is charged the CPU time of its whole process while it runs (every
thread); CPU burnt between calls is charged to no call. So the sleeping call is stopped by
its CPU limit, read from outside (or, when other processes share its CPU, by its active
time, the thread getting less than the whole CPU): it costs that call ("other sizes",
"time" and "board untouched" lose a check). The other calls are charged the thread's CPU
too while they run, so a long one may run out of time as well (how the two threads share
the GIL decides): no promise about the other items. Every restart ends the thread; the
grader exits 0 and nothing is left running.
"""
import threading
import time

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


def burn():
    while True:
        pass


threading.Thread(target=burn, daemon=True).start()


def mm_move(board, player):
    if repr(board) == ONE_BY_ONE:
        time.sleep(3600)
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
