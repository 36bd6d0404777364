"""The course's records beside the grader's results, and the final score computed from them.

A result is what the grader said; a late penalty and an instructor's adjustment are records
of their own, never edits of it, so a regrade changes only the grader's part and every
number a page shows can be explained: raw score, penalty (from the hand-in's time and the
student's deadline), adjustment (with its note), final.

>>> policy = LatePolicy.parse("10%/day,max=50%")
>>> final = FinalScore.compute(80.0, 100.0, late_by=timedelta(hours=30), policy=policy)
>>> final.late_days, final.penalty_points, final.final
(2, 20.0, 60.0)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import timedelta

_POLICY = re.compile(r"^\s*(?P<rate>\d+(?:\.\d+)?)\s*%\s*/\s*day\s*"
                     r"(?:,\s*max\s*=\s*(?P<cap>\d+(?:\.\d+)?)\s*%\s*)?$", re.IGNORECASE)


class PolicyError(ValueError):
    """A late policy that cannot be read; the message says how to write one."""


@dataclass(frozen=True)
class LatePolicy:
    """A share of the maximum score taken per day late or part of a day, capped.

    ``per_day`` 0 is the default policy: late is marked, nothing is taken.

    >>> LatePolicy.parse("none").text, LatePolicy.parse("5%/day").text
    ('none', '5%/day')
    >>> LatePolicy.parse("10%/day,max=50%").describe()
    '10% of the maximum score per day late (or part of a day), at most 50%'
    """

    per_day: float = 0.0          # a fraction: 0.1 is 10% a day
    cap: float = 1.0              # the most taken, a fraction of the maximum score

    @classmethod
    def parse(cls, text: str | None) -> "LatePolicy":
        if text is None or text.strip().lower() in ("", "none", "0", "0%/day"):
            return cls()
        found = _POLICY.match(text)
        if found is None:
            raise PolicyError(f"late penalty {text!r} cannot be read: write none, or a "
                              "percentage per day with an optional cap, such as 10%/day "
                              "or 10%/day,max=50%")
        rate = float(found["rate"]) / 100
        cap = float(found["cap"]) / 100 if found["cap"] else 1.0
        if not 0 < rate <= 1 or not 0 < cap <= 1:
            raise PolicyError(f"late penalty {text!r}: the percentages must be more than 0% "
                              "and at most 100%")
        return cls(rate, cap)

    @property
    def is_none(self) -> bool:
        return self.per_day == 0

    @property
    def text(self) -> str:
        """The policy as ``--late-penalty`` takes it (and as the course remembers it)."""
        if self.is_none:
            return "none"
        rate = f"{self.per_day * 100:g}%/day"
        return rate if self.cap >= 1 else f"{rate},max={self.cap * 100:g}%"

    def describe(self) -> str:
        if self.is_none:
            return "none: late hand-ins are marked late, no points are taken"
        cap = "" if self.cap >= 1 else f", at most {self.cap * 100:g}%"
        return (f"{self.per_day * 100:g}% of the maximum score per day late "
                f"(or part of a day){cap}")

    def days_late(self, late_by: timedelta) -> int:
        """Days late, a part of a day counting as one (0 when on time).

        >>> LatePolicy().days_late(timedelta(minutes=1)), LatePolicy().days_late(timedelta(0))
        (1, 0)
        """
        seconds = late_by.total_seconds()
        return 0 if seconds <= 0 else math.ceil(seconds / 86400)

    def fraction(self, late_by: timedelta) -> float:
        """The share of the maximum score taken for being ``late_by``."""
        return min(self.cap, self.per_day * self.days_late(late_by))


@dataclass(frozen=True)
class Adjustment:
    """Points an instructor added (or took, when negative) on a submission, and why."""

    submission: int
    points: float
    note: str
    set_by: str
    set_at: str


@dataclass(frozen=True)
class Change:
    """One change of a record (a deadline, an adjustment, the course's settings)."""

    at: str
    who: str
    kind: str            # "deadline", "adjustment", "setting"
    subject: str         # the student's id, the submission's number, the setting's name
    before: str | None   # JSON, None when there was nothing
    after: str | None    # JSON, None when it was removed


@dataclass(frozen=True)
class FinalScore:
    """The score a page and the gradebook show, and each part it is made of.

    >>> FinalScore.compute(90.0, 100.0).final, FinalScore.compute(None, None).final
    (90.0, None)
    """

    raw: float | None                 # the grader's score
    max_score: float | None
    late_days: int = 0
    penalty_fraction: float = 0.0
    penalty_points: float = 0.0
    adjustment: Adjustment | None = None
    final: float | None = None
    policy: LatePolicy = LatePolicy()    # the late policy the penalty was taken under

    @classmethod
    def compute(cls, raw: float | None, max_score: float | None, *,
                late_by: timedelta = timedelta(0), policy: LatePolicy = LatePolicy(),
                adjustment: Adjustment | None = None) -> "FinalScore":
        """The final score of a result: the raw score less the late penalty (a share of
        the maximum score), plus the adjustment, never below 0."""
        days = policy.days_late(late_by)
        if raw is None:
            return cls(None, max_score, days, adjustment=adjustment, policy=policy)
        fraction = policy.fraction(late_by)
        penalty = round(fraction * (max_score or 0.0), 2)
        points = adjustment.points if adjustment is not None else 0.0
        final = round(max(0.0, raw - penalty + points), 2)
        return cls(raw, max_score, days, fraction, penalty, adjustment, final, policy)

    @property
    def changed(self) -> bool:
        """The final score differs from the raw one (or an adjustment says why it does not)."""
        return bool(self.penalty_points) or self.adjustment is not None
