"""The course's ``play_game``: one 3x3 game, both sides chosen by one move function.

>>> play_game(lambda board, player, trials: board.get_empty_squares()[0], 1)  # doctest: +ELLIPSIS
X |   |  
...
X wins!
"""

from __future__ import annotations

from collections.abc import Callable

from provided.board import DRAW, PLAYERO, PLAYERX, STRMAP, TTTBoard, switch_player

MoveFunction = Callable[[TTTBoard, int, int], tuple[int, int]]


def result_text(winner: int, last_mover: int) -> str:
    """The course's last line of a game; when the last mover lost, the reverse rule is why.

    >>> result_text(PLAYERO, last_mover=PLAYERX)
    'O wins! (X completed a line, which loses in the reverse game)'
    """
    if winner == DRAW:
        return "Tie!"
    text = f"{STRMAP[winner]} wins!"
    if winner != last_mover:
        text += f" ({STRMAP[last_mover]} completed a line, which loses in the reverse game)"
    return text


class IllegalMoveError(ValueError):
    """A move function chose a square that is off the board, taken, or not a (row, col) pair."""


def check_legal(board: TTTBoard, player: int, move: object) -> tuple[int, int]:
    """Return ``move`` as (row, col) if ``player`` may play it on ``board``, else raise.

    >>> check_legal(TTTBoard(3), PLAYERX, (1, 1))
    (1, 1)
    """
    try:
        row, col = move  # type: ignore[misc]
        legal = (type(row) is int and type(col) is int
                 and (row, col) in board.get_empty_squares())
    except (TypeError, ValueError):
        legal = False
    if not legal:
        raise IllegalMoveError(
            f"{STRMAP[player]} chose {move!r}, which is not an empty square of this board:\n"
            f"{board}legal moves: {board.get_empty_squares()}")
    return row, col


def play_game(move_function: MoveFunction, ntrials: int, reverse: bool = False) -> None:
    """Play one 3x3 game, printing the board after every move and the result."""
    board = TTTBoard(3, reverse)
    player = PLAYERX
    winner = None
    while winner is None:
        row, col = check_legal(board, player, move_function(board, player, ntrials))
        board.move(row, col, player)
        winner = board.check_win()
        player = switch_player(player)
        print(board)
        print()
    if winner == PLAYERX:
        print("X wins!")
    elif winner == PLAYERO:
        print("O wins!")
    elif winner == DRAW:
        print("Tie!")
