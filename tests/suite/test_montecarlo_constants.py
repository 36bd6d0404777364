"""What the Monte Carlo checks judge by, decided without running a student's file: the score
constants (the file's where they make a fair test, else the course's), how scores compare,
the check that catches a grid of one shared row, and which assignment a file that does not
parse is for. The grades that follow from these are ``test_montecarlo_rubric.py``'s.
"""

from __future__ import annotations

import pytest

from grader.assignments import choose
from grader.assignments.montecarlo.bounds import PER_CHECK, trials_for
from grader.assignments.montecarlo.rubric import DECISIVE, choose_constants, unfair_check
from provided.montecarlo import same_score, same_scores

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("found, why", [
    ({"SCORE_CURRENT": 0.0, "SCORE_OTHER": 0.0}, "SCORE_CURRENT = 0.0 makes no fair test"),
    ({"SCORE_CURRENT": 1e-12, "SCORE_OTHER": 1e-12}, "SCORE_CURRENT = 1e-12 makes no fair"),
    ({"SCORE_CURRENT": 1.0, "SCORE_OTHER": 0.0}, "SCORE_OTHER = 0.0 makes no fair test"),
    ({"SCORE_CURRENT": -1.0, "SCORE_OTHER": 1.0}, "it is not from 0.001 to 1000"),
    ({"SCORE_CURRENT": NAN, "SCORE_OTHER": 1.0}, "nan makes no fair test: it is not a finite"),
    ({"SCORE_CURRENT": 1.0, "SCORE_OTHER": INF}, "inf makes no fair test: it is not a finite"),
    ({"SCORE_CURRENT": 1e300, "SCORE_OTHER": 1e300}, "it is not from 0.001 to 1000"),
    ({"SCORE_CURRENT": True, "SCORE_OTHER": 1.0}, "it is not a number"),
    ({"SCORE_CURRENT": "1.0", "SCORE_OTHER": 1.0}, "it is not a number"),
    ({"MCMATCH": 0.0, "MCOTHER": 0.0}, "MCMATCH = 0.0 makes no fair test"),
    # Finite and positive, but a correct player does not prefer the win surely enough.
    ({"SCORE_CURRENT": 1.0, "SCORE_OTHER": 10.0}, '"takes a win in one, X", even with 10,000'),
    ({}, "the file defines neither SCORE_CURRENT nor SCORE_OTHER"),
])
def test_constants_that_make_no_fair_test_give_way_to_the_courses(found, why) -> None:
    chosen = choose_constants(found)
    assert (chosen.current, chosen.other, chosen.files) == (1.0, 1.0, False)
    assert why in chosen.note()
    assert "the checks use the course's SCORE_CURRENT = 1.0 and SCORE_OTHER = 1.0" \
        in chosen.note()
    # Every name the file defines is given the course's value for every call.
    assert chosen.settings == {name: 1.0 for name in found}
    if found:
        assert "every call ran with" in chosen.note()


@pytest.mark.parametrize("found, used, note", [
    ({"SCORE_CURRENT": 2.0, "SCORE_OTHER": 3.0}, (2.0, 3.0),
     "the file's SCORE_CURRENT = 2.0 and SCORE_OTHER = 3.0"),
    ({"SCORE_CURRENT": 2, "SCORE_OTHER": 1}, (2.0, 1.0),
     "the file's SCORE_CURRENT = 2.0 and SCORE_OTHER = 1.0"),
    ({"MCMATCH": 2.0, "MCOTHER": 3.0, "NTRIALS": 1000}, (2.0, 3.0),
     "the file's MCMATCH = 2.0 and MCOTHER = 3.0 (the course's older template's names)"),
    # The course's names come first where a file defines both.
    ({"SCORE_CURRENT": 2.0, "SCORE_OTHER": 1.0, "MCMATCH": 5.0, "MCOTHER": 5.0}, (2.0, 1.0),
     "the file's SCORE_CURRENT = 2.0 and SCORE_OTHER = 1.0"),
    ({"SCORE_CURRENT": 2.0}, (2.0, 1.0),
     "SCORE_CURRENT = 2.0 and SCORE_OTHER = 1.0 (the course's: the file defines none)"),
])
def test_fair_constants_of_the_file_are_used_as_they_are(found, used, note) -> None:
    chosen = choose_constants(found)
    assert (chosen.current, chosen.other, chosen.files, chosen.settings) == (*used, True, {})
    assert note in chosen.note()


def test_every_statistical_check_can_be_made_with_the_courses_values() -> None:
    """The course's values are the fallback: with them every check is made (the hidden
    test asserts it, so a check that cannot be made is a grader error, never credit)."""
    assert unfair_check(1.0, 1.0) is None
    for name, grid, player, wanted, shared in DECISIVE:
        plan = trials_for(grid, player, wanted, 1.0, 1.0, shared_rows=shared)
        assert plan.fair and plan.bound <= PER_CHECK, name
        assert shared == (plan.shared_rows is not None), name


def test_the_shared_row_check_catches_a_grid_of_one_shared_row() -> None:
    """A check whose square shares its row and column with empty squares, where a player
    scoring each square with its column's total chooses that square with a chance below
    PER_CHECK; none of the older checks could say so (one of them is always passed)."""
    shared = [case for case in DECISIVE if case[4]]
    assert len(shared) == 1
    name, grid, player, (row, col), _ = shared[0]
    empty = {(r, c) for r in range(3) for c in range(3) if grid[r][c] == 1}
    assert any((r, col) in empty for r in range(3) if r != row)
    assert any((row, c) in empty for c in range(3) if c != col)
    plan = trials_for(grid, player, (row, col), 1.0, 1.0, shared_rows=True)
    assert plan.shared_rows is not None and plan.shared_rows <= PER_CHECK
    for name, grid, player, wanted, _ in DECISIVE[:4]:
        older = trials_for(grid, player, wanted, 1.0, 1.0, shared_rows=True)
        assert older.shared_rows == 1.0, name


def test_scores_compare_up_to_their_size_and_never_as_nan() -> None:
    assert same_scores([[0.1 + 0.2, 2]], [[0.3, 2.0]])
    assert not same_scores([[NAN, 2.0]], [[0.3, 2.0]])
    assert not same_scores([[INF]], [[INF]])            # non-finite equals nothing
    assert not same_score(NAN, NAN)
    assert same_score(1e6 + 1e-4, 1e6)                # rounding at that size
    assert not same_score(0.5, 0.5 + 1e-3, scale=1e-3)   # the smallest constant's change
    assert not same_score(True, 1)


@pytest.mark.parametrize("source, assignment", [
    ("import poc_ttt_provided as provided\n\ndef mc_trial(board, player):\n"
     "    print 'trial'\n\ndef mc_update_scores(scores, board, player):\n    pass\n\n"
     "def get_best_move(board, scores):\n    pass\n\ndef mc_move(board, player, trials):\n"
     "    pass\n", "montecarlo"),
    ("def mm_move(board, player):\n    print board\n    return 0, (-1, -1)\n\n"
     "def move_wrapper(board, player, trials):\n    return mm_move(board, player)[1]\n",
     "minimax"),
    # A file too large to be read whole: the grader reads its start, cut mid-string.
    ("def mc_move(board, player, trials):\n    return (0, 0)\n\nPAD = '" + "x" * 5000,
     "montecarlo"),
])
def test_a_file_that_does_not_parse_is_named_by_its_def_lines(source, assignment) -> None:
    found, how = choose(None, source)
    assert (found.name, how) == (assignment, "recognised from the functions it defines")
