"""Correct: minimax with alpha-beta pruning."""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def alphabeta(board, player, alpha, beta):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best_move = (-1, -1)
    if player == PLAYERX:
        value = -2
        for row, col in board.get_empty_squares():
            child = board.clone()
            child.move(row, col, player)
            score = alphabeta(child, PLAYERO, alpha, beta)[0]
            if score > value:
                value, best_move = score, (row, col)
            alpha = max(alpha, value)
            if alpha >= beta:
                break
    else:
        value = 2
        for row, col in board.get_empty_squares():
            child = board.clone()
            child.move(row, col, player)
            score = alphabeta(child, PLAYERX, alpha, beta)[0]
            if score < value:
                value, best_move = score, (row, col)
            beta = min(beta, value)
            if alpha >= beta:
                break
    return value, best_move


def mm_move(board, player):
    return alphabeta(board, player, -2, 2)


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
