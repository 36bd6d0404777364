"""A position handed to the student: a grid, who is to move, and the game's mode.

The grader's own value type, independent of the student-visible ``provided``
classes; it knows how to print itself the ways students read positions: as a
call they can paste and as a board drawn with coordinates.

>>> pos = Position.from_grid([[2, 1, 1], [3, 3, 1], [1, 2, 1]], PLAYERX)
>>> pos.call()
'mm_move(TTTBoard(3, False, [[PLAYERX, EMPTY, EMPTY], [PLAYERO, PLAYERO, EMPTY], [EMPTY, PLAYERX, EMPTY]]), PLAYERX)'
>>> pos.play((1, 2)).player == PLAYERO
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from provided.board import EMPTY, NAMES, PLAYERO, PLAYERX, STRMAP

Move = tuple[int, int]
NO_MOVE: Move = (-1, -1)


@lru_cache(maxsize=None)
def symmetries(dim: int) -> tuple[tuple[int, ...], ...]:
    """For each of the square's 8 symmetries, the source cell of every cell of the image."""
    last = dim - 1
    maps = (lambda r, c: (r, c), lambda r, c: (c, last - r),
            lambda r, c: (last - r, last - c), lambda r, c: (last - c, r),
            lambda r, c: (r, last - c), lambda r, c: (last - r, c),
            lambda r, c: (c, r), lambda r, c: (last - c, last - r))
    return tuple(tuple(row * dim + col for row, col in
                       (where(*divmod(index, dim)) for index in range(dim * dim)))
                 for where in maps)


@dataclass(frozen=True)
class Position:
    """``dim`` x ``dim`` cells, row-major, holding EMPTY, PLAYERX or PLAYERO."""

    dim: int
    cells: tuple[int, ...]
    player: int
    reverse: bool = False

    def __post_init__(self) -> None:
        if len(self.cells) != self.dim * self.dim:
            raise ValueError(f"{len(self.cells)} cells do not make a {self.dim}x{self.dim} grid")
        if self.player not in (PLAYERX, PLAYERO):
            raise ValueError(f"player must be PLAYERX or PLAYERO, got {self.player!r}")
        # Positions are the solver's and the judge's dictionary keys (tens of thousands of
        # look-ups a grade): the hash of the cells is computed once.
        object.__setattr__(self, "_hash", hash((self.dim, self.cells, self.player,
                                                self.reverse)))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

    @classmethod
    def empty(cls, dim: int, player: int = PLAYERX, reverse: bool = False) -> "Position":
        """The empty board.

        >>> Position.empty(2).cells
        (1, 1, 1, 1)
        """
        return cls(dim, (EMPTY,) * (dim * dim), player, reverse)

    @classmethod
    def from_grid(cls, grid: Sequence[Sequence[int]], player: int,
                  reverse: bool = False) -> "Position":
        return cls(len(grid), tuple(v for row in grid for v in row), player, reverse)

    @property
    def grid(self) -> list[list[int]]:
        dim = self.dim
        return [list(self.cells[r * dim:r * dim + dim]) for r in range(dim)]

    def empty_squares(self) -> list[Move]:
        dim = self.dim
        return [divmod(i, dim) for i, v in enumerate(self.cells) if v == EMPTY]

    @property
    def ply(self) -> int:
        """How many marks are on the board."""
        return len(self.cells) - self.cells.count(EMPTY)

    def play(self, move: Move) -> "Position":
        """The position after the player to move plays ``move`` (an empty square)."""
        row, col = move
        index = row * self.dim + col
        if not (0 <= row < self.dim and 0 <= col < self.dim) or self.cells[index] != EMPTY:
            raise ValueError(f"{move} is not an empty square of this board")
        cells = list(self.cells)
        cells[index] = self.player
        other = PLAYERO if self.player == PLAYERX else PLAYERX
        return Position(self.dim, tuple(cells), other, self.reverse)

    def with_player(self, player: int) -> "Position":
        return Position(self.dim, self.cells, player, self.reverse)

    def implied_player(self) -> int:
        """Who is to move in a game from the empty board: X when the counts are equal."""
        xs, os_ = self.cells.count(PLAYERX), self.cells.count(PLAYERO)
        return PLAYERX if xs <= os_ else PLAYERO

    def images(self) -> tuple["Position", ...]:
        """The 8 images of this position under the square's rotations and reflections
        (the same player to move, the same mode; some may be equal).

        >>> len(set(Position.from_grid([[2, 1, 1], [1, 1, 1], [1, 1, 1]], PLAYERO).images()))
        4
        """
        cells = self.cells
        return tuple(Position(self.dim, tuple(cells[i] for i in source), self.player,
                              self.reverse) for source in symmetries(self.dim))

    def board_call(self) -> str:
        """The board as a ``TTTBoard(...)`` call a student can paste."""
        rows = ", ".join("[" + ", ".join(NAMES[v] for v in row) + "]" for row in self.grid)
        return f"TTTBoard({self.dim}, {self.reverse}, [{rows}])"

    def call(self, function: str = "mm_move") -> str:
        """The student's call on this position, in the course grader's style."""
        extra = ", 1" if function == "move_wrapper" else ""
        return f"{function}({self.board_call()}, {NAMES[self.player]}{extra})"

    def drawing(self) -> str:
        """The board drawn with row and column numbers.

        >>> print(Position.from_grid([[2, 1], [1, 3]], PLAYERX).drawing())
            0   1
        0   X |
           ---+---
        1     | O
        """
        dim = self.dim
        lines = ["    " + "   ".join(str(c) for c in range(dim))]
        for r, row in enumerate(self.grid):
            lines.append(f"{r:<3} " + " | ".join(STRMAP[v] for v in row))
            if r != dim - 1:
                lines.append("   " + "+".join(["---"] * dim))
        return "\n".join(line.rstrip() for line in lines)
