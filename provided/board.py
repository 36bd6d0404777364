"""The course's Tic-Tac-Toe board, exactly compatible and fast.

Students' searches spend nearly all their time in this class, so no operation
costs more than on the course's board (tests/benchmarks/bench_board.py), and
``check_win`` keeps what it learnt instead of rescanning the grid: it checks only
the lines through the squares played since it was last asked, and remembers the
first complete line in the course's scan order (rows, columns, main diagonal,
anti-diagonal).

>>> board = TTTBoard(3)
>>> board.move(1, 1, PLAYERX)
>>> board.square(1, 1) == PLAYERX, board.check_win() is None
(True, True)
"""

from __future__ import annotations

from copy import deepcopy
from functools import lru_cache
from itertools import chain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see provided.game)
if TYPE_CHECKING:
    from typing import Any, Sequence

EMPTY = 1
PLAYERX = 2
PLAYERO = 3
DRAW = 4

STRMAP = {EMPTY: " ", PLAYERX: "X", PLAYERO: "O"}
SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}

NAMES = {EMPTY: "EMPTY", PLAYERX: "PLAYERX", PLAYERO: "PLAYERO", DRAW: "DRAW"}
_OTHER = {PLAYERX: PLAYERO, PLAYERO: PLAYERX}
_flat = chain.from_iterable  # the cells of a list of rows, row by row
_NO_LINE = 1 << 30  # "no complete line yet": larger than any line number
_ALL = "every square"  # TTTBoard._pending: check every line, not only one square's


def describe(value: Any) -> str:
    """Name a cell or player value for an error message.

    >>> describe(2), describe("x")
    ('2 (PLAYERX)', "'x' (str)")
    """
    if type(value) is int and value in NAMES:
        return f"{value} ({NAMES[value]})"
    return f"{value!r} ({type(value).__name__})"


def switch_player(player: int) -> int:
    """Return the other player.

    >>> switch_player(PLAYERX) == PLAYERO
    True
    """
    try:
        return _OTHER[player]
    except (KeyError, TypeError):
        raise ValueError(
            f"player must be PLAYERX (2) or PLAYERO (3), got {describe(player)}"
        ) from None


class _Geometry:
    """What depends only on the size: coordinates and lines, shared by every board of it.

    Built once per size and never changed, so copies of a board share it.
    """

    def __init__(self, dim: int) -> None:
        self.squares = tuple((row, col) for row in range(dim) for col in range(dim))
        # Lines in the course's scan order, as (row, col) squares.
        lines = [tuple((row, col) for col in range(dim)) for row in range(dim)]
        lines += [tuple((row, col) for row in range(dim)) for col in range(dim)]
        lines.append(tuple((i, i) for i in range(dim)))
        lines.append(tuple((i, dim - 1 - i) for i in range(dim)))
        self.numbered = tuple(enumerate(lines))
        # through[row][col]: the lines through that square, in scan order, with their numbers.
        self.through = tuple(
            tuple(tuple((number, line) for number, line in self.numbered if (row, col) in line)
                  for col in range(dim))
            for row in range(dim))
        # 4*dim-3 dashes between the rows of str(board); one "%s" per square.
        self.text = ("-" * (4 * dim - 3) + "\n").join(
            [" | ".join(["%s"] * dim) + "\n"] * dim)


@lru_cache(maxsize=None)
def _geometry(dim: int) -> _Geometry:
    return _Geometry(dim)


class TTTBoard:
    """A square Tic-Tac-Toe board of any size, normal or reverse (misère).

    >>> board = TTTBoard(2, False, [[PLAYERX, PLAYERO], [EMPTY, EMPTY]])
    >>> board.get_empty_squares()
    [(1, 0), (1, 1)]
    >>> board
    TTTBoard(2, False, [[PLAYERX, PLAYERO], [EMPTY, EMPTY]])

    Every operation costs no more than on the course's board (``bench_board.py``):
    ``square`` and ``move`` read ``_rows[row][col]`` as the course did, with one test so
    that a negative index is refused instead of wrapping around; ``move`` only notes the
    square it filled, and ``check_win`` then checks the lines through it (``_settle``) and
    remembers the first complete line in the course's scan order.
    ``clone``, ``copy.copy`` and ``copy.deepcopy`` copy the rows only (the size's geometry
    is shared and never changed); so does pickling, in every protocol.
    """

    # Slots make attribute access and clone() cheaper; clone() copies each one.
    # _pending is the row of the one move check_win has not looked at yet (None: none;
    # _ALL: more than one, look at every line), _col its column; _empty the empty squares
    # as of check_win's last look.
    __slots__ = ("_dim", "_reverse", "_geo", "_rows", "_pending", "_col", "_empty", "_line",
                 "_winner")

    def __init__(self, dim: int, reverse: bool = False,
                 board: Sequence[Sequence[int]] | None = None) -> None:
        if type(dim) is not int:
            raise TypeError(f"dim must be a whole number >= 1, got {describe(dim)}")
        if dim < 1:
            raise ValueError(f"dim must be a whole number >= 1, got {dim}")
        grid = [[EMPTY] * dim for _ in range(dim)] if board is None else _read_grid(board, dim)
        self._dim = dim
        self._reverse = bool(reverse)
        self._geo = _geometry(dim)
        self._rows = grid
        self._pending, self._col = _ALL, 0  # every line to check
        self._line, self._winner = _NO_LINE, None
        self._settle()

    def _settle(self) -> None:
        """Bring the winner and the count of empty squares up to date with the moves."""
        rows, row = self._rows, self._pending
        self._pending = None
        if row is not _ALL:
            # One move since: only the lines through its square can have been completed.
            self._empty -= 1
            lines = self._geo.through[row][self._col]
        else:
            self._empty = sum([cells.count(EMPTY) for cells in rows])
            lines = self._geo.numbered
        for number, line in lines:
            if number >= self._line:  # lines stay complete: the first one found still counts
                return
            row, col = line[0]
            first = rows[row][col]
            if first == EMPTY:
                continue
            for row, col in line:
                if rows[row][col] != first:
                    break
            else:
                self._set_line(number, first)
                return

    def _set_line(self, number: int, owner: int) -> None:
        self._line = number
        self._winner = _OTHER[owner] if self._reverse else owner

    def __str__(self) -> str:
        return self._geo.text % tuple([STRMAP[value] for row in self._rows for value in row])

    def __repr__(self) -> str:
        dim = self._dim
        rows = ", ".join("[" + ", ".join(NAMES[v] for v in row) + "]" for row in self._rows)
        return f"TTTBoard({dim}, {self._reverse}, [{rows}])"

    def get_dim(self) -> int:
        """Return the side of the board."""
        return self._dim

    def square(self, row: int, col: int) -> int:
        """Return EMPTY, PLAYERX or PLAYERO for the square at (row, col)."""
        try:
            if row >= 0 and col >= 0:  # a negative index must not wrap around
                return self._rows[row][col]
        except (TypeError, IndexError):
            pass
        raise self._off_board(row, col)

    def get_empty_squares(self) -> list[tuple[int, int]]:
        """Return the empty squares as (row, col) tuples, row by row, left to right."""
        return [square for square, value in zip(self._geo.squares, _flat(self._rows))
                if value == EMPTY]

    def move(self, row: int, col: int, player: int) -> None:
        """Put player on (row, col); do nothing if that square is not empty."""
        try:
            cells = self._rows[row] if row >= 0 and col >= 0 else None  # no wrapping around
            if cells[col] != EMPTY:
                return
        except (TypeError, IndexError):
            raise self._off_board(row, col) from None
        if player != PLAYERX and player != PLAYERO:
            raise ValueError(
                f"player must be PLAYERX (2) or PLAYERO (3), got {describe(player)}")
        cells[col] = player
        if self._pending is None:  # the first move since check_win: note its square
            self._pending, self._col = row, col
        else:  # more than one: check_win looks at every line
            self._pending = _ALL

    def check_win(self) -> int | None:
        """Return the winner, DRAW on a full board without a line, or None while in play."""
        if self._pending is not None:
            self._settle()
        winner = self._winner
        if winner is not None:
            return winner
        return None if self._empty else DRAW

    def clone(self) -> "TTTBoard":
        """Return an independent copy (same size, same mode)."""
        copy = object.__new__(type(self))
        copy._dim = self._dim
        copy._reverse = self._reverse
        copy._geo = self._geo
        copy._rows = list(map(list.copy, self._rows))
        copy._pending = self._pending
        copy._col = self._col
        copy._empty = self._empty
        copy._line = self._line
        copy._winner = self._winner
        return copy

    def __copy__(self) -> "TTTBoard":
        """``copy.copy(board)``: an independent copy, as ``clone()``.

        The course's board shared its grid with a shallow copy; here the cells and what is
        known about them (the winner, the empty squares) are copied together, so neither
        board can get out of step with its own cells.
        """
        copy = self.clone()
        if type(self) is not TTTBoard and getattr(self, "__dict__", None):
            copy.__dict__.update(self.__dict__)  # a subclass's own attributes
        return copy

    def __deepcopy__(self, memo: dict[int, Any]) -> "TTTBoard":
        """``copy.deepcopy(board)``: the copy of ``clone()``, sharing the size's geometry.

        >>> import copy
        >>> board = TTTBoard(2)
        >>> first, second = copy.deepcopy([board, board])
        >>> first is second, first is board
        (True, False)
        """
        copy = self.clone()
        if type(self) is not TTTBoard and getattr(self, "__dict__", None):
            memo[id(self)] = copy  # a subclass's attributes may hold the board itself
            copy.__dict__.update(deepcopy(self.__dict__, memo))
        return copy

    def __getstate__(self) -> tuple[Any, ...]:
        """What pickling keeps: every slot but the size's geometry, which is looked up again.

        >>> import pickle
        >>> pickle.loads(pickle.dumps(TTTBoard(2, True, [[PLAYERX, EMPTY], [EMPTY, EMPTY]])))
        TTTBoard(2, True, [[PLAYERX, EMPTY], [EMPTY, EMPTY]])
        """
        if self._pending is not None:
            self._settle()
        state = (self._dim, self._reverse, self._rows, self._empty, self._line, self._winner)
        if type(self) is not TTTBoard and getattr(self, "__dict__", None):
            return state + (self.__dict__,)  # a subclass's own attributes
        return state

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        (self._dim, self._reverse, self._rows, self._empty, self._line,
         self._winner) = state[:6]
        self._geo = _geometry(self._dim)
        self._pending, self._col = None, 0
        if len(state) > 6:
            self.__dict__.update(state[6])

    def _off_board(self, row: Any, col: Any) -> IndexError:
        last = self._dim - 1
        return IndexError(
            f"square ({row!r}, {col!r}) is not on the {self._dim}x{self._dim} board: "
            f"row and col must be whole numbers from 0 to {last}")


def _read_grid(board: Any, dim: int) -> list[list[int]]:
    """Copy a grid of dim rows of dim cell values into new lists, checking it."""
    try:
        rows = [list(board[r]) for r in range(dim)]
        extra = len(board) != dim
    except (TypeError, IndexError, KeyError):
        raise ValueError(
            f"board must be a list of {dim} rows of {dim} cells each, got {board!r}") from None
    if extra or any(len(row) != dim for row in rows):
        raise ValueError(
            f"board must be a list of {dim} rows of {dim} cells each, got {board!r}")
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            if type(value) is not int or value not in STRMAP:
                raise ValueError(
                    f"board cell ({r}, {c}) is {describe(value)}: "
                    "expected EMPTY (1), PLAYERX (2) or PLAYERO (3)")
    return rows
