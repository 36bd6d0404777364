"""How a course is served: where its data lives, the limits, the grading (its dates and late
policy are records the running server reads: :mod:`grader.service.course.course_dates`).

    settings = ServiceSettings(data=Path("ttt-course"), per_hour=10)
    settings.secure_cookies          # False: the links are http://
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path

from grader.service.course.intake import Deadlines
from grader.service.course.records import LatePolicy
from grader.service.course.times import course_zone
from grader.service.queue import QueueOptions


@dataclass(frozen=True)
class ServiceSettings:
    """How the course is served: where its data lives, the limits, the grading."""

    data: Path = Path("ttt-course")
    base_url: str = ""                  # the links' base; "" = the address asked (Host)
    queue: QueueOptions = field(default_factory=QueueOptions)
    per_hour: int = 10
    max_size: int = 256 * 1024
    # The course's dates and late policy are records the running server reads
    # (grader.service.course.course_dates), changed on the page; these, when given, are set in
    # them as the app is made (an embedding program, the tests; serve stores its options).
    deadlines: Deadlines | None = None
    late_policy: LatePolicy | None = None
    timezone: str = ""                  # the course's time zone for people ("": the server's)
    lti_allow_private: bool = False     # LTI registration may call private addresses
    # serve --read-only (grader.service.read_only): a copy of the course, looked at; no
    # grading, no LMS, every change refused.
    read_only: bool = False

    @property
    def visibility(self) -> str:
        return self.queue.grading.visibility

    @property
    def zone(self) -> tzinfo:
        """The time zone times are shown in."""
        return course_zone(self.timezone)

    @property
    def zone_name(self) -> str:
        """The time zone's name for people (the server's abbreviation when none was given)."""
        return self.timezone or datetime.now(self.zone).tzname() or "UTC"

    @property
    def secure_cookies(self) -> bool:
        return self.base_url.startswith("https://")
