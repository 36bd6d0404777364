"""Bug: loops forever on boards with a mark on them."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player):
    while len(board.get_empty_squares()) < board.get_dim() ** 2:
        pass
    return 0, (board.get_dim() // 2, board.get_dim() // 2)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
