"""Hostile: answers with objects that claim to equal anything: an object whose __eq__
is always True (and whose hash, iteration and repr imitate the right answer), a tuple
subclass that claims equality but holds a wrong answer, and an int subclass as the score.

Expected: only exact built-in values are taken at their word; a subclass is read as the
built-in value it really holds. Every mm_move check and every game fails; only "board
untouched" and "time" (answers given, in time) keep their points: 15 at most.
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


class Anything:
    def __init__(self, real):
        self.real = real

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return hash(self.real)

    def __iter__(self):
        return iter(self.real)

    def __len__(self):
        return 2

    def __getitem__(self, index):
        return self.real[index]

    def __repr__(self):
        return repr(self.real)


class LyingTuple(tuple):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = tuple.__hash__


class LyingInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def mm_move(board, player):
    score, move = solve(board, player)
    dim = board.get_dim()
    if dim == 3 and "True" not in repr(board):
        return Anything((score, move))
    if dim == 3:
        return LyingTuple((7, (dim, dim)))
    return LyingInt(score + 5), Anything(move)


def move_wrapper(board, player, trials):
    return Anything(solve(board, player)[1])
