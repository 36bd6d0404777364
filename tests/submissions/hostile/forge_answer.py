"""Hostile: forges the worker's answers: digs the request's token out of the worker's
frame and writes its own answer line, claiming score 1, move (0, 0) and no CPU time, to
every descriptor it can find, then returns the true answer as well.

Expected: a forged line is just an answer, judged by the grader's own solver like any
other, so it buys nothing: positions whose value is not 1 or whose best move is not (0, 0)
fail, and the true answers arriving after the forged ones break the channel (a crash, the
worker is restarted). The score stays well under 100.
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


def mm_move(board, player):
    frame = sys._getframe(1)
    token = frame.f_locals.get("request", {}).get("tok", "0")
    line = ('{"tok": "%s", "status": "ok", "cpu": 0, "board": null, "answer": '
            '{"t": "tuple", "v": [{"t": "int", "v": 1}, {"t": "tuple", "v": '
            '[{"t": "int", "v": 0}, {"t": "int", "v": 0}]}]}}\n' % token).encode()
    for fd in range(3, 4096):
        try:
            os.write(fd, line)
        except OSError:
            pass
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
