"""Hostile: memory bombs. On every 4x4 board it asks for a terabyte at once (a
bytearray); on the empty 1x1 board it fills memory for real, 1 MiB block after block.

Expected: the address-space limit (1 GiB) makes both raise MemoryError (the filling one
may instead run out of CPU time first): an exception, which costs that call only. "other
sizes" (4x4 endgames, 1x1) and "finished boards" (one 4x4 board) lose checks; scores,
moves, reverse games, game play and board untouched stay full.
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

# The one position the trigger picks: the empty 1x1 board of the "other sizes" item.
ONE_BY_ONE = "TTTBoard(1, False, [[EMPTY]])"


def mm_move(board, player):
    if board.get_dim() == 4:
        bytearray(1 << 40)
    if repr(board) == ONE_BY_ONE:
        blocks = []
        while True:
            blocks.append(bytes(1 << 20) + b"x")
    return solve(board, player)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
