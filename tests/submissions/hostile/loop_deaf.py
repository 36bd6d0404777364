"""Hostile: a loop that ignores CPU-limit signals and swallows every exception.

Expected: the grader reads its CPU time from outside and kills it at its limit, signals
or not; that costs the one call it happens in (the empty 1x1 board): "other sizes" and
"time" lose a check, every other item is full.
"""
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

# The one position the trigger picks: the empty 1x1 board of the "other sizes" item.
ONE_BY_ONE = "TTTBoard(1, False, [[EMPTY]])"


def mm_move(board, player):
    if repr(board) == ONE_BY_ONE:
        signal.signal(signal.SIGPROF, signal.SIG_IGN)
        signal.setitimer(signal.ITIMER_PROF, 0)
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
