"""Hostile: monkeypatches the course module so that every board is a draw:
TTTBoard.check_win returns DRAW on any full board and None otherwise, SCORES maps
everything to 0, switch_player is broken, and the answers follow from that.

Expected: the grader judges with its own solver, never with `provided`, so the patches
change nothing but this submission's own answers: well under 100; "scores" and "finished
boards" lose checks.
"""
import provided
import provided.board
from provided import DRAW

provided.board.TTTBoard.check_win = lambda self: None if self.get_empty_squares() else DRAW
provided.SCORES = provided.board.SCORES = {key: 0 for key in provided.SCORES}
provided.switch_player = lambda player: player


def mm_move(board, player):
    if board.check_win() is not None:
        return provided.SCORES[board.check_win()], (-1, -1)
    return 0, board.get_empty_squares()[0]


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
