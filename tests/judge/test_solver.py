"""The reference solver against the known figures (FACTS.md) and a plain minimax.

The plain minimax below is deliberately naive (lists of coordinates, no
bitmasks, no pruning; memoized only so that it finishes) so that agreeing with
it means something.
"""

from __future__ import annotations

import doctest
import random
from collections import Counter
from functools import lru_cache

import pytest

import grader.judge.solver
from grader.judge.position import Position
from grader.judge.solver import (MAX_DIM, SLOW_PATH_EMPTIES, TREE_SIZE_EMPTIES, Solver,
                           SolverTooLarge, reachable)
from provided.board import DRAW, EMPTY, PLAYERO, PLAYERX, SCORES, TTTBoard

X, O, E = PLAYERX, PLAYERO, EMPTY
OTHER = {X: O, O: X}
CORNERS = {(0, 0), (0, 2), (2, 0), (2, 2)}


# -- a plain, obviously correct reference ------------------------------------------

@lru_cache(maxsize=None)
def plain_lines(dim: int) -> list[list[int]]:
    """Rows, columns, main diagonal, anti-diagonal: flat indices, in the course's order."""
    rows = [[r * dim + c for c in range(dim)] for r in range(dim)]
    cols = [[r * dim + c for r in range(dim)] for c in range(dim)]
    diag = [i * dim + i for i in range(dim)]
    anti = [i * dim + (dim - 1 - i) for i in range(dim)]
    return rows + cols + [diag, anti]


def plain_winner(cells: tuple[int, ...], dim: int, reverse: bool) -> int | None:
    for line in plain_lines(dim):
        first = cells[line[0]]
        if first != EMPTY and all(cells[i] == first for i in line):
            return OTHER[first] if reverse else first
    return DRAW if EMPTY not in cells else None


def plain_children(cells: tuple[int, ...], player: int) -> dict[tuple[int, int], tuple[int, ...]]:
    dim = int(len(cells) ** 0.5)
    children = {}
    for i, cell in enumerate(cells):
        if cell == EMPTY:
            child = list(cells)
            child[i] = player
            children[divmod(i, dim)] = tuple(child)
    return children


@lru_cache(maxsize=None)
def plain_value(cells: tuple[int, ...], player: int, reverse: bool) -> int:
    """Minimax: X maximises, O minimises, SCORES at the end."""
    dim = int(len(cells) ** 0.5)
    winner = plain_winner(cells, dim, reverse)
    if winner is not None:
        return SCORES[winner]
    values = [plain_value(child, OTHER[player], reverse)
              for child in plain_children(cells, player).values()]
    return max(values) if player == X else min(values)


def plain_best_moves(cells: tuple[int, ...], player: int, reverse: bool) -> frozenset:
    dim = int(len(cells) ** 0.5)
    if plain_winner(cells, dim, reverse) is not None:
        return frozenset()
    target = plain_value(cells, player, reverse)
    return frozenset(move for move, child in plain_children(cells, player).items()
                     if plain_value(child, OTHER[player], reverse) == target)


@lru_cache(maxsize=None)
def plain_distance(cells: tuple[int, ...], player: int, reverse: bool) -> int:
    """Plies to the end with perfect play, the winner hurrying and the loser stalling."""
    dim = int(len(cells) ** 0.5)
    if plain_winner(cells, dim, reverse) is not None:
        return 0
    value = plain_value(cells, player, reverse)
    spans = [1 + plain_distance(child, OTHER[player], reverse)
             for child in plain_children(cells, player).values()
             if plain_value(child, OTHER[player], reverse) == value]
    mover_wins = value == SCORES[player]
    return min(spans) if mover_wins else max(spans)


@lru_cache(maxsize=None)
def plain_games(cells: tuple[int, ...], player: int) -> Counter:
    """Complete games from here by result (normal mode), counted leaf by leaf."""
    dim = int(len(cells) ** 0.5)
    winner = plain_winner(cells, dim, False)
    if winner is not None:
        return Counter({winner: 1})
    total: Counter = Counter()
    for child in plain_children(cells, player).values():
        total += plain_games(child, OTHER[player])
    return total


@lru_cache(maxsize=None)
def plain_tree(cells: tuple[int, ...], player: int) -> int:
    """Nodes a plain minimax visits, root included."""
    dim = int(len(cells) ** 0.5)
    if plain_winner(cells, dim, False) is not None:
        return 1
    return 1 + sum(plain_tree(child, OTHER[player])
                   for child in plain_children(cells, player).values())


def canonical(cells: tuple[int, ...], dim: int) -> tuple[int, ...]:
    """The smallest of the 8 images of a grid under the symmetries of the square."""
    images = []
    grid = [list(cells[r * dim:(r + 1) * dim]) for r in range(dim)]
    for _ in range(4):
        grid = [list(row) for row in zip(*grid[::-1])]  # rotate a quarter turn
        images.append(tuple(v for row in grid for v in row))
        images.append(tuple(v for row in grid for v in row[::-1]))  # and mirror
    return min(images)


def random_live(rng: random.Random, dim: int, empties: int, reverse: bool,
                player: int | None = None) -> Position:
    """A random unfinished position with the given number of empty squares."""
    squares = dim * dim
    while True:
        order = rng.sample(range(squares), squares - empties)
        cells = [EMPTY] * squares
        for k, square in enumerate(order):
            cells[square] = X if k % 2 == 0 else O
        to_move = player or (X if (squares - empties) % 2 == 0 else O)
        if plain_winner(tuple(cells), dim, reverse) is None:
            return Position(dim, tuple(cells), to_move, reverse)


def grid(rows: str, player: int = X, reverse: bool = False) -> Position:
    """A position from rows like "XO. ... ..." ('.' empty)."""
    cells = tuple({"X": X, "O": O, ".": E}[ch] for row in rows.split() for ch in row)
    return Position(len(rows.split()), cells, player, reverse)


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


@pytest.fixture(scope="module")
def table3() -> dict[bool, list[Position]]:
    return {reverse: list(reachable(3, reverse)) for reverse in (False, True)}


# -- 3x3 figures -----------------------------------------------------------------

def test_reachable_3x3_by_ply(table3):
    positions = table3[False]
    assert len(positions) == 5478
    assert len({p.cells for p in positions}) == 5478
    by_ply = Counter(p.ply for p in positions)
    assert [by_ply[k] for k in range(10)] == [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]
    # Player to move is implied by the counts; reverse mode reaches the same grids.
    assert all(p.player == (X if p.cells.count(X) == p.cells.count(O) else O)
               for p in positions)
    assert [p.cells for p in table3[True]] == [p.cells for p in positions]
    assert all(p.reverse for p in table3[True])


def test_finished_3x3(solver, table3):
    normal = Counter(solver.winner(p) for p in table3[False])
    assert normal == {None: 5478 - 958, X: 626, O: 316, DRAW: 16}
    reverse = Counter(solver.winner(p) for p in table3[True])
    assert reverse == {None: 5478 - 958, O: 626, X: 316, DRAW: 16}


def test_symmetry_classes_3x3(table3):
    assert len({canonical(p.cells, 3) for p in table3[False]}) == 765


@pytest.mark.parametrize("reverse, expected", [
    (False, {1: 2936, -1: 1474, 0: 1068}),
    (True, {1: 898, -1: 3600, 0: 980}),
])
def test_positions_by_value_3x3(solver, table3, reverse, expected):
    assert Counter(solver.value(p) for p in table3[reverse]) == expected


def test_games_and_tree_3x3(solver):
    empty = Position.empty(3)
    games = plain_games(empty.cells, X)
    assert games == {X: 131184, O: 77904, DRAW: 46080}
    assert sum(games.values()) == 255168
    assert solver.tree_size(empty) == plain_tree(empty.cells, X) == 549946
    assert solver.tree_size(Position.empty(3, reverse=True)) == 549946


def test_tree_size_matches_plain_count_everywhere(table3):
    solver = Solver()  # fresh: sizes must not depend on what was asked before
    for pos in table3[False][::-1]:
        assert solver.tree_size(pos) == plain_tree(pos.cells, pos.player), pos
    wrong = grid("X.. ... ...", X)  # X to move again: a different tree
    assert solver.tree_size(wrong) == plain_tree(wrong.cells, X) != solver.tree_size(
        wrong.with_player(O))


def test_normal_3x3_openings(solver):
    empty = Position.empty(3)
    assert solver.value(empty) == 0
    assert solver.move_values(empty) == {move: 0 for move in empty.empty_squares()}
    assert solver.best_moves(empty) == frozenset(empty.empty_squares())
    for corner in CORNERS:
        after = empty.play(corner)
        assert solver.best_moves(after) == {(1, 1)}
        assert all(value == 1 for move, value in solver.move_values(after).items()
                   if move != (1, 1))
    assert solver.best_moves(empty.play((1, 1))) == CORNERS
    assert solver.value(empty.play((1, 1)).play((0, 1))) == 1


def test_reverse_3x3_openings(solver):
    empty = Position.empty(3, reverse=True)
    assert solver.value(empty) == 0
    assert solver.best_moves(empty) == {(1, 1)}
    values = solver.move_values(empty)
    assert values.pop((1, 1)) == 0
    assert len(values) == 8 and set(values.values()) == {-1}


# -- other sizes -------------------------------------------------------------------

def test_2x2(solver):
    positions = list(reachable(2))
    assert len(positions) == 29
    assert sum(plain_games(Position.empty(2).cells, X).values()) == 24
    assert solver.tree_size(Position.empty(2)) == 41
    empty = Position.empty(2)
    assert solver.value(empty) == 1
    assert solver.best_moves(empty) == frozenset(empty.empty_squares())
    assert set(solver.move_values(empty).values()) == {1}
    reverse = Position.empty(2, reverse=True)
    assert solver.value(reverse) == -1
    assert set(solver.move_values(reverse).values()) == {-1}
    assert solver.best_moves(reverse) == frozenset(reverse.empty_squares())


def test_1x1(solver):
    assert solver.value(Position.empty(1)) == 1
    assert solver.value(Position.empty(1, player=O)) == -1
    assert solver.value(Position.empty(1, reverse=True)) == -1
    assert solver.best_moves(Position.empty(1)) == {(0, 0)}
    assert solver.winner(Position(1, (X,), O)) == X
    assert solver.winner(Position(1, (O,), X)) == O
    assert solver.winner(Position(1, (X,), O, True)) == O
    assert solver.winner(Position.empty(1)) is None
    assert solver.tree_size(Position.empty(1)) == 2
    assert [p.cells for p in reachable(1)] == [(E,), (X,)]


def test_4x4_empty_board_and_first_moves_draw():
    solver = Solver()
    for reverse in (False, True):
        empty = Position.empty(4, reverse=reverse)
        assert solver.value(empty) == 0
        assert solver.move_values(empty) == {move: 0 for move in empty.empty_squares()}
        assert solver.best_moves(empty) == frozenset(empty.empty_squares())


def test_4x4_every_reply_draws():
    # By symmetry, a corner, an edge and a centre square cover every first move.
    solver = Solver()
    for reverse in (False, True):
        for first in [(0, 0), (0, 1), (1, 1)]:
            after = Position.empty(4, reverse=reverse).play(first)
            assert set(solver.move_values(after).values()) == {0}, (reverse, first)


def test_4x4_ten_empties_is_quick_and_exact():
    rng = random.Random(10)
    solver = Solver()
    for reverse in (False, True):
        for _ in range(3):
            pos = random_live(rng, 4, 10, reverse)
            values = solver.move_values(pos)
            assert len(values) == 10
            best = solver.best_moves(pos)
            assert best and all(values[m] == solver.value(pos) for m in best)


# -- differential: solver against the plain minimax ------------------------------

@pytest.mark.parametrize("reverse", [False, True])
def test_every_3x3_position_both_players_matches_plain(table3, reverse):
    solver = Solver()
    for pos in table3[reverse]:
        for player in (X, O):
            p = pos.with_player(player)
            assert solver.value(p) == plain_value(p.cells, player, reverse), p
            assert solver.best_moves(p) == plain_best_moves(p.cells, player, reverse), p


def test_unreachable_3x3_grids_match_plain():
    # Arbitrary grids (e.g. five X and no O) are legal input as well.
    rng = random.Random(3)
    solver = Solver()
    for _ in range(300):
        cells = tuple(rng.choice((E, E, X, O)) for _ in range(9))
        for reverse in (False, True):
            for player in (X, O):
                p = Position(3, cells, player, reverse)
                assert solver.value(p) == plain_value(cells, player, reverse), p
                assert solver.best_moves(p) == plain_best_moves(cells, player, reverse), p


def test_random_4x4_endgames_match_plain():
    rng = random.Random(4)
    solver = Solver()
    for k in range(60):
        reverse = k % 2 == 1
        pos = random_live(rng, 4, rng.randint(1, 8), reverse, player=rng.choice((X, O)))
        assert solver.value(pos) == plain_value(pos.cells, pos.player, reverse), pos
        assert solver.best_moves(pos) == plain_best_moves(pos.cells, pos.player, reverse), pos


def test_random_5x5_slow_path_matches_plain():
    rng = random.Random(5)
    solver = Solver()
    for reverse in (False, True):
        pos = random_live(rng, 5, 7, reverse)
        assert solver.value(pos) == plain_value(pos.cells, pos.player, reverse), pos
        assert solver.best_moves(pos) == plain_best_moves(pos.cells, pos.player, reverse), pos


# -- winner: the course's scan order -------------------------------------------------

@pytest.mark.parametrize("rows, normal", [
    ("XXX ... OOO", X),             # two rows: the top one decides
    ("OOO XXX ...", O),
    ("X.O X.O X.O", X),             # two columns: the left one decides
    ("OX. OX. OX.", O),
    ("X..O .XO. .OX. O..X", X),     # main diagonal before anti-diagonal (4x4)
    ("O..X .OX. .XO. X..O", O),
    ("XXX XXX XXX", X),
    ("XOX XOO OXX", DRAW),          # full, no line
    ("XO. ... ...", None),
])
def test_winner_scan_order(solver, rows, normal):
    pos = grid(rows)
    reversed_ = grid(rows, reverse=True)
    assert solver.winner(pos) == normal
    assert solver.winner(reversed_) == (OTHER.get(normal, normal))
    # The course's board says the same.
    board = TTTBoard(pos.dim, False, pos.grid)
    assert board.check_win() == normal
    assert TTTBoard(pos.dim, True, pos.grid).check_win() == OTHER.get(normal, normal)


def test_winner_matches_course_board_on_random_grids(solver):
    rng = random.Random(7)
    seen = Counter()
    for _ in range(3000):
        dim = rng.randint(1, 5)
        cells = tuple(rng.choice((E, X, O)) for _ in range(dim * dim))
        reverse = rng.random() < 0.5
        expected = TTTBoard(dim, reverse, [list(cells[r * dim:(r + 1) * dim])
                                           for r in range(dim)]).check_win()
        got = solver.winner(Position(dim, cells, X, reverse))
        assert got == expected == plain_winner(cells, dim, reverse), (dim, cells, reverse)
        seen[got] += 1
    assert seen[X] and seen[O] and seen[DRAW] and seen[None]


def test_finished_positions_are_worth_their_score(solver, table3):
    for reverse in (False, True):
        for pos in table3[reverse]:
            winner = solver.winner(pos)
            if winner is not None:
                assert solver.value(pos) == SCORES[winner]
                assert solver.best_moves(pos) == frozenset()
                assert solver.move_values(pos) == {}
                assert solver.tree_size(pos) == 1
    # Several lines: the scan order decides the value too.
    assert solver.value(grid("OOO XXX ...", X)) == -1
    assert solver.value(grid("OOO XXX ...", X, reverse=True)) == 1


# -- lines of play ------------------------------------------------------------------

@pytest.mark.parametrize("reverse", [False, True])
def test_line_of_play_is_optimal_and_fastest(table3, reverse):
    solver = Solver()
    rng = random.Random(11)
    for pos in table3[reverse]:
        if solver.winner(pos) is not None:
            continue
        move = rng.choice(pos.empty_squares())
        line = solver.line_of_play(pos, move, length=9)
        current = pos.play(move)
        # Every move in the line is optimal, and the line runs to the end of the game.
        for step in line:
            assert step in solver.best_moves(current), (pos, move, line)
            current = current.play(step)
        assert solver.winner(current) is not None, (pos, move, line)
        after = pos.play(move)
        assert SCORES[solver.winner(current)] == solver.value(after)
        # Fastest win for the winner, slowest loss for the loser.
        if solver.value(after) != 0:
            assert len(line) == plain_distance(after.cells, after.player, reverse), (pos, move)


def test_line_of_play_examples_and_limits(solver):
    pos = grid("X.. OO. .X.", X)
    assert solver.line_of_play(pos, (2, 2)) == [(1, 2)]        # O wins at once
    assert solver.line_of_play(pos, (1, 2), length=0) == []
    assert len(solver.line_of_play(Position.empty(3), (1, 1), length=3)) == 3
    # The loser who must lose anyway still blocks, so the line reads naturally.
    after_blunder = solver.line_of_play(grid("X.. ... ...", O), (0, 1), length=9)
    assert after_blunder[:3] == [(1, 0), (2, 0), (1, 1)] and len(after_blunder) == 5
    with pytest.raises(ValueError):
        solver.line_of_play(pos, (0, 0))                       # occupied
    with pytest.raises(ValueError):
        solver.line_of_play(grid("XXX OO. ...", O), (2, 2))    # game over


# -- limits and input errors -----------------------------------------------------

def test_size_limits():
    solver = Solver()
    with pytest.raises(SolverTooLarge, match="4x4") as caught:
        solver.value(Position.empty(5))
    assert isinstance(caught.value, ValueError)
    assert MAX_DIM == 4 and SLOW_PATH_EMPTIES == 10
    rng = random.Random(6)
    slow = random_live(rng, 5, SLOW_PATH_EMPTIES, False)
    assert solver.value(slow) in (-1, 0, 1)
    with pytest.raises(SolverTooLarge, match="11 empty"):
        solver.best_moves(random_live(rng, 5, SLOW_PATH_EMPTIES + 1, False))
    with pytest.raises(SolverTooLarge, match="tree"):
        solver.tree_size(Position.empty(4))
    assert solver.tree_size(random_live(rng, 4, TREE_SIZE_EMPTIES, False)) > 1
    # winner works at any size; finished big boards are fine too.
    big = Position(6, (X,) * 36, O)
    assert solver.winner(big) == X and solver.value(big) == 1


def test_bad_cells_are_rejected():
    with pytest.raises(ValueError, match="cell"):
        Solver().value(Position(2, (X, 7, E, E), O))


def test_reachable_players_and_termination():
    positions = list(reachable(2, reverse=True))
    assert len(positions) == 29 and all(p.reverse for p in positions)
    assert all(p.player == (X if p.ply % 2 == 0 else O) for p in positions)
    plies = [p.ply for p in positions]
    assert plies == sorted(plies)
    # Nothing follows a finished position: every child of a live one is listed.
    listed = {p.cells for p in positions}
    for p in positions:
        if plain_winner(p.cells, 2, False) is None:
            assert set(plain_children(p.cells, p.player).values()) <= listed


def test_docstring_examples():
    result = doctest.testmod(grader.judge.solver)
    assert result.attempted > 10 and result.failed == 0


def test_solving_ahead_changes_no_answer(table3, monkeypatch):
    # A warm server solves every 3x3 position before it forks (grader.classroom.warm):
    # the answers a grade then reads from the tables must be the ones it would work out.
    ahead = Solver()
    ahead.solve(table3[False] + table3[True] + [Position.empty(4), Position.empty(2)])
    fresh = Solver()
    expected = {pos: (fresh.winner(pos), fresh.move_values(pos), fresh.tree_size(pos))
                for pos in table3[False][::7] + table3[True][::7]}
    # Solved ahead: answered from the tables, without a single new search.
    monkeypatch.setattr(grader.judge.solver._Game, "_search", None)
    for pos, (winner, values, size) in expected.items():
        assert (ahead.winner(pos), ahead.move_values(pos), ahead.tree_size(pos)) == \
            (winner, values, size)
        if winner is None:
            assert ahead.best_moves(pos) == {m for m, v in values.items()
                                             if v == max(values.values(), key=lambda v:
                                                         v * SCORES[pos.player])}
    # Too large to count (16 empty squares): asked later, it still says so.
    with pytest.raises(SolverTooLarge):
        ahead.tree_size(Position.empty(4))
