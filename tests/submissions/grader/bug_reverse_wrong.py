"""Bug: wrong only on reverse boards: it decides the winner itself, ignoring the mode."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def winner_of(board):
    dim = board.get_dim()
    lines = [[(r, c) for c in range(dim)] for r in range(dim)]
    lines += [[(r, c) for r in range(dim)] for c in range(dim)]
    lines += [[(i, i) for i in range(dim)], [(i, dim - 1 - i) for i in range(dim)]]
    for line in lines:
        marks = {board.square(r, c) for r, c in line}
        if len(marks) == 1 and marks != {1}:
            return marks.pop()
    return DRAW if not board.get_empty_squares() else None


def mm_move(board, player):
    winner = winner_of(board)
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
