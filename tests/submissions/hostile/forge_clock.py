"""Hostile: forges every clock it can reach inside its process, then loops in one call.

At import it makes time.process_time, time.perf_counter, time.monotonic and
resource.getrusage report zero, ignores SIGPROF, SIGXCPU and SIGVTALRM, and in the call
on the empty 1x1 board disarms the interval timers and loops forever, swallowing every
exception.

Expected: the grader reads the worker's CPU time from outside (/proc), so none of this
changes anything: that call is stopped at its limit like any loop and costs that call
("other sizes", "time" and "board untouched" lose a check); every other item is full;
one timeout.
"""
import resource
import signal
import time

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
MEMO = {}

for name in ("process_time", "perf_counter", "monotonic"):
    setattr(time, name, lambda: 0.0)
resource.getrusage = lambda who: resource.struct_rusage((0.0,) * 16)
for signum in (signal.SIGPROF, signal.SIGXCPU, signal.SIGVTALRM):
    try:
        signal.signal(signum, signal.SIG_IGN)
    except (OSError, ValueError):
        pass


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


def mm_move(board, player):
    if repr(board) == ONE_BY_ONE:
        for timer in (signal.ITIMER_PROF, signal.ITIMER_VIRTUAL, signal.ITIMER_REAL):
            signal.setitimer(timer, 0)
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
