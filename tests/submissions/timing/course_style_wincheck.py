"""Correct: a plain minimax with its own winner check, written like the course's original board.

It does not ask board.check_win() at every node: its helper builds the rows, the columns and
the two diagonals as lists of board.square(row, col) values and looks for a line of one mark
(`len(set(line)) == 1`), as the course's board did. That helper cannot know the mode, so on a
board where it found a line it calls check_win() once to learn whether the line's owner won
(normal) or lost (reverse). Clone at every step, no pruning, no memo.

Expected: full marks on every run, beside busy processes too. It runs at about 1.5 times the
reference the limits are measured against (a plain minimax on the course's own board, several
times slower than one calling check_win() on ours), far from the factor-5 limit.
"""
from provided import DRAW, EMPTY, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}


def line_owner(board):
    """Return the player who fills a whole row, column or diagonal, or None."""
    dim = board.get_dim()
    dimrng = range(dim)
    lines = []
    lines.extend([[board.square(row, col) for col in dimrng] for row in dimrng])
    lines.extend([[board.square(row, col) for row in dimrng] for col in dimrng])
    lines.append([board.square(idx, idx) for idx in dimrng])
    lines.append([board.square(idx, dim - idx - 1) for idx in dimrng])
    for line in lines:
        if len(set(line)) == 1 and line[0] != EMPTY:
            return line[0]
    return None


def game_over(board):
    """Return PLAYERX, PLAYERO or DRAW when the game is over, None while it goes on."""
    owner = line_owner(board)
    if owner is not None:
        # In a reverse game completing a line loses; only the board knows the mode.
        reverse = board.check_win() != owner
        return switch_player(owner) if reverse else owner
    if not board.get_empty_squares():
        return DRAW
    return None


def mm_move(board, player):
    winner = game_over(board)
    if winner is not None:
        return SCORES[winner], (-1, -1)
    best_score, best_move = None, (-1, -1)
    for row, col in board.get_empty_squares():
        child = board.clone()
        child.move(row, col, player)
        score, _ = mm_move(child, switch_player(player))
        if best_score is None or score * SCORES[player] > best_score * SCORES[player]:
            best_score, best_move = score, (row, col)
    return best_score, best_move


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
