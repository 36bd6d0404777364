"""What a grading run found: values shared by the suite, the reports and the batch.

>>> item = ItemResult("scores", 20.0, passed=3, total=4)
>>> item.score
15.0
>>> GradeResult(submission="s.py", student_id="s", seed=1, items=(item,)).score
15.0
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Failure:
    """One failed check, told so that a student can reproduce and understand it."""

    category: str        # short and stable: "wrong score", "illegal move", "timeout", ...
    call: str            # a call the student can paste, in the course grader's style
    expected: str
    received: str
    why: str = ""        # the reason, with a line of best play where one helps
    board: str = ""      # the board drawn with coordinates
    moves: tuple[str, ...] = ()   # for lost games: the game's moves, in order


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

    @property
    def score(self) -> float:
        if self.error is not None or self.total == 0:
            return 0.0
        return round(self.max_score * self.passed / self.total, 2)

    @property
    def status(self) -> str:
        # An item that checked nothing (the submission never ran) has not passed.
        passed = self.error is None and self.total > 0 and self.passed == self.total
        return "passed" if passed else "failed"


@dataclass(frozen=True)
class GradeResult:
    """The whole run for one submission."""

    submission: str
    student_id: str
    seed: int
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
    calibration: dict[str, float] = field(default_factory=dict)
    grader_error: str | None = None     # set when the grader itself failed

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
