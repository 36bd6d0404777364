"""Hostile: prints its whole environment at import and shows it in an exception on the
empty 1x1 board, hoping for the grader's secrets (TTT_GRADER_SECRET and the like).

Expected: the environment is scrubbed (PATH, LANG, HOME, TMPDIR and little more), so no
secret appears anywhere in the report; the exception costs that one call ("other sizes"
loses a check), every other item is full.
"""
import os

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

print("ENVIRONMENT:", dict(os.environ))


def mm_move(board, player):
    if repr(board) == ONE_BY_ONE:
        raise RuntimeError("ENVIRONMENT: %r" % dict(os.environ))
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
