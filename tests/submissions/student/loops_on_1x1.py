"""Correct, except that it never returns on a 1x1 board."""

import provided

SCORES = {provided.PLAYERX: 1, provided.DRAW: 0, provided.PLAYERO: -1}


def mm_move(board, player):
    if board.get_dim() == 1:
        while True:
            pass
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best = None
    for row, col in board.get_empty_squares():
        trial = board.clone()
        trial.move(row, col, player)
        score = mm_move(trial, provided.switch_player(player))[0]
        if best is None or score * SCORES[player] > best[0] * SCORES[player]:
            best = (score, (row, col))
    return best
