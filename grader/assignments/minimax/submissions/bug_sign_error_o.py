"""Bug: O maximises too (the sign error for O)."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best = None
    for move in board.get_empty_squares():
        child = board.clone()
        child.move(move[0], move[1], player)
        score = mm_move(child, switch_player(player))[0]
        if best is None or score > best[0]:
            best = (score, move)
    return best


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
