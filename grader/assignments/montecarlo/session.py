"""One grading run of the Monte Carlo assignment: each call seeded, timed and explained.

The hidden tests (``test_montecarlo.py``) ask the student's functions through
:class:`MonteCarloClient`: every call gets its arguments built afresh in the sandbox, a seed
the grader chose for that check (``random`` is seeded with it first, and so is every other
source of randomness the standard library offers: ``grader/sandbox/inside/entropy.py``), and
a CPU limit proportional to the work asked (trials times the squares a trial may fill, in
nodes of the reference search timed on this machine). So a random player gets the same
answers on every run, on any machine, under any load, for any student id.

The score constants the checks judge by are the file's where they make a fair test, else
the course's (``rubric.choose_constants``); then every call carries them, and the worker sets
them in the file's module before the call (``grader/sandbox/inside/worker.py``, an argument
tagged ``{"globals": {...}}``), so the student's functions run with the values they are
judged by.

A call that gives no answer (an exception, a timeout, a crash, the budget spent) comes back
as a :class:`Call` with ``failure`` set, a check that was not judged, in the report's words
(the generic side of all this: ``grader.assignments.calls``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from grader.assignments.calls import Call, Caller, CallSession, seed_of
from grader.assignments.montecarlo.rubric import RubricConstants, choose_constants
from grader.judge.position import Position
from grader.sandbox import Sandbox
from grader.assignments.assignment import Settings
from provided.board import NAMES
# The limit's rule is shared with python -m student check, which says what the grader would
# say about mc_move's time (the student package cannot import the grader).
from provided.montecarlo import SPEED_HINT, call_limit, limit_rule


def board_arg(position: Position) -> dict:
    return {"board": [position.dim, list(position.cells), position.reverse]}


def grid_call(grid: list[list[float]]) -> str:
    """A scores grid as Python a student can paste.

    >>> grid_call([[0.0, 1.5], [-2.0, 0.0]])
    '[[0.0, 1.5], [-2.0, 0.0]]'
    """
    return "[" + ", ".join("[" + ", ".join(repr(v) for v in row) + "]" for row in grid) + "]"


@dataclass
class MonteCarloClient(Caller):
    """Asks the student's Monte Carlo functions, in the sandbox, within limits: a
    :class:`~grader.assignments.calls.Caller` whose calls show their seed and whose limits
    grow with the trials asked."""

    show_seed: bool = True
    speed_hint: str = SPEED_HINT
    _constants: RubricConstants | None = None

    @property
    def constants(self) -> RubricConstants:
        """The score constants the checks judge by (chosen once, from the module values
        the sandbox read after importing the file)."""
        if self._constants is None:
            self._constants = choose_constants(self.sandbox.constants)
        return self._constants

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
        limit = self.limit(position.dim, max(trials, 1), len(position.empty_squares()))
        settings = self.constants.settings
        if settings:    # not an argument: the worker sets these in the module first
            args = [*args, {"globals": dict(settings)}]
        return self.call(function, args, code, label, limit, position.drawing())

    def describe_limits(self) -> str:
        return limit_rule(self.config.policy.factor, self.config.policy.small)


class MonteCarloSession(CallSession):
    """The Monte Carlo's side of a grading run (a ``grader.assignments.Session``): a
    generic session whose hidden tests take the fixture ``mc``."""

    def __init__(self, sandbox: Sandbox, config: Settings) -> None:
        super().__init__(MonteCarloClient(sandbox, config))
        self.client = self.caller
        self.plugin = MonteCarloFixtures(self.client)


class MonteCarloFixtures:
    """The fixtures the Monte Carlo's hidden tests take: ``mc`` (the client)."""

    def __init__(self, client: MonteCarloClient) -> None:
        self._client = client

    @pytest.fixture(scope="session")
    def mc(self) -> MonteCarloClient:
        return self._client


def player_name(player: int) -> str:
    return NAMES[player]


__all__ = ["Call", "MonteCarloClient", "MonteCarloSession", "board_arg", "grid_call",
           "player_name", "seed_of"]
