"""The window's game, without tkinter: whose turn, the clicks, the machine's moves, the texts.

:class:`GuiGame` holds the rules and every text the window shows; the window
(:mod:`provided.gui`) only draws it and forwards clicks, so the tests play whole games
with it, without a display.

>>> game = GuiGame(1, PLAYERO)
>>> game.click(0, 0), game.status_text()
(True, 'X wins!')
"""

from __future__ import annotations

from typing import Any

from provided.board import EMPTY, PLAYERO, PLAYERX, STRMAP, TTTBoard, switch_player
from provided.game import IllegalMoveError, MoveFunction, check_legal, result_text

Move = tuple[int, int]


class GuiGame:
    """One game in the window: the board, whose turn, the texts shown; no tkinter here.

    The person plays the side that is not ``ai_player``. A machine move is asked in two
    steps, so the window can run it in a thread: :meth:`start_thinking` gives a ticket and
    a copy of the board, and :meth:`machine_move` (or :meth:`machine_failed`) brings the
    answer back; an answer for a game that :meth:`new_game` has since replaced is ignored.

    >>> game = GuiGame(1, PLAYERX, reverse=True)
    >>> game.machine_turn(), game.status_text()
    (True, 'X (the machine) is thinking...')
    >>> ticket, board = game.start_thinking()
    >>> game.click(0, 0), game.message
    (False, 'Please wait: X (the machine) is thinking.')
    >>> game.machine_move((0, 0), ticket)
    True
    >>> game.result_text()
    'O wins! (X completed a line, which loses in the reverse game)'
    """

    def __init__(self, board_size: int, ai_player: int, reverse: bool = False,
                 ai_name: str = "the machine") -> None:
        if type(board_size) is not int or board_size < 1:
            raise ValueError(f"board_size must be a whole number >= 1, got {board_size!r}")
        if ai_player not in (PLAYERX, PLAYERO):
            raise ValueError(
                f"ai_player must be PLAYERX (2) or PLAYERO (3), got {ai_player!r}")
        self.dim = board_size
        self.ai_player = ai_player
        self.human = switch_player(ai_player)
        self.reverse = bool(reverse)
        self.ai_name = ai_name
        self.ticket = 0
        self.new_game()

    def new_game(self) -> None:
        """Start again on an empty board, X to move; a pending machine answer is dropped."""
        self.board = TTTBoard(self.dim, self.reverse)
        self.to_move = PLAYERX
        self.winner: int | None = None
        self.last_move: Move | None = None
        self.moves: list[Move] = []
        self.error: str | None = None
        self.message = ""
        self.thinking = False
        self.ticket += 1

    # -- state ----------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True when the game ended (a result) or was stopped (an error)."""
        return self.winner is not None or self.error is not None

    def machine_turn(self) -> bool:
        """True when the machine should be asked for a move and has not been yet."""
        return not self.over and self.to_move == self.ai_player and not self.thinking

    def _machine(self) -> str:
        return f"{STRMAP[self.ai_player]} ({self.ai_name})"

    def result_text(self) -> str | None:
        """The course's words for the result ("X wins!", "O wins!", "Tie!"), or None.

        In a reverse game a win says why: "O wins! (X completed a line, ...)".
        """
        if self.winner is None:
            return None
        last_mover = switch_player(self.to_move)
        return result_text(self.winner, last_mover)

    def status_text(self) -> str:
        """The main line under the board: whose turn, thinking, the result, or the error."""
        if self.error is not None:
            return f"Game stopped: {self.error}"
        if self.winner is not None:
            return self.result_text()  # type: ignore[return-value]
        if self.to_move == self.human:
            return f"Your turn ({STRMAP[self.human]}): click a square."
        return f"{self._machine()} is thinking..."

    def info_text(self) -> str:
        """Who is who (and the reverse rule), shown above the board."""
        text = (f"You are {STRMAP[self.human]}; the machine ({self.ai_name}) is "
                f"{STRMAP[self.ai_player]}. X moves first.")
        if self.reverse:
            text += " Reverse game: whoever completes a line loses."
        return text

    def title(self) -> str:
        """The window's title: the board size and a short status.

        >>> GuiGame(4, PLAYERX).title()
        'Tic-Tac-Toe 4x4: X thinking...'
        """
        if self.error is not None:
            short = "game stopped"
        elif self.winner is not None:
            short = self.result_text().split(" (")[0]  # type: ignore[union-attr]
        elif self.to_move == self.human:
            short = "your turn"
        else:
            short = f"{STRMAP[self.ai_player]} thinking..."
        return f"Tic-Tac-Toe {self.dim}x{self.dim}: {short}"

    def winning_line(self) -> list[Move] | None:
        """The squares of the line that decided the game, in the course's scan order, if any.

        >>> game = GuiGame(2, PLAYERO)
        >>> game.click(0, 1); game.play_machine(lambda b, p, t: (1, 1), 1); game.click(0, 0)
        True
        True
        True
        >>> game.winning_line()
        [(0, 0), (0, 1)]
        """
        if self.winner is None:
            return None
        dim = self.dim
        lines = [[(r, c) for c in range(dim)] for r in range(dim)]
        lines += [[(r, c) for r in range(dim)] for c in range(dim)]
        lines.append([(i, i) for i in range(dim)])
        lines.append([(i, dim - 1 - i) for i in range(dim)])
        for line in lines:
            marks = {self.board.square(r, c) for r, c in line}
            if len(marks) == 1 and EMPTY not in marks:
                return line
        return None  # a tie

    # -- moves ----------------------------------------------------------------------------

    def _play(self, row: int, col: int) -> None:
        self.board.move(row, col, self.to_move)
        self.moves.append((row, col))
        self.last_move = (row, col)
        self.winner = self.board.check_win()
        self.to_move = switch_player(self.to_move)
        self.message = "Click New game to play again." if self.winner is not None else ""

    def click(self, row: int, col: int) -> bool:
        """The person clicked (row, col): play it and return True, or say why not and return False.

        >>> game = GuiGame(3, PLAYERO)
        >>> game.click(1, 1), game.click(1, 1), game.message
        (True, False, 'Please wait: O (the machine) is thinking.')
        """
        if self.error is not None:
            self.message = "This game was stopped: click New game to play again."
            return False
        if self.winner is not None:
            self.message = "The game is over: click New game to play again."
            return False
        if self.to_move != self.human:
            self.message = f"Please wait: {self._machine()} is thinking."
            return False
        if not (0 <= row < self.dim and 0 <= col < self.dim):
            self.message = f"({row}, {col}) is not a square of this board."
            return False
        taken = self.board.square(row, col)
        if taken != EMPTY:
            self.message = f"({row}, {col}) is taken by {STRMAP[taken]}: choose an empty square."
            return False
        self._play(row, col)
        return True

    def start_thinking(self) -> tuple[int, TTTBoard]:
        """Mark the machine as thinking; return the game's ticket and a copy of the board."""
        if not self.machine_turn():
            raise RuntimeError("it is not the machine's turn")
        self.thinking = True
        return self.ticket, self.board.clone()

    def machine_move(self, answer: Any, ticket: int) -> bool:
        """Play the machine's answer; an illegal one stops the game (see :attr:`error`).

        Returns True if the move was played, False if it was illegal or the answer
        belongs to an earlier game (then it is ignored).
        """
        if ticket != self.ticket or not self.thinking:
            return False
        self.thinking = False
        try:
            row, col = check_legal(self.board, self.ai_player, answer)
        except IllegalMoveError:
            self._stop(f"{self._machine()} returned {_short_repr(answer)}, "
                       f"{_why_illegal(self.board, answer)}.")
            return False
        self._play(row, col)
        return True

    def machine_failed(self, exc: BaseException, ticket: int) -> bool:
        """The move function raised ``exc``: stop the game and say so (False if stale)."""
        if ticket != self.ticket or not self.thinking:
            return False
        self.thinking = False
        self._stop(f"{self._machine()} raised {type(exc).__name__}: {exc}")
        return True

    def _stop(self, error: str) -> None:
        self.error = error
        self.message = "Click New game to play again."

    def play_machine(self, ai_function: MoveFunction, ntrials: int) -> bool:
        """Ask ``ai_function`` for the machine's move here and now (no thread); True if played."""
        ticket, board = self.start_thinking()
        try:
            answer = ai_function(board, self.ai_player, ntrials)
        except Exception as exc:
            self.machine_failed(exc, ticket)
            return False
        return self.machine_move(answer, ticket)


def _short_repr(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _why_illegal(board: TTTBoard, answer: Any) -> str:
    """Why ``answer`` is not a legal move on ``board`` (a clause for the error message).

    >>> _why_illegal(TTTBoard(3), (5, 5))
    'which is off the 3x3 board (rows and columns go from 0 to 2)'
    """
    try:
        row, col = answer
    except (TypeError, ValueError):
        return "which is not a (row, col) pair"
    if type(row) is not int or type(col) is not int:
        return "which is not a pair of whole numbers"
    dim = board.get_dim()
    if not (0 <= row < dim and 0 <= col < dim):
        return f"which is off the {dim}x{dim} board (rows and columns go from 0 to {dim - 1})"
    return f"but ({row}, {col}) is taken by {STRMAP[board.square(row, col)]}"
