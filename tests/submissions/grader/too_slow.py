"""Correct but about 40 times slower than the reference, a plain minimax on a course-style
board (busy work at every node): too slow wherever speed is judged."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def mm_move(board, player):
    for _ in range(10_000):  # pointless work: as slow as ~40 nodes of the reference
        board.get_dim()
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best = None
    for move in board.get_empty_squares():
        child = board.clone()
        child.move(move[0], move[1], player)
        score = mm_move(child, switch_player(player))[0]
        if best is None or score * SCORES[player] > best[0] * SCORES[player]:
            best = (score, move)
    return best


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
