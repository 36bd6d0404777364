"""One grading run of the Monte Carlo assignment: each call seeded, timed and explained.

The hidden tests (``test_montecarlo.py``) ask the student's functions through
:class:`MonteCarloClient`: every call gets its arguments built afresh in the sandbox, a seed
the grader chose for that check (``random`` is seeded with it first, and so is every other
source of randomness the standard library offers: ``grader/sandbox/inside/entropy.py``), and
a CPU limit proportional to the work asked (trials times the squares a trial may fill, in
nodes of the reference search timed on this machine). So a random player gets the same
answers on every run, on any machine, under any load, for any student id.

A call that gives no answer (an exception, a timeout, a crash, the budget spent) comes back
as a :class:`Call` with ``failure`` set, a check that was not judged, in the report's words.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import pytest

from grader.judge.position import Position
from grader.judge.results import Failure
from grader.sandbox import Reply, Sandbox
from grader.suite.config import Config
from provided.board import NAMES
# The limit's rule is shared with python -m student check, which says what the grader would
# say about mc_move's time (the student package cannot import the grader).
from provided.montecarlo import SPEED_HINT, call_limit, limit_rule

DEFAULT_CONSTANTS = {"SCORE_CURRENT": 1.0, "SCORE_OTHER": 1.0}


def seed_of(label: str) -> int:
    """The seed of one check: the same for every student and every run.

    >>> seed_of("mc_trial 3x3 empty X") == seed_of("mc_trial 3x3 empty X")
    True
    """
    return zlib.crc32(label.encode()) % 100_000


def board_arg(position: Position) -> dict:
    return {"board": [position.dim, list(position.cells), position.reverse]}


def grid_call(grid: list[list[float]]) -> str:
    """A scores grid as Python a student can paste.

    >>> grid_call([[0.0, 1.5], [-2.0, 0.0]])
    '[[0.0, 1.5], [-2.0, 0.0]]'
    """
    return "[" + ", ".join("[" + ", ".join(repr(v) for v in row) + "]" for row in grid) + "]"


@dataclass
class Stats:
    calls: int = 0
    timeouts: int = 0
    cpu_seconds: float = 0.0
    not_run: int = 0


@dataclass(frozen=True)
class Call:
    """One call's outcome: ``reply`` when it answered (judge it), else ``failure`` (a check
    that was not judged: no answer) — never both."""

    reply: Reply | None
    failure: Failure | None
    seed: int
    code: str            # the lines a student pastes to make the same call


@dataclass
class MonteCarloClient:
    """Asks the student's Monte Carlo functions, in the sandbox, within limits."""

    sandbox: Sandbox
    config: Config
    stats: Stats = field(default_factory=Stats)
    spent: float = 0.0          # the student's CPU seconds, against the budget
    interrupted: bool = False

    def constant(self, name: str) -> float:
        """The file's own SCORE_CURRENT or SCORE_OTHER (a number), else the course's 1.0."""
        value = self.sandbox.constants.get(name)
        if type(value) in (int, float) and value == value and abs(value) < 1e9:
            return float(value)
        return DEFAULT_CONSTANTS[name]

    def constant_note(self) -> str:
        """What the checks read from the file, for the report."""
        shown = []
        for name in DEFAULT_CONSTANTS:
            value = self.sandbox.constants.get(name)
            used = self.constant(name)
            if type(value) in (int, float) and float(value) == used:
                shown.append(f"{name} = {used:g} (the file's)")
            else:
                shown.append(f"{name} = {used:g} (the course's: the file defines no number)")
        return "read from the file: " + ", ".join(shown)

    def limit(self, dim: int, trials: int, empties: int) -> float:
        """The CPU seconds a call may take: ``factor`` times the work asked, in reference
        nodes, plus ``small`` reference searches of the empty board
        (``provided.montecarlo.call_limit``)."""
        calibration = self.sandbox.calibration
        assert calibration is not None   # a started sandbox has timed the reference
        policy = self.config.policy
        return call_limit(trials, empties, calibration.per_node(dim),
                          calibration.empty_board_seconds, policy.factor, policy.small)

    def ask(self, function: str, args: list[dict], code: str, label: str, position: Position,
            trials: int = 0) -> Call:
        """Call ``function`` with ``args`` (see grader.sandbox.protocol.invoke_request),
        seeded for the check ``label``; ``code`` is the call as a student pastes it."""
        seed = seed_of(label)
        code = f"random.seed({seed}); {code}"
        limit = self.limit(position.dim, max(trials, 1), len(position.empty_squares()))
        budget = self.config.policy.budget_seconds(self.sandbox.calibration)
        if self.interrupted:
            return Call(None, self._not_run(code, position, "the grading run was "
                                             "interrupted before this call"), seed, code)
        if self.spent + limit > budget and self.spent > 0:
            return Call(None, self._not_run(
                code, position, f"the grade's time budget ({budget:.0f} s of the student's "
                "CPU time here) ran out before this call could use its limit "
                f"({limit:.2f} s)"), seed, code)
        try:
            reply = self.sandbox.invoke(function, args, limit, seed)
        except KeyboardInterrupt:
            self.interrupted = True
            return Call(None, self._not_run(code, position, "the grading run was "
                                             "interrupted during this call"), seed, code)
        self.stats.calls += 1
        self.stats.cpu_seconds += reply.cpu_seconds
        self.spent += reply.cpu_seconds
        if reply.status == "ok":
            return Call(reply, None, seed, code)
        return Call(None, self._no_answer(function, reply, limit, code, position), seed, code)

    def _no_answer(self, function: str, reply: Reply, limit: float, code: str,
                   position: Position) -> Failure:
        if reply.status == "timeout":
            self.stats.timeouts += 1
            guess = ("is it waiting for something that never comes (input(), a sleep)?"
                     if reply.waited else SPEED_HINT)
            why = (f"{function} did not return within its limit of {limit:.2f} s of CPU "
                   f"time: {reply.error}. {guess} The limit: {self.describe_limits()}")
            return Failure("timeout", code, f"an answer within {limit:.2f} s",
                           "no answer in time", why, position.drawing(), judged=False)
        first = reply.error.strip().partition("\n")[0] or "no answer"
        if reply.status == "error":
            return Failure("exception", code, "an answer", first, reply.error,
                           position.drawing(), judged=False)
        return Failure("crash", code, "an answer", first, reply.error,
                       position.drawing(), judged=False)

    def _not_run(self, code: str, position: Position, why: str) -> Failure:
        self.stats.not_run += 1
        return Failure("not run", code, "an answer", "no call made", why, position.drawing(),
                       judged=False)

    def describe_limits(self) -> str:
        return limit_rule(self.config.policy.factor, self.config.policy.small)


class MonteCarloSession:
    """The Monte Carlo's side of a grading run (a ``grader.assignments.Session``)."""

    def __init__(self, sandbox: Sandbox, config: Config) -> None:
        self.sandbox = sandbox
        self.config = config
        self.client = MonteCarloClient(sandbox, config)
        self.plugin = MonteCarloFixtures(self.client)

    @property
    def interrupted(self) -> bool:
        return self.client.interrupted

    def budget_seconds(self) -> float:
        assert self.sandbox.calibration is not None
        return self.config.policy.budget_seconds(self.sandbox.calibration)

    def result_fields(self) -> dict[str, Any]:
        stats, policy = self.client.stats, self.config.policy
        timing: dict[str, Any] = {"factor": policy.factor, "small": policy.small,
                                  "budget": policy.budget,
                                  "budget_spent": round(self.client.spent, 3),
                                  "budget_exhausted": stats.not_run > 0,
                                  "calibrations": self.sandbox.calibrations,
                                  "seeded": True}
        if self.sandbox.calibration is not None:
            timing.update(self.sandbox.calibration.to_json())
            timing["budget_seconds"] = round(self.budget_seconds(), 2)
            timing["rule"] = (
                f"time limits: {self.client.describe_limits()} That minimax needs "
                f"{self.sandbox.calibration.empty_board_seconds:.2f} s for the empty 3x3 "
                f"board here; all your calls together may take {policy.budget:g} times that "
                f"(about {self.budget_seconds():.0f} s); they took "
                f"{self.client.spent:.2f} s. Randomness: every call was seeded by the "
                "grader (the random.seed(N) before each call shown), so the same file gets "
                "this same report on every run.")
        return dict(student_cpu_seconds=round(stats.cpu_seconds, 3), calls=stats.calls,
                    timeouts=stats.timeouts, timing=timing, not_run=stats.not_run)


class MonteCarloFixtures:
    """The fixtures the Monte Carlo's hidden tests take: ``mc`` (the client)."""

    def __init__(self, client: MonteCarloClient) -> None:
        self._client = client

    @pytest.fixture(scope="session")
    def mc(self) -> MonteCarloClient:
        return self._client


def player_name(player: int) -> str:
    return NAMES[player]
