"""A wrong but fast submission: always the first empty square, always a draw."""


def mm_move(board, player):
    if board.check_win() is not None:
        return 0, (-1, -1)
    return 0, board.get_empty_squares()[0]


def move_wrapper(board, player, trials):
    return mm_move(board, player)[1]
