"""Hostile: a correct but slow minimax (busy work, about 25 times the course-style reference)
that tries to escape CPU-time limits measured inside its own process: at import it makes
time.process_time, time.perf_counter, time.monotonic and resource.getrusage report zeros and
ignores SIGPROF and SIGXCPU, and every mm_move call disarms the profiling and virtual
interval timers.

Expected: the grader measures CPU time from outside the process, so the forgery changes
nothing: it is too slow exactly where an honest solution of the same speed is (every tier
judged by ratio: 6 empty squares and more), right on the small positions, and gets the same
score on every run.
"""
import resource
import signal
import time

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
BUSY_ROUNDS = 4200  # pointless work per node: about 100 plain minimax nodes' worth


def _zero(*args, **kwargs):
    return 0.0


def _zero_rusage(*args, **kwargs):
    return resource.struct_rusage((0.0, 0.0) + (0,) * 14)


for _name in ("process_time", "perf_counter", "monotonic"):
    try:
        setattr(time, _name, _zero)
    except Exception:
        pass
for _name in ("process_time_ns", "perf_counter_ns", "monotonic_ns"):
    try:
        setattr(time, _name, lambda *args: 0)
    except Exception:
        pass
try:
    resource.getrusage = _zero_rusage
except Exception:
    pass
for _signal in ("SIGPROF", "SIGXCPU"):
    try:
        signal.signal(getattr(signal, _signal), signal.SIG_IGN)
    except Exception:
        pass


def disarm_timers():
    for timer in ("ITIMER_PROF", "ITIMER_VIRTUAL"):
        try:
            signal.setitimer(getattr(signal, timer), 0)
        except Exception:
            pass


def search(board, player):
    """A correct plain minimax with busy work at every node: (score, (row, col))."""
    for _ in range(BUSY_ROUNDS):
        board.get_dim()
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best_score, best_move = None, (-1, -1)
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        score, _ = search(child, switch_player(player))
        if best_score is None or score * SCORES[player] > best_score * SCORES[player]:
            best_score, best_move = score, (row, col)
    return best_score, best_move


def mm_move(board, player):
    disarm_timers()
    return search(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
