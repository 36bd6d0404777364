"""Bug: no base case: never looks at check_win, so finished boards break it."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player):
    best = None
    for move in board.get_empty_squares():
        child = board.clone()
        child.move(move[0], move[1], player)
        if child.check_win() is not None:
            score = SCORES[child.check_win()]
        else:
            score = mm_move(child, switch_player(player))[0]
        if best is None or score * SCORES[player] > best[0] * SCORES[player]:
            best = (score, move)
    return best


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
