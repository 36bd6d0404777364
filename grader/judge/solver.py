"""Exact Tic-Tac-Toe values and the full set of optimal moves: the grader's only truth.

The rules are implemented here, over bitmasks (bit ``row * dim + col`` is a
square), and never borrowed from ``provided``: a student can monkeypatch that
module, this one they never see.

Rules (COURSE_API.md): a line is a full row, a full column or one of the two
main diagonals holding one player's marks only; play stops at the first
complete line or at a full board. In reverse (misère) mode whoever completes a
line loses. Values are ``SCORES`` values, always from X's side: 1 X wins,
0 draw, -1 O wins, with perfect play by both and ``pos.player`` to move (any
player may be to move, also the "wrong" one).

Sizes: exact for every board up to 4x4. A larger board is solved only on the
*slow path*, when it has at most ``SLOW_PATH_EMPTIES`` (10) empty squares;
otherwise ``SolverTooLarge`` is raised.

>>> solver = Solver()
>>> pos = Position.from_grid([[2, 1, 1], [3, 3, 1], [1, 2, 1]], PLAYERX)
>>> solver.value(pos), sorted(solver.best_moves(pos))
(0, [(1, 2)])
>>> solver.line_of_play(pos, (2, 2))
[(1, 2)]
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Iterator

from grader.judge.position import Move, Position
from provided.board import DRAW, EMPTY, PLAYERO, PLAYERX, SCORES, describe

__all__ = ["Solver", "SolverTooLarge", "reachable", "shared_solver", "MAX_DIM",
           "SLOW_PATH_EMPTIES", "DISTANCE_EMPTIES", "TREE_SIZE_EMPTIES"]

MAX_DIM = 4
"""Boards up to MAX_DIM x MAX_DIM are always solved exactly."""
SLOW_PATH_EMPTIES = 10
"""Larger boards are solved only with at most this many empty squares."""
DISTANCE_EMPTIES = 12
"""line_of_play prefers fastest wins / slowest losses up to this many empty squares."""
TREE_SIZE_EMPTIES = 12
"""tree_size counts trees of positions with at most this many empty squares (any dim)."""

_OTHER = {PLAYERX: PLAYERO, PLAYERO: PLAYERX}


class SolverTooLarge(ValueError):
    """The position is too big to solve exactly in reasonable time."""


class _Geometry:
    """Everything that depends only on the side: line masks and a move order."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.squares = dim * dim
        self.full = (1 << self.squares) - 1
        rows = [sum(1 << (r * dim + c) for c in range(dim)) for r in range(dim)]
        cols = [sum(1 << (r * dim + c) for r in range(dim)) for c in range(dim)]
        diag = sum(1 << (i * dim + i) for i in range(dim))
        anti = sum(1 << (i * dim + dim - 1 - i) for i in range(dim))
        # The course's scan order: rows, columns, main diagonal, anti-diagonal.
        self.lines: tuple[int, ...] = tuple(rows + cols + [diag, anti])
        # Distinct lines for the search (dim 1 has one line four times).
        self.search_lines: tuple[int, ...] = tuple(dict.fromkeys(self.lines))
        # Try squares on many lines first (centre, diagonals): better cut-offs.
        weight = [sum(1 for line in self.search_lines if line >> s & 1)
                  for s in range(self.squares)]
        order = sorted(range(self.squares), key=lambda s: (-weight[s], s))
        self.order: tuple[int, ...] = tuple(1 << s for s in order)
        self.coords: dict[int, Move] = {1 << s: divmod(s, dim) for s in range(self.squares)}

    def completing(self, mine: int, empty: int) -> int:
        """Empty squares that would complete a line of ``mine``, as a mask."""
        found = 0
        for line in self.search_lines:
            rest = line & ~mine
            if rest & empty == rest and rest & (rest - 1) == 0:
                found |= rest
        return found

    def has_line(self, mine: int) -> bool:
        for line in self.search_lines:   # a loop, not any(): every reachable position asks
            if line & mine == line:
                return True
        return False


@lru_cache(maxsize=None)
def _geometry(dim: int) -> _Geometry:
    # A pure function of dim; caching it is not state anyone must reset.
    return _Geometry(dim)


def _masks(pos: Position) -> tuple[_Geometry, int, int]:
    """The geometry and the X and O bitmasks of a position, checking its cells."""
    if type(pos.dim) is not int or pos.dim < 1:
        raise ValueError(f"dim must be a whole number >= 1, got {describe(pos.dim)}")
    x = o = 0
    for i, cell in enumerate(pos.cells):
        if cell == PLAYERX:
            x |= 1 << i
        elif cell == PLAYERO:
            o |= 1 << i
        elif cell != EMPTY:
            raise ValueError(f"cell ({i // pos.dim}, {i % pos.dim}) is {describe(cell)}: "
                             "expected EMPTY (1), PLAYERX (2) or PLAYERO (3)")
    return _geometry(pos.dim), x, o


def _winner(geo: _Geometry, x: int, o: int, reverse: bool) -> int | None:
    """check_win on masks, with the course's scan order."""
    for line in geo.lines:
        if x & line == line:
            owner = PLAYERX
        elif o & line == line:
            owner = PLAYERO
        else:
            continue
        return _OTHER[owner] if reverse else owner
    return DRAW if x | o == geo.full else None


class _Game:
    """Search tables for one board size and mode.

    Everything is from the side to move ("mover", mask ``me``) against the
    other side (``you``): the rules treat both players alike, so X-to-move and
    O-to-move positions share entries. Keys are ``me | you << squares``.
    """

    def __init__(self, dim: int, reverse: bool) -> None:
        self.geo = _geometry(dim)
        self.reverse = reverse
        # Exact booleans, so no bound bookkeeping: "mover can force a win" and
        # "mover can force at least a draw" (null-window searches at 1 and 0).
        self.wins: dict[int, bool] = {}
        self.holds: dict[int, bool] = {}
        self.distances: dict[int, int] = {}
        self.sizes: dict[int, int] = {}

    # -- values ------------------------------------------------------------

    def can_reach(self, me: int, you: int, goal: int) -> bool:
        """Whether the mover can force a result >= goal (1 or 0) from a live position."""
        key = me | you << self.geo.squares
        table = self.wins if goal == 1 else self.holds
        known = table.get(key)
        if known is not None:
            return known
        # A known win implies a hold; a known non-hold implies no win.
        if goal == 0 and self.wins.get(key):
            return True
        if goal == 1 and self.holds.get(key) is False:
            return False
        result = self._search(me, you, goal)
        table[key] = result
        return result

    def _search(self, me: int, you: int, goal: int) -> bool:
        geo = self.geo
        full = geo.full
        empty = full & ~(me | you)
        if self.reverse:
            # Completing your own line loses at once, so only safe squares count.
            moves = empty & ~geo.completing(me, empty)
            if not moves:
                return False
        else:
            if geo.completing(me, empty):
                return True
            threats = geo.completing(you, empty)
            if threats & (threats - 1):
                return False  # two open lines: block one, the other wins
            moves = threats or empty
        for bit in geo.order:
            if not moves & bit:
                continue
            mine = me | bit
            if mine | you == full:
                if goal == 0:
                    return True  # the last square, no line: a draw
                continue
            # Mover reaches >= goal iff the opponent cannot reach >= 1 - goal.
            if not self.can_reach(you, mine, 1 - goal):
                return True
        return False

    def value(self, me: int, you: int) -> int:
        """The mover's value of a live position: 1, 0 or -1."""
        if self.can_reach(me, you, 1):
            return 1
        return 0 if self.can_reach(me, you, 0) else -1

    def outcome(self, me: int, you: int, bit: int) -> int:
        """The mover's result after playing ``bit`` from a live position."""
        mine = me | bit
        if self.geo.has_line(mine):
            return -1 if self.reverse else 1
        if mine | you == self.geo.full:
            return 0
        return -self.value(you, mine)

    def outcomes(self, me: int, you: int) -> dict[int, int]:
        """Every legal move's result for the mover, in square order."""
        empty = self.geo.full & ~(me | you)
        return {1 << s: self.outcome(me, you, 1 << s)
                for s in range(self.geo.squares) if empty >> s & 1}

    # -- distances, for convincing lines of play ------------------------------

    def distance(self, me: int, you: int) -> int:
        """Plies to the end of a decided live position, the winner hurrying, the loser stalling."""
        key = me | you << self.geo.squares
        known = self.distances.get(key)
        if known is not None:
            return known
        results = self.outcomes(me, you)
        value = max(results.values())
        spans = [self.span(me, you, bit) for bit, result in results.items() if result == value]
        known = min(spans) if value == 1 else max(spans)
        self.distances[key] = known
        return known

    def span(self, me: int, you: int, bit: int) -> int:
        """Plies to the end after the mover plays ``bit`` (that move included)."""
        mine = me | bit
        if self.geo.has_line(mine) or mine | you == self.geo.full:
            return 1
        if self.value(you, mine) == 0:
            return self.geo.squares  # draws always fill the board; length irrelevant
        return 1 + self.distance(you, mine)

    # -- tree size ----------------------------------------------------------

    def tree_size(self, me: int, you: int) -> int:
        """Nodes of the plain game tree below a live position, itself included."""
        key = me | you << self.geo.squares
        known = self.sizes.get(key)
        if known is not None:
            return known
        geo = self.geo
        empty = geo.full & ~(me | you)
        total = 1
        for s in range(geo.squares):
            if empty >> s & 1:
                mine = me | 1 << s
                if geo.has_line(mine) or mine | you == geo.full:
                    total += 1
                else:
                    total += self.tree_size(you, mine)
        self.sizes[key] = total
        return total


class Solver:
    """Exact values, optimal move sets and lines of play; caches live in the instance
    (a grade uses the process's one, ``shared_solver()``).

    >>> solver = Solver()
    >>> solver.value(Position.empty(3)), solver.value(Position.empty(2))
    (0, 1)
    >>> sorted(solver.best_moves(Position.empty(3, reverse=True)))
    [(1, 1)]
    """

    def __init__(self) -> None:
        self._games: dict[tuple[int, bool], _Game] = {}
        # Per position: a grade asks them of each of its thousands of answers.
        self._winners: dict[Position, int | None] = {}
        self._values: dict[Position, int] = {}
        self._best: dict[Position, frozenset[Move]] = {}

    def _game(self, pos: Position) -> _Game:
        key = (pos.dim, bool(pos.reverse))
        game = self._games.get(key)
        if game is None:
            game = self._games[key] = _Game(*key)
        return game

    def _live(self, pos: Position) -> tuple[_Game, int, int] | None:
        """The game and (mover, opponent) masks, or None if the game is over."""
        geo, x, o = _masks(pos)
        if _winner(geo, x, o, pos.reverse) is not None:
            return None
        empties = geo.squares - (x | o).bit_count()
        if pos.dim > MAX_DIM and empties > SLOW_PATH_EMPTIES:
            raise SolverTooLarge(
                f"cannot solve a {pos.dim}x{pos.dim} position with {empties} empty squares: "
                f"the solver is exact up to {MAX_DIM}x{MAX_DIM}, and on larger boards "
                f"only with at most {SLOW_PATH_EMPTIES} empty squares")
        game = self._game(pos)
        return (game, x, o) if pos.player == PLAYERX else (game, o, x)

    def winner(self, pos: Position) -> int | None:
        """PLAYERX or PLAYERO if the game is over with a winner, DRAW, or None while in play.

        Exactly the course's ``check_win``: lines are scanned rows top to bottom,
        columns left to right, main diagonal, anti-diagonal; the first complete
        line decides (only unreachable boards have several); in reverse mode the
        line's owner loses. Any size.

        >>> Solver().winner(Position.from_grid([[2, 2], [3, 1]], PLAYERO))
        2
        >>> Solver().winner(Position.from_grid([[2, 2], [3, 1]], PLAYERO, reverse=True))
        3
        """
        try:
            return self._winners[pos]
        except KeyError:
            geo, x, o = _masks(pos)
            known = self._winners[pos] = _winner(geo, x, o, pos.reverse)
            return known

    def value(self, pos: Position) -> int:
        """The value from X's side (1, 0, -1) with ``pos.player`` to move and perfect play.

        A finished position is worth ``SCORES[winner]``. Raises SolverTooLarge
        beyond the size limits (see the module docstring).

        >>> Solver().value(Position.from_grid([[2, 2, 1], [3, 3, 1], [1, 1, 1]], PLAYERO))
        -1
        """
        known = self._values.get(pos)
        if known is not None:
            return known
        live = self._live(pos)
        if live is None:
            known = SCORES[self.winner(pos)]
        else:
            game, me, you = live
            known = (1 if pos.player == PLAYERX else -1) * game.value(me, you)
        self._values[pos] = known
        return known

    def move_values(self, pos: Position) -> dict[Move, int]:
        """The value (X's side) after each legal move, in row-major order; {} if finished.

        >>> Solver().move_values(Position.from_grid([[2, 2], [3, 1]], PLAYERO))
        {}
        >>> Solver().move_values(Position.from_grid([[2, 1], [3, 1]], PLAYERX))
        {(0, 1): 1, (1, 1): 1}
        """
        live = self._live(pos)
        if live is None:
            return {}
        game, me, you = live
        sign = 1 if pos.player == PLAYERX else -1
        coords = game.geo.coords
        return {coords[bit]: sign * result for bit, result in game.outcomes(me, you).items()}

    def best_moves(self, pos: Position) -> frozenset[Move]:
        """Every optimal move: each empty square whose result equals the value of ``pos``.

        Empty on a finished board.

        >>> sorted(Solver().best_moves(Position.from_grid([[2, 1, 1], [1, 1, 1], [1, 1, 1]],
        ...                                                PLAYERO)))
        [(1, 1)]
        """
        known = self._best.get(pos)
        if known is not None:
            return known
        values = self.move_values(pos)
        if not values:
            return frozenset()
        best = max(values.values()) if pos.player == PLAYERX else min(values.values())
        known = self._best[pos] = frozenset(move for move, value in values.items()
                                            if value == best)
        return known

    def line_of_play(self, pos: Position, move: Move, length: int = 6) -> list[Move]:
        """After the player to move plays ``move``, a line of best play (``move`` excluded).

        At most ``length`` moves, alternating sides, ending early when the game
        ends. Every move in it is optimal; among optimal moves the winner takes
        the fastest win and the loser the slowest loss, so the line is short
        and shows why ``move`` was good or bad (exact up to DISTANCE_EMPTIES
        empty squares; beyond that, the first optimal move in square order).
        Raises ValueError if ``move`` is not an empty square of a live board.

        >>> pos = Position.from_grid([[2, 1, 1], [1, 1, 1], [1, 1, 1]], PLAYERO)
        >>> Solver().line_of_play(pos, (0, 1))
        [(1, 0), (2, 0), (1, 1), (1, 2), (2, 2)]
        """
        if self._live(pos) is None:
            raise ValueError(f"no move {move} after the game is over")
        current = pos.play(move)
        line: list[Move] = []
        while len(line) < length:
            live = self._live(current)
            if live is None:
                break
            game, me, you = live
            results = game.outcomes(me, you)
            value = max(results.values())
            best = [bit for bit, result in results.items() if result == value]
            empties = game.geo.squares - (me | you).bit_count()
            if value == 1 and len(best) > 1 and empties <= DISTANCE_EMPTIES:
                chosen = min(best, key=lambda bit: game.span(me, you, bit))
            elif value == -1 and len(best) > 1 and empties <= DISTANCE_EMPTIES:
                # Among equally slow losses, a block reads better than ignoring the threat.
                blocks = 0 if pos.reverse else game.geo.completing(you, game.geo.full & ~(me | you))
                chosen = max(best, key=lambda bit: (game.span(me, you, bit), bit & blocks != 0))
            else:
                chosen = best[0]  # min/max keep the first of equals too: square order
            line.append(game.geo.coords[chosen])
            current = current.play(line[-1])
        return line

    def tree_size(self, pos: Position) -> int:
        """Nodes a plain minimax visits from ``pos`` (no pruning, no memo), root included.

        Computed with memoization (a subtree's size depends only on its
        position). At most TREE_SIZE_EMPTIES empty squares, else SolverTooLarge.

        >>> Solver().tree_size(Position.empty(3)), Solver().tree_size(Position.empty(2))
        (549946, 41)
        """
        geo, x, o = _masks(pos)
        if _winner(geo, x, o, pos.reverse) is not None:
            return 1
        empties = geo.squares - (x | o).bit_count()
        if empties > TREE_SIZE_EMPTIES:
            raise SolverTooLarge(
                f"cannot count the game tree of a position with {empties} empty squares: "
                f"the limit is {TREE_SIZE_EMPTIES}")
        game = self._game(pos)
        me, you = (x, o) if pos.player == PLAYERX else (o, x)
        return game.tree_size(me, you)

    def solve(self, positions: Iterable[Position]) -> None:
        """Fill the tables for ``positions`` ahead of time: each one's winner, value, best
        moves (every move's value) and tree size. Answers never change; only later
        questions are faster (a grade judges each answer by the first three).

        >>> solver = Solver()
        >>> solver.solve(reachable(2))
        >>> solver.value(Position.empty(2))
        1
        """
        for pos in positions:
            for question in (self.winner, self.value, self.best_moves, self.tree_size):
                try:
                    question(pos)
                except SolverTooLarge:  # asked later, it raises then
                    pass


_SHARED = Solver()


def shared_solver() -> Solver:
    """This process's one Solver, shared by every grade it runs: its tables are pure
    functions of the positions (nothing of a grade is in them), so a warm server fills
    them once before it forks (``grader.classroom.warm``) and each grade starts solved.

    >>> shared_solver() is shared_solver()
    True
    """
    return _SHARED


def reachable(dim: int, reverse: bool = False) -> Iterator[Position]:
    """Every position reachable from the empty board, each once, by ply, finished ones included.

    The player to move is implied by the counts (X if equal, else O); play
    stops at a finished position. 5,478 positions for 3x3, 29 for 2x2; 4x4
    has 9,722,011 and takes minutes.

    >>> sum(1 for _ in reachable(2))
    29
    """
    geo = _geometry(dim)
    frontier: dict[tuple[int, int], None] = {(0, 0): None}  # an ordered set of (x, o)
    squares = range(geo.squares)
    for ply in range(geo.squares + 1):
        mover = PLAYERX if ply % 2 == 0 else PLAYERO
        following: dict[tuple[int, int], None] = {}
        for x, o in frontier:
            cells = tuple([PLAYERX if x >> s & 1 else PLAYERO if o >> s & 1 else EMPTY
                           for s in squares])
            yield Position(dim, cells, mover, reverse)
            if geo.has_line(x) or geo.has_line(o) or x | o == geo.full:
                continue
            empty = geo.full & ~(x | o)
            for s in range(geo.squares):
                if empty >> s & 1:
                    following[(x | 1 << s, o) if mover == PLAYERX else (x, o | 1 << s)] = None
        frontier = following
