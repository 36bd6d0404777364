"""The student's submission as the hidden suite sees it: every call paced, timed and judged.

Every call goes through the sandbox with the limit of its tier (``grader.timing.pacing``); an
answer is judged at once and cached (a position is asked once per run, whichever rubric
item asks). A call near its limit (one that ran out of CPU time, or the call that decides
its tier when it used more than half its limit) is decided by paired rounds
(``grader.timing.careful``): each round makes the call again between two timings of the
reference on a position of the same size and mode, on the same CPU, and votes with the
ratio of the call to those timings (on short limits each round repeats both and compares
their means); the majority of five decides, a first round far from the limit alone. So
neither a disturbed measurement (a burst of load, a slower moment of a virtual CPU) nor a
calibration timed under another load decides a verdict. The rounds are the grader's own
checking: they are not charged to the student's budget, and they may cost no more than
what the student's own calls have cost so far, plus ``VERIFY`` searches of the empty board
(a few seconds); after that the votes so far decide (a tie in the student's favour). A
round times the reference on a position cheap enough to cost at most ``CAREFUL_REFERENCE``
of the call's limit (its time scaled by the nodes), so that a strict policy (``factor``
below 1) does not make the reference the expensive part. The other calls of a tier whose
deciding call passed may take ``PASSED_MARGIN`` times the tier's limit
(``grader.timing.pacing``).

Calls on small positions (their tier is not timed by ratio: its limit is hundreds of times
what a plain minimax needs there) are made in batches where they come in a row
(``prefetch``): one round trip for up to ``BATCH_CALLS`` calls, as many as the reference,
``factor`` times slower, would answer in ``BATCH_SHARE`` of the small limit. The batch is
timed from outside as a whole and stopped at twice that estimate plus ``BATCH_SLACK`` of
the small limit, never later than the small limit, so each of its calls is within its own;
its CPU is shared out evenly. (A submission far slower than the reference thus wastes
little on the batch it fills.) A batch that gives no answer (stopped, crashed) decides
nothing: its calls are made again one by one, each with its own limit, and the rest of the
run makes no batch. The verdicts are those of single calls; only the round trips are fewer.

A call that does not return on a *small* position (one where a plain minimax needs a few
milliseconds, see ``grader.timing.policy.MEASURED_NODES``) is *stuck*, not slow: it is
reported as such ("did not return ...: an endless loop?"), and so are the calls of its
tier and the larger ones, which are not made.

    with Sandbox(path) as sandbox:
        client = StudentClient(sandbox, Solver(), TimePolicy(), planned=positions)
        client.run_plan()                                # mm_move on each, tier by tier
        verdict = client.mm_move(Position.empty(3))      # from the cache
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterable

from grader.judge.checks import Verdict, board_changed, failed_call, judge_answer, judge_move
from grader.timing.pacing import CRASH_RUN, MM_MOVE, MOVE_WRAPPER, Pacing, Tier, TooSlow
from grader.judge.position import Move, Position
from grader.judge.results import STUCK, TIMEOUT, TOO_SLOW, Failure
from grader.sandbox import Reply, Sandbox
from grader.judge.solver import Solver
from grader.timing.careful import HEADROOM, ROUNDS, Pair, decide, settle
from grader.timing.policy import (EMPTY_BOARD_NODES, REFERENCE_3X3, REFERENCE_3X3_NODES,
                                  Calibration, TimePolicy)

NEAR = 0.5       # a decisive call that used this share of its limit is measured again
VERIFY = 2.0     # the rounds' allowance beyond what the student's calls have cost so far, in
                 # empty-board searches of the reference (not the student's budget: whether
                 # a call is near a limit must not cost its grade)
CAREFUL_REFERENCE = 0.1   # a round's reference timing costs at most this share of the limit
SHORT_ROUND = 0.05   # a round whose limit is shorter than this many empty-board searches
REPEATS = 5          # repeats its timings and calls (up to this many times) and compares
                     # their means: short calls are the ones a burst of load disturbs most
RECALIBRATE_EVERY = 1.0   # budget (empty-board searches) spent between two checks of the speed
DRIFT = 0.1          # a check (one timing of the reference) this far from the calibration, faster
                     # or slower, means the machine's speed moved: the reference is timed again
BATCH_CALLS = 64     # calls on small positions made in one round trip, at most
BATCH_SHARE = 0.5    # of the small limit: what the reference, factor times slower, would
                     # spend on a batch's calls (so a correct search never fills it)
BATCH_SLACK = 0.125  # of the small limit: a batch may run this much past twice that estimate
                     # (the worker's own work on each call) before it is stopped
RESTART_COST = 0.05  # budget (empty-board searches) a worker restart costs: a fixed price, the
                     # same on every run, where its wall time depends on the machine's load

SPEED_HINT = ("Look for repeated work (copying more than the board, searching a position "
              "twice), or a search that does not stop at finished boards.")


@dataclass
class CallStats:
    """What the run cost the student, and what it did not do."""

    calls: int = 0           # calls made, careful measurements' rounds included
    cpu_seconds: float = 0.0
    timeouts: int = 0        # calls judged out of time (by the vote, when measured again)
    retries: int = 0         # calls measured again, carefully (ROUNDS)
    presumed: int = 0        # calls not made: their tier, or a smaller one, was too slow
    not_run: int = 0         # calls not made: the budget was spent
    rounds: int = 0          # careful measurements' rounds (calls made again)
    round_seconds: float = 0.0       # the student's CPU time in those rounds
    careful_references: int = 0      # reference timings beside the rounds
    careful_reference_seconds: float = 0.0
    speed_checks: int = 0            # single timings of the reference as the grade went on


@dataclass(frozen=True)
class CallRecord:
    """One function asked about one position, as the time item sees it."""

    function: str
    position: Position
    failure: Failure | None   # None: answered within its limit


class StudentClient:
    """Asks the sandboxed submission, judges with the solver, remembers every verdict."""

    def __init__(self, sandbox: Sandbox, solver: Solver, policy: TimePolicy,
                 planned: Iterable[Position] = ()) -> None:
        self.sandbox = sandbox
        self.solver = solver
        self.policy = policy
        self.planned = tuple(dict.fromkeys(planned))
        self.pacing = Pacing(policy, solver, self.planned)
        self.stats = CallStats()
        self.verdicts: dict[Position, Verdict] = {}          # mm_move, by position
        self.wrapper_answers: dict[Position, tuple[Move | None, Failure | None]] = {}
        self.calls: list[CallRecord] = []                     # one per function and position
        self.interrupted = False
        self._calibrated_at = 0.0   # the budget spent when the reference was last timed
        # Replies of a batch (prefetch), each waiting for its own call to take it.
        self._batched: dict[tuple[str, Position], Reply] = {}
        self._batching = hasattr(sandbox, "call_batch")   # until a batch gives no answer

    def run_plan(self) -> None:
        """Ask ``mm_move`` about every planned position, in the pacing's order."""
        self.prefetch(MM_MOVE, self.pacing.order(self.planned))

    def ask_ahead(self, positions: Iterable[Position]) -> None:
        """``move_wrapper`` on each of these positions now (see ``prefetch``); the games
        then read the answers (``grader.judge.play``)."""
        self.prefetch(MOVE_WRAPPER, positions)

    def prefetch(self, function: str, positions: Iterable[Position]) -> None:
        """Ask ``function`` about each position not asked yet, in this order, and judge
        and cache each answer as ``mm_move`` and ``move_wrapper`` do; calls on small
        positions that come in a row go in batches (see the module's docstring)."""
        ask = self.mm_move if function == MM_MOVE else self.move_wrapper
        asked = self.verdicts if function == MM_MOVE else self.wrapper_answers
        batch: list[Position] = []
        cost = 0.0
        for position in dict.fromkeys(positions):
            if position in asked:
                continue
            seconds = self._batch_cost(function, position)
            if batch and (seconds is None or len(batch) == BATCH_CALLS
                          or cost + seconds > BATCH_SHARE * self._small_limit()):
                self._ask_batch(function, batch, cost, ask)
                batch, cost = [], 0.0
            if seconds is None:
                ask(position)
            else:
                batch.append(position)
                cost += seconds
        if batch:
            self._ask_batch(function, batch, cost, ask)

    def mm_move(self, position: Position) -> Verdict:
        """The verdict on ``mm_move(board, player)`` for this position (asked once per run)."""
        if position not in self.verdicts:
            self.verdicts[position] = self._judge_mm_move(position)
        return self.verdicts[position]

    def move_wrapper(self, position: Position) -> tuple[Move | None, Failure | None]:
        """The legal move ``move_wrapper`` chose, or None and the failure."""
        if position not in self.wrapper_answers:
            self.wrapper_answers[position] = self._ask_move_wrapper(position)
        return self.wrapper_answers[position]

    # -- batches -----------------------------------------------------------------------------

    def _small_limit(self) -> float:
        calibration = self.sandbox.calibration
        assert calibration is not None  # a started sandbox has timed the reference
        return self.policy.small * calibration.empty_board_seconds

    def _batch_cost(self, function: str, position: Position) -> float | None:
        """What the reference, ``factor`` times slower, would spend on this call, if it may
        go in a batch: a small position, whose call would be made now; else None."""
        if not self._batching or self.interrupted:
            return None
        tier = self.pacing.tier(function, position)
        if (self.pacing.measured(tier, position) or self.pacing.verdict(tier) is not None
                or self.pacing.crashed(tier)):
            return None
        calibration = self.sandbox.calibration
        assert calibration is not None
        return self.policy.factor * calibration.seconds(position.dim,
                                                        self.pacing.nodes(position))

    def _ask_batch(self, function: str, positions: list[Position], cost: float,
                   ask) -> None:
        """Make the calls on ``positions`` (the reference, ``factor`` times slower, would
        spend ``cost`` seconds on them) in one round trip if it can be done, then let each
        position's own call take its reply (or, if the batch gave none, be made)."""
        if len(positions) > 1:
            problem, calibration = self._before_call()
            small = self._small_limit()
            limit = min(small, 2 * cost + BATCH_SLACK * small)
            if problem is None and self.pacing.left_seconds(calibration) >= small:
                try:
                    replies = self.sandbox.call_batch(function, positions, limit)
                except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the calls are not made
                    self.interrupted = True
                    replies = []
                if replies is None:   # its calls are made one by one, as all after it
                    self._batching = False
                else:
                    for position, reply in zip(positions, replies):
                        self._batched[(function, position)] = reply
        for position in positions:
            ask(position)
        self._batched.clear()

    # -- calls -------------------------------------------------------------------------------

    def _call(self, function: str, position: Position) -> tuple[Reply | None, Failure | None]:
        """Call the student; on no usable answer, the failure that explains why.

        The failure is judged (``judged=True``) only from the time item's point of view: a
        timeout, or a call presumed too slow. An exception, a crash or a call that was not
        made is no answer at all.
        """
        tier = self.pacing.tier(function, position)
        slow = self.pacing.verdict(tier)
        if self.interrupted:
            failure = self._interrupted(position, function, "before")
        elif slow is not None:
            self.stats.presumed += 1
            failure = self._presumed(position, function, tier, slow)
        elif self.pacing.crashed(tier):
            self.stats.presumed += 1
            failure = failed_call(
                position, function, "crash", "an answer", "not run",
                f"not asked: the first {CRASH_RUN} calls on {tier.describe()} each ended the "
                "process (see them), so this one, which would too, was not made", judged=False)
        else:
            reply, failure = self._measure(function, position, tier)
            if reply is not None:
                self.calls.append(CallRecord(function, position, None))
                return reply, None
        self.calls.append(CallRecord(function, position, failure))
        return None, failure

    def _measure(self, function: str, position: Position,
                 tier: Tier) -> tuple[Reply | None, Failure | None]:
        """Make the call; near its limit, time the reference again and make it again."""
        reply, limit = self._attempt(function, position, tier)
        if self.interrupted:
            return None, self._interrupted(position, function, "during")
        retried = False
        if reply is not None and self._near_limit(reply, limit, tier, position):
            again = self._remeasure(function, position, tier, reply, limit)
            if self.interrupted:
                return None, self._interrupted(position, function, "during")
            if again is not None:
                self.stats.retries += 1
                reply, limit, retried = again.reply, again.limit, True
        if reply is None:
            return None, self._not_run(position, function, self._budget_why(limit))
        if reply.status == "ok":
            self.pacing.answered(tier)
            return reply, None
        if reply.status == "timeout":
            self.stats.timeouts += 1
            # On a small tier the limit is hundreds of times the search: it is stuck.
            stuck = not self.pacing.measured(tier, position)
            decides = self.pacing.timed_out(
                tier, TooSlow(tier, position.call(function), limit, retried, reply.waited,
                              stuck))
            return None, self._timeout(position, function, tier, reply, limit, retried,
                                       decides, stuck)
        if reply.status == "error":
            return None, failed_call(position, function, "exception", "an answer",
                                     _first_line(reply.error), reply.error, judged=False)
        self.pacing.crash(tier)
        return None, failed_call(position, function, "crash", "an answer",
                                 "the process died", reply.error, judged=False)

    def _near_limit(self, reply: Reply, limit: float, tier: Tier, position: Position) -> bool:
        """Whether the machine's speed could have decided this call: it ran out of CPU time,
        or it decides its tier and used more than NEAR of its limit (on a tier timed by
        ratio, and for move_wrapper unless mm_move passed the same tier; a sleeping call
        is not near anything)."""
        if not self.pacing.measured(tier, position) or reply.waited:
            return False
        if reply.status == "timeout":
            return True
        if tier.function == MOVE_WRAPPER and replace(tier, function=MM_MOVE) in self.pacing.passed:
            # mm_move's search of this tier was within its limit, carefully: move_wrapper,
            # which answers with that search, has nothing more to prove by a vote.
            return False
        return (reply.status == "ok" and not self.pacing.decided(tier)
                and reply.cpu_seconds >= NEAR * limit)

    @property
    def careful_spent(self) -> float:
        """What the careful rounds have cost, in empty-board searches of the reference:
        the calls made again and the reference timings beside them."""
        calibration = self.sandbox.calibration
        assert calibration is not None
        return ((self.stats.round_seconds + self.stats.careful_reference_seconds)
                / calibration.empty_board_seconds)

    def careful_left(self) -> float:
        """What the careful rounds may still spend, in empty-board searches: what the
        student's own calls have cost so far, plus VERIFY, minus what the grader's own
        timings after the first have cost (rounds, their reference timings, the speed
        checks and re-calibrations alike)."""
        calibration = self.sandbox.calibration
        assert calibration is not None
        unit = calibration.empty_board_seconds
        grader = (self._recalibration_seconds() + self.stats.round_seconds
                  + self.stats.careful_reference_seconds) / unit
        return VERIFY + self.pacing.spent - grader

    def _recalibration_seconds(self) -> float:
        """CPU seconds of the reference timings made to follow the machine's speed (the
        checks, and the full timings they asked for; the first calibration, before any
        student code, is the price of any grade: not counted)."""
        return max(0.0, self.sandbox.reference_seconds_total
                   - self.sandbox.first_calibration_seconds
                   - self.stats.careful_reference_seconds)

    def _reference_block(self, yardstick: Position, wall: float, repeats: int) -> float:
        """The reference's CPU time on ``yardstick``: the mean of ``repeats`` timings in a
        row (as long as a round's calls, so that both see the same load)."""
        times = []
        for _ in range(repeats):
            times.append(self.sandbox.reference_seconds(yardstick, wall))
            self.stats.careful_references += 1
            self.stats.careful_reference_seconds += times[-1]
        return sum(times) / len(times)

    def _remeasure(self, function: str, position: Position, tier: Tier, first: Reply,
                   first_limit: float) -> "Remeasured | None":
        """Decide the call by paired rounds (``grader.timing.careful``): each makes the call
        again between two timings of the reference, until the rounds decide or the allowance
        (``careful_left``) cannot pay for another (the votes so far then decide, a tie to
        the student). None if interrupted, or if the allowance could not pay for a round.

        The reference is timed on a position of the call's size and mode cheap enough to
        cost at most CAREFUL_REFERENCE of the limit (the tier's hardest when that is
        cheap enough), and its time scaled by the nodes of the tier's hardest."""
        factor = self.policy.factor * self.pacing.margin(tier, position)
        calibration = self.sandbox.calibration
        assert calibration is not None
        unit = calibration.empty_board_seconds
        tier_nodes = self.pacing.tier_nodes(tier, position)
        yardstick = self.pacing.careful_yardstick(
            tier, position, CAREFUL_REFERENCE * self.policy.factor * tier_nodes)
        scale = tier_nodes / self.pacing.nodes(yardstick)
        reference = calibration.seconds(yardstick.dim, self.pacing.nodes(yardstick))
        # Wall time the reference may take: generous, a busy machine may halve its speed.
        wall = 20 * reference
        # Short limits: each round times the reference and makes the call several times
        # (from the policy and the nodes alone, so the same on every run).
        repeats = min(REPEATS, max(1, math.ceil(
            SHORT_ROUND * EMPTY_BOARD_NODES / (self.policy.factor * tier_nodes))))
        # What a round will cost, from what the first measurement cost: the calls again,
        # and the timings of the reference after them (and before, for the first round).
        cost = repeats * (min(first.cpu_seconds, HEADROOM * first_limit) + reference) / unit
        first_within = first.status == "ok"
        pairs: list[Pair] = []
        last: dict[bool, tuple[Reply, float]] = {}   # each side's latest reply and limit
        before: float | None = None
        while decide(pairs, factor, first_within, short=repeats > 1) is None:
            if (cost + (repeats * reference / unit if before is None else 0.0)
                    > self.careful_left()):
                break
            if before is None:
                before = self._reference_block(yardstick, wall, repeats) * scale
            replies = []
            for _ in range(repeats):
                reply, _ = self._attempt(function, position, tier,
                                         HEADROOM * factor * before, verify=True)
                if reply is None or self.interrupted:
                    return None
                self.stats.round_seconds += reply.cpu_seconds
                if reply.status not in ("ok", "timeout"):
                    # It raised or crashed: that is its answer.
                    return Remeasured(reply, factor * before)
                replies.append(reply)
                if reply.status == "timeout":
                    break   # stopped past its limit: the round votes over, whatever follows
            self.stats.rounds += 1
            after = self._reference_block(yardstick, wall, repeats) * scale
            pair = Pair(sum(r.cpu_seconds for r in replies) / len(replies),
                        (before + after) / 2, stopped=replies[-1].status != "ok")
            before = after
            pairs.append(pair)
            limit = factor * pair.reference
            if pair.within(factor):
                last[True] = (replies[-1], limit)
            else:
                last[False] = (_late(function, replies[-1], limit), limit)
        if not pairs:
            return None   # no round could be afforded: the first measurement stands
        return Remeasured(*last[settle(pairs, factor, first_within, short=repeats > 1)])

    def _attempt(self, function: str, position: Position, tier: Tier,
                 limit: float | None = None, verify: bool = False) -> tuple[Reply | None, float]:
        """One call with its tier's limit (or ``limit``), or (None, limit) if the budget is
        spent: before the call, or during it (it was stopped where the budget ended, not at
        its limit). With ``verify`` (a round of a careful measurement) the budget neither
        stops nor pays for it."""
        problem, calibration = self._before_call(verify)
        if problem is not None:
            return Reply("crash", None, 0.0, None, "", problem), 0.0
        if limit is None:
            limit = self.pacing.limit(calibration, tier, position)
        left = limit if verify else self.pacing.left_seconds(calibration)
        if left <= 0:
            return None, limit
        # Made already, in a batch (prefetch): within its limit, and the worker lives on.
        reply = None if verify else self._batched.pop((function, position), None)
        try:
            if reply is None:
                reply = self.sandbox.call(function, position, cpu_limit=min(limit, left))
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: stop calling, report what is done
            self.interrupted = True
            return Reply("crash", None, 0.0, None, "", "the grading run was interrupted"), limit
        self.stats.calls += 1
        self.stats.cpu_seconds += reply.cpu_seconds
        # A call that ran out of time costs exactly its limit: the same on every run.
        spent = limit if reply.status == "timeout" else max(reply.active_seconds,
                                                            reply.cpu_seconds)
        if not verify:
            self.pacing.charge(calibration, min(spent, limit, left))
        if reply.status == "timeout" and left < limit:
            return None, limit  # the budget ended first: no verdict on this call's speed
        return reply, limit

    def _before_call(self, verify: bool = False) -> tuple[str | None, Calibration]:
        """Before a call (or a batch): the worker restarted if need be (a restart is
        charged, at a fixed price, unless ``verify``), and the reference timed again when
        enough of the budget has been spent since. (Why the worker could not restart, or
        None; the calibration now.)"""
        restarts = self.sandbox.restarts
        problem = self.sandbox.ready()
        if not verify and self.pacing.spent - self._calibrated_at >= RECALIBRATE_EVERY:
            # The machine's speed drifts (load comes and goes): limits and the budget
            # follow it, as the calls do.
            self._follow_speed()
            self._calibrated_at = self.pacing.spent
        calibration = self.sandbox.calibration
        assert calibration is not None  # a started sandbox has timed the reference
        if self.sandbox.restarts != restarts and not verify:
            # After a crash or a timeout: the student's cost, at a fixed price.
            self.pacing.charge(calibration, min(RESTART_COST, self.pacing.left)
                               * calibration.empty_board_seconds)
        return problem, calibration

    def _follow_speed(self) -> None:
        """Check the machine's speed with one timing of the reference (its 3x3 search); if
        it is more than ``DRIFT`` away from the calibration, time the reference again in
        full (eight searches, the medians). A check costs a tenth of a full timing, and a
        disturbed check only adds time, so it can only ask for a full timing it did not
        need; a drift it misses (under a tenth) moves no verdict on speed: a call near its
        limit is measured again beside fresh timings of the reference anyway."""
        calibration = self.sandbox.calibration
        assert calibration is not None  # a started sandbox has timed the reference
        expected = calibration.seconds(REFERENCE_3X3.dim, REFERENCE_3X3_NODES)
        seconds = self.sandbox.reference_seconds(REFERENCE_3X3)
        self.stats.speed_checks += 1
        if abs(seconds / expected - 1) > DRIFT:
            self.sandbox.calibrate()

    # -- what a call that gave no answer says ----------------------------------------------------

    def _timeout(self, position: Position, function: str, tier: Tier, reply: Reply,
                 limit: float, retried: bool, decides: bool, stuck: bool) -> Failure:
        if stuck:
            return self._stuck(position, function, tier, reply, decides)
        again = (" It was measured again, each time between two timings of the reference "
                 "on the same CPU: it was over the limit in most of its (at most "
                 f"{ROUNDS}) measurements." if retried else "")
        rest = (f" It was the hardest of the {tier.describe()}, so the others, and positions "
                "with more empty squares, were not asked: each counts as too slow."
                if decides else "")
        # Measured again, the vote's last reply may be any of the measurements (stopped at
        # the limit, or answered late): the words must not depend on which.
        error = (f"{function} used more than its limit of {limit:.2f} s of CPU time"
                 if retried else reply.error)
        why = (f"{error}.{again}{rest} The limit: {self.policy.describe()}. "
               + ("" if reply.waited else SPEED_HINT))
        return failed_call(position, function, TIMEOUT, f"an answer within {limit:.2f} s",
                           "no answer in time", why.strip())

    def _stuck(self, position: Position, function: str, tier: Tier, reply: Reply,
               decides: bool) -> Failure:
        """A call that did not return on a small position: hundreds of times what a search
        there takes, so not a matter of speed."""
        nodes = self.pacing.tier_nodes(tier, position)
        where = ("on a finished board, where the answer needs no search" if nodes == 1 else
                 f"on a position where a plain minimax searches at most {nodes:,} positions "
                 "(a few milliseconds)")
        guess = ("is it waiting for something that never comes (input(), a sleep)?"
                 if reply.waited else "an endless loop?")
        rest = (f" It was the first of the {tier.describe()}, so the others, and positions "
                "with more empty squares (where it would search at least as long), were "
                "not asked: each counts as stuck." if decides else "")
        why = (f"{function} did not return {where}: {guess} {reply.error}.{rest} "
               f"The limit: {self.policy.describe()}.")
        return failed_call(position, function, STUCK, "an answer", "no answer: it did not "
                           "return", why)

    def _presumed(self, position: Position, function: str, tier: Tier,
                  slow: TooSlow) -> Failure:
        if slow.stuck:
            guess = ("waiting for something that never comes" if slow.waited
                     else "in an endless loop")
            why = (f"not asked: {slow.call} did not return (was it {guess}?); it is the "
                   f"first of the {slow.tier.describe()}, and a search on this position, with "
                   "at least as many empty squares, takes at least as long.")
            return failed_call(position, function, STUCK, "an answer", "not asked", why)
        what = "sleeping or waiting" if slow.waited else "computing"
        twice = " (in most of the times it was measured)" if slow.retried else ""
        why = (f"not asked: {slow.call} was still {what} when its limit of {slow.limit:.2f} "
               f"s ran out{twice}; it is the hardest of the {slow.tier.describe()}, and a "
               f"search on this position, with at least as many empty squares, takes longer. "
               f"The limit: {self.policy.describe()}. "
               + ("" if slow.waited else SPEED_HINT))
        return failed_call(position, function, TOO_SLOW, "an answer in time", "not run",
                           why.strip())

    def _not_run(self, position: Position, function: str, why: str) -> Failure:
        self.stats.not_run += 1
        return failed_call(position, function, "not run", "an answer", "no call made", why,
                           judged=False)

    def _interrupted(self, position: Position, function: str, when: str) -> Failure:
        return self._not_run(position, function,
                             f"the grading run was interrupted {when} this call")

    def _budget_why(self, limit: float) -> str:
        calibration = self.sandbox.calibration
        seconds = self.policy.budget_seconds(calibration) if calibration else 0.0
        return (f"the grade's time budget ({self.policy.budget:g} reference searches of the "
                f"empty board, {seconds:.0f} s here) ran out before this call could use its "
                f"limit ({limit:.2f} s), so this call was not judged")

    # -- judging -----------------------------------------------------------------------------

    def _judge_mm_move(self, position: Position) -> Verdict:
        reply, failure = self._call(MM_MOVE, position)
        if reply is None:
            assert failure is not None
            # No answer: nothing to judge on score, move or board; time judges its own.
            unjudged = failure.unjudged()
            return Verdict(position, {"score": unjudged, "move": unjudged,
                                      "board": unjudged, "time": failure}, answered=False)
        verdict = judge_answer(self.solver, position, reply.answer)
        failures = dict(verdict.failures)
        if reply.board_after is not None and reply.board_after != position.cells:
            after = Position(position.dim, tuple(reply.board_after), position.player,
                             position.reverse)
            failures["board"] = board_changed(position, after)
        return replace(verdict, failures=failures, cpu_seconds=reply.cpu_seconds)

    def _ask_move_wrapper(self, position: Position) -> tuple[Move | None, Failure | None]:
        reply, failure = self._call(MOVE_WRAPPER, position)
        if reply is None:
            assert failure is not None
            return None, failure.unjudged()  # a game with no answer cannot be judged
        move, why = judge_move(self.solver, position, reply.answer)
        if move is None:
            return None, failed_call(position, MOVE_WRAPPER, "illegal move",
                                     "an empty square", repr(reply.answer), why)
        return move, None


@dataclass(frozen=True)
class Remeasured:
    """The verdict of a careful measurement: a reply of the majority, and its limit."""

    reply: Reply
    limit: float


def _late(function: str, reply: Reply, limit: float) -> Reply:
    """A round over its limit as a timeout, whether it answered late or was stopped."""
    how = (f"it answered after {reply.cpu_seconds:.2f} s" if reply.status == "ok"
           else f"it was stopped after {reply.cpu_seconds:.2f} s")
    return replace(reply, status="timeout", answer=None, board_after=None,
                   error=f"{function} used more than its limit of {limit:.2f} s of CPU "
                         f"time ({how})")


def _first_line(text: str) -> str:
    """The exception's own line ("ValueError: ..."), which comes before its traceback."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else "an exception"
