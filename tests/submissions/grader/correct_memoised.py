"""Correct: remembers the value of every board it has seen (a list as the answer)."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
MEMO = {}


def mm_move(board, player):
    k = (repr(board), player)  # the repr holds the size, the mode and every square
    if k not in MEMO:
        MEMO[k] = search(board, player)
    return MEMO[k]


def search(board, player):
    winner = board.check_win()
    if winner is not None:
        return [SCORES[winner], [-1, -1]]
    best = None
    for move in board.get_empty_squares():
        child = board.clone()
        child.move(move[0], move[1], player)
        score = mm_move(child, switch_player(player))[0]
        if best is None or score * SCORES[player] > best[0] * SCORES[player]:
            best = [score, list(move)]
    return best


def move_wrapper(board, player, trials):
    return tuple(mm_move(board, player)[1])
