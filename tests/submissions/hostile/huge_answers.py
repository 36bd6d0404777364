"""Hostile: enormous answers: a tuple of a hundred thousand ints, a tuple nested 100,000 deep,
a list that contains itself, an int of a million digits, a 100 MB string, and an exception
whose message is 100 MB long.

Expected: the worker encodes only a bounded part of any answer and of any message; the
grader reads it, judges it wrong and goes on. Every answer item fails, the grader exits 0
and results.json stays small. "board untouched" keeps its points.
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


BIG = 10 ** (10 ** 6)


def nested(depth):
    value = (0, (0, 0))
    for _ in range(depth):
        value = (value, 0)
    return value


def mm_move(board, player):
    dim = board.get_dim()
    reverse = "True" in repr(board)
    if dim == 3 and not reverse:
        return tuple(range(10 ** 5))
    if dim == 3:
        return nested(10 ** 5)
    if dim == 2:
        itself = [0]
        itself.append(itself)
        return itself
    if dim == 4:
        return BIG, (0, 0)
    if reverse:
        raise ValueError("y" * (10 ** 8))
    return "x" * (10 ** 8)


def move_wrapper(board, player, trials):
    return tuple(range(10 ** 5))
