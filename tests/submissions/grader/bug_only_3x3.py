"""Bug: assumes a 3x3 board."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best = None
    for row in range(3):
        for col in range(3):
            if board.square(row, col) != 1:
                continue
            child = board.clone()
            child.move(row, col, player)
            score = mm_move(child, switch_player(player))[0]
            if best is None or score * SCORES[player] > best[0] * SCORES[player]:
                best = (score, (row, col))
    return best


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
