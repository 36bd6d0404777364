"""The values the course's :class:`~grader.service.course.storage.Store` hands out, one per
row (frozen: a page reads them, never writes through them), and the refusals of a hand-in
it raises.

    row = store.submission(3)          # a Submission: row.status, row.score, row.in_flight
    person = store.student("alice")    # a Student: person.name, person.school_id
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from grader.service.course.schema import ROSTER_FIELDS

INSTRUCTOR = "instructor"   # the student_id of the instructor's row in --links
GRADER = "grader"           # an LMS's TA: the grading pages (a row of lti_staff)


class InFlight(Exception):
    """The student has a submission queued or running already (``row``)."""

    def __init__(self, row: "Submission") -> None:
        super().__init__(f"submission {row.id} is {row.status}")
        self.row = row


class TooMany(Exception):
    """The hourly limit is reached; ``oldest`` is the time of the submission that, an hour
    after it was received, frees a place."""

    def __init__(self, oldest: str) -> None:
        super().__init__(f"the hourly limit is reached (a place frees an hour after {oldest})")
        self.oldest = oldest


@dataclass(frozen=True)
class Student:
    """One student of the roster: the same value from the database to the templates (the
    class page's :class:`~grader.service.course.classbook.ClassStudent` holds one).

    >>> Student("ada42", "Ada Lovelace").revoked
    False
    """

    id: str
    name: str = ""
    email: str = ""
    revoked: bool = False
    # What the instructor's roster says besides (schema.ROSTER_FIELDS; "" where it said
    # nothing): Canvas's numeric user id (its export's "ID", when that export was the
    # roster), the SIS user id (when it is not ``id``), the SIS login id, the section.
    lms_user_id: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""

    @property
    def school_id(self) -> str:
        """The school's id (Canvas's "SIS User ID", Moodle's "ID number"): the roster's SIS
        user id, else the id, unless the id is Canvas's own user id ("": unknown).

        >>> Student("ada42").school_id, Student("12345", lms_user_id="12345").school_id
        ('ada42', '')
        """
        if self.sis_user_id:
            return self.sis_user_id
        return "" if self.id == self.lms_user_id else self.id


@dataclass(frozen=True)
class Identity:
    """Who a token signs in: the instructor, a grader (an LMS's TA: the grading pages, not
    the course's settings) or one student (``student``).

    >>> ta = Identity(GRADER, name="Barbara (TA, LMS user u-7)")
    >>> ta.is_grader, ta.is_instructor, ta.who
    (True, False, 'Barbara (TA, LMS user u-7)')
    """

    role: str                 # "student", "grader" or "instructor"
    student: str | None = None
    name: str = ""            # a grader's: who the records say made a change

    @property
    def is_instructor(self) -> bool:
        return self.role == INSTRUCTOR

    @property
    def is_grader(self) -> bool:
        """The grading pages are theirs: the instructor's, or a grader's."""
        return self.role in (INSTRUCTOR, GRADER)

    @property
    def who(self) -> str:
        """What the change log says of a change they make."""
        return self.name or (self.student or self.role)


@dataclass(frozen=True)
class Link:
    """One row of ``--links``: a person and their sign-in link."""

    student_id: str
    name: str
    email: str
    link: str


@dataclass(frozen=True)
class Submission:
    """One submission, a row of the database without its bytes: the one submission type of
    the pages, the queue and the JSON API (the class page's
    :class:`~grader.service.course.class_queries.ClassSubmission` holds one, with what it reads of
    its result).

    ``student`` is the student's id; ``late`` is as it was judged when received; ``config``
    the queue's label of what it was graded under. The class query leaves out the columns
    stored after the results (``results_json``, ``report_text``, ``seconds``: None there).

    >>> Submission(7, "ada42", "2026-01-05T10:00:00.000000Z", status="done").in_flight
    False
    """

    id: int
    student: str
    received_at: str
    filename: str = "mm_player.py"
    size: int = 0
    sha256: str = ""
    status: str = "queued"
    attempts: int = 0
    worker: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    score: float | None = None
    max_score: float | None = None
    results_json: str | None = field(default=None, repr=False)
    report_text: str | None = field(default=None, repr=False)
    error: str | None = None
    seconds: float | None = None
    late: bool = False
    config: str = "default"
    assignment: str = "minimax"   # the course's assignment it was handed in for
    ordinal: int = 0          # 1 for the student's first hand-in of it, 2 for their second...

    @property
    def short_hash(self) -> str:
        return self.sha256[:12]

    @property
    def in_flight(self) -> bool:
        return self.status in ("queued", "running")


def _row(values: sqlite3.Row) -> Submission:
    data = dict(values)
    data["late"] = bool(data["late"])
    return Submission(**data)


_STUDENT_COLUMNS = "id, name, email, revoked, " + ", ".join(ROSTER_FIELDS)


def _student(values: sqlite3.Row) -> Student:
    data = dict(values)
    data["revoked"] = bool(data["revoked"])
    return Student(**data)
