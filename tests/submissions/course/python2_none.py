"""Python 2 habits that compile in Python 3 and fail when run: the best score starts at
None (Python 2 ordered None below every number), and a map() result is indexed.

Expected: every call raises; the failure says what changed in Python 3 and what to
write, with the line ("Python 2 ordered None below every number").
"""
import poc_ttt_provided as provided

SCORES = {provided.PLAYERX: 1, provided.DRAW: 0, provided.PLAYERO: -1}


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best_score, best_move = None, (-1, -1)
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        score = mm_move(child, provided.switch_player(player))[0] * SCORES[player]
        if score > best_score:
            best_score, best_move = score, (row, col)
    return best_score * SCORES[player], best_move


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
