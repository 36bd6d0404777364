"""Correct, written on a student's own machine with the desktop port of CodeSkulptor
(SimpleGUICS2Pygame) and the course's modules copied into a package of its own.

Expected: graded, full marks; the course's modules resolve under these paths too.
"""
import SimpleGUICS2Pygame.codeskulptor as codeskulptor
import SimpleGUICS2Pygame.simpleguics2pygame as simplegui
from poc.tic_tac_toe import poc_ttt_gui
from poc.tic_tac_toe import poc_ttt_provided as provided

codeskulptor.set_timeout(60)
FRAME = simplegui.create_frame("Tic-Tac-Toe", 300, 300)

SCORES = {provided.PLAYERX: 1, provided.DRAW: 0, provided.PLAYERO: -1}


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best_score, best_move = None, (-1, -1)
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        score = mm_move(child, provided.switch_player(player))[0]
        if best_score is None or score * SCORES[player] > best_score * SCORES[player]:
            best_score, best_move = score, (row, col)
            if score == SCORES[player]:
                break
    return best_score, best_move


def move_wrapper(board, player, trials):
    move = mm_move(board, player)
    assert move[1] != (-1, -1), "returned illegal move (-1, -1)"
    return move[1]


poc_ttt_gui.run_gui(3, provided.PLAYERO, move_wrapper, 1, False)
