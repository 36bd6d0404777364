"""Correct but slow, near its limit: it scores every child, then, with more than three moves
left, searches every child AGAIN to find a move with the best score (with three or fewer it
picks one from the scores), and a leftover loop runs at every node. Each level above the
last three doubles the work.

Expected: every call it finishes is right. With 6 empty squares it takes about 0.8 of its
limit (about 4 times the course-style reference, a factor-5 limit): within, in both sizes
and modes, though near enough that those calls are measured again; with 7 it takes about
1.5 of it: too slow from 7 empty squares on ("time", "scores", "moves", "other sizes",
"reverse games", "game play"). The same score on every run, beside busy processes too.
"""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def child_of(board, move, player):
    child = board.clone()
    child.move(move[0], move[1], player)
    return child


def mm_move(board, player):
    for _ in range(16):  # left over from slowing the search down to watch it think
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
    if len(moves) <= 3:
        return best, moves[scores.index(best)]
    # Now find the moves that get the best score (searching each child once more).
    best_moves = [move for move in moves
                  if mm_move(child_of(board, move, player), other)[0] == best]
    return best, best_moves[0]


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
