"""A buggy mm_move: O maximises too (a sign error), and it prints while it searches."""

import provided

SCORES = {provided.PLAYERX: 1, provided.DRAW: 0, provided.PLAYERO: -1}


def mm_move(board, player):
    print("thinking...")  # must not garble the checker's answers
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best = None
    for row, col in board.get_empty_squares():
        trial = board.clone()
        trial.move(row, col, player)
        score = mm_move(trial, provided.switch_player(player))[0]
        if best is None or score > best[0]:  # the bug: should be < for PLAYERO
            best = (score, (row, col))
    return best
