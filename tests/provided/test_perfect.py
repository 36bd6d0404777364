"""The perfect player (provided.perfect) against a plain minimax written here, and in play.

``plain_value`` is the obvious minimax: clone at every step, every move tried, no
pruning, no shortcuts; it is memoised on the position only so that asking it about
thousands of positions stays fast. Its scores are depth-weighted like the perfect
player's (a win with k empty squares left is k + 1 for the winner, a draw 0), always
from X's side, so "the same value" means "as good a result, as quickly won or as
slowly lost".
"""

from __future__ import annotations

import doctest
import io
import random
from functools import lru_cache

import pytest

import provided
import provided.console as console
import provided.perfect as perfect
from provided import DRAW, EMPTY, PLAYERO, PLAYERX, TTTBoard, switch_player
from provided.perfect import TooLargeError, best_line, perfect_move, position_value

X, O, E = PLAYERX, PLAYERO, EMPTY


# --- the yardstick -----------------------------------------------------------------------

def cells(board: TTTBoard) -> tuple[int, ...]:
    dim = board.get_dim()
    return tuple(board.square(r, c) for r in range(dim) for c in range(dim))


_MEMO: dict[tuple, int] = {}


def plain_value(board: TTTBoard, player: int, reverse: bool) -> int:
    """The depth-weighted minimax value of ``board`` with ``player`` to move, X's side."""
    key = (board.get_dim(), reverse, cells(board), player)
    if key not in _MEMO:
        winner = board.check_win()
        if winner is not None:
            left = len(board.get_empty_squares())
            value = 0 if winner == DRAW else (left + 1) * (1 if winner == PLAYERX else -1)
        else:
            values = []
            for row, col in board.get_empty_squares():
                child = board.clone()
                child.move(row, col, player)
                values.append(plain_value(child, switch_player(player), reverse))
            value = max(values) if player == PLAYERX else min(values)
        _MEMO[key] = value
    return _MEMO[key]


def value_after(board: TTTBoard, player: int, move: tuple[int, int], reverse: bool) -> int:
    child = board.clone()
    child.move(*move, player)
    return plain_value(child, switch_player(player), reverse)


def move_values(board: TTTBoard, player: int, reverse: bool) -> dict[tuple[int, int], int]:
    """Every legal move and its value for the mover (higher is better for ``player``)."""
    sign = 1 if player == PLAYERX else -1
    return {move: sign * value_after(board, player, move, reverse)
            for move in board.get_empty_squares()}


@lru_cache(maxsize=None)
def reachable(dim: int, reverse: bool) -> tuple[tuple[TTTBoard, int], ...]:
    """Every unfinished position a game from the empty board can reach, with who moves."""
    seen: dict[tuple[int, ...], tuple[TTTBoard, int]] = {}
    frontier = [(TTTBoard(dim, reverse), PLAYERX)]
    while frontier:
        following = []
        for board, player in frontier:
            if board.check_win() is not None or cells(board) in seen:
                continue
            seen[cells(board)] = (board, player)
            for row, col in board.get_empty_squares():
                child = board.clone()
                child.move(row, col, player)
                following.append((child, switch_player(player)))
        frontier = following
    return tuple(seen.values())


def tie_order(dim: int) -> list[tuple[int, int]]:
    """The documented tie-break: squares on more lines first, then row by row."""
    def lines_through(square: tuple[int, int]) -> int:
        row, col = square
        return 2 + (row == col) + (row + col == dim - 1)
    squares = [(r, c) for r in range(dim) for c in range(dim)]
    return sorted(squares, key=lambda square: (-lines_through(square), square))


def test_the_enumerator_finds_every_position() -> None:
    # 5,478 positions are reachable on 3x3, 958 of them finished games.
    assert len(reachable(3, False)) == len(reachable(3, True)) == 4520
    # 2x2: any two marks of one player make a line, so X's second mark ends every game.
    assert len(reachable(2, False)) == 1 + 4 + 12


# --- optimal moves -------------------------------------------------------------------------

@pytest.mark.parametrize("reverse", [False, True], ids=["normal", "reverse"])
@pytest.mark.parametrize("dim", [3, 2, 1])
def test_every_reachable_position_gets_an_optimal_move(dim: int, reverse: bool) -> None:
    for board, player in reachable(dim, reverse):
        before = repr(board)
        move = perfect_move(board, player)
        assert repr(board) == before, "perfect_move changed the board"
        assert move in board.get_empty_squares(), (board, player, move)
        best = plain_value(board, player, reverse)
        assert value_after(board, player, move, reverse) == best, (board, player, move)
        assert position_value(board, player) == best, (board, player)


@pytest.mark.parametrize("reverse", [False, True], ids=["normal", "reverse"])
def test_ties_go_to_the_first_square_in_the_documented_order(reverse: bool) -> None:
    order = tie_order(3)
    for board, player in reachable(3, reverse):
        values = move_values(board, player, reverse)
        best = max(values.values())
        first = next(square for square in order if values.get(square) == best)
        assert perfect_move(board, player) == first, (board, player)


def test_the_answer_does_not_depend_on_the_cache() -> None:
    positions = reachable(3, True)[::97] + reachable(3, False)[::97]
    warm = [perfect_move(board, player) for board, player in positions]
    cold = []
    for board, player in positions:
        perfect.clear_cache()
        cold.append(perfect_move(board, player))
    assert cold == warm
    assert warm == [perfect_move(board, player) for board, player in positions]


def test_empty_boards() -> None:
    assert perfect_move(TTTBoard(3), PLAYERX) == (1, 1)
    assert position_value(TTTBoard(3), PLAYERX) == 0
    assert position_value(TTTBoard(3, True), PLAYERX) == 0
    # 2x2: any two marks make a line, so X's second mark ends the game with 1 square left.
    assert position_value(TTTBoard(2), PLAYERX) == 2
    assert position_value(TTTBoard(2, True), PLAYERX) == -2
    # 1x1: the first mark completes every line.
    assert perfect_move(TTTBoard(1), PLAYERX) == (0, 0)
    assert perfect_move(TTTBoard(1, True), PLAYERO) == (0, 0)
    assert position_value(TTTBoard(1), PLAYERO) == -1
    assert position_value(TTTBoard(1, True), PLAYERO) == 1


# --- quickest win, longest loss ------------------------------------------------------------

def test_takes_the_win_now_rather_than_a_slower_win() -> None:
    board = TTTBoard(3, False, [[X, O, E],
                                [E, E, E],
                                [X, O, E]])
    values = move_values(board, X, False)
    assert values[(1, 0)] == 5  # completes the left column: 4 squares left
    assert values[(1, 1)] == 3  # the centre wins too (three threats), two moves later
    assert tie_order(3).index((1, 1)) < tie_order(3).index((1, 0))
    assert perfect_move(board, X) == (1, 0)
    assert best_line(board, X) == ("X wins", [(1, 0)])


def test_takes_the_quickest_win_in_the_reverse_game() -> None:
    board = TTTBoard(3, True, [[X, O, O],
                               [X, X, E],
                               [E, E, E]])
    values = move_values(board, O, True)
    assert values[(2, 0)] == 1  # a corner, first in the order: X is forced at the very end
    assert values[(2, 1)] == 3  # X must complete a line two moves sooner
    assert max(values.values()) == 3
    assert perfect_move(board, O) == (2, 1)


def test_loses_as_late_as_possible() -> None:
    # X threatens the left column and wins anyway; blocking only delays it.
    board = TTTBoard(3, False, [[X, O, E],
                                [X, E, E],
                                [E, E, E]])
    values = move_values(board, O, False)
    assert values[(2, 0)] == -3  # block: X wins two moves later
    assert values[(1, 1)] == -5  # the centre, first in the order: X wins at once
    assert all(value < 0 for value in values.values())
    assert perfect_move(board, O) == (2, 0)


def test_loses_as_late_as_possible_in_the_reverse_game() -> None:
    board = TTTBoard(3, True, [[X, O, O],
                               [X, E, E],
                               [E, E, E]])
    values = move_values(board, X, True)
    assert all(value < 0 for value in values.values())  # X is lost
    assert values[(2, 0)] == -5  # completes X's left column: loses at once
    assert values[(1, 1)] == -3  # the centre loses sooner than the best
    assert values[(2, 2)] == -1  # X loses only with the very last square
    assert perfect_move(board, X) == (2, 2)
    outcome, moves = best_line(board, X)
    assert outcome == "O wins" and len(moves) == 5


# --- never loses ---------------------------------------------------------------------------

def walk(board: TTTBoard, to_move: int, me: int, games: list[int]) -> None:
    """Play on: ``me`` plays perfect_move, the other side tries every reply."""
    winner = board.check_win()
    if winner is not None:
        games.append(winner)
        return
    replies = [perfect_move(board, me)] if to_move == me else board.get_empty_squares()
    for move in replies:
        child = board.clone()
        child.move(*move, to_move)
        walk(child, switch_player(to_move), me, games)


@pytest.mark.parametrize("reverse", [False, True], ids=["normal", "reverse"])
@pytest.mark.parametrize("me", [PLAYERX, PLAYERO], ids=["as X", "as O"])
def test_never_loses_against_any_opponent(me: int, reverse: bool) -> None:
    games: list[int] = []
    walk(TTTBoard(3, reverse), PLAYERX, me, games)
    assert len(games) > 50
    assert switch_player(me) not in games
    assert DRAW in games


@pytest.mark.parametrize("reverse", [False, True], ids=["normal", "reverse"])
def test_plays_both_sides_of_play_game_to_a_tie(reverse: bool,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    provided.play_game(perfect_move, 1, reverse)
    assert capsys.readouterr().out.rstrip().endswith("Tie!")


# --- other sizes ---------------------------------------------------------------------------

def endgames(reverse: bool, count: int, seed: int) -> list[tuple[TTTBoard, int]]:
    """Unfinished 4x4 positions with 5 to 7 empty squares, from random games."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        board, player = TTTBoard(4, reverse), PLAYERX
        left = rng.randint(5, 7)
        while board.check_win() is None and len(board.get_empty_squares()) > left:
            board.move(*rng.choice(board.get_empty_squares()), player)
            player = switch_player(player)
        if board.check_win() is None:
            found.append((board, player))
    return found


@pytest.mark.parametrize("reverse", [False, True], ids=["normal", "reverse"])
def test_4x4_endgames_agree_with_plain_minimax(reverse: bool) -> None:
    outcomes = set()
    for board, player in endgames(reverse, 12, seed=4):
        best = plain_value(board, player, reverse)
        move = perfect_move(board, player)
        assert value_after(board, player, move, reverse) == best, (board, player, move)
        assert position_value(board, player) == best
        outcomes.add((best > 0) - (best < 0))
    assert len(outcomes) >= 2  # not all of one kind


def test_4x4_from_the_empty_board() -> None:
    # The largest search allowed; the result is a draw in both modes.
    for reverse in (False, True):
        outcome, moves = best_line(TTTBoard(4, reverse), PLAYERX)
        assert outcome == "a draw" and len(moves) == 16


def test_larger_boards_from_late_positions() -> None:
    # 5x5, 8 empty squares: O to move must block the bottom row's last square.
    board = TTTBoard(5, False, [[X, O, X, O, X],
                                [O, X, O, X, O],
                                [O, X, O, X, O],
                                [E, E, E, E, E],
                                [X, X, X, X, E]])
    assert perfect_move(board, O) == (4, 4)


def test_a_board_where_no_line_can_be_completed_is_a_draw_in_both_modes() -> None:
    # Every row, column and diagonal holds both marks: asking the board which mode it
    # plays finds nothing to ask about, and nothing needs it.
    grid = [[O, E, X, E],
            [E, X, E, O],
            [E, O, E, X],
            [X, E, O, E]]
    for reverse in (False, True):
        board = TTTBoard(4, reverse, grid)
        assert plain_value(board, X, reverse) == 0
        assert position_value(board, X) == 0
        assert value_after(board, X, perfect_move(board, X), reverse) == 0


class CourseBoard:
    """A board written like the course's: lists of lines, no incremental state."""

    def __init__(self, dim, reverse=False, board=None):
        self._dim = dim
        self._reverse = reverse
        self._grid = ([[EMPTY] * dim for _ in range(dim)] if board is None
                      else [list(row) for row in board])

    def get_dim(self):
        return self._dim

    def square(self, row, col):
        return self._grid[row][col]

    def get_empty_squares(self):
        return [(r, c) for r in range(self._dim) for c in range(self._dim)
                if self._grid[r][c] == EMPTY]

    def move(self, row, col, player):
        if self._grid[row][col] == EMPTY:
            self._grid[row][col] = player

    def check_win(self):
        dim, grid = self._dim, self._grid
        lines = [list(row) for row in grid]
        lines += [[grid[r][c] for r in range(dim)] for c in range(dim)]
        lines.append([grid[i][i] for i in range(dim)])
        lines.append([grid[i][dim - 1 - i] for i in range(dim)])
        for line in lines:
            if line[0] != EMPTY and line.count(line[0]) == dim:
                if self._reverse:
                    return switch_player(line[0])
                return line[0]
        return None if self.get_empty_squares() else DRAW

    def clone(self):
        return CourseBoard(self._dim, self._reverse, self._grid)


@pytest.mark.parametrize("reverse", [False, True], ids=["normal", "reverse"])
def test_works_on_any_board_with_the_course_api(reverse: bool) -> None:
    # Read through get_dim, square, check_win and clone only: the mode is found by asking.
    for board, player in reachable(3, reverse)[::23]:
        grid = [[board.square(r, c) for c in range(3)] for r in range(3)]
        course = CourseBoard(3, reverse, grid)
        assert perfect_move(course, player) == perfect_move(board, player)
        assert course._grid == grid


# --- refusals ------------------------------------------------------------------------------

@pytest.mark.parametrize("grid, reverse, said", [
    ([[X, X, X], [O, O, E], [E, E, E]], False, "X won"),
    ([[X, X, X], [O, O, E], [E, E, E]], True, "O won"),
    ([[X, O, X], [X, O, O], [O, X, X]], False, "a draw"),
    ([[X, X], [O, E]], False, "X won"),
    ([[O]], False, "O won"),
])
def test_finished_board_raises(grid: list[list[int]], reverse: bool, said: str) -> None:
    board = TTTBoard(len(grid), reverse, grid)
    with pytest.raises(ValueError) as info:
        perfect_move(board, PLAYERO)
    assert not isinstance(info.value, TooLargeError)
    assert str(info.value) == f"the game is over ({said}): there is no move to make"


def test_bad_player_raises() -> None:
    with pytest.raises(ValueError, match="PLAYERX"):
        perfect_move(TTTBoard(3), EMPTY)


def test_too_large_raises_and_says_what_to_do() -> None:
    with pytest.raises(TooLargeError) as info:
        perfect_move(TTTBoard(5), PLAYERX)
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert "5x5" in message and "25 empty squares" in message
    assert "at most 14" in message
    assert "board of size 4 or less" in message and "later position" in message


def test_the_size_limit_is_exactly_where_documented() -> None:
    assert [perfect.max_empty(dim) for dim in (1, 2, 3, 4, 5, 6)] == [1, 4, 9, 16, 14, 14]
    # 5x5 with 15 empty squares is refused, before any search.
    board = TTTBoard(5, False, [[X, O, X, O, X], [O, X, O, X, O]] + [[E] * 5] * 3)
    with pytest.raises(TooLargeError):
        perfect_move(board, X)
    board.move(2, 0, X)  # 14 empty squares left: solved
    assert perfect_move(board, O) in board.get_empty_squares()


def test_the_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    perfect.clear_cache()
    monkeypatch.setattr(perfect, "CACHE_LIMIT", 20)
    perfect_move(TTTBoard(3, True), PLAYERX)
    assert perfect.cache_size() > 20
    perfect_move(TTTBoard(3, True, [[X, O, X], [X, O, O], [O, E, E]]), PLAYERX)
    assert perfect.cache_size() <= 20  # emptied before the next search
    perfect.clear_cache()
    assert perfect.cache_size() == 0


# --- console and docs ----------------------------------------------------------------------

def run_main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = console.main(argv, stdin=io.StringIO(), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("extra", [[], ["--reverse"]], ids=["normal", "reverse"])
def test_console_perfect_against_perfect_is_a_tie(extra: list[str]) -> None:
    status, out, err = run_main(["-x", "perfect", "-o", "perfect", *extra])
    assert status == 0, err
    assert "X: perfect, O: perfect." in out
    assert "X (perfect) plays (1, 1)" in out
    assert out.count("(perfect) plays") == 9
    assert out.rstrip().splitlines()[-1] == "Tie!"


def test_console_perfect_beats_a_weak_player() -> None:
    status, out, err = run_main(["-x", "provided.console:first_empty", "-o", "perfect"])
    assert status == 0, err
    assert out.rstrip().endswith("O wins!")


def test_console_too_large_stops_with_the_reason() -> None:
    status, _, err = run_main(["-n", "5", "-o", "perfect", "-x", "perfect"])
    assert status == 1
    assert "X (perfect) raised TooLargeError" in err
    assert "board of size 4 or less" in err


def test_help_lists_perfect() -> None:
    text = console.build_parser().format_help()
    assert "-o perfect" in text
    assert "perfect                never loses: quickest win, longest loss" in text
    assert console.make_player("perfect", random.Random(0)).name == "perfect"


def test_doctests_pass() -> None:
    assert doctest.testmod(perfect).failed == 0
