"""
Mini-max Tic-Tac-Toe Player, tested with the course's poc_simpletest
"""

import poc_ttt_gui
import poc_ttt_provided as provided
import poc_simpletest

# Set timeout, as mini-max can take a long time
import codeskulptor
codeskulptor.set_timeout(60)

# SCORING VALUES - DO NOT MODIFY
SCORES = {provided.PLAYERX: 1,
          provided.DRAW: 0,
          provided.PLAYERO: -1}

def mm_move(board, player):
    """
    Make a move on the board.

    Returns a tuple with two elements.  The first element is the score
    of the given board and the second element is the desired move as a
    tuple, (row, col).
    """
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
    """
    Wrapper to allow the use of the same infrastructure that was used
    for Monte Carlo Tic-Tac-Toe.
    """
    move = mm_move(board, player)
    assert move[1] != (-1, -1), "returned illegal move (-1, -1)"
    return move[1]

def run_suite():
    """
    Some informal testing code, run when the file is imported
    """
    suite = poc_simpletest.TestSuite()
    board = provided.TTTBoard(3, False, [[provided.PLAYERX, provided.PLAYERX, provided.EMPTY],
                                         [provided.PLAYERO, provided.PLAYERO, provided.EMPTY],
                                         [provided.EMPTY, provided.EMPTY, provided.EMPTY]])
    suite.run_test(mm_move(board, provided.PLAYERX), (1, (0, 2)), "Test #1: X wins now")
    suite.run_test(mm_move(board, provided.PLAYERO), (-1, (0, 2)), "Test #2: O wins")
    full = provided.TTTBoard(1, False, [[provided.PLAYERX]])
    suite.run_test(mm_move(full, provided.PLAYERO), (1, (-1, -1)), "Test #3: game over")
    suite.report_results()

run_suite()

# poc_ttt_gui.run_gui(3, provided.PLAYERO, move_wrapper, 1, False)
