"""Hostile: a correct but slow minimax (the search of double_recursion.py: it scores every
child, then searches every child again to find the move) that tries to escape CPU-time
limits measured inside its own process: at import it makes time.process_time,
time.perf_counter, time.monotonic and resource.getrusage report zeros and ignores SIGPROF
and SIGXCPU, and every mm_move call disarms the profiling and virtual interval timers.

Expected: the grader measures CPU time from outside the process, so the forgery changes
nothing: it gets what the honest double_recursion.py gets, on every run: too slow from 6
empty squares on, right on the small positions.
"""
import resource
import signal
import time

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


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


def child_of(board, move, player):
    child = board.clone()
    child.move(move[0], move[1], player)
    return child


def search(board, player):
    """A correct minimax that searches every child twice: (score, (row, col))."""
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    moves = board.get_empty_squares()
    other = switch_player(player)
    scores = [search(child_of(board, move, player), other)[0] for move in moves]
    if player == PLAYERX:
        best = max(scores)
    else:
        best = min(scores)
    # Now find a move that gets the best score (searching each child once more).
    best_moves = [move for move in moves
                  if search(child_of(board, move, player), other)[0] == best]
    return best, best_moves[0]


def mm_move(board, player):
    disarm_timers()
    return search(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
