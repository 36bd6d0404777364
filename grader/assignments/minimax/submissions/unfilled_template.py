"""
Mini-max Tic-Tac-Toe player: the part you write.

Fill in mm_move below. To try it:

    python -m student check    # about a dozen public checks; each failure shows
                               # a call you can paste into Python to reproduce it
    python -m student          # play against your mm_move in the terminal (you are X)
"""

import provided
from provided import DRAW, EMPTY, PLAYERO, PLAYERX, TTTBoard, switch_player  # noqa: F401

# SCORING VALUES - DO NOT MODIFY
SCORES = {provided.PLAYERX: 1,
          provided.DRAW: 0,
          provided.PLAYERO: -1}


def mm_move(board: TTTBoard, player: int) -> tuple[int, tuple[int, int]]:
    """
    Return (score, (row, col)): the value of board with player to move,
    and a move for player that achieves it.

    - score is from X's side, one of the SCORES values: X maximises it,
      O minimises it, and both are assumed to play perfectly from here on.
    - (row, col) is an empty square; when several moves achieve the best
      score, any one of them is correct.
    - If the game is already over (board.check_win() is not None), return
      (SCORES[board.check_win()], (-1, -1)).
    - Do not change board: try moves on board.clone().
    - Work for any size (board.get_dim()) and for reverse boards (where
      completing a line loses): board.check_win() already knows the rules.

    Example (X completes the top row):

    >>> board = TTTBoard(3, False, [[PLAYERX, PLAYERX, EMPTY],
    ...                             [PLAYERO, PLAYERO, EMPTY],
    ...                             [EMPTY, EMPTY, EMPTY]])
    >>> mm_move(board, PLAYERX)    # doctest: +SKIP
    (1, (0, 2))
    """
    raise NotImplementedError(
        "mm_move is not written yet: open student/mm_player.py, fill in its body, "
        "then run `python -m student check`")


def move_wrapper(board: TTTBoard, player: int, trials: int) -> tuple[int, int]:
    """
    Wrapper to allow the use of the same infrastructure that was used
    for Monte Carlo Tic-Tac-Toe: returns only the move of mm_move.
    """
    move = mm_move(board, player)
    assert move[1] != (-1, -1), (
        "mm_move returned the move (-1, -1), which means 'the game is over', on a board "
        f"where the game is still going:\n{board}\nreturn (-1, -1) only when "
        "board.check_win() is not None")
    return move[1]


# Test game with the console (run from the project folder, not on import):
#     python -m student                       you are X, your mm_move is O
#     python -m student -x student.mm_player:move_wrapper -o human
# or, in Python: provided.play_game(move_wrapper, 1, False)
