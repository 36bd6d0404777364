"""The speed part of ``python -m student check`` on a Monte Carlo file: mc_move's time, as
the grader judges it, on this machine.

The grader gives each call of ``mc_move`` a CPU limit that grows with the work asked
(``provided.montecarlo.call_limit``: trials times the squares a trial may fill, in nodes of
its reference search timed on the machine that grades, plus a little). Here the same
reference is timed (``student.speed.Yardstick``), then ``mc_move`` is called once in a child
process on each board of ``SPEED_CALLS``, on the yardstick's CPU, with that limit computed
here, and each call gets one line:

    mc_move with 1,000 trials on the empty 3x3 board: 0.080 s where the limit here is 1.04 s (8%)

then ``within the grader's limits, with margin``, or what is too slow and what to look for.
As in the grader, a call is measured once, and stopped when it reaches its limit.

>>> SPEED_CALLS[1].describe()
'mc_move with 100 trials on the empty 4x4 board'
>>> round(SPEED_CALLS[0].limit(Calibration(4e-6)), 2)      # 5 x 30,000 nodes x 4 us + 0.44 s
1.04
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from provided.board import EMPTY, PLAYERX
from provided.montecarlo import SPEED_HINT, call_limit
from student.checks import ANSWER, TIMEOUT, Limits, Reply, SubmissionError, call_child
from student.speed import MARGIN, Calibration, error_line, seconds_text

# What became of one call.
WITHIN = "within"
TOO_SLOW = "too slow"
NO_ANSWER = "no answer"   # mc_move raised or crashed: its time could not be judged


@dataclass(frozen=True)
class SpeedCall:
    """One call whose time is judged: ``mc_move(empty dim x dim board, PLAYERX, trials)``,
    with ``random.seed(seed)`` first."""

    dim: int
    trials: int
    seed: int

    def describe(self) -> str:
        return f"mc_move with {self.trials:,} trials on the empty {self.dim}x{self.dim} board"

    def limit(self, calibration: Calibration) -> float:
        """The CPU seconds the grader gives this call on this machine."""
        return call_limit(self.trials, self.dim * self.dim, calibration.per_node(self.dim),
                          calibration.empty_board_seconds)

    def request(self) -> dict:
        """What ``student.mc_runner`` needs to make the call."""
        grid = [[EMPTY] * self.dim for _ in range(self.dim)]
        return {"function": "mc_move", "dim": self.dim, "reverse": False, "grid": grid,
                "player": PLAYERX, "trials": self.trials, "seeds": [self.seed]}


# The trials the grader gives mc_move (tests/student/test_mc_speed.py reads them from the
# grader): on 3x3 boards, 100 a move in its games (from the empty board) and up to 10,000
# in its statistical checks; on 4x4 boards, 10.
GRADER_GAME_TRIALS = 100
GRADER_MOST_TRIALS = 10_000
GRADER_4X4_TRIALS = 10
# The limit grows with the trials as a correct mc_move's time does, so a call's share of it
# hardly depends on them, except that the fixed part (SMALL) hides a slow trial when the
# trials are few: 1,000 on 3x3 (between the games' and the most) judges the trials; 100 on
# 4x4 (more than the grader's) judges that nothing assumes a 3x3 board, quickly.
SPEED_CALLS = (SpeedCall(3, 1_000, 2001), SpeedCall(4, 100, 2002))
TRIALS_NOTE = (f"on 3x3 boards the grader gives mc_move {GRADER_GAME_TRIALS} trials a move in "
               f"its games and up to {GRADER_MOST_TRIALS:,} in its checks, on 4x4 boards "
               f"{GRADER_4X4_TRIALS}; its limits grow with the trials")


@dataclass(frozen=True)
class Timed:
    """One call's verdict: ``status``, its CPU seconds and the limit it was judged against;
    ``message`` says why when it gave no answer or waited."""

    call: SpeedCall
    status: str
    seconds: float = 0.0
    limit: float = 0.0
    stopped: bool = False   # stopped out of time: it needs more than ``seconds``
    message: str = ""

    @property
    def share(self) -> float:
        return self.seconds / self.limit if self.limit else 0.0

    def line(self) -> str:
        """The call, its time and its limit, in one line."""
        if self.status == NO_ANSWER:
            return f"{self.call.describe()}: no answer ({error_line(self.message)})"
        limit = seconds_text(self.limit)
        if self.message:   # stopped by the wall clock: it was sleeping or waiting
            return f"{self.call.describe()}: {self.message}, where the limit here is {limit}"
        if self.stopped:
            return f"{self.call.describe()}: stopped at the limit here, {limit} (too slow)"
        share = ("too slow" if self.status == TOO_SLOW
                 else "under 1%" if self.share < 0.01 else f"{self.share:.0%}")
        return (f"{self.call.describe()}: {seconds_text(self.seconds)} where the limit here "
                f"is {limit} ({share})")


Ask = Callable[[SpeedCall, float], Reply]   # (call, CPU limit) -> the child's reply


def ask_in_child(path: Path, timeout: float, cpu: int | None) -> Ask:
    """Ask ``path``'s mc_move in a child process (``student.mc_runner``) pinned to ``cpu``,
    stopped at its CPU limit or after ``timeout`` seconds more than it of wall-clock time."""

    def ask(call: SpeedCall, cpu_limit: float) -> Reply:
        limits = Limits(cpu_limit, timeout + 4 * cpu_limit, cpu)
        try:
            return call_child(path, call.request(), limits, runner="student.mc_runner",
                              who="mc_move")
        except SubmissionError as exc:   # not written, or no longer imports
            return Reply("error", message=str(exc))

    return ask


def time_mc_move(ask: Ask, calibration: Calibration,
                 progress: Callable[[str], None] = lambda text: None) -> list[Timed]:
    """Each call of SPEED_CALLS, once, stopped at its limit (as the grader stops it).

    >>> def ask(call, cpu):
    ...     return Reply(ANSWER, cpu_seconds=0.1) if call.dim == 3 else Reply(TIMEOUT)
    >>> [t.status for t in time_mc_move(ask, Calibration(4e-6))]
    ['within', 'too slow']
    """
    results = []
    for number, call in enumerate(SPEED_CALLS, 1):
        progress(f"{call.describe()} ({number} of {len(SPEED_CALLS)})")
        limit = call.limit(calibration)
        reply = ask(call, limit)
        if reply.kind not in (ANSWER, TIMEOUT):
            results.append(Timed(call, NO_ANSWER, message=reply.message))
            continue
        stopped = reply.kind == TIMEOUT
        within = not stopped and reply.cpu_seconds <= limit
        results.append(Timed(call, WITHIN if within else TOO_SLOW, reply.cpu_seconds, limit,
                             stopped, reply.message if reply.waited else ""))
    return results


def summary(results: list[Timed]) -> list[str]:
    """A line per call, then the verdict: within the limits (and the margin), too slow and
    what to look for, or not judged.

    >>> for line in summary([Timed(SPEED_CALLS[0], WITHIN, 0.1, 1.0)]):  # doctest: +ELLIPSIS
    ...     print(line)
    mc_move with 1,000 trials on the empty 3x3 board: 0.10 s where ... is 1.00 s (10%)
    within the grader's limits, with margin (on 3x3 boards the grader gives mc_move 100 ...
    """
    lines = [timed.line() for timed in results]
    slow = [timed for timed in results if timed.status == TOO_SLOW]
    timed = [timed for timed in results if timed.status == WITHIN]
    if slow:
        boards = " and ".join(f"the empty {t.call.dim}x{t.call.dim} board" for t in slow)
        lines.append(f"too slow for the grader on {boards}: the grader stops such a call at "
                     f"its limit, and it gets no answer. {SPEED_HINT}")
    elif timed:
        worst = max(timed, key=lambda t: t.share)
        if worst.share < MARGIN:
            lines.append(f"within the grader's limits, with margin ({TRIALS_NOTE})")
        else:
            lines.append("within the grader's limits, but close to one: the grader may land "
                         f"on either side of it. {SPEED_HINT}")
    if any(timed.status == NO_ANSWER for timed in results):
        lines.append("not judged where mc_move gave no answer: the grader gives a call with "
                     "no answer no credit for time either")
    return lines


def verdict(results: list[Timed]) -> str:
    """The speed part of the tally line.

    >>> verdict([Timed(SPEED_CALLS[0], WITHIN, 0.1, 1.0)])
    "within the grader's limits"
    """
    statuses = {timed.status for timed in results}
    if TOO_SLOW in statuses:
        return "too slow for the grader"
    if statuses == {NO_ANSWER}:
        return "not judged (mc_move gave no answer)"
    if NO_ANSWER in statuses:
        return "within the grader's limits where mc_move answered"
    return "within the grader's limits"

