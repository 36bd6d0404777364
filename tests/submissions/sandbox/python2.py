"""
Mini-max Tic-Tac-Toe Player, written for Python 2 (CodeSkulptor ran Python 2).
"""

import poc_ttt_gui
import poc_ttt_provided as provided
import codeskulptor
codeskulptor.set_timeout(60)

SCORES = {provided.PLAYERX: 1,
          provided.DRAW: 0,
          provided.PLAYERO: -1}


def mm_move(board, player):
    """
    Make a move on the board.
    """
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    print "thinking about", board
    best = None
    for move in board.get_empty_squares():
        child = board.clone()
        child.move(move[0], move[1], player)
        score = mm_move(child, provided.switch_player(player))[0]
        if best is None or score * SCORES[player] > best[0] * SCORES[player]:
            best = (score, move)
    return best


def move_wrapper(board, player, trials):
    """
    Wrapper for play_game and run_gui.
    """
    move = mm_move(board, player)
    assert move[1] != (-1, -1), "returned illegal move (-1, -1)"
    return move[1]

#provided.play_game(move_wrapper, 1, False)
#poc_ttt_gui.run_gui(3, provided.PLAYERO, move_wrapper, 1, False)
