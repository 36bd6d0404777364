"""Bug: crashes with an exception on boards that are not empty."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player):
    if len(board.get_empty_squares()) < board.get_dim() ** 2:
        raise RuntimeError("I only know how to open a game")
    return 0, (board.get_dim() // 2, board.get_dim() // 2)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
