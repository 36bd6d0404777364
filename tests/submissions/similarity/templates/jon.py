"""Jon's minimax."""
import provided
from provided import DRAW, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
MEMO = {}


def board_key(board):
    """A hashable key for the board: its size, its mode and every square."""
    dim = board.get_dim()
    cells = tuple(board.square(row, col) for row in range(dim) for col in range(dim))
    return dim, repr(board), cells


def lines_of(board):
    """Every row, column and diagonal of the board as a list of squares."""
    dim = board.get_dim()
    lines = [[(row, col) for col in range(dim)] for row in range(dim)]
    lines += [[(row, col) for row in range(dim)] for col in range(dim)]
    lines.append([(index, index) for index in range(dim)])
    lines.append([(index, dim - 1 - index) for index in range(dim)])
    return lines


def count_marks(board, line, player):
    """How many of the squares of line hold player's mark."""
    return sum(1 for row, col in line if board.square(row, col) == player)


def threats(board, player):
    """Lines where player has every mark but one and the last square is empty."""
    dim = board.get_dim()
    return [line for line in lines_of(board)
            if count_marks(board, line, player) == dim - 1
            and count_marks(board, line, provided.EMPTY) == 1]


def mm_move(board, player):
    """Negamax with the opponent's threats looked at first."""
    if board.check_win() is not None:
        return SCORES[board.check_win()], (-1, -1)
    urgent = [square for line in threats(board, switch_player(player)) for square in line
              if board.square(*square) == provided.EMPTY]
    order = urgent + [square for square in board.get_empty_squares() if square not in urgent]
    sign = 1 if player == PLAYERX else -1
    top, choice = -2, order[0]
    for square in order:
        trial = board.clone()
        trial.move(square[0], square[1], player)
        value = sign * mm_move(trial, switch_player(player))[0]
        if value > top:
            top, choice = value, square
        if top == 1:
            break
    return sign * top, choice


def move_wrapper(board, player, trials):
    move = mm_move(board, player)
    return move[1]
