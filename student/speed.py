"""Speed as the grader judges it, on this machine: the last part of ``python -m student check``.

The grader's limits are multiples of its reference's CPU time on the machine that grades
(``student.tiers`` says the policy; ``student.yardstick`` what is timed here in its
place). This module times that yardstick here, in a child process on one CPU, then asks
``mm_move`` the positions that decide the grader's tiers, each in a child process on the
same CPU, with the grader's limit for it, and says what the grader would say:

    within the grader's limits, with margin: the slowest tier used 23% of its limit
    (3x3, 7 empty squares: 0.41 s where the limit here is 1.80 s)

or, for each size and mode where a tier is too slow, from which number of empty squares.
As in the grader: the tiers of a size and mode are asked fewest empty squares first; once
one is too slow the larger ones are not asked (they count as too slow); a call near its
limit is measured again, each time between two timings of the yardstick on that very
position, and two of three measurements decide; a call that does not return on a small
position is stuck, and nothing more is asked.

The yardstick, its calibration and the progress line serve the Monte Carlo player's speed
part too (``student.mc_speed``).

>>> calibration = Calibration(per_node_3x3=4e-6, ratio_4x4=1.5)
>>> round(calibration.limit(TIERS[2]), 3)          # 5 x 9,400 nodes x 4 us
0.188
>>> round(calibration.limit(TIERS[0]), 2)          # small: 0.2 x the empty board's 2.2 s
0.44
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, TextIO

from student.checks import ANSWER, TIMEOUT, Reply
from student.tiers import (EMPTY_BOARD_NODES, FACTOR, REFERENCE_3X3, REFERENCE_4X4, SMALL,
                           TIERS, Tier, judged_by_ratio)
from student.yardstick import WALK_TO_REFERENCE

REFERENCE_RUNS = 5   # the median of five 3x3 runs and of three 4x4 ones, as the grader
REFERENCE_4X4_RUNS = 3
NEAR = 0.5           # a call that used this share of its limit is measured again
ROUNDS = 3           # measurements that vote on a call measured again (the first included)
HEADROOM = 1.25      # how far past its limit a new measurement may run
OVERRUN = 2.0        # how far past its limit the first call of a tier may run
MARGIN = 0.8         # under this share of its limit, a tier is within "with margin"
SPEED_HINT = ("look for repeated work: copying more than the board at each step, computing "
              "the same thing again and again (the empty squares, the winner), or searching "
              "a child twice (once for its score, again to find the move)")

_ROOT = Path(__file__).resolve().parent.parent

# What became of one tier.
WITHIN = "within"
TOO_SLOW = "too slow"
PRESUMED = "presumed"     # not asked: a smaller tier of its size and mode was too slow
NO_ANSWER = "no answer"   # mm_move raised or crashed: its speed could not be judged
STUCK = "stuck"           # no answer within its limit on a small position


class YardstickError(RuntimeError):
    """The yardstick's child process failed: the check cannot judge speed here."""


@dataclass(frozen=True)
class Calibration:
    """What one node of the reference costs here, now, in CPU seconds (as the grader's
    ``Calibration``: a 4x4 node costs ``ratio_4x4`` times a 3x3 one)."""

    per_node_3x3: float
    ratio_4x4: float = 1.0

    def per_node(self, dim: int) -> float:
        if dim <= 3:
            return self.per_node_3x3
        return self.per_node_3x3 * self.ratio_4x4 * (dim * dim) / 16

    @property
    def empty_board_seconds(self) -> float:
        """The reference's CPU time for the empty 3x3 board."""
        return EMPTY_BOARD_NODES * self.per_node_3x3

    @property
    def small_limit(self) -> float:
        """The limit of a call on a small position: SMALL empty-board searches."""
        return SMALL * self.empty_board_seconds

    def stuck_limit(self, dim: int, reverse: bool, empties: int) -> float:
        """How long a public check may run before it is taken as stuck: the grader's limit
        on a small position, else (it is judged by ratio, in the speed checks) as long as
        the reference needs for the whole empty 3x3 board."""
        if judged_by_ratio(dim, reverse, empties):
            return self.empty_board_seconds
        return self.small_limit

    def limit(self, tier: Tier) -> float:
        """The CPU seconds the grader gives a call of ``tier`` on this machine."""
        if not tier.measured:
            return self.small_limit
        return FACTOR * tier.nodes * self.per_node(tier.dim)


@dataclass(frozen=True)
class Measured:
    """One tier's verdict: ``status`` (WITHIN, TOO_SLOW, ...), the call's CPU seconds and
    the limit it was judged against; ``message`` says why when no time was measured."""

    tier: Tier
    status: str
    seconds: float = 0.0
    limit: float = 0.0
    remeasured: bool = False
    message: str = ""
    stopped: bool = False   # the call was stopped (out of time): it needs more than seconds

    @property
    def share(self) -> float:
        return self.seconds / self.limit if self.limit else 0.0


class Yardstick:
    """The yardstick's child process (``python -m student.yardstick``), on one CPU.

    >>> with Yardstick(None) as yardstick:        # doctest: +SKIP
    ...     yardstick.calibrate().empty_board_seconds
    2.41
    """

    def __init__(self, cpu: int | None) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_ROOT), env.get("PYTHONPATH")]))
        self._process = subprocess.Popen(
            [sys.executable, "-m", "student.yardstick", "" if cpu is None else str(cpu)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    def __enter__(self) -> "Yardstick":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                stream.close()

    def seconds(self, tier: Tier, runs: int = 1) -> list[float]:
        """The reference's CPU time for ``tier``'s position, from ``runs`` timed walks."""
        request = {"dim": tier.dim, "reverse": tier.reverse, "cells": list(tier.cells),
                   "player": tier.player, "runs": runs}
        try:
            assert self._process.stdin is not None and self._process.stdout is not None
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
            answer = json.loads(self._process.stdout.readline())
        except (OSError, ValueError) as exc:
            raise YardstickError(f"the yardstick's process failed: {exc}") from None
        if answer.get("nodes") != tier.nodes:
            raise YardstickError(f"the yardstick visited {answer.get('nodes')} nodes of "
                                 f"{tier.describe()}, not {tier.nodes}")
        return [WALK_TO_REFERENCE * seconds for seconds in answer["seconds"]]

    def calibrate(self) -> Calibration:
        """Time the reference's two small positions, alternately, as the grader does."""
        runs_3x3: list[float] = []
        runs_4x4: list[float] = []
        for run in range(REFERENCE_RUNS):
            runs_3x3 += self.seconds(REFERENCE_3X3)
            if run < REFERENCE_4X4_RUNS:
                runs_4x4 += self.seconds(REFERENCE_4X4)
        per_node = statistics.median(runs_3x3) / REFERENCE_3X3.nodes
        if not per_node > 0:
            raise YardstickError("the yardstick took no measurable time")
        ratio = statistics.median(runs_4x4) / REFERENCE_4X4.nodes / per_node
        return Calibration(per_node, ratio)


class SpeedProgress:
    """What the check is timing now, on ``stream`` (stderr): the verdicts stay on stdout.

    In a terminal, one line rewritten in place and cleared when the timing is done; else (a
    log, CI, a test) a line per step, so a long run shows where it is without noise.

    >>> import io
    >>> log = io.StringIO()
    >>> progress = SpeedProgress(log)
    >>> progress("3x3, 7 empty squares (4 of 19)")
    >>> progress.clear()
    >>> log.getvalue()
    'speed: timing 3x3, 7 empty squares (4 of 19)\\n'
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        try:
            self.live = stream.isatty()
        except (AttributeError, ValueError):   # a closed or unusual stream: plain lines
            self.live = False
        self.shown = False   # a line in place is on the terminal now

    def __call__(self, text: str, step: bool = True) -> None:
        """Say that ``text`` is timed now; ``step=False``: only in a terminal (a wait that
        is not a step of the speed checks, such as timing the yardstick)."""
        if not self.live and not step:
            return
        if self.live:
            # \r then "erase to the end of the line": the shorter line leaves nothing behind.
            self.stream.write(f"\r\x1b[K  timing {text} ...")
            self.shown = True
        else:
            self.stream.write(f"speed: timing {text}\n")
        self.stream.flush()

    def clear(self) -> None:
        """Erase the line in place, before the verdicts are printed."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


Ask = Callable[[Tier, float], Reply]   # (tier, CPU limit) -> the call's reply
Progress = Callable[[str], None]       # told what is timed next, before it is


def _quiet(text: str) -> None:
    pass


def judge_speed(ask: Ask, yardstick: Yardstick, calibration: Calibration,
                tiers: Iterable[Tier] = TIERS, progress: Progress = _quiet) -> list[Measured]:
    """Ask each tier's position in the grader's order; stop at the first stuck call.

    ``progress`` is told which tier is timed next (a long run is otherwise silent):

    >>> said = []
    >>> def ask(tier, cpu):
    ...     return Reply(ANSWER, cpu_seconds=0.0)
    >>> _ = judge_speed(ask, None, Calibration(4e-6), TIERS[:2], said.append)
    >>> said
    ['3x3, 5 empty squares (1 of 2)', '3x3, 6 empty squares (2 of 2)']
    """
    tiers = list(tiers)
    results: list[Measured] = []
    slow_families: set[tuple[int, bool]] = set()
    for number, tier in enumerate(tiers, 1):
        if tier.family in slow_families:
            results.append(Measured(tier, PRESUMED))
            continue
        progress(f"{tier.describe()} ({number} of {len(tiers)})")
        measured = measure(ask, yardstick, calibration, tier, progress)
        results.append(measured)
        if measured.status == TOO_SLOW:
            slow_families.add(tier.family)
        if measured.status == STUCK:
            break
    return results


def measure(ask: Ask, yardstick: Yardstick, calibration: Calibration, tier: Tier,
            progress: Progress = _quiet) -> Measured:
    """One tier's verdict: its call with the grader's limit, measured again when near it."""
    limit = calibration.limit(tier)
    # Room past the limit, to say how much time a slow call needs (judged on the limit).
    reply = ask(tier, OVERRUN * limit if tier.measured else limit)
    if reply.kind not in (ANSWER, TIMEOUT):
        return Measured(tier, NO_ANSWER, message=reply.message)
    if reply.kind == TIMEOUT and not tier.measured:
        return Measured(tier, STUCK, reply.cpu_seconds, limit, message=reply.message)
    first = _verdict(tier, reply, limit)
    if tier.measured and first.share >= NEAR and not reply.waited:
        return _vote(ask, yardstick, tier, first, progress)
    return first


def _verdict(tier: Tier, reply: Reply, limit: float, remeasured: bool = False) -> Measured:
    """One measurement of a call against ``limit``."""
    stopped = reply.kind == TIMEOUT
    within = not stopped and reply.cpu_seconds <= limit
    return Measured(tier, WITHIN if within else TOO_SLOW, reply.cpu_seconds, limit,
                    remeasured, reply.message if reply.waited else "", stopped)


def _vote(ask: Ask, yardstick: Yardstick, tier: Tier, first: Measured,
          progress: Progress = _quiet) -> Measured:
    """Measure the call again, each time between two timings of the yardstick on its own
    position, until two of ROUNDS measurements agree (the grader's careful measurement)."""
    votes: dict[str, list[Measured]] = {WITHIN: [], TOO_SLOW: []}
    votes[first.status].append(first)
    before = yardstick.seconds(tier)[0]
    while max(len(found) for found in votes.values()) <= ROUNDS // 2:
        rounds = len(votes[WITHIN]) + len(votes[TOO_SLOW]) + 1
        progress(f"{tier.describe()} again, near its limit (measurement {rounds} of up to "
                 f"{ROUNDS})")
        reply = ask(tier, HEADROOM * FACTOR * before)
        after = yardstick.seconds(tier)[0]
        limit = FACTOR * (before + after) / 2
        before = after
        if reply.kind not in (ANSWER, TIMEOUT):
            return Measured(tier, NO_ANSWER, message=reply.message)
        measured = _verdict(tier, reply, limit, remeasured=True)
        votes[measured.status].append(measured)
    winner = TOO_SLOW if len(votes[TOO_SLOW]) > len(votes[WITHIN]) else WITHIN
    # The first measurement, with room past its limit, says best how slow a call is.
    return first if first.status == winner else votes[winner][-1]


def yardstick_sentence(calibration: Calibration) -> str:
    """What the yardstick costs here, the unit of every limit, for either assignment.

    >>> yardstick_sentence(Calibration(4e-6))[-55:]
    'would search the empty 3x3 board in 2.20 s of CPU time.'
    """
    return ("The grader's yardstick here: a plain minimax on a board written like the "
            f"course's would search the empty 3x3 board in "
            f"{calibration.empty_board_seconds:.2f} s of CPU time.")


def summary(results: list[Measured]) -> list[str]:
    """What to tell the student: within the limits (and the margin), or from which number
    of empty squares each size and mode is too slow, and what was not judged."""
    lines = []
    stuck = [m for m in results if m.status == STUCK]
    slow = [m for m in results if m.status == TOO_SLOW]
    for measured in stuck:
        lines.append(f"mm_move did not return on {call_text(measured.tier)} within "
                     f"{seconds_text(measured.limit)} of CPU time (the grader's limit for small "
                     "positions here): an endless loop? The other speed checks were not "
                     "run.")
    if slow:
        first = slow[0]
        lines.append(f"too slow for the grader from {first.tier.empties} empty squares "
                     f"({_family(first.tier)}): {_took(first)} where the limit here is "
                     f"{seconds_text(first.limit)}, on {call_text(first.tier)}")
        others = [f"{_family(m.tier)} from {m.tier.empties} empty squares ({_took(m)}, "
                  f"limit {seconds_text(m.limit)})" for m in slow[1:]]
        if others:
            lines.append("also too slow: " + "; ".join(others))
        lines.append("the grader counts as too slow every call from there on (as many empty "
                     f"squares or more, same size and mode); {SPEED_HINT}.")
    unanswered = [m for m in results if m.status == NO_ANSWER]
    if unanswered:
        which = "; ".join(m.tier.describe() for m in unanswered[:3])
        which += f"; and {len(unanswered) - 3} more" if len(unanswered) > 3 else ""
        lines.append(f"not judged on {len(unanswered)} of the {len(results)} positions "
                     f"({which}): mm_move gave no answer "
                     f"({error_line(unanswered[0].message)}), and the grader gives a call "
                     "with no answer no credit for time either")
    timed = [m for m in results if m.status == WITHIN]
    if timed and not slow and not stuck:
        worst = max(timed, key=lambda m: m.share)
        how = "with margin" if worst.share < MARGIN else "but close to a limit"
        close = ("" if worst.share < MARGIN else "; so close that the grader may land on "
                 f"either side of it: {SPEED_HINT}")
        lines.insert(0, f"within the grader's limits, {how}: the slowest tier used "
                        f"{worst.share:.0%} of its limit ({worst.tier.describe()}: "
                        f"{seconds_text(worst.seconds)} where the limit here is "
                        f"{seconds_text(worst.limit)}){close}")
    return lines


def _family(tier: Tier) -> str:
    return f"{tier.dim}x{tier.dim}" + (" reverse game" if tier.reverse else "")


def _took(measured: Measured) -> str:
    """How long the call took, as far as it is known."""
    if measured.message:   # stopped by the wall clock: it was waiting, not computing
        return measured.message
    took = seconds_text(measured.seconds)
    return f"more than {took}" if measured.stopped else took


def call_text(tier: Tier) -> str:
    """The call to paste, in the course grader's style.

    >>> call_text(TIERS[12])
    'mm_move(TTTBoard(1, False, [[EMPTY]]), PLAYERX)'
    """
    from provided.board import NAMES, TTTBoard
    return f"mm_move({TTTBoard(tier.dim, tier.reverse, tier.grid)!r}, {NAMES[tier.player]})"


def seconds_text(seconds: float) -> str:
    """Seconds with the digits that matter.

    >>> seconds_text(0.0312), seconds_text(1.8)
    ('0.031 s', '1.80 s')
    """
    return f"{seconds:.3f} s" if seconds < 0.1 else f"{seconds:.2f} s"


def error_line(text: str) -> str:
    """The exception's own line, which ends a traceback (before any hint)."""
    lines = [line.strip() for line in text.strip().splitlines()
             if line.strip() and not line.startswith("This looks like Python 2:")]
    return lines[-1] if lines else "no answer"
