"""Bug: O maximises too (the sign error for O), and the search does pointless busy work at
every node, so it runs at about 60% of the time limit: about 3 times the grader's
course-style reference (a factor-5 limit), about 12 times a plain minimax calling
check_win().

Expected: no call times out ("time" full), on any run, beside busy processes too: it loses
points for its bug only, where O is to move ("scores", "moves", "other sizes", "reverse
games", "game play"); "finished boards" and "board untouched" stay full; the same score
every time.
"""
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
BUSY_ROUNDS = 500  # a leftover "slow it down to watch it think" loop


def pause(board):
    """Pointless work: the same cheap call, BUSY_ROUNDS times."""
    for _ in range(BUSY_ROUNDS):
        board.get_dim()


def mm_move(board, player):
    pause(board)
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
