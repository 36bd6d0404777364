"""Correct: a plain minimax that copies the board with copy.deepcopy, not clone(), at every
node, with no pruning and no early return.

On the course's own board deepcopy costs a few times what clone() does, so this search takes
about twice the reference the limits are measured against (a plain minimax with clone() on a
course-style board): well inside the factor-5 limit. The provided board copies as cheaply
under deepcopy as under clone() (it shares the size's line tables), so here it is faster
still.

Expected: full marks on every run, beside busy processes too.
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
