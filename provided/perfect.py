"""A flawless Tic-Tac-Toe opponent: an exact game search of its own.

:func:`perfect_move` is a move function (``f(board, player, trials) -> (row, col)``)
like any other, so it plays in console games (``python -m provided -o perfect``),
in ``provided.play_game`` and in the course's ``run_gui``. It never loses a game
that can be saved, on any size the search can handle, in the normal and in the
reverse game (whoever completes a line loses).

Among the moves that keep the best result it takes the QUICKEST win and, when the
game is lost, the LONGEST loss. Scores are depth-weighted, as in the minimax
write-ups students read: a game won with ``k`` empty squares left is worth
``k + 1`` to the winner (``-(k + 1)`` to the loser), a draw is worth 0. Ties
between equally good moves are broken by a fixed rule, so the same position always
gets the same move: squares on more lines first (on 3x3: the centre, then the
corners, then the edges), then row by row, left to right.

>>> from provided.board import EMPTY, PLAYERO, PLAYERX, TTTBoard
>>> perfect_move(TTTBoard(3), PLAYERX)
(1, 1)
>>> board = TTTBoard(3, False, [[PLAYERX, PLAYERX, EMPTY],
...                             [PLAYERO, PLAYERO, EMPTY],
...                             [EMPTY, EMPTY, EMPTY]])
>>> perfect_move(board, PLAYERX)   # completes the top row
(0, 2)
>>> best_line(board, PLAYERO)
('O wins', [(1, 2)])

How it searches: negamax with alpha-beta pruning over two bitmasks (the squares of
the player to move, the squares of the other), a transposition table that stores
bounds under a key shared by the board's 8 symmetries, forced moves (a win now, a
single block, a double threat) cut short, and in the reverse game squares that
would complete one's own line tried only when nothing else is left.

The table is a dict per (size, mode) at module level, so the later moves of a
game are nearly free. It is bounded: when one holds more than :data:`CACHE_LIMIT`
positions it is emptied before the next search (one search may grow it past the
limit, but none allowed comes near: the empty 4x4 board stores about 70,000
positions, 5x5 positions with 14 empty squares up to about 100,000).
:func:`clear_cache` empties them all.

What it solves (:func:`max_empty`): every position on boards up to 4x4, the empty
4x4 board included (under a second; the empty 3x3 board takes milliseconds),
and on larger boards positions with at most 14 empty squares (about a second at
worst; 16 empty squares on 5x5 can take several seconds, the empty 5x5 board far
too long). Other positions raise :class:`TooLargeError`, which says what to do.

Standard library only, and nothing from the grader: this module ships in the
student handout.
"""

from __future__ import annotations

from typing import Any

from provided.board import DRAW, EMPTY, PLAYERO, PLAYERX, STRMAP, switch_player

__all__ = ["perfect_move", "best_line", "position_value", "max_empty", "TooLargeError",
           "MAX_DIM_ANY", "MAX_EMPTY_LARGE", "CACHE_LIMIT", "cache_size", "clear_cache"]

MAX_DIM_ANY = 4
"""Every position on a board of this size or smaller is solved (the empty 4x4: 16 squares)."""

MAX_EMPTY_LARGE = 14
"""On larger boards, the most empty squares a position may have."""

CACHE_LIMIT = 500_000
"""A table holding more positions than this is emptied before the next search."""

Move = tuple[int, int]


class TooLargeError(ValueError):
    """The position has too many empty squares for an exact search in reasonable time.

    >>> from provided.board import TTTBoard
    >>> try:
    ...     perfect_move(TTTBoard(5), PLAYERX)
    ... except TooLargeError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    the perfect player cannot solve this 5x5 position quickly: ... Play on a board of size 4...
    """


class _Rules:
    """Everything that depends only on the size and the mode, and the table of solved positions.

    Squares are bits, row by row: square (row, col) is bit ``row * dim + col``.
    """

    def __init__(self, dim: int, reverse: bool) -> None:
        self.dim = dim
        self.reverse = reverse
        size = dim * dim
        self.size = size
        self.full = (1 << size) - 1
        lines = [sum(1 << (r * dim + c) for c in range(dim)) for r in range(dim)]
        lines += [sum(1 << (r * dim + c) for r in range(dim)) for c in range(dim)]
        lines.append(sum(1 << (i * dim + i) for i in range(dim)))
        lines.append(sum(1 << (i * dim + dim - 1 - i) for i in range(dim)))
        self.lines = tuple(dict.fromkeys(lines))  # 1x1: four times the same line
        on_lines = [sum(1 for line in self.lines if line >> i & 1) for i in range(size)]
        # The tie-break order: squares on more lines first, then row by row.
        self.order = tuple(1 << i for i in sorted(range(size), key=lambda i: (-on_lines[i], i)))
        self.symmetries = _symmetry_tables(dim)
        self.table: dict[int, tuple[int, int]] = {}

    def key(self, me: int, them: int) -> int:
        """The same number for a position and its 7 images under the board's symmetries."""
        key = me | them << self.size
        best = key
        for tables in self.symmetries:
            image = 0
            rest = key
            for table in tables:
                image |= table[rest & 0xFF]
                rest >>= 8
            if image < best:
                best = image
        return best

    def candidates(self, me: int, them: int, empties: int) -> tuple[int | None, list[int]]:
        """The value if it is decided without a search, and the moves worth searching, in order.

        ``me`` moves; the position is not finished and has ``empties`` >= 1 empty squares.
        When the value is decided, the first move listed achieves it.
        """
        free = self.full & ~(me | them)
        mine = theirs = 0  # squares that would complete a line of mine / of theirs
        for line in self.lines:
            rest = line & ~me
            if rest & (rest - 1) == 0 and rest & free:
                mine |= rest
            rest = line & ~them
            if rest & (rest - 1) == 0 and rest & free:
                theirs |= rest
        order = self.order
        if not self.reverse:
            if mine:  # a win now: the best possible score
                return empties, [bit for bit in order if bit & mine]
            if theirs:
                if theirs & (theirs - 1):  # two threats: they win next move, whatever I do
                    return 1 - empties, [bit for bit in order if bit & free]
                moves = [theirs]  # the only move that does not lose at once
            else:
                moves = [bit for bit in order if bit & free]
        else:
            safe = free & ~mine  # the squares that complete no line of mine
            if not safe:  # I lose now, whatever I do
                return -empties, [bit for bit in order if bit & free]
            moves = [bit for bit in order if bit & safe]
        if empties == 1:  # the last square, and it completes no line: a draw
            return 0, moves
        return None, moves

    def value(self, me: int, them: int, empties: int, alpha: int, beta: int) -> int:
        """Negamax with alpha-beta (fail-soft): the score of the player to move (``me``).

        The result is exact when strictly between alpha and beta, an upper bound when
        at most alpha, a lower bound when at least beta. The table keeps, for each
        position, the bounds (low, high) learnt so far.
        """
        key = self.key(me, them)
        table = self.table
        low, high = table.get(key, (-empties, empties))
        if low == high or low >= beta:
            return low
        if high <= alpha:
            return high
        if alpha < low:
            alpha = low
        if beta > high:
            beta = high
        decided, moves = self.candidates(me, them, empties)
        if decided is not None:
            table[key] = (decided, decided)
            return decided
        start = alpha
        best = -empties - 1
        child = empties - 1
        for bit in moves:
            score = -self.value(them, me | bit, child, -beta, -alpha)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        if best <= start:  # an upper bound (fail-soft: at least the value, at least low)
            table[key] = (low, best)
        elif best >= beta:  # a lower bound
            table[key] = (best, high)
        else:
            table[key] = (best, best)
        return best


def _symmetry_tables(dim: int) -> list[list[list[int]]]:
    """For each of the 7 non-identity symmetries, byte tables mapping a key's bits to its image.

    A key holds two boards of ``dim * dim`` bits side by side; both move the same way.
    """
    size = dim * dim
    maps = []
    for turn in range(4):
        for flip in (False, True):
            if turn == 0 and not flip:
                continue
            target = []
            for i in range(size):
                r, c = divmod(i, dim)
                if flip:
                    c = dim - 1 - c
                for _ in range(turn):
                    r, c = c, dim - 1 - r
                target.append(r * dim + c)
            maps.append(target + [t + size for t in target])
    bits = 2 * size
    result = []
    for target in maps:
        tables = []
        for start in range(0, bits, 8):
            table = []
            for byte in range(256):
                image = 0
                for j in range(8):
                    if byte >> j & 1 and start + j < bits:
                        image |= 1 << target[start + j]
                table.append(image)
            tables.append(table)
        result.append(tables)
    # Boards whose symmetries are all the identity (1x1) need no tables at all.
    return [tables for tables, target in zip(result, maps) if target != list(range(bits))]


_RULES: dict[tuple[int, bool], _Rules] = {}


def clear_cache() -> None:
    """Forget every solved position (the next searches start from scratch).

    >>> clear_cache()
    """
    for rules in _RULES.values():
        rules.table.clear()


def cache_size() -> int:
    """How many positions the tables hold, all sizes and modes together.

    >>> clear_cache(); cache_size()
    0
    """
    return sum(len(rules.table) for rules in _RULES.values())


def _rules(dim: int, reverse: bool) -> _Rules:
    rules = _RULES.get((dim, reverse))
    if rules is None:
        rules = _RULES[(dim, reverse)] = _Rules(dim, reverse)
    if len(rules.table) > CACHE_LIMIT:
        rules.table.clear()
    return rules


def _read(board: Any, player: int) -> tuple[_Rules, int, int, int]:
    """Check the call and read the board into (rules, mine, theirs, empty squares)."""
    switch_player(player)  # raises ValueError for anything but PLAYERX or PLAYERO
    winner = board.check_win()
    if winner is not None:
        result = "a draw" if winner == DRAW else f"{STRMAP[winner]} won"
        raise ValueError(f"the game is over ({result}): there is no move to make")
    dim = board.get_dim()
    me = them = 0
    for i in range(dim * dim):
        value = board.square(*divmod(i, dim))
        if value == player:
            me |= 1 << i
        elif value != EMPTY:
            them |= 1 << i
    empties = dim * dim - bin(me | them).count("1")
    if empties > max_empty(dim):
        raise TooLargeError(
            f"the perfect player cannot solve this {dim}x{dim} position quickly: it has "
            f"{empties} empty squares, and on boards larger than {MAX_DIM_ANY}x{MAX_DIM_ANY} "
            f"it solves positions with at most {MAX_EMPTY_LARGE}. Play on a board of size "
            f"{MAX_DIM_ANY} or less (every position there is solved), or use it from a later "
            f"position, with at most {MAX_EMPTY_LARGE} empty squares.")
    return _rules(dim, _is_reverse(board)), me, them, empties


def max_empty(dim: int) -> int:
    """The most empty squares a position on a ``dim`` x ``dim`` board may have to be solved.

    >>> max_empty(3), max_empty(4), max_empty(5), max_empty(7)
    (9, 16, 14, 14)
    """
    return dim * dim if dim <= MAX_DIM_ANY else MAX_EMPTY_LARGE


def _is_reverse(board: Any) -> bool:
    """Whether completing a line loses on ``board``, asked through the course's API only.

    On a clone, fill the empty squares of a line that only one player holds with that
    player's marks: ``check_win`` names that player in the normal game, the other in the
    reverse game. When every line holds both marks no line can ever be completed, and
    the mode cannot change the outcome.
    """
    dim = board.get_dim()
    cells = [[board.square(r, c) for c in range(dim)] for r in range(dim)]
    lines = [[(r, c) for c in range(dim)] for r in range(dim)]
    lines += [[(r, c) for r in range(dim)] for c in range(dim)]
    lines.append([(i, i) for i in range(dim)])
    lines.append([(i, dim - 1 - i) for i in range(dim)])
    for line in lines:
        owners = {cells[r][c] for r, c in line} - {EMPTY}
        if len(owners) < 2:
            owner = owners.pop() if owners else PLAYERX
            probe = board.clone()
            for r, c in line:
                probe.move(r, c, owner)
            return probe.check_win() != owner
    return False


def _best(rules: _Rules, me: int, them: int, empties: int) -> tuple[int, int]:
    """The best score for the player to move and the first square (a bit) that achieves it."""
    decided, moves = rules.candidates(me, them, empties)
    if decided is not None:
        return decided, moves[0]
    best, choice = -empties - 1, moves[0]
    for bit in moves:
        # Only a strictly better move replaces the one found first: ties keep the order.
        # The window (best, +infinity) makes every score above best exact.
        score = -rules.value(them, me | bit, empties - 1, -empties - 1, -best)
        if score > best:
            best, choice = score, bit
    return best, choice


def _square(rules: _Rules, bit: int) -> Move:
    return divmod(bit.bit_length() - 1, rules.dim)


def perfect_move(board: Any, player: int, trials: int = 1) -> Move:
    """The best move for ``player``: never losing if that can be helped, the quickest win,
    the longest loss. ``trials`` is ignored (it is there to be a move function).

    ``board`` is not changed. Raises ValueError on a finished board (or for a
    ``player`` other than PLAYERX and PLAYERO), and :class:`TooLargeError` on a
    position it cannot solve quickly (see :func:`max_empty`).

    >>> from provided.board import EMPTY, PLAYERO, PLAYERX, TTTBoard
    >>> board = TTTBoard(3, False, [[PLAYERX, EMPTY, EMPTY],
    ...                             [EMPTY, PLAYERO, EMPTY],
    ...                             [EMPTY, EMPTY, PLAYERX]])
    >>> perfect_move(board, PLAYERO)   # an edge: a corner would lose
    (0, 1)
    >>> perfect_move(TTTBoard(2, False, [[PLAYERX, PLAYERO], [PLAYERX, PLAYERO]]), PLAYERX)
    Traceback (most recent call last):
    ...
    ValueError: the game is over (X won): there is no move to make
    """
    rules, me, them, empties = _read(board, player)
    return _square(rules, _best(rules, me, them, empties)[1])


def position_value(board: Any, player: int) -> int:
    """The depth-weighted value of ``board`` with ``player`` to move, from X's side.

    X wins with ``k`` empty squares left: ``k + 1``; O wins: ``-(k + 1)``; a draw: 0;
    with best play on both sides. Its sign is the course's score (``SCORES``). On a
    finished board it is the value of how it ended.

    >>> from provided.board import TTTBoard
    >>> position_value(TTTBoard(3), PLAYERX), position_value(TTTBoard(2), PLAYERX)
    (0, 2)
    """
    switch_player(player)
    winner = board.check_win()
    if winner is not None:
        empties = len(board.get_empty_squares())
        return 0 if winner == DRAW else (empties + 1) * (1 if winner == PLAYERX else -1)
    rules, me, them, empties = _read(board, player)
    score = _best(rules, me, them, empties)[0]
    return score if player == PLAYERX else -score


def best_line(board: Any, player: int) -> tuple[str, list[Move]]:
    """How the game ends with best play from here, and the moves that get there.

    Returns ``("X wins" | "O wins" | "a draw", [(row, col), ...])``, the first move
    being ``player``'s; ``board`` is not changed. On a finished board the moves are
    empty.

    >>> from provided.board import TTTBoard
    >>> best_line(TTTBoard(2), PLAYERX)
    ('X wins', [(0, 0), (0, 1), (1, 0)])
    """
    board = board.clone()
    moves: list[Move] = []
    while board.check_win() is None:
        move = perfect_move(board, player)
        board.move(*move, player)
        moves.append(move)
        player = switch_player(player)
    winner = board.check_win()
    return ("a draw" if winner == DRAW else f"{STRMAP[winner]} wins"), moves
