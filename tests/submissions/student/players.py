"""Move functions for tests/test_console.py: well-behaved ones and ones that misbehave."""


def last_empty(board, player, trials):
    """Take the last empty square."""
    return board.get_empty_squares()[-1]


def off_board(board, player, trials):
    """Always answer a square that is not on a 3x3 board."""
    return (5, 5)


def crashes(board, player, trials):
    """Fail inside the move function, as a buggy student's code would."""
    return helper_that_fails(board)


def helper_that_fails(board):
    raise ValueError("something went wrong in the student's code")


def scribbles(board, player, trials):
    """Fill the board it is given, then answer the first square: the game must not see it."""
    first = board.get_empty_squares()[0]
    for row, col in board.get_empty_squares():
        board.move(row, col, player)
    return first


NOT_A_FUNCTION = 42
