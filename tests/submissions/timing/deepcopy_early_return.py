"""Correct: a minimax that copies the board with copy.deepcopy at every node and returns as
soon as a move reaches the best score there is (1 for X, -1 for O): the style of the issue
that found deepcopy too expensive (it passed `python -m student check` 12/12, then scored
72.47 in the grader when deepcopy of the provided board cost 14 times the course's).

Expected: full marks on every run, beside busy processes too: the early return makes it
faster than a plain minimax.
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
        if score == SCORES[player]:
            return score, (row, col)  # nothing can beat a win
        if best_score is None or score * SCORES[player] > best_score * SCORES[player]:
            best_score, best_move = score, (row, col)
    return best_score, best_move


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
