"""The course's Tic-Tac-Toe board, exactly compatible and fast.

Students' searches spend nearly all their time in this class, so it keeps
incremental state instead of rescanning the grid: ``move`` checks only the
lines through the new mark and remembers the first complete line in the
course's scan order (rows, columns, main diagonal, anti-diagonal), which
makes ``check_win`` constant-time; ``clone`` copies one flat list.

>>> board = TTTBoard(3)
>>> board.move(1, 1, PLAYERX)
>>> board.square(1, 1) == PLAYERX, board.check_win() is None
(True, True)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

EMPTY = 1
PLAYERX = 2
PLAYERO = 3
DRAW = 4

STRMAP = {EMPTY: " ", PLAYERX: "X", PLAYERO: "O"}
SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}

NAMES = {EMPTY: "EMPTY", PLAYERX: "PLAYERX", PLAYERO: "PLAYERO", DRAW: "DRAW"}
_OTHER = {PLAYERX: PLAYERO, PLAYERO: PLAYERX}
_NO_LINE = 1 << 30  # "no complete line yet": larger than any line number


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
    """What depends only on the size: coordinates and the lines through each square."""

    def __init__(self, dim: int) -> None:
        size = dim * dim
        self.coords = tuple((row, col) for row in range(dim) for col in range(dim))
        self.index = {rc: i for i, rc in enumerate(self.coords)}
        # Lines in the course's scan order; a slice of the flat cell list each.
        lines = [slice(r * dim, r * dim + dim) for r in range(dim)]
        lines += [slice(c, size, dim) for c in range(dim)]
        lines.append(slice(0, size, dim + 1))
        lines.append(slice(dim - 1, size - 1, dim - 1) if dim > 1 else slice(0, 1))
        self.lines = tuple(lines)
        through: list[list[tuple[int, slice]]] = [[] for _ in range(size)]
        for number, line in enumerate(lines):
            for i in range(size)[line]:
                through[i].append((number, line))
        self.through = tuple(tuple(t) for t in through)


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
    """

    # Slots make attribute access and clone() cheaper; clone() copies each one.
    __slots__ = ("_dim", "_reverse", "_geo", "_cells", "_empty", "_line", "_winner")

    def __init__(self, dim: int, reverse: bool = False,
                 board: Sequence[Sequence[int]] | None = None) -> None:
        if type(dim) is not int:
            raise TypeError(f"dim must be a whole number >= 1, got {describe(dim)}")
        if dim < 1:
            raise ValueError(f"dim must be a whole number >= 1, got {dim}")
        self._dim = dim
        self._reverse = bool(reverse)
        self._geo = _geometry(dim)
        if board is None:
            self._cells = [EMPTY] * (dim * dim)
        else:
            self._cells = _read_grid(board, dim)
        self._empty = self._cells.count(EMPTY)
        self._line = _NO_LINE
        self._winner = None
        cells = self._cells
        for number, line in enumerate(self._geo.lines):
            first = cells[line.start]
            if first != EMPTY and cells[line].count(first) == dim:
                self._set_line(number, first)
                break

    def _set_line(self, number: int, owner: int) -> None:
        self._line = number
        self._winner = _OTHER[owner] if self._reverse else owner

    def __str__(self) -> str:
        dim = self._dim
        rows = [" | ".join(STRMAP[v] for v in self._cells[r * dim:r * dim + dim]) + "\n"
                for r in range(dim)]
        return ("-" * (4 * dim - 3) + "\n").join(rows)

    def __repr__(self) -> str:
        dim = self._dim
        rows = ", ".join(
            "[" + ", ".join(NAMES[v] for v in self._cells[r * dim:r * dim + dim]) + "]"
            for r in range(dim))
        return f"TTTBoard({dim}, {self._reverse}, [{rows}])"

    def get_dim(self) -> int:
        """Return the side of the board."""
        return self._dim

    def square(self, row: int, col: int) -> int:
        """Return EMPTY, PLAYERX or PLAYERO for the square at (row, col)."""
        index = self._geo.index.get((row, col))
        if index is None:
            raise self._off_board(row, col)
        return self._cells[index]

    def get_empty_squares(self) -> list[tuple[int, int]]:
        """Return the empty squares as (row, col) tuples, row by row, left to right."""
        return [rc for rc, value in zip(self._geo.coords, self._cells) if value == EMPTY]

    def move(self, row: int, col: int, player: int) -> None:
        """Put player on (row, col); do nothing if that square is not empty."""
        index = self._geo.index.get((row, col))
        if index is None:
            raise self._off_board(row, col)
        if player != PLAYERX and player != PLAYERO:
            raise ValueError(
                f"player must be PLAYERX (2) or PLAYERO (3), got {describe(player)}")
        cells = self._cells
        if cells[index] != EMPTY:
            return
        cells[index] = player
        self._empty -= 1
        dim = self._dim
        for number, line in self._geo.through[index]:
            if number >= self._line:
                break
            if cells[line].count(player) == dim:
                self._set_line(number, player)
                break

    def check_win(self) -> int | None:
        """Return the winner, DRAW on a full board without a line, or None while in play."""
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
        copy._cells = self._cells[:]
        copy._empty = self._empty
        copy._line = self._line
        copy._winner = self._winner
        return copy

    def _off_board(self, row: Any, col: Any) -> IndexError:
        last = self._dim - 1
        return IndexError(
            f"square ({row!r}, {col!r}) is not on the {self._dim}x{self._dim} board: "
            f"row and col must be whole numbers from 0 to {last}")


def _read_grid(board: Any, dim: int) -> list[int]:
    """Copy a grid of dim rows of dim cell values into a flat list, checking it."""
    try:
        rows = [list(board[r]) for r in range(dim)]
        extra = len(board) != dim
    except (TypeError, IndexError, KeyError):
        raise ValueError(
            f"board must be a list of {dim} rows of {dim} cells each, got {board!r}") from None
    if extra or any(len(row) != dim for row in rows):
        raise ValueError(
            f"board must be a list of {dim} rows of {dim} cells each, got {board!r}")
    cells = [value for row in rows for value in row]
    for i, value in enumerate(cells):
        if value not in STRMAP or type(value) is not int:
            raise ValueError(
                f"board cell ({i // dim}, {i % dim}) is {describe(value)}: "
                "expected EMPTY (1), PLAYERX (2) or PLAYERO (3)")
    return cells
