"""Grades to the LMS (Assignment and Grade Services): the score a student's grade is now,
and the call that posts it to a line item.

A grade is of one assignment of the course: its choice (latest or best,
:mod:`grader.service.course.course_dates`) of the student's graded submissions of it, its
final score (the grader's, the late penalty, the adjustment, under the assignment's dates)
over the maximum. The score's ``timestamp`` is when the grade changed (the outbox row's
time), so sending the same row twice is the same score for the LMS, and an older grade can never
replace a newer one; ``submission.submittedAt`` is the hand-in's time.

    grade = grade_of(store, "alice", course, "montecarlo")   # None: nothing graded yet
    payload = score_payload(grade, "lms-user-7", "2026-12-08T10:00:00.000000Z")
    send_score(tool, platform, "https://lms/lineitems/3", payload)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from grader.service.course import class_queries, course_assignments, course_dates
from grader.service.course.class_queries import ClassSubmission
from grader.service.course.classbook import CHOICES, ClassStudent, CourseRecords, with_records
from grader.service.course.intake import Deadlines
from grader.service.course.records import LatePolicy
from grader.service.course.storage import Store, Student
from grader.service.lti.errors import PlatformError

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
# Canvas's extension of a score (canvas-lms app/controllers/lti/ims/scores_controller.rb):
# without it, or with new_submission true (its default), every score is a new submission,
# a new attempt (422 once the assignment's attempts are used up); false grades the attempt
# there is. Other platforms ignore the key (Moodle's scores.php reads the fields it knows).
CANVAS_SUBMISSION = "https://canvas.instructure.com/lti/submission"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
CHOICE_SETTING = course_dates.OLD_CHOICE   # read as the choice until it is next changed
MAX_COMMENT = 1000


@dataclass(frozen=True)
class Course:
    """What a grade is computed under: the course's deadlines, late policy, choice and the
    address its report links use."""

    deadlines: Deadlines = field(default_factory=Deadlines)
    policy: LatePolicy = field(default_factory=LatePolicy)
    base_url: str = ""

    @classmethod
    def remembered(cls, store: Store, base_url: str | None = None,
                   assignment: str | None = None) -> "Course":
        """The course as its records say now: its dates and late policy (which the page
        changes while it serves; ``assignment``'s own where it has them), and the base URL
        kept (or ``base_url``)."""
        dates = course_dates.read(store, assignment)
        return cls(dates.deadlines, dates.policy,
                   store.get_setting("base_url") or "" if base_url is None else base_url)


def grade_choice(store: Store, assignment: str | None = None) -> str:
    """The course's choice for the LMS's grade (``assignment``'s own where it has one):
    ``latest`` (the default) or ``best`` (its gradebook and students' pages follow it too)."""
    return course_dates.read(store, assignment).choice


@dataclass(frozen=True)
class Grade:
    """A student's grade as the LMS gets it."""

    submission: int
    ordinal: int
    score: float
    maximum: float
    submitted_at: str
    comment: str


def _comment(handed: ClassSubmission, choice: str, base_url: str) -> str:
    submission = handed.submission
    parts = [f"Hand-in {submission.ordinal} ({choice}): {handed.final_score or 0:g}/"
             f"{submission.max_score or 0:g}"]
    final = handed.final
    if final is not None and final.penalty_points:
        parts.append(f"late penalty -{final.penalty_points:g}")
    if final is not None and final.adjustment is not None:
        parts.append(f"adjustment {final.adjustment.points:+g}: {final.adjustment.note}")
    text = "; ".join(parts)
    if base_url:
        text += f". Report: {base_url.rstrip('/')}/submissions/{submission.id}"
    return text[:MAX_COMMENT]


def _handed_in(store: Store, student: str, assignment: str) -> list[ClassSubmission]:
    """The student's submissions of ``assignment``, oldest first, numbered as their page
    numbers them (1 for their first hand-in of it)."""
    theirs = {int(row["id"]) for row in store.database.query(
        "SELECT id FROM submissions WHERE student = ? AND assignment = ?",
        (student, assignment))}
    found = [one for one in class_queries.class_submissions(store, student)
             if one.submission.id in theirs]
    return [replace(one, submission=replace(one.submission, ordinal=number))
            for number, one in enumerate(found, start=1)]


def grade_of(store: Store, student: str, course: Course,
             assignment: str | None = None) -> Grade | None:
    """The student's grade of ``assignment`` (the course's first when None) now, under
    ``course``'s dates, or None when nothing of theirs is graded."""
    assignment = assignment or course_assignments.first(store).name
    records = CourseRecords.load(store, course.deadlines, course.policy, assignment)
    handed = tuple(with_records(row, records)
                   for row in _handed_in(store, student, assignment))
    choice = grade_choice(store, assignment)
    chosen = ClassStudent(Student(student), handed).chosen(choice)
    if chosen is None or chosen.submission.max_score is None:
        return None
    submission = chosen.submission
    score = max(0.0, float(chosen.final_score or 0.0))
    return Grade(submission.id, submission.ordinal, score, float(submission.max_score),
                 submission.received_at, _comment(chosen, choice, course.base_url))


def score_payload(grade: Grade, user_id: str, timestamp: str,
                  new_submission: bool = True) -> dict[str, Any]:
    """The AGS score body for ``grade`` of the LMS user ``user_id``; ``new_submission``:
    the hand-in was never sent to this line item before (for Canvas, a new attempt; a
    regrade, an adjustment or a changed penalty of the same hand-in updates its attempt).

    >>> grade = Grade(3, 1, 80.0, 100.0, "2026-01-05T10:00:00.000000Z", "Hand-in 1")
    >>> body = score_payload(grade, "u7", "2026-01-05T10:01:00.000000Z", new_submission=False)
    >>> body["scoreGiven"], body[CANVAS_SUBMISSION]["new_submission"]
    (80.0, False)
    """
    return {"userId": user_id, "scoreGiven": grade.score, "scoreMaximum": grade.maximum,
            "comment": grade.comment, "timestamp": timestamp,
            "activityProgress": "Completed", "gradingProgress": "FullyGraded",
            "submission": {"submittedAt": grade.submitted_at},
            CANVAS_SUBMISSION: {"new_submission": new_submission,
                                "submitted_at": grade.submitted_at}}


def scores_url(lineitem: str) -> str:
    """The scores endpoint of a line item (its path plus /scores, its query kept).

    >>> scores_url("https://lms.example/lineitems/3?type=a")
    'https://lms.example/lineitems/3/scores?type=a'
    """
    parts = urlsplit(lineitem)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


class ScoreRefused(PlatformError):
    """The platform answered that it will never take this score as it is (Canvas's 422: the
    assignment's attempts are used up, or the user is not a student there): trying again
    cannot help, so the outbox marks it failed at once, with the platform's words."""

    retry = False


def _reason(answer: Any) -> str:
    """The platform's own words for a refusal: Canvas's {"errors": {"message": ...}} or
    {"errors": [{"message": ...}]}, else the start of the body."""
    try:
        errors = answer.json().get("errors")
        found = errors if isinstance(errors, list) else [errors]
        words = "; ".join(str(one.get("message")) for one in found
                          if isinstance(one, dict) and one.get("message"))
    except (ValueError, AttributeError):
        words = ""
    return (words or answer.text)[:200]


def send_score(tool: Any, platform: Any, lineitem: str, payload: dict[str, Any]) -> None:
    """POST ``payload`` to the line item's scores; PlatformError when it is not taken
    (ScoreRefused when the platform said it never will: 422)."""
    answer = tool.tokens.call(platform, [SCORE_SCOPE], "the grade service", "POST",
                              scores_url(lineitem), json=payload,
                              headers={"content-type": SCORE_TYPE})
    if answer.status_code == 422:
        raise ScoreRefused(f"{platform.label} will not take this score (422: "
                           f"{_reason(answer)}). If the assignment limits attempts in the "
                           "LMS, raise the limit there, then resend", 422)
    if not 200 <= answer.status_code < 300:
        raise PlatformError(f"{platform.label} refused the score ({answer.status_code}: "
                            f"{_reason(answer)})", answer.status_code)
