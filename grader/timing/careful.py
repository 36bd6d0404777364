"""A call near its limit, decided by paired rounds, so that the machine's load cannot decide it.

A call's CPU time grows on a busy machine (other processes evict its caches and share its
core), and so does the reference's, but not by the same factor from one moment to the
next: a call compared with a reference timed minutes before (the calibration) lands on
either side of its limit. So a call near its limit (``grader.assignments.minimax.client``) is made again in
*rounds*, each between two timings of the reference on the student's CPU (on a position of
the call's size and mode, scaled by the nodes to the tier's hardest). A round's *ratio* is
the call's CPU time over the mean of those two timings, which saw the same load; it is a
vote, within when at most ``factor``.

- The majority of ``ROUNDS`` votes decides (the median ratio): rounds stop as soon as
  ``MAJORITY`` agree. A round disturbed by a burst of load is outvoted.
- A first round more than ``WIDE`` of the factor from it decides alone when the first
  measurement says the same: a call at half its limit, or twice it, needs no vote. But a
  short call (one whose rounds repeat it) needs the majority to be over: a burst of load
  only adds time, and its measurements follow each other within milliseconds, so one
  burst may cover the first measurement and the first rounds.
- A round's call may run to ``HEADROOM`` times its limit, so that a call just over its limit
  finishes and gives its ratio; one stopped there votes "over".
- When no further round can be afforded, the votes so far decide, a tie in the student's
  favour; with none, the first measurement stands.

The first measurement does not vote: its limit comes from the calibration, timed under
another load. Recorded beside other work on 2 cores (load 7-8, and 0, 1, 2 more busy
processes), on a file at 0.8 of its limit and one at 1.16: one round's ratio against the
reference timed before the call alone varied by 11-23% (standard deviation), against the
mean of the timings before and after it by 7-14%; decided as below, every one of 240 runs
of rounds taken from the recordings gave each file its own verdict with the latter, and 11
of 252 did not with the former (``tests/timing/test_careful.py`` replays them).

>>> decide([Pair(0.52, 0.1)], factor=5, first_within=True)            # ratio 5.2: vote on
>>> decide([Pair(0.25, 0.1)], factor=5, first_within=True)            # ratio 2.5: clearly
True
>>> decide([Pair(1.0, 0.1)], factor=5, first_within=False)            # ratio 10: clearly
False
>>> decide([Pair(1.0, 0.1)], factor=5, first_within=False, short=True)    # a burst?
>>> decide([Pair(0.52, 0.1), Pair(0.48, 0.1), Pair(0.49, 0.1)], factor=5, first_within=False)
>>> decide([Pair(0.52, 0.1), Pair(0.48, 0.1), Pair(0.49, 0.1), Pair(0.5, 0.1)], factor=5,
...        first_within=False)
True
>>> settle([Pair(0.52, 0.1), Pair(0.48, 0.1)], factor=5, first_within=False)   # a tie
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

ROUNDS = 5        # votes at most
MAJORITY = ROUNDS // 2 + 1
WIDE = 0.3        # a first round this far from the factor (a share of it) decides alone
HEADROOM = 1.3    # a round's call may run this many times its limit


@dataclass(frozen=True)
class Pair:
    """One round: the call's CPU seconds, and the reference's (the mean of its timings just
    before and just after the call, scaled to the tier's hardest position). ``stopped``: the
    call was stopped at ``HEADROOM`` times its limit, so ``call`` is a lower bound."""

    call: float
    reference: float
    stopped: bool = False

    @property
    def ratio(self) -> float:
        return self.call / self.reference if self.reference > 0 else float("inf")

    def within(self, factor: float) -> bool:
        return not self.stopped and self.ratio <= factor


def decide(pairs: Sequence[Pair], factor: float, first_within: bool,
           short: bool = False) -> bool | None:
    """Within (True) or over (False) once the rounds so far decide; None while another round
    is needed. ``first_within``: the first measurement was within its limit; ``short``: the
    call is short enough that each round repeats it."""
    if len(pairs) == 1:
        if first_within and pairs[0].within((1 - WIDE) * factor):
            return True
        far = pairs[0].stopped or pairs[0].ratio >= (1 + WIDE) * factor
        if not first_within and not short and far:
            return False
    within = sum(pair.within(factor) for pair in pairs)
    if within >= MAJORITY:
        return True
    if len(pairs) - within >= MAJORITY:
        return False
    return None


def settle(pairs: Sequence[Pair], factor: float, first_within: bool,
           short: bool = False) -> bool:
    """The verdict when no further round can be made: ``decide``'s if it has one, else the
    majority so far (a tie goes to the student), else the first measurement."""
    decided = decide(pairs, factor, first_within, short)
    if decided is not None:
        return decided
    if not pairs:
        return first_within
    within = sum(pair.within(factor) for pair in pairs)
    return 2 * within >= len(pairs)
