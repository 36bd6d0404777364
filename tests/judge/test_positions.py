"""The hidden positions: the same for every student, the whole game, figures from FACTS.md."""

from collections import Counter

import pytest

from grader.judge.position import Position
from grader.judge.positions import hidden_positions
from grader.judge.solver import Solver, reachable
from provided import EMPTY, PLAYERO, PLAYERX

SOLVER = Solver()
HIDDEN = hidden_positions()


def three(positions, reverse):
    return [p for p in positions if p.dim == 3 and p.reverse == reverse]


def test_every_run_and_every_student_gets_the_same_positions():
    assert hidden_positions() == HIDDEN  # nothing is drawn: no seed, no secret, no id


@pytest.mark.parametrize("reverse", [False, True])
def test_the_whole_3x3_game_up_to_symmetry(reverse):
    in_play = [p for p in three(HIDDEN.normal + HIDDEN.reverse, reverse)
               if p.player == p.implied_player()]
    finished = three(HIDDEN.finished, reverse)
    # FACTS.md: 765 positions up to the 8 symmetries of the square, 138 of them finished.
    assert (len(in_play), len(finished)) == (627, 138)
    covered = {image for p in in_play + finished for image in p.images()}
    assert covered == set(reachable(3, reverse))   # every reachable position has its class
    assert all(SOLVER.winner(p) is None for p in in_play)
    assert all(SOLVER.winner(p) is not None for p in finished)


def test_the_position_asked_of_a_class_is_spread_over_orientations():
    # Not always the smallest image: a forgotten anti-diagonal must show somewhere.
    in_play = three(HIDDEN.normal, False)
    smallest = sum(p.cells == min(image.cells for image in p.images()) for p in in_play)
    assert 0.05 < smallest / len(in_play) < 0.5
    corners = Counter(p.cells.index(PLAYERX) for p in in_play if p.ply == 1)
    assert len(corners) == 3  # the corner, edge and centre classes, in their own squares


def test_the_other_player_to_move_on_every_board_with_one_square_left():
    off_turn = [p for p in HIDDEN.normal if p.player != p.implied_player()]
    assert len(off_turn) == 34 and all(p.cells.count(EMPTY) == 1 for p in off_turn)
    assert {p.player for p in off_turn} == {PLAYERO}


def test_every_2x2_position_and_1x1_in_both_modes():
    for reverse, item in ((False, HIDDEN.other_sizes), (True, HIDDEN.reverse)):
        twos = [p for p in item + HIDDEN.finished if p.dim == 2 and p.reverse == reverse]
        assert set(twos) == set(reachable(2, reverse))   # FACTS.md: 29 of them
        assert Position.empty(1, reverse=reverse) in item
    assert {p.dim for p in HIDDEN.finished} == {1, 2, 3, 4}


def test_fixed_4x4_endgames_where_the_move_matters():
    normal = [p for p in HIDDEN.other_sizes if p.dim == 4]
    reverse = [p for p in HIDDEN.reverse if p.dim == 4]
    assert Counter(p.cells.count(EMPTY) for p in normal) == {5: 4, 6: 4, 7: 4}
    assert Counter(p.cells.count(EMPTY) for p in reverse) == {5: 2, 6: 2}
    for position in normal + reverse:
        assert SOLVER.winner(position) is None
        assert position.player == position.implied_player()
        assert len(SOLVER.best_moves(position)) < len(position.empty_squares())
    assert len({SOLVER.value(p) for p in normal}) >= 2  # not all draws


def test_exhaustive_asks_every_reachable_3x3_position():
    hidden = hidden_positions(exhaustive=True)
    normal = [p for p in hidden.normal if p.player == p.implied_player()]
    assert len(normal) == 5478 - 958 and len(three(hidden.reverse, True)) == 5478 - 958
    assert len(three(hidden.finished, False)) == len(three(hidden.finished, True)) == 958
