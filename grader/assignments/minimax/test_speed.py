"""The minimax's speed, as the grader judges it: what ``python -m student check`` says last.

Not part of a grade (the grade's "time" item judges every call it makes). Here ``mm_move``
is asked the positions that decide the grader's time limits (``public.SPEED``: the
hardest of every tier timed by ratio, and of each size and mode's largest small tier), in
the grader's order, by the grader's own client in a fresh sandbox: the reference timed
there, each call held to its tier's limit, a call near its limit measured again between
two timings of the reference, a tier too slow taking the larger ones of its size and mode
with it. One check per position; the notes say what the grader would say.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from grader.assignments.minimax.public import SPEED
from grader.judge.position import Position
from grader.assignments.minimax.client import SPEED_HINT
from grader.judge.results import STUCK, TIMEOUT, TOO_SLOW
from grader.timing.pacing import MM_MOVE

MARGIN = 0.8   # under this share of its limit, the slowest tier is within "with margin"
WITHIN, SLOW, PRESUMED, NO_ANSWER = "within", "too slow", "presumed", "no answer"


@dataclass(frozen=True)
class Timed:
    """One position's verdict on time: ``status`` (WITHIN, SLOW, PRESUMED, STUCK,
    NO_ANSWER), the call's CPU seconds when it answered, its limit, and the first line of
    why it gave no answer."""

    position: Position
    status: str
    seconds: float
    limit: float
    why: str = ""

    @property
    def share(self) -> float:
        return self.seconds / self.limit if self.limit else 0.0

    def describe(self) -> str:
        """'3x3, 7 empty squares, reverse game'

        >>> Timed(Position.empty(3), WITHIN, 0.1, 1.0).describe()
        '3x3, 9 empty squares'
        """
        position = self.position
        empties = len(position.empty_squares())
        squares = "empty square" if empties == 1 else "empty squares"
        mode = ", reverse game" if position.reverse else ""
        return f"{position.dim}x{position.dim}, {empties} {squares}{mode}"


@pytest.mark.rubric("speed")
def test_speed(student, record):
    """mm_move's speed, as the grader judges it"""
    order = student.pacing.order(SPEED)
    student.prefetch(MM_MOVE, order)
    calibration = student.sandbox.calibration
    results = []
    for position in order:
        tier = student.pacing.tier(MM_MOVE, position)
        limit = student.pacing.limit(calibration, tier, position)
        verdict = student.mm_move(position)
        failure = verdict.failures.get("time")
        results.append(_timed(position, verdict, failure, limit))
        record.check(None if failure is None else failure)
    policy = student.policy
    record.note(
        f"Speed, as the grader judges it: {len(order)} positions, the hardest of each size, "
        "mode and number of empty squares that decides a limit. The grader's yardstick "
        "here: a plain minimax on a board written like the course's would search the empty "
        f"3x3 board in {calibration.empty_board_seconds:.2f} s of CPU time. A call may take "
        f"{policy.factor:g} times its time on the hardest position with as many empty "
        f"squares; on small positions, {policy.small * calibration.empty_board_seconds:.2f} s.")
    for line in summary(results):
        record.note(line)


def _timed(position: Position, verdict, failure, limit: float) -> Timed:
    if failure is None:
        return Timed(position, WITHIN, verdict.cpu_seconds, limit)
    why = failure.why.strip().partition("\n")[0]
    status = {TIMEOUT: SLOW, TOO_SLOW: PRESUMED, STUCK: STUCK}.get(failure.category,
                                                                     NO_ANSWER)
    if status == NO_ANSWER:
        why = failure.received
    return Timed(position, status, 0.0, limit, why)


def summary(results: list[Timed]) -> list[str]:
    """What to tell the student: within the limits (and the margin), or from which number
    of empty squares each size and mode is too slow, and what was not judged.

    >>> print(summary([Timed(Position.empty(3), WITHIN, 0.2, 1.0)])[0][:58])
    within the grader's limits, with margin: the slowest tier
    """
    lines = []
    stuck = [timed for timed in results if timed.status == STUCK]
    slow = [timed for timed in results if timed.status == SLOW]
    if stuck:
        first = stuck[0]
        lines.append(f"mm_move did not return on {first.position.call()} within "
                     f"{seconds_text(first.limit)} of CPU time (the grader's limit for "
                     "small positions here): an endless loop?")
    if slow:
        first = slow[0]
        lines.append(f"too slow for the grader from {_empties(first)} empty squares "
                     f"({_family(first)}): more than {seconds_text(first.limit)}, the limit "
                     f"here, on {first.position.call()}")
        others = [f"{_family(timed)} from {_empties(timed)} empty squares (limit "
                  f"{seconds_text(timed.limit)})" for timed in slow[1:]]
        if others:
            lines.append("also too slow: " + "; ".join(others))
        lines.append("the grader counts as too slow every call from there on (as many empty "
                     f"squares or more, same size and mode). {SPEED_HINT}")
    unanswered = [timed for timed in results if timed.status == NO_ANSWER]
    if unanswered:
        which = "; ".join(timed.describe() for timed in unanswered[:3])
        which += f"; and {len(unanswered) - 3} more" if len(unanswered) > 3 else ""
        lines.append(f"not judged on {len(unanswered)} of the {len(results)} positions "
                     f"({which}): mm_move gave no answer ({unanswered[0].why}), and the "
                     "grader gives a call with no answer no credit for time either")
    timed = [timed for timed in results if timed.status == WITHIN]
    if timed and not slow and not stuck:
        worst = max(timed, key=lambda t: t.share)
        how = "with margin" if worst.share < MARGIN else "but close to a limit"
        close = ("" if worst.share < MARGIN else "; so close that the grader may land on "
                 f"either side of it. {SPEED_HINT}")
        lines.insert(0, f"within the grader's limits, {how}: the slowest tier used "
                        f"{worst.share:.0%} of its limit ({worst.describe()}: "
                        f"{seconds_text(worst.seconds)} where the limit here is "
                        f"{seconds_text(worst.limit)}){close}")
    return lines


def _empties(timed: Timed) -> int:
    return len(timed.position.empty_squares())


def _family(timed: Timed) -> str:
    size = f"{timed.position.dim}x{timed.position.dim}"
    return size + (" reverse game" if timed.position.reverse else "")


def seconds_text(seconds: float) -> str:
    """Seconds with the digits that matter.

    >>> seconds_text(0.0312), seconds_text(1.8)
    ('0.031 s', '1.80 s')
    """
    return f"{seconds:.3f} s" if seconds < 0.1 else f"{seconds:.2f} s"
