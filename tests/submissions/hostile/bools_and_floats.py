"""Hostile (or just sloppy): right values in the wrong types: floats on 3x3 boards
(1.0, (0.0, 2.0)), and on other sizes bools for the score (True for 1, False for 0).

Expected: a float that is a whole number is forgiven, with a note ("was accepted where an
int was expected"); a bool is not an int here ("is a bool"): "scores" and "moves" are full,
"other sizes" loses checks.
"""
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
    score, (row, col) = solve(board, player)
    if board.get_dim() == 3:
        return float(score), (float(row), float(col))
    return (score == 1 if score >= 0 else score), (row, col)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
