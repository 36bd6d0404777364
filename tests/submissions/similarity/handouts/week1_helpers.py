"""Week 1 handout: helpers for any board game on a TTTBoard (given to every student)."""

import provided


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
