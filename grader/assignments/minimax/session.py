"""One grading run of the minimax assignment: the hidden positions, asked tier by tier.

The first test to ask for ``student`` has every hidden position asked first, in the pacing's
order (``grader.timing.pacing``); the tests then read cached verdicts. The public positions
(``public.PUBLIC``) are among them: the public checks (``test_public.py``) judge those, and
the ``hidden`` fixture holds the others.

A run of the public checks alone (``python -m student check``: :class:`PublicSession`)
asks each position when a check asks for it, with the limits the grader gives it (its
tier's hardest position is among the public ones or ``public.SPEED``); it never builds
the hidden positions.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest

from grader.assignments.minimax.public import (FINISHED, NORMAL, OTHER_SIZES, PUBLIC,
                                               REVERSE, SPEED)
from grader.judge.position import Position
from grader.judge.solver import Solver, shared_solver
from grader.sandbox import Sandbox
from grader.assignments.minimax.client import StudentClient
from grader.assignments.assignment import Settings

if TYPE_CHECKING:
    from grader.judge.positions import HiddenPositions


class MinimaxSession:
    """The minimax's side of a grading run (a ``grader.assignments.Session``)."""

    def __init__(self, sandbox: Sandbox, config: Settings, exhaustive: bool) -> None:
        from grader.judge.positions import hidden_positions   # the hidden checks' own
        self.sandbox = sandbox
        self.policy = config.policy
        self.hidden = hidden_positions(exhaustive=exhaustive)
        self.client = StudentClient(sandbox, shared_solver(), config.policy,
                                    planned=self.hidden.all())
        self.plugin = MinimaxFixtures(self.client, without_public(self.hidden))

    @property
    def interrupted(self) -> bool:
        return self.client.interrupted

    def budget_seconds(self) -> float:
        assert self.sandbox.calibration is not None  # a started sandbox has timed it
        return self.policy.budget_seconds(self.sandbox.calibration)

    def result_fields(self) -> dict[str, Any]:
        client = self.client
        return dict(student_cpu_seconds=round(client.stats.cpu_seconds, 3),
                    calls=client.stats.calls, timeouts=client.stats.timeouts,
                    timing=timing(client, self.sandbox), not_run=client.stats.not_run,
                    too_slow=tuple(tier.describe() for tier in client.pacing.too_slow
                                   if tier.function == "mm_move"))


def without_public(hidden: "HiddenPositions") -> "HiddenPositions":
    """The hidden positions but the public ones, each left out of the part whose public
    checks judge it (``test_public.py`` judges those, in the same items)."""
    public = {part: {case.position for case in PUBLIC if case.part == part}
              for part in (FINISHED, NORMAL, OTHER_SIZES, REVERSE)}

    def others(positions: tuple[Position, ...], part: str) -> tuple[Position, ...]:
        return tuple(position for position in positions if position not in public[part])

    return replace(hidden, finished=others(hidden.finished, FINISHED),
                   normal=others(hidden.normal, NORMAL),
                   other_sizes=others(hidden.other_sizes, OTHER_SIZES),
                   reverse=others(hidden.reverse, REVERSE))


class PublicSession(MinimaxSession):
    """The minimax's side of a run of its public checks (``Assignment.prepare_public``):
    no hidden position; each position asked when a check asks for it."""

    def __init__(self, sandbox: Sandbox, config: Settings, exhaustive: bool = False) -> None:
        self.sandbox = sandbox
        self.policy = config.policy
        planned = tuple(case.position for case in PUBLIC) + SPEED
        self.client = StudentClient(sandbox, shared_solver(), config.policy, planned=planned)
        self.plugin = PublicFixtures(self.client)


class PublicFixtures:
    """The fixtures the public checks and the speed checks take: ``student`` (asking
    lazily), ``solver``."""

    def __init__(self, client: StudentClient) -> None:
        self._client = client

    @pytest.fixture(scope="session")
    def student(self) -> StudentClient:
        return self._client

    @pytest.fixture(scope="session")
    def solver(self) -> Solver:
        return self._client.solver


class MinimaxFixtures(PublicFixtures):
    """The fixtures the minimax's hidden tests take: ``student`` (every hidden position
    asked first), ``hidden``, ``solver``."""

    def __init__(self, client: StudentClient, hidden: "HiddenPositions") -> None:
        super().__init__(client)
        self._hidden = hidden
        self._planned = False

    @pytest.fixture(scope="session")
    def student(self) -> StudentClient:
        if not self._planned:  # every hidden position first, tier by tier (grader.timing.pacing)
            self._planned = True
            self._client.run_plan()
        return self._client

    @pytest.fixture(scope="session")
    def hidden(self) -> "HiddenPositions":
        return self._hidden


def timing(client: StudentClient, sandbox: Sandbox) -> dict:
    """How the limits were set and what the budget paid, for the report and extra_data."""
    policy, calibration = client.policy, sandbox.calibration
    data: dict = {"factor": policy.factor, "small": policy.small, "budget": policy.budget,
                  "budget_spent": round(client.pacing.spent, 3),
                  "budget_exhausted": client.stats.not_run > 0,
                  "calibrations": sandbox.calibrations,
                  "speed_checks": client.stats.speed_checks, "retries": client.stats.retries,
                  "presumed_too_slow": client.stats.presumed,
                  # the report's lead says these waited (a sleep), not "an endless loop?"
                  "waited_tiers": [tier.describe() for tier, why in
                                   client.pacing.too_slow.items()
                                   if why.waited and tier.function == "mm_move"]}
    if calibration is not None:
        data.update(calibration.to_json())
        data["budget_seconds"] = round(policy.budget_seconds(calibration), 2)
    data.update(grader_share(client, sandbox))
    # The empty board's call, when it was right: a leaderboard's figure (and a class's).
    empty = client.verdicts.get(Position.empty(3))
    data["empty_board_cpu_seconds"] = (round(empty.cpu_seconds, 4) if empty is not None
                                       and empty.answered and not empty.failures else None)
    return data


def grader_share(client: StudentClient, sandbox: Sandbox) -> dict:
    """What the grader's own checking cost, in CPU seconds, beside what the student's calls
    did: every reference search it timed (calibrations and careful rounds), and the calls
    made again in careful rounds. The careful rounds and the re-calibrations may cost no
    more than the student's own calls plus a few seconds (``grader.assignments.minimax.client.VERIFY``).

    >>> from types import SimpleNamespace
    >>> stats = SimpleNamespace(cpu_seconds=10.0, retries=1, rounds=1, round_seconds=2.0)
    >>> box = SimpleNamespace(reference_timings=12, reference_seconds_total=0.5)
    >>> grader_share(SimpleNamespace(stats=stats), box)["grader_cpu_seconds"]
    2.5
    """
    stats = client.stats
    references = sandbox.reference_seconds_total
    return {
        "reference_timings": sandbox.reference_timings,
        "reference_timing_seconds": round(references, 3),
        "careful_measurements": stats.retries,      # calls measured again
        "careful_rounds": stats.rounds,             # calls made again for that
        "careful_round_seconds": round(stats.round_seconds, 3),
        "grader_cpu_seconds": round(references + stats.round_seconds, 3),
        "student_own_cpu_seconds": round(stats.cpu_seconds - stats.round_seconds, 3),
    }
