"""What a grading run found: values shared by the suite, the reports and the batch.

Every check is passed, failed, or not judged: the call gave no answer (it raised, crashed,
ran out of time, or was not made), so there was nothing to judge. A check that was not
judged earns no points, and the reports call it "no answer", never a failure of what the
check is about (a call that raised at once did not change the board, nor was it slow).

>>> item = ItemResult("scores", 20.0, passed=3, total=4)
>>> item.score, item.status
(15.0, 'failed')
>>> ItemResult("board untouched", 5.0, passed=0, total=4, no_answer=4).status
'no answer'
>>> GradeResult(submission="s.py", student_id="s", items=(item,)).score
15.0
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

NO_ANSWER = "no answer"
# The failures the time item judges: past a limit ("timeout", "too slow": a tier not run
# after one), or no answer on a position where a plain search needs milliseconds ("stuck").
TIMEOUT, TOO_SLOW, STUCK = "timeout", "too slow", "stuck"
TIME_CATEGORIES = (TIMEOUT, TOO_SLOW, STUCK)


@dataclass(frozen=True)
class Failure:
    """One failed check, told so that a student can reproduce and understand it."""

    category: str        # short and stable: "wrong score", "illegal move", "timeout", ...
    call: str            # a call the student can paste, in the course grader's style
    expected: str
    received: str
    why: str = ""        # the reason, with a line of best play where one helps
    board: str = ""      # the board drawn with coordinates (as it was given to the call)
    moves: tuple[str, ...] = ()   # for lost games: the game's moves, in order
    judged: bool = True  # False: the call gave no answer, so the check could not be judged
    board_after: str = ""   # the board as the call left it, drawn, when the call changed it

    def unjudged(self) -> "Failure":
        """This failure as a check that could not be judged (no answer came back)."""
        return self if not self.judged else replace(self, judged=False)


@dataclass(frozen=True)
class ItemResult:
    """One rubric item: partial credit in proportion to the checks passed."""

    name: str
    max_score: float
    passed: int = 0
    total: int = 0
    failures: tuple[Failure, ...] = ()
    notes: tuple[str, ...] = ()        # e.g. what was accepted as a near miss
    error: str | None = None           # the grader itself failed on this item
    no_answer: int = 0                 # checks not judged: the call gave no answer

    @property
    def failed(self) -> int:
        """Checks judged and failed."""
        return self.total - self.passed - self.no_answer

    @property
    def score(self) -> float:
        if self.error is not None or self.total == 0:
            return 0.0
        return round(self.max_score * self.passed / self.total, 2)

    @property
    def status(self) -> str:
        """"passed", "failed" (some check was judged and failed), or "no answer" (every
        check that did not pass got no answer). An item that checked nothing has not passed."""
        if self.error is None and self.total > 0 and self.passed == self.total:
            return "passed"
        if self.error is None and self.total > 0 and self.failed == 0:
            return NO_ANSWER
        return "failed"


@dataclass(frozen=True)
class GradeResult:
    """The whole run for one submission."""

    submission: str
    student_id: str
    items: tuple[ItemResult, ...] = ()
    load_error: str | None = None       # why the submission could not be run at all
    load_kind: str | None = None        # LoadError kind: "syntax", "python2", "empty", ...
    load_output: str = ""               # what the submission printed when imported
    student_cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    calls: int = 0
    timeouts: int = 0
    restarts: int = 0
    isolation: tuple[str, ...] = ()
    timing: dict[str, Any] = field(default_factory=dict)   # the policy and its calibration
    too_slow: tuple[str, ...] = ()      # the tiers found too slow, as sentences
    not_run: int = 0                    # calls not made because the budget was spent
    grader_error: str | None = None     # set when the grader itself failed
    import_calls: tuple[str, ...] = ()  # games the file starts when imported (skipped)
    course_imports: tuple[str, ...] = ()   # the course's modules it imports (poc_ttt_provided)
    assignment: str = "minimax"         # which assignment it was graded as (grader.assignments)
    assignment_note: str = ""           # the report's "Assignment:" line (how it was chosen)
    helpers: tuple[str, ...] = ()       # its helper modules, graded with it (file names)
    helper_notes: tuple[str, ...] = ()  # the files beside it not graded with it, and why

    @property
    def score(self) -> float:
        return round(sum(item.score for item in self.items), 2)

    @property
    def max_score(self) -> float:
        return round(sum(item.max_score for item in self.items), 2)

    def to_json(self) -> dict[str, Any]:
        """Everything, as plain JSON-ready data (for extra_data and the batch)."""
        data = asdict(self)
        data["score"] = self.score
        data["max_score"] = self.max_score
        for item, item_data in zip(self.items, data["items"]):
            item_data["score"] = item.score
            item_data["status"] = item.status
        return data
