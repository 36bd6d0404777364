"""What a running batch shows in a terminal: a progress bar and the time left (tqdm), or
one line per submission when the output is not a terminal."""

from __future__ import annotations

import sys
from typing import Any

from grader.classroom.batch import Finished
from grader.classroom.state import Plan


class ConsoleProgress:
    """A tqdm bar on a terminal; one line per finished submission otherwise (or nothing)."""

    def __init__(self, quiet: bool = False, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.bar: Any = None
        self.several = False      # a class of several assignments: each line names its own

    def started(self, plan: Plan) -> None:
        everyone = plan.to_grade + plan.done + plan.not_graded
        self.several = len({submission.assignment for submission in everyone
                            if submission.assignment}) > 1
        if self.quiet:
            return
        reasons = f", {len(plan.not_graded)} not graded" if plan.not_graded else ""
        print(f"{len(plan.to_grade)} to grade, {len(plan.done)} already done{reasons}",
              file=self.stream, flush=True)
        for submission in plan.not_graded:
            print(f"  not graded: {self._name(submission.student_id, submission.assignment)}: "
                  f"{submission.problem}", file=self.stream, flush=True)
        if plan.to_grade and _isatty(self.stream):
            from tqdm import tqdm
            self.bar = tqdm(total=len(plan.to_grade), file=self.stream, unit="submission",
                            desc="grading", dynamic_ncols=True, smoothing=0.1)

    def finished(self, event: Finished) -> None:
        if self.quiet:
            return
        row = event.row
        score = f"{row.score:g} / {row.max_score:g}" if row.score is not None else row.status
        name = self._name(row.student_id, row.assignment)
        line = f"[{event.done}/{event.total}] {name}: {score} ({event.attempt.seconds:.1f} s)"
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix_str(f"last: {name} {score}", refresh=True)
            if row.score is None:
                self.bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def _name(self, student_id: str, assignment: str) -> str:
        """A submission in a line: its student, and its assignment in a class of several."""
        return f"{student_id} ({assignment})" if self.several and assignment else student_id

    def stopping(self) -> None:
        message = "stopping: waiting for the running grading runs to end..."
        if self.bar is not None:
            self.bar.write(message, file=self.stream)
        elif not self.quiet:
            print(message, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
