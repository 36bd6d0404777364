"""The board against a deliberately plain rules implementation, and its contract details.

``PlainBoard`` follows COURSE_API.md line by line, with no cleverness, so that
any difference in ``provided.TTTBoard`` (which keeps incremental state for
speed) shows up here.
"""

import copy
import pickle
import random

import pytest

import provided
from provided import DRAW, EMPTY, PLAYERO, PLAYERX, SCORES, STRMAP, TTTBoard, switch_player


class PlainBoard:
    """The rules of COURSE_API.md, written the obvious way."""

    def __init__(self, dim, reverse=False, grid=None):
        self.dim = dim
        self.reverse = reverse
        self.grid = [[EMPTY] * dim for _ in range(dim)] if grid is None else [list(r) for r in grid]

    def lines(self):
        dim, grid = self.dim, self.grid
        yield from (list(row) for row in grid)
        yield from ([grid[r][c] for r in range(dim)] for c in range(dim))
        yield [grid[i][i] for i in range(dim)]
        yield [grid[i][dim - 1 - i] for i in range(dim)]

    def check_win(self):
        for line in self.lines():
            if line[0] != EMPTY and all(v == line[0] for v in line):
                owner = line[0]
                if self.reverse:
                    return PLAYERO if owner == PLAYERX else PLAYERX
                return owner
        if not self.empty_squares():
            return DRAW
        return None

    def empty_squares(self):
        return [(r, c) for r in range(self.dim) for c in range(self.dim)
                if self.grid[r][c] == EMPTY]

    def move(self, row, col, player):
        if self.grid[row][col] == EMPTY:
            self.grid[row][col] = player

    def text(self):
        rows = [" | ".join(STRMAP[v] for v in row) + "\n" for row in self.grid]
        return ("-" * (4 * self.dim - 3) + "\n").join(rows)


def assert_same(board: TTTBoard, plain: PlainBoard) -> None:
    dim = plain.dim
    assert board.get_dim() == dim
    assert [[board.square(r, c) for c in range(dim)] for r in range(dim)] == plain.grid
    assert board.get_empty_squares() == plain.empty_squares()
    assert board.check_win() == plain.check_win(), repr(board)
    assert str(board) == plain.text()


def reachable(dim, reverse):
    """Every position reachable by play from the empty board, as (TTTBoard, PlainBoard) built by moves."""
    seen = set()
    stack = [(TTTBoard(dim, reverse), PlainBoard(dim, reverse), PLAYERX)]
    while stack:
        board, plain, player = stack.pop()
        key = tuple(map(tuple, plain.grid))
        if key in seen:
            continue
        seen.add(key)
        yield board, plain
        if plain.check_win() is not None:
            continue
        for row, col in plain.empty_squares():
            child, child_plain = board.clone(), PlainBoard(dim, reverse, plain.grid)
            child.move(row, col, player)
            child_plain.move(row, col, player)
            stack.append((child, child_plain, switch_player(player)))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dim, count", [(1, 2), (2, 29), (3, 5478)])
def test_every_reachable_position_matches_the_plain_rules(dim, count, reverse):
    positions = 0
    for board, plain in reachable(dim, reverse):
        assert_same(board, plain)
        # Built from the grid instead of by moves: the same answers.
        assert_same(TTTBoard(dim, reverse, plain.grid), plain)
        positions += 1
    assert positions == count


COPIERS = {
    "clone": TTTBoard.clone,
    "copy.copy": copy.copy,
    "copy.deepcopy": copy.deepcopy,
    **{f"pickle protocol {protocol}": (
        lambda board, protocol=protocol: pickle.loads(pickle.dumps(board, protocol)))
       for protocol in range(pickle.HIGHEST_PROTOCOL + 1)},
}


def first_empty_move(plain):
    """A move on the first empty square (X's if the counts are even), or None on a full board."""
    empty = plain.empty_squares()
    if not empty:
        return None
    marks = sum(row.count(PLAYERX) + row.count(PLAYERO) for row in plain.grid)
    return (*empty[0], PLAYERX if marks % 2 == 0 else PLAYERO)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_every_copy_is_exact_and_independent_both_ways(dim, reverse):
    # Every reachable position (won and drawn ones included), copied as it was reached (a
    # move not yet checked) and once check_win has settled it; then a move on the copy
    # must not show on the original, and a move on the original not on the copy. Every
    # way of copying on 1x1 and 2x2 positions; on 3x3 each takes its turn (550 or so each).
    hows = list(COPIERS)
    for number, (board, plain) in enumerate(reachable(dim, reverse)):
        for how in hows if dim < 3 else [hows[number % len(hows)]]:
            check_copies(COPIERS[how], board, plain)


def check_copies(copier, board, plain):
    dim, reverse = plain.dim, plain.reverse
    for settled in (False, True):
        original = board.clone()
        if settled:
            original.check_win()
        copied = copier(original)
        assert type(copied) is TTTBoard and copied is not original
        assert_same(copied, plain)
        assert repr(copied) == repr(original)
        move = first_empty_move(plain)
        if move is None:
            continue
        after = PlainBoard(dim, reverse, plain.grid)
        after.move(*move)
        copied.move(*move)
        assert_same(copied, after)
        assert_same(original, plain)
        again = copier(original)
        original.move(*move)
        assert_same(original, after)
        assert_same(again, plain)


def test_copies_of_a_board_played_past_a_win_keep_the_first_line_in_scan_order():
    board = TTTBoard(3, True)
    for col in range(3):
        board.move(2, col, PLAYERX)   # X completes the bottom row: in reverse, O wins
    for col in range(3):
        board.move(0, col, PLAYERO)   # then O the top row, which comes first in scan order
    for how, copier in COPIERS.items():
        copied = copier(board)
        assert copied.check_win() == PLAYERX, how
        assert board.check_win() == PLAYERX, how


def test_deepcopy_in_a_container_keeps_shared_boards_shared():
    board = TTTBoard(3, False, [[PLAYERX, EMPTY, EMPTY], [EMPTY, PLAYERO, EMPTY],
                                [EMPTY, EMPTY, EMPTY]])
    first, second, inside = copy.deepcopy([board, board, {"board": board}])
    assert first is second is inside["board"] and first is not board
    first.move(2, 2, PLAYERX)
    assert board.square(2, 2) == EMPTY and second.square(2, 2) == PLAYERX
    # The memo of an outer deepcopy is honoured too.
    memo = {}
    assert copy.deepcopy(board, memo) is copy.deepcopy(board, memo)


class NotedBoard(TTTBoard):
    """A student's own board with an attribute of its own (module level: picklable)."""


@pytest.mark.parametrize("how", COPIERS)
def test_a_subclass_keeps_its_class_and_its_own_attributes(how):
    board = NotedBoard(2)
    board.note = ["a"]
    board.me = board
    copied = COPIERS[how](board)
    assert type(copied) is NotedBoard and copied.get_dim() == 2
    if how == "clone":
        return  # clone() copies the board, as the course's did, not a student's attributes
    assert copied.note == ["a"]
    if how != "copy.copy":  # a deep copy: its own list, and it refers to itself
        assert copied.note is not board.note and copied.me is copied


def test_copies_share_nothing_mutable_and_pickles_stay_small():
    # The size's line tables are shared and never changed; what a copy or a pickle carries
    # is the grid, so both cost what they cost on the course's board.
    board = TTTBoard(4)
    board.move(1, 2, PLAYERX)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert len(pickle.dumps(board, protocol)) < 300, protocol


def test_boards_compare_by_identity_as_the_courses_did():
    # The course's board had no __eq__: two boards with the same marks are two boards.
    assert "__eq__" not in vars(TTTBoard) and "__hash__" not in vars(TTTBoard)
    board = TTTBoard(3)
    twin = board.clone()
    assert board == board and board != twin and hash(board) != hash(twin)


@pytest.mark.parametrize("dim", [1, 2, 3, 4])
def test_every_index_off_the_board_is_refused_without_wrapping(dim):
    board = TTTBoard(dim, False, [[PLAYERX] * dim] * dim)
    for row in range(-2 * dim - 1, 2 * dim + 2):
        for col in range(-2 * dim - 1, 2 * dim + 2):
            if 0 <= row < dim and 0 <= col < dim:
                assert board.square(row, col) == PLAYERX
                board.move(row, col, PLAYERO)  # taken: does nothing
                continue
            with pytest.raises(IndexError):
                board.square(row, col)
            with pytest.raises(IndexError):
                board.move(row, col, PLAYERO)
    assert board.get_empty_squares() == [] and board.check_win() == PLAYERX


@pytest.mark.parametrize("dim", [4, 5])
@pytest.mark.parametrize("reverse", [False, True])
def test_random_grids_match_the_plain_rules_whether_built_or_played(dim, reverse):
    rng = random.Random(dim * 10 + reverse)
    for _ in range(1500):
        grid = [[rng.choice([EMPTY, EMPTY, PLAYERX, PLAYERO]) for _ in range(dim)]
                for _ in range(dim)]
        plain = PlainBoard(dim, reverse, grid)
        assert_same(TTTBoard(dim, reverse, grid), plain)
        # The same marks played one by one in random order, with some moves onto
        # taken squares (no-ops) and games going on past a completed line.
        played, plain_played = TTTBoard(dim, reverse), PlainBoard(dim, reverse)
        squares = [(r, c) for r in range(dim) for c in range(dim) if grid[r][c] != EMPTY]
        rng.shuffle(squares)
        for row, col in squares:
            played.move(row, col, grid[row][col])
            plain_played.move(row, col, grid[row][col])
            other = rng.choice(squares)
            played.move(*other, PLAYERX)
            plain_played.move(*other, PLAYERX)
            assert played.check_win() == plain_played.check_win()
        assert_same(played, plain_played)


def test_scan_order_decides_boards_with_several_lines():
    # Only parallel lines can belong to different players: rows, then columns,
    # then (on even sizes, where they do not cross) the two diagonals.
    rows = [[PLAYERO, PLAYERO, PLAYERO], [PLAYERX, PLAYERX, PLAYERX], [EMPTY] * 3]
    assert TTTBoard(3, False, rows).check_win() == PLAYERO
    assert TTTBoard(3, True, rows).check_win() == PLAYERX
    columns = [[PLAYERX, EMPTY, PLAYERO]] * 3
    assert TTTBoard(3, False, columns).check_win() == PLAYERX
    diagonals = [[PLAYERX, EMPTY, EMPTY, PLAYERO], [EMPTY, PLAYERX, PLAYERO, EMPTY],
                 [EMPTY, PLAYERO, PLAYERX, EMPTY], [PLAYERO, EMPTY, EMPTY, PLAYERX]]
    assert TTTBoard(4, False, diagonals).check_win() == PLAYERX
    # A line completed later by moves still beats one completed earlier if it comes
    # first in scan order.
    board = TTTBoard(3)
    for col in range(3):
        board.move(2, col, PLAYERO)
    assert board.check_win() == PLAYERO
    for col in range(3):
        board.move(0, col, PLAYERX)
    assert board.check_win() == PLAYERX


def test_one_by_one_board():
    board = TTTBoard(1)
    assert board.check_win() is None and board.get_empty_squares() == [(0, 0)]
    board.move(0, 0, PLAYERO)
    assert board.check_win() == PLAYERO
    assert TTTBoard(1, True, [[PLAYERO]]).check_win() == PLAYERX
    assert str(board) == "O\n"


def test_constants_are_the_courses():
    assert (EMPTY, PLAYERX, PLAYERO, DRAW) == (1, 2, 3, 4)
    assert STRMAP == {EMPTY: " ", PLAYERX: "X", PLAYERO: "O"}
    assert SCORES == {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
    assert switch_player(PLAYERX) == PLAYERO and switch_player(PLAYERO) == PLAYERX


def test_str_is_the_courses_format():
    board = TTTBoard(3, False, [[PLAYERX, EMPTY, EMPTY], [PLAYERO, PLAYERO, EMPTY],
                                [EMPTY, PLAYERX, EMPTY]])
    assert str(board) == "X |   |  \n---------\nO | O |  \n---------\n  | X |  \n"


def test_repr_pastes_back_into_an_equal_board():
    board = TTTBoard(3, True, [[PLAYERX, EMPTY, EMPTY], [PLAYERO, PLAYERO, EMPTY],
                               [EMPTY, PLAYERX, EMPTY]])
    text = repr(board)
    assert text == ("TTTBoard(3, True, [[PLAYERX, EMPTY, EMPTY], [PLAYERO, PLAYERO, EMPTY], "
                    "[EMPTY, PLAYERX, EMPTY]])")
    again = eval(text, vars(provided))
    assert str(again) == str(board) and again.check_win() == board.check_win()
    assert repr(again) == text


def test_clone_is_independent_and_keeps_the_mode():
    board = TTTBoard(3, True)
    copy = board.clone()
    copy.move(0, 0, PLAYERX)
    assert board.square(0, 0) == EMPTY and copy.square(0, 0) == PLAYERX
    for col in (1, 2):
        copy.move(0, col, PLAYERX)
    assert copy.check_win() == PLAYERO  # reverse: completing a line loses
    assert board.check_win() is None


def test_the_grid_is_copied_not_aliased():
    grid = [[EMPTY, EMPTY], [EMPTY, EMPTY]]
    board = TTTBoard(2, False, grid)
    grid[0][0] = PLAYERX
    board.move(1, 1, PLAYERO)
    assert board.square(0, 0) == EMPTY and grid[1][1] == EMPTY


def test_moving_onto_a_taken_square_does_nothing():
    board = TTTBoard(3)
    board.move(1, 1, PLAYERX)
    board.move(1, 1, PLAYERO)
    assert board.square(1, 1) == PLAYERX
    assert len(board.get_empty_squares()) == 8


@pytest.mark.parametrize("call, error, words", [
    (lambda: TTTBoard(0), ValueError, ["dim", "0", ">= 1"]),
    (lambda: TTTBoard(-2), ValueError, ["dim", "-2"]),
    (lambda: TTTBoard("3"), TypeError, ["dim", "'3'", "str"]),
    (lambda: TTTBoard(2.0), TypeError, ["dim", "2.0", "float"]),
    (lambda: TTTBoard(3, False, [[EMPTY] * 3] * 2), ValueError, ["3 rows of 3 cells"]),
    (lambda: TTTBoard(2, False, [[EMPTY, EMPTY], [EMPTY]]), ValueError, ["2 rows of 2 cells"]),
    (lambda: TTTBoard(2, False, 5), ValueError, ["2 rows of 2 cells", "5"]),
    (lambda: TTTBoard(2, False, [[EMPTY, 0], [EMPTY, EMPTY]]), ValueError,
     ["cell (0, 1)", "0", "EMPTY (1), PLAYERX (2) or PLAYERO (3)"]),
    (lambda: TTTBoard(2, False, [[EMPTY, "X"], [EMPTY, EMPTY]]), ValueError, ["'X'", "str"]),
    (lambda: TTTBoard(3).move(-1, 0, PLAYERX), IndexError, ["(-1, 0)", "3x3", "0 to 2"]),
    (lambda: TTTBoard(3).move(0, 3, PLAYERX), IndexError, ["(0, 3)"]),
    (lambda: TTTBoard(3).square(0, -1), IndexError, ["(0, -1)"]),
    (lambda: TTTBoard(3).square("0", 0), IndexError, ["('0', 0)"]),
    (lambda: TTTBoard(3).move(0, 0, EMPTY), ValueError, ["PLAYERX (2) or PLAYERO (3)", "EMPTY"]),
    (lambda: TTTBoard(3).move(0, 0, "X"), ValueError, ["'X'"]),
    (lambda: switch_player(7), ValueError, ["7"]),
])
def test_bad_input_names_the_value_and_what_was_expected(call, error, words):
    with pytest.raises(error) as caught:
        call()
    for word in words:
        assert word in str(caught.value)


def test_negative_indices_do_not_wrap_around():
    board = TTTBoard(3)
    with pytest.raises(IndexError):
        board.move(-1, -1, PLAYERX)
    assert board.square(2, 2) == EMPTY


def test_play_game_prints_as_the_course_did(capsys):
    def first_empty(board, player, trials):
        return board.get_empty_squares()[0]

    provided.play_game(first_empty, 1)
    out = capsys.readouterr().out
    assert out.startswith("X |   |  \n---------\n  |   |  \n---------\n  |   |  \n\n")
    # X plays (0, 0), (0, 2), (1, 1), (2, 0): the anti-diagonal on the 7th move.
    assert out.endswith("X wins!\n")
    assert out.count("---------") == 2 * 7


@pytest.mark.parametrize("bad_move", [(1, 1), (3, 0), (-1, 2), None, "a1", (1.0, 2)])
def test_play_game_stops_on_an_illegal_move_naming_player_move_and_board(bad_move):
    def stubborn(board, player, trials):
        # X takes the centre; O answers bad_move ((1, 1) is then taken).
        return (1, 1) if board.square(1, 1) == EMPTY else bad_move

    with pytest.raises(provided.IllegalMoveError) as caught:
        provided.play_game(stubborn, 1)
    message = str(caught.value)
    assert "O chose" in message and repr(bad_move) in message
    assert "  | X |  " in message  # the board
