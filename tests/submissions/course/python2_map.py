"""Python 2 habit that compiles in Python 3 and fails when run: map() is indexed (in
Python 2 it returned a list).

Expected: every call on a board in play raises; the failure says that map() returns an
iterator in Python 3 and to write list(map(...)).
"""
import poc_ttt_provided as provided

SCORES = {provided.PLAYERX: 1, provided.DRAW: 0, provided.PLAYERO: -1}


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    moves = map(tuple, board.get_empty_squares())
    first = moves[0]
    return 0, first


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
