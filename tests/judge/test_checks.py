"""Verdicts on single answers: what is accepted, what fails, and what the failure says."""

import pytest

from grader.judge.checks import (BOARD_CHANGED, BadAnswer, board_changed, judge_answer,
                                  judge_move, read_answer)
from grader.judge.position import Position
from grader.judge.solver import Solver
from provided import EMPTY, PLAYERO, PLAYERX

X, O, _ = PLAYERX, PLAYERO, EMPTY
SOLVER = Solver()
# X to move wins at (0, 2); O threatens nothing.
WIN_NOW = Position.from_grid([[X, X, _], [O, O, _], [_, _, _]], PLAYERX)


def test_an_optimal_answer_passes_every_aspect():
    verdict = judge_answer(SOLVER, WIN_NOW, (1, (0, 2)))
    assert verdict.failures == {}


def test_any_optimal_move_is_accepted():
    empty = Position.empty(3)
    for move in empty.empty_squares():  # every first move draws
        assert judge_answer(SOLVER, empty, (0, move)).ok("move")


def test_a_wrong_score_says_what_was_expected_and_why():
    failure = judge_answer(SOLVER, WIN_NOW, (0, (0, 2))).failures["score"]
    assert failure.category == "wrong score"
    assert failure.expected == "score 1"
    assert failure.received == "(0, (0, 2))"
    assert failure.call == ("mm_move(TTTBoard(3, False, [[PLAYERX, PLAYERX, EMPTY], "
                            "[PLAYERO, PLAYERO, EMPTY], [EMPTY, EMPTY, EMPTY]]), PLAYERX)")
    assert "X (0, 2)" in failure.why and "X wins" in failure.why
    assert "0   X | X |" in failure.board


def test_a_losing_move_is_refuted_by_a_line_of_best_play():
    failure = judge_answer(SOLVER, WIN_NOW, (1, (2, 2))).failures["move"]
    assert failure.category == "losing move"
    assert failure.why.startswith("after X (2, 2), O (1, 2)")
    assert "O wins, but best play gives X wins" in failure.why
    assert failure.expected == "the move (0, 2)"


def test_finished_boards_want_no_move():
    won = Position.from_grid([[X, X, X], [O, O, _], [_, _, _]], PLAYERO)
    assert judge_answer(SOLVER, won, (1, (-1, -1))).failures == {}
    failures = judge_answer(SOLVER, won, (1, (2, 2))).failures
    assert set(failures) == {"move"} and "return (-1, -1)" in failures["move"].why
    reverse = Position.from_grid([[X, X, X], [O, O, _], [_, _, _]], PLAYERO, reverse=True)
    assert judge_answer(SOLVER, reverse, (-1, (-1, -1))).failures == {}


def test_giving_up_when_every_move_loses_is_a_failure():
    # O to move, X threatens two lines: O loses whatever it does, but must move.
    lost = Position.from_grid([[X, X, _], [X, O, _], [_, _, O]], PLAYERO)
    failure = judge_answer(SOLVER, lost, (1, (-1, -1))).failures["move"]
    assert failure.category == "no move" and "even when every move loses" in failure.why


@pytest.mark.parametrize("move, words", [((0, 0), "is taken"), ((3, 1), "not on the 3x3 board")])
def test_illegal_moves_say_why(move, words):
    failure = judge_answer(SOLVER, WIN_NOW, (1, move)).failures["move"]
    assert failure.category == "illegal move" and words in failure.why


def test_near_misses_are_accepted_with_a_note():
    verdict = judge_answer(SOLVER, WIN_NOW, [1.0, [0, 2]])
    assert verdict.failures == {}
    assert "a list was accepted where a tuple was expected" in verdict.notes
    assert "the float 1.0 was accepted where an int was expected" in verdict.notes


@pytest.mark.parametrize("answer, words", [
    ((True, (0, 2)), "is a bool"),
    ((1, (0, 2), 3), "should be a pair"),
    (None, "should be a pair"),
    ((1, (0.5, 2)), "the row 0.5 is a float"),
    ((1, "0,2"), "the move should be a pair"),
])
def test_malformed_answers_fail_both_aspects(answer, words):
    with pytest.raises(BadAnswer, match=words):
        read_answer(answer)
    verdict = judge_answer(SOLVER, WIN_NOW, answer)
    assert verdict.failures["score"].category == "bad answer"
    assert not verdict.ok("move")


def test_move_wrapper_answers_must_be_legal():
    assert judge_move(SOLVER, WIN_NOW, (0, 2)) == ((0, 2), "")
    assert judge_move(SOLVER, WIN_NOW, (0, 0))[0] is None
    assert judge_move(SOLVER, WIN_NOW, (True, 2))[0] is None


def test_subclasses_are_read_as_their_builtin_value_with_a_note():
    from grader.sandbox import Opaque
    answer = Opaque("Answer", "Answer(score=1, move=(0, 2))", (Opaque("Score", "1", 1), (0, 2)))
    verdict = judge_answer(SOLVER, WIN_NOW, answer)
    assert verdict.failures == {}
    assert any("Answer was read as the tuple" in note for note in verdict.notes)


def test_objects_that_claim_to_equal_anything_are_not_answers():
    from grader.sandbox import Opaque
    verdict = judge_answer(SOLVER, WIN_NOW, Opaque("Liar", "<Liar object>"))
    assert verdict.failures["score"].category == "bad answer"
    assert "<Liar object> (a Liar)" in verdict.failures["score"].received


def test_a_changed_board_keeps_both_boards_for_the_report():
    before = Position.from_grid([[2, 1, 1], [3, 3, 1], [1, 2, 1]], 2)
    after = Position.from_grid([[2, 3, 2], [3, 3, 2], [2, 2, 3]], 2)
    failure = board_changed(before, after)
    assert failure.category == BOARD_CHANGED and failure.judged
    assert failure.call == before.call("mm_move")
    assert failure.board == before.drawing() and failure.board_after == after.drawing()
    # The received text is one line: the call line stays a line the student can paste.
    assert "\n" not in failure.received and "clone" in failure.why
