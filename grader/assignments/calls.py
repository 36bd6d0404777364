"""Asking a submission's functions by name: the generic side of a grading run.

Any assignment whose hidden tests call the student's functions with plain arguments can use
these two, as the Monte Carlo does (``grader.assignments.montecarlo.session`` builds on
them) and as the example in ``docs/examples/ttt-winner`` does:

- :class:`Caller` asks one function through the sandbox's generic call
  (``Sandbox.invoke``): the arguments tagged (``{"value": v}``, ``{"grid": rows}``,
  ``{"board": [dim, cells, reverse]}``), ``random`` seeded for the check, a CPU limit, the
  grade's time budget counted (:meth:`Caller.call`); a call that gives no answer comes back as a
  :class:`~grader.judge.results.Failure` that was not judged, in the report's words;
- :class:`CallSession` is a whole ``Session``: its pytest fixture ``student`` is the Caller.

In a hidden test::

    @pytest.mark.rubric("rows")
    def test_rows(student, record):
        call = student.call("winner", [{"value": grid}], f"winner({grid!r})", "winner row 1")
        record.check(call.failure or (None if call.reply.answer == 2 else Failure(...)))
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import pytest

from grader.judge.results import Failure
from grader.sandbox import Reply, Sandbox
from grader.assignments.assignment import Settings

SPEED_HINT = "Look for a loop that never ends, or work done again and again."


def seed_of(label: str) -> int:
    """The seed of one check: the same for every student and every run.

    >>> seed_of("mc_trial 3x3 empty X") == seed_of("mc_trial 3x3 empty X")
    True
    """
    return zlib.crc32(label.encode()) % 100_000


@dataclass
class Stats:
    calls: int = 0
    timeouts: int = 0
    cpu_seconds: float = 0.0
    not_run: int = 0


@dataclass(frozen=True)
class Call:
    """One call's outcome: ``reply`` when it answered (judge it), else ``failure`` (a check
    that was not judged: no answer) — never both. ``after``: what a call that raised left
    in its arguments (as ``Reply.after``), so that a check can say what it did first."""

    reply: Reply | None
    failure: Failure | None
    seed: int
    code: str            # the lines a student pastes to make the same call
    after: tuple = ()


@dataclass
class Caller:
    """Asks the student's functions, in the sandbox, within limits.

    ``show_seed``: the pasteable call starts with ``random.seed(N);`` (for an assignment
    whose functions are random). ``speed_hint``: what a timeout's "why" suggests.
    """

    sandbox: Sandbox
    config: Settings
    stats: Stats = field(default_factory=Stats)
    spent: float = 0.0          # the student's CPU seconds, against the budget
    interrupted: bool = False
    show_seed: bool = False
    speed_hint: str = SPEED_HINT

    def budget_seconds(self) -> float:
        """The student's CPU seconds the whole grade may spend: ``budget`` reference
        searches of the empty 3x3 board."""
        assert self.sandbox.calibration is not None   # a started sandbox has timed it
        return self.config.policy.budget_seconds(self.sandbox.calibration)

    def small_limit(self) -> float:
        """The CPU seconds of a quick call: ``small`` reference searches of the empty
        3x3 board (half a second here with the defaults)."""
        assert self.sandbox.calibration is not None
        return self.config.policy.small * self.sandbox.calibration.empty_board_seconds

    def describe_limits(self) -> str:
        return (f"a call may take {self.config.policy.small:g} times a plain minimax's "
                "time for the empty 3x3 board on this machine.")

    def call(self, function: str, args: list[dict], code: str, label: str,
             limit: float | None = None, board: str = "") -> Call:
        """Call ``function`` with ``args`` (see grader.sandbox.protocol.invoke_request),
        seeded for the check ``label``, within ``limit`` CPU seconds (default: a quick
        call's); ``code`` is the call as a student pastes it, ``board`` a drawing for the
        report when the call gives no answer."""
        seed = seed_of(label)
        if self.show_seed:
            code = f"random.seed({seed}); {code}"
        limit = self.small_limit() if limit is None else limit
        budget = self.budget_seconds()
        if self.interrupted:
            return Call(None, self._not_run(code, board, "the grading run was "
                                             "interrupted before this call"), seed, code)
        if self.spent + limit > budget and self.spent > 0:
            return Call(None, self._not_run(
                code, board, f"the grade's time budget ({budget:.0f} s of the student's "
                "CPU time here) ran out before this call could use its limit "
                f"({limit:.2f} s)"), seed, code)
        try:
            reply = self.sandbox.invoke(function, args, limit, seed)
        except KeyboardInterrupt:
            self.interrupted = True
            return Call(None, self._not_run(code, board, "the grading run was "
                                             "interrupted during this call"), seed, code)
        self.stats.calls += 1
        self.stats.cpu_seconds += reply.cpu_seconds
        self.spent += reply.cpu_seconds
        if reply.status == "ok":
            return Call(reply, None, seed, code)
        return Call(None, self._no_answer(function, reply, limit, code, board), seed, code,
                    reply.after)

    def _no_answer(self, function: str, reply: Reply, limit: float, code: str,
                   board: str) -> Failure:
        if reply.status == "timeout":
            self.stats.timeouts += 1
            guess = ("is it waiting for something that never comes (input(), a sleep)?"
                     if reply.waited else self.speed_hint)
            why = (f"{function} did not return within its limit of {limit:.2f} s of CPU "
                   f"time: {reply.error}. {guess} The limit: {self.describe_limits()}")
            return Failure("timeout", code, f"an answer within {limit:.2f} s",
                           "no answer in time", why, board, judged=False)
        first = reply.error.strip().partition("\n")[0] or "no answer"   # what it raised
        if reply.status == "error":
            return Failure("exception", code, "an answer", first, reply.error, board,
                           judged=False)
        return Failure("crash", code, "an answer", first, reply.error, board, judged=False)

    def _not_run(self, code: str, board: str, why: str) -> Failure:
        self.stats.not_run += 1
        return Failure("not run", code, "an answer", "no call made", why, board,
                       judged=False)

    def result_fields(self) -> dict[str, Any]:
        """The grade result's fields about the calls (``Session.result_fields``)."""
        stats, policy = self.stats, self.config.policy
        timing: dict[str, Any] = {"factor": policy.factor, "small": policy.small,
                                  "budget": policy.budget,
                                  "budget_spent": round(self.spent, 3),
                                  "budget_exhausted": stats.not_run > 0,
                                  "calibrations": self.sandbox.calibrations,
                                  "seeded": True}
        if self.sandbox.calibration is not None:
            timing.update(self.sandbox.calibration.to_json())
            timing["budget_seconds"] = round(self.budget_seconds(), 2)
            timing["rule"] = (
                f"time limits: {self.describe_limits()} That minimax needs "
                f"{self.sandbox.calibration.empty_board_seconds:.2f} s for the empty 3x3 "
                f"board here; all your calls together may take {policy.budget:g} times that "
                f"(about {self.budget_seconds():.0f} s); they took {self.spent:.2f} s.")
            if self.show_seed:
                timing["rule"] += (" Randomness: every call was seeded by the grader (the "
                                   "random.seed(N) before each call shown), so the same file "
                                   "gets this same report on every run.")
        return dict(student_cpu_seconds=round(stats.cpu_seconds, 3), calls=stats.calls,
                    timeouts=stats.timeouts, timing=timing, not_run=stats.not_run)


class CallSession:
    """A ``grader.assignments.Session`` whose hidden tests take the fixture ``student`` (a
    :class:`Caller`). An assignment's ``prepare`` can be as short as:

    >>> prepare = lambda sandbox, config, exhaustive: CallSession(Caller(sandbox, config))
    """

    def __init__(self, caller: Caller) -> None:
        self.caller = caller
        self.plugin = CallFixtures(caller)

    @property
    def interrupted(self) -> bool:
        return self.caller.interrupted

    def budget_seconds(self) -> float:
        return self.caller.budget_seconds()

    def result_fields(self) -> dict[str, Any]:
        return self.caller.result_fields()


class CallFixtures:
    """The fixture a generic session's hidden tests take: ``student`` (the Caller)."""

    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    @pytest.fixture(scope="session")
    def student(self) -> Caller:
        return self._caller
