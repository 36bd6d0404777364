"""The student's submission as the hidden suite sees it.

Every call goes through the sandbox with a CPU-time limit scaled to the
position; answers are judged at once and cached (a position is asked once per
run, whichever rubric item asks); the run's budget and counters live here.

    with Sandbox(path) as sandbox:
        client = StudentClient(sandbox, Solver(), TimePolicy(), seconds_per_node=1.6e-6)
        verdict = client.mm_move(Position.empty(3))
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from grader.checks import Verdict, failed_call, judge_answer, judge_move
from grader.position import Move, Position
from grader.results import Failure
from grader.sandbox import Reply, Sandbox
from grader.solver import Solver
from grader.timing import TimePolicy


@dataclass
class CallStats:
    """What the run cost the student and us."""

    calls: int = 0
    cpu_seconds: float = 0.0
    timeouts: int = 0


class StudentClient:
    """Asks the sandboxed submission, judges with the solver, remembers every verdict."""

    def __init__(self, sandbox: Sandbox, solver: Solver, policy: TimePolicy,
                 seconds_per_node: float) -> None:
        self.sandbox = sandbox
        self.solver = solver
        self.policy = policy
        self.seconds_per_node = seconds_per_node
        self.budget = policy.budget(seconds_per_node)
        self.stats = CallStats()
        self.verdicts: dict[Position, Verdict] = {}          # mm_move, by position
        self.wrapper_answers: dict[Position, tuple[Move | None, Failure | None]] = {}
        self.time_checks: list[Failure | None] = []          # one per call made, in order

    def limit(self, position: Position) -> float:
        """The CPU seconds a call on ``position`` may take."""
        return self.policy.limit(self.solver.tree_size(position), self.seconds_per_node)

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

    def _call(self, function: str, position: Position) -> tuple[Reply | None, Failure | None]:
        """Call the student; on no usable answer, the failure that explains why."""
        limit = self.limit(position)
        if self.stats.cpu_seconds >= self.budget:
            return None, failed_call(
                position, function, "not run", "an answer", "no call made",
                f"the run's time budget ({self.budget:.0f} s of CPU time) was used up "
                "by earlier calls, so this call was not made")
        reply = self.sandbox.call(function, position, cpu_limit=limit)
        self.stats.calls += 1
        self.stats.cpu_seconds += reply.cpu_seconds
        if reply.status == "timeout":
            self.stats.timeouts += 1
            failure = failed_call(
                position, function, "timeout", f"an answer within {limit:.1f} s",
                "no answer in time",
                f"{reply.error}. The limit, {limit:.1f} s of CPU time, is "
                f"{self.policy.factor:g} times what a plain minimax needs for this position "
                "on this machine. Look for repeated work, or a search that does not stop at "
                "finished boards.")
            self.time_checks.append(failure)
            return None, failure
        if reply.status == "ok":
            self.time_checks.append(None)
            return reply, None
        if reply.status == "error":
            failure = failed_call(position, function, "exception", "an answer",
                                  _first_line(reply.error), reply.error)
        else:
            failure = failed_call(position, function, "crash", "an answer",
                                  "the process died", reply.error)
        # No answer is no answer in time: failing fast earns no time points.
        self.time_checks.append(failure)
        return None, failure

    def _judge_mm_move(self, position: Position) -> Verdict:
        reply, failure = self._call("mm_move", position)
        if reply is None:
            failures = {"score": failure, "move": failure}
            if failure.category == "timeout":
                failures["time"] = failure
            return Verdict(position, failures, answered=False)
        verdict = judge_answer(self.solver, position, reply.answer)
        failures = dict(verdict.failures)
        if reply.board_after is not None and reply.board_after != position.cells:
            after = Position(position.dim, tuple(reply.board_after), position.player,
                             position.reverse)
            failures["board"] = failed_call(
                position, "mm_move", "board changed", "the board as it was",
                "the board changed to:\n" + after.drawing(),
                "mm_move must not change the board it is given: clone it and move on the copy")
        return replace(verdict, failures=failures, cpu_seconds=reply.cpu_seconds)

    def _ask_move_wrapper(self, position: Position) -> tuple[Move | None, Failure | None]:
        reply, failure = self._call("move_wrapper", position)
        if reply is None:
            return None, failure
        move, why = judge_move(self.solver, position, reply.answer)
        if move is None:
            return None, failed_call(position, "move_wrapper", "illegal move",
                                     "an empty square", repr(reply.answer), why)
        return move, None


def _first_line(text: str) -> str:
    """The exception's own line ("ValueError: ..."), which comes before its traceback."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else "an exception"
