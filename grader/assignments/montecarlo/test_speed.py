"""The Monte Carlo player's speed, as the grader judges it: what ``python -m student check``
says last.

Not part of a grade (there every call of ``mc_move`` is held to its limit in its own
checks). Here ``mc_move`` is called once on each board of ``SPEED_CALLS``, by the grader's
client in a fresh sandbox, with the limit the grader gives that call on this machine
(``provided.montecarlo.call_limit``: a few nodes of the reference search per square a trial
may fill, per trial, plus a little): one check per call, and the notes say what the grader
would say.

The trials: on 3x3 boards the grader gives ``mc_move`` 100 trials a move in its games and up
to 10,000 in its statistical checks, on 4x4 boards 10. The limit grows with the trials as a
correct ``mc_move``'s time does, so a call's share of it hardly depends on them, except that
its fixed part (``small``) hides a slow trial when the trials are few: 1,000 on 3x3 judges
the trials; 100 on 4x4 (more than the grader's) judges, quickly, that nothing assumes a 3x3
board.
"""

from __future__ import annotations

import pytest

from grader.assignments.montecarlo.checks import ask_move, no_answer
from grader.judge.position import Position
from provided.montecarlo import SPEED_HINT

SPEED_CALLS = ((3, 1_000), (4, 100))   # (the empty board's size, trials)
GRADER_GAME_TRIALS, GRADER_MOST_TRIALS, GRADER_4X4_TRIALS = 100, 10_000, 10
MARGIN = 0.8   # under this share of its limit, every call is within "with margin"
TRIALS_NOTE = (f"on 3x3 boards the grader gives mc_move {GRADER_GAME_TRIALS} trials a move "
               f"in its games and up to {GRADER_MOST_TRIALS:,} in its checks, on 4x4 boards "
               f"{GRADER_4X4_TRIALS}; its limits grow with the trials")


def describe(dim: int, trials: int) -> str:
    """
    >>> describe(3, 1000)
    'mc_move with 1,000 trials on the empty 3x3 board'
    """
    return f"mc_move with {trials:,} trials on the empty {dim}x{dim} board"


@pytest.mark.rubric("speed")
def test_speed(mc, record):
    """mc_move's speed, as the grader judges it"""
    calibration = mc.sandbox.calibration
    record.note(f"Speed of mc_move, as the grader judges it. The grader's yardstick here: a "
                "plain minimax on a board written like the course's would search the empty "
                f"3x3 board in {calibration.empty_board_seconds:.2f} s of CPU time. Its "
                f"limits: {mc.describe_limits()}")
    shares, slow, unanswered = [], [], []
    for dim, trials in SPEED_CALLS:
        board = Position.empty(dim)
        limit = mc.limit(dim, trials, dim * dim)
        call = ask_move(mc, board, trials, f"speed mc_move {dim}x{dim} {trials}")
        what = describe(dim, trials)
        if call.failure is None:   # only its time is judged here: its moves, by the checks
            seconds = call.reply.cpu_seconds
            share = seconds / limit
            shares.append(share)
            shown = "under 1%" if share < 0.01 else f"{share:.0%}"
            record.note(f"{what}: {_seconds(seconds)} where the limit here is "
                        f"{_seconds(limit)} ({shown})")
            record.check(None)
            continue
        failure = no_answer(call, board, "mc_move")
        record.check(failure)
        if failure.category == "timeout":
            slow.append(dim)
            record.note(f"{what}: stopped at the limit here, {_seconds(limit)} (too slow)")
        else:
            unanswered.append(dim)
            record.note(f"{what}: no answer ({failure.received})")
    if slow:
        boards = " and ".join(f"the empty {dim}x{dim} board" for dim in slow)
        record.note(f"too slow for the grader on {boards}: the grader stops such a call at "
                    f"its limit, and it gets no answer. {SPEED_HINT}")
    elif shares and max(shares) < MARGIN:
        record.note(f"within the grader's limits, with margin ({TRIALS_NOTE})")
    elif shares:
        record.note("within the grader's limits, but close to one: the grader may land on "
                    f"either side of it. {SPEED_HINT}")
    if unanswered:
        record.note("not judged where mc_move gave no answer: the grader gives a call with "
                    "no answer no credit for time either")


def _seconds(seconds: float) -> str:
    """
    >>> _seconds(0.0312), _seconds(1.8)
    ('0.031 s', '1.80 s')
    """
    return f"{seconds:.3f} s" if seconds < 0.1 else f"{seconds:.2f} s"
