"""Correct but very slow: a plain minimax that copies the board with copy.deepcopy, not clone().

deepcopy walks everything the board holds (its cells and the size's line tables) at every
node, so each node costs about 80 times what a node calling clone() and check_win() costs.

Expected: right answers everywhere it is asked, but at about 20 times the course-style
reference it is over the factor-5 limit wherever speed is judged by ratio: the hardest 3x3
and 4x4 positions with 6 empty squares time out, and every position with as many or more
empty squares counts as too slow ("time" and the checks they belong to, and every game);
small positions pass. The same score on every run.
"""
import copy

from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best_score, best_move = None, (-1, -1)
    for row, col in board.get_empty_squares():
        child = copy.deepcopy(board)
        child.move(row, col, player)
        score, _ = mm_move(child, switch_player(player))
        if best_score is None or score * SCORES[player] > best_score * SCORES[player]:
            best_score, best_move = score, (row, col)
    return best_score, best_move


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
