"""Bug: never clones: every move of the search is played on the board it was given, so the
first line searched fills the board and every answer after it is read off a full board."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best = None
    for move in board.get_empty_squares():
        board.move(move[0], move[1], player)   # on the board itself: no clone, no undo
        score = mm_move(board, switch_player(player))[0]
        if best is None or score * SCORES[player] > best[0] * SCORES[player]:
            best = (score, move)
    return best


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
