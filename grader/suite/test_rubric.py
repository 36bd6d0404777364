"""The hidden suite: one test per rubric item of DESIGN.md.

Each test asks the student about its positions through the ``student``
fixture (a ``grader.assignments.minimax.client.StudentClient``: the call runs in the sandbox and
is judged by the solver) and records one check per position with ``record``;
the item's score is its points times the share of checks passed. A check whose
call gave no answer (an exception, a crash, a timeout) is recorded as not
judged: it earns no points, and the report says "no answer".

The public checks (``grader/assignments/minimax/test_public.py``, which students run
with ``python -m student check``) are part of the suite too: a dozen of the hidden
positions, judged in these same items (their boards in "board untouched"), and the
console game of "game play"; the ``hidden`` fixture holds the other positions.

To add a rubric item, write one more test like these, in this file or in a
file passed with ``--checks``, mark it ``@pytest.mark.rubric("name")`` and
give "name" its points in the ``[rubric]`` section of the configuration.
Items marked ``last=True`` judge every call the items before them made.
"""

import pytest

from grader.assignments.minimax.public import PUBLIC
from grader.judge import play
from provided.board import PLAYERO, PLAYERX

MODES = {False: "normal game", True: "reverse game"}
PUBLIC_POSITIONS = {case.position for case in PUBLIC}


def check_positions(student, record, positions, *aspects):
    for position in positions:
        verdict = student.mm_move(position)
        record.check(verdict.first_failure(*aspects))
        record.note(*verdict.notes)


@pytest.mark.rubric("finished boards")
def test_finished_boards(student, hidden, record):
    """(SCORES[winner], (-1, -1)) on boards where the game is over."""
    check_positions(student, record, hidden.finished, "score", "move")


@pytest.mark.rubric("scores")
def test_scores(student, hidden, record):
    """The value of 3x3 positions, both players to move."""
    check_positions(student, record, hidden.normal, "score")


@pytest.mark.rubric("moves")
def test_moves(student, hidden, record):
    """The move achieves the value (any optimal move is accepted)."""
    check_positions(student, record, hidden.normal, "move")


@pytest.mark.rubric("other sizes")
def test_other_sizes(student, hidden, record):
    """Every 2x2 position, 4x4 endgames, 1x1: score and move."""
    check_positions(student, record, hidden.other_sizes, "score", "move")


@pytest.mark.rubric("reverse games")
def test_reverse_games(student, hidden, record):
    """Reverse boards (completing a line loses): score and move."""
    check_positions(student, record, hidden.reverse, "score", "move")


@pytest.mark.rubric("game play")
def test_game_play(student, record):
    """Whole 3x3 games through move_wrapper, as play_game and run_gui would use it.

    The opponents are the same for every student: the solver, random players with fixed
    seeds, and every possible reply."""
    for reverse, mode in MODES.items():
        record.check(play.play(student, None, None, reverse, f"self-play, {mode}"))
        for side in (PLAYERX, PLAYERO):
            name = "X" if side == PLAYERX else "O"
            perfect = play.perfect_opponent(student)
            record.check(play.play(student, side, perfect, reverse,
                                   f"as {name} against a perfect player, {mode}"))
            for game in range(2):
                opponent = play.random_opponent(10 * game + side + 100 * reverse)
                record.check(play.play(student, side, opponent, reverse,
                                       f"as {name} against a random player, {mode}"))
            failures, _ = play.every_reply(student, side, reverse)
            record.check(failures[0] if failures else None)
    # play_game(move_wrapper, 1, False), the item's last check, is a public one
    # (grader/assignments/minimax/test_public.py), graded with these.


@pytest.mark.rubric("board untouched", last=True)
def test_board_untouched(student, record):
    """mm_move leaves its board as it found it (a call with no answer cannot show that);
    the public positions' boards are the public checks'."""
    for position, verdict in student.verdicts.items():
        if position not in PUBLIC_POSITIONS:
            record.check(verdict.failures.get("board"))


@pytest.mark.rubric("time", last=True)
def test_time(student, record):
    """Every call within its limit: each function asked about each position is one check
    (a call presumed too slow fails it; one that raised or crashed is not judged)."""
    for call in student.calls:
        record.check(call.failure)

