"""Hostile: a segmentation fault through ctypes (reading address 0) on every 4x4
board; correct everywhere else.

Expected: a crash (killed by SIGSEGV). Each such call costs that call only (the worker is
restarted): "other sizes" (4x4 endgames) and "finished boards" (one 4x4 board) lose checks;
scores, moves, reverse games, game play and time stay full.
"""
import ctypes

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
    if board.get_dim() == 4:
        ctypes.string_at(0)
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
