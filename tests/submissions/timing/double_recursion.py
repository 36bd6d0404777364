"""Correct but exponentially slow: scores every child, then searches every child AGAIN to find
which move has the best score, so each level doubles the work (about 2**depth times a plain
minimax).

Expected: every call it finishes is right, and endgames are fast; but with 6 empty squares it
is already several times the course-style reference, past the factor-5 limit, so every
position from 6 empty squares on counts as too slow ("time", "scores", "moves", "reverse
games", "game play", the larger 4x4 endgames); 2x2 and 1x1 boards stay right. The same score
on every run.
"""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def child_of(board, move, player):
    child = board.clone()
    child.move(move[0], move[1], player)
    return child


def mm_move(board, player):
    winner = board.check_win()
    if winner is not None:
        return SCORES[winner], (-1, -1)
    moves = board.get_empty_squares()
    other = switch_player(player)
    scores = [mm_move(child_of(board, move, player), other)[0] for move in moves]
    if player == PLAYERX:
        best = max(scores)
    else:
        best = min(scores)
    # Now find a move that gets the best score (searching each child once more).
    best_moves = [move for move in moves
                  if mm_move(child_of(board, move, player), other)[0] == best]
    return best, best_moves[0]


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
