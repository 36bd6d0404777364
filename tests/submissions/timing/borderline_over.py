"""Correct but too slow, though not by much: it scores every child, then, with more than two
moves left, searches every child AGAIN to find the moves with the best score (with two or
fewer it picks one from the scores), and a leftover loop runs at every node. Each level above
the last two doubles the work.

Expected: every call it finishes is right. With 6 empty squares it takes about 1.3 to 1.6
times its limit (6.5 to 8 times the course-style reference, a factor-5 limit): near enough
that those calls are measured again, and over: too slow from 6 empty squares on, in both
sizes and modes ("time", "scores", "moves", "other sizes", "reverse games", "game play");
2x2 and 1x1 boards stay right. The same score on every run, beside busy processes too.
"""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def child_of(board, move, player):
    child = board.clone()
    child.move(move[0], move[1], player)
    return child


def mm_move(board, player):
    for _ in range(20):  # left over from slowing the search down to watch it think
        board.get_dim()
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
    if len(moves) <= 2:
        return best, moves[scores.index(best)]
    # Now find the moves that get the best score (searching each child once more).
    best_moves = [move for move in moves
                  if mm_move(child_of(board, move, player), other)[0] == best]
    return best, best_moves[0]


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
