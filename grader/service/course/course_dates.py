"""The course's dates and grading policy: its deadline, late deadline, late policy and which
hand-in counts ("latest" or "best"), kept as course settings that the running server reads
on every request (never frozen at its start), each change a row of the course's change log.

The command line sets them before a server starts (``serve --deadline ...``, recorded as
"command line"); while it serves, the instructor's "Course dates" page and ``PUT /api/course``
change them. Every grade that depends on them follows at once: the pages and exports compute
it from them as they are read, and the LMS's grades are queued again (``lti.grades_changed``).

    dates = read(store)                       # CourseDates(deadlines, policy, choice)
    wanted = parse_fields({"late_penalty": "10%/day", "choice": "best"}, zone)
    change(store, wanted, who="instructor")   # ["late_penalty", "choice"]: what changed
    history(store)                            # every change of them, oldest first

``choice`` was the LTI page's ``lti_grade_choice`` before it was the course's: a course that
set it there reads it as its choice until the choice is next changed, which moves it here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from grader.service.course import course_assignments, record_queries
from grader.service.course.classbook import CHOICES
from grader.service.course.deadline_csv import DeadlineError, time_field
from grader.service.course.intake import Deadlines
from grader.service.course.records import Change, LatePolicy, PolicyError
from grader.service.course.storage import Store
from grader.service.course.times import format_time, parse_time

DEADLINE, LATE_DEADLINE, LATE_PENALTY, CHOICE = ("deadline", "late_deadline", "late_penalty",
                                                 "choice")
FIELDS = (DEADLINE, LATE_DEADLINE, LATE_PENALTY, CHOICE)
OLD_CHOICE = "lti_grade_choice"      # where the LTI page kept the choice before
DEFAULT_CHOICE = "latest"
KIND = "setting"                     # their rows' kind in the change log (as serve's options)


class DatesError(ValueError):
    """Course dates that cannot be kept as given; the message says what to write."""


@dataclass(frozen=True)
class CourseDates:
    """What the course's grades are computed under now.

    >>> CourseDates().choice, CourseDates().policy.text
    ('latest', 'none')
    """

    deadlines: Deadlines = field(default_factory=Deadlines)
    policy: LatePolicy = field(default_factory=LatePolicy)
    choice: str = DEFAULT_CHOICE

    def json(self) -> dict[str, Any]:
        """As ``GET /api/course`` answers them (times in UTC, ISO 8601)."""
        deadline, late = self.deadlines.deadline, self.deadlines.late_deadline
        return {DEADLINE: format_time(deadline) if deadline else None,
                LATE_DEADLINE: format_time(late) if late else None,
                LATE_PENALTY: self.policy.text, "late_penalty_described": self.policy.describe(),
                CHOICE: self.choice}


def from_settings(saved: dict[str, str]) -> CourseDates:
    """The dates in the course's settings (as ``store.settings()`` gives them). A value that
    cannot be read (written by hand into the database) counts as none rather than stopping
    every page."""

    def moment(key: str) -> Any:
        try:
            return parse_time(saved[key]) if saved.get(key) else None
        except ValueError:
            return None

    try:
        policy = LatePolicy.parse(saved.get(LATE_PENALTY))
    except PolicyError:
        policy = LatePolicy()
    choice = saved.get(CHOICE) or saved.get(OLD_CHOICE) or DEFAULT_CHOICE
    return CourseDates(Deadlines(moment(DEADLINE), moment(LATE_DEADLINE)), policy,
                       choice if choice in CHOICES else DEFAULT_CHOICE)


def read(store: Store, assignment: str | None = None) -> CourseDates:
    """The course's dates and policy now (one small query: read on every request); with
    ``assignment``, that assignment's: its own where it has them, else the course's."""
    if assignment is None:
        return from_settings(store.settings())
    return from_settings(course_assignments.settings_of(store, assignment))


def _stored(dates: CourseDates) -> dict[str, str | None]:
    """The dates as the settings keep them (None: no such setting)."""
    deadline, late = dates.deadlines.deadline, dates.deadlines.late_deadline
    return {DEADLINE: format_time(deadline) if deadline else None,
            LATE_DEADLINE: format_time(late) if late else None,
            LATE_PENALTY: dates.policy.text, CHOICE: dates.choice}


def parse_fields(given: dict[str, Any], zone: tzinfo) -> dict[str, str | None]:
    """The changes asked for by a form or a JSON body, as the settings keep them: a time in
    ISO 8601 (no zone: ``zone``, the course's), "" or None for none; a late policy as
    ``--late-penalty`` takes it; a choice "latest" or "best". Only the fields given; a field
    that is not one of them is refused (a typo must not pass for a change).

    >>> from datetime import timezone
    >>> parse_fields({"deadline": "2026-12-08T23:59", "choice": "best"}, timezone.utc)
    {'deadline': '2026-12-08T23:59:00.000000Z', 'choice': 'best'}
    """
    unknown = sorted(str(key) for key in given if key not in FIELDS)
    if unknown:
        raise DatesError(f"unknown field {unknown[0][:40]!r}: the course's dates are "
                         + ", ".join(FIELDS))
    wanted: dict[str, str | None] = {}
    for key in (DEADLINE, LATE_DEADLINE):
        if key in given:
            try:
                wanted[key] = time_field(given[key], key.replace("_", " "), zone)
            except DeadlineError as problem:
                raise DatesError(str(problem)) from None
    if LATE_PENALTY in given:
        value = given[LATE_PENALTY]
        if value is not None and not isinstance(value, str):
            raise DatesError(f"late_penalty: {value!r} is not a policy: write none, or "
                             "such as 10%/day,max=50%")
        try:
            wanted[LATE_PENALTY] = LatePolicy.parse(value).text
        except PolicyError as problem:
            raise DatesError(str(problem)) from None
    if CHOICE in given:
        value = given[CHOICE]
        if value not in CHOICES:
            raise DatesError(f"choice: {str(value)[:20]!r} is not latest or best: which of a "
                             "student's graded hand-ins counts")
        wanted[CHOICE] = value
    return wanted


def change(store: Store, wanted: dict[str, str | None], *, who: str,
           assignment: str | None = None) -> list[str]:
    """Set the course's dates in ``wanted`` (as :func:`parse_fields` gives them), in one
    transaction with a change-log row for each that changed (the caller then tells the LMS:
    ``lti.grades_changed``, the course being below the LMS). With ``assignment``, they are that assignment's own (None: it takes the course's again).
    The fields that changed. DatesError (nothing changed) when the late deadline would come
    before the deadline."""
    if assignment is not None and course_assignments.find(store, assignment) is None:
        raise DatesError(f"this course has no assignment {assignment[:40]!r}")
    with store.database.transaction() as db:
        return change_in(db, wanted, who=who, assignment=assignment)


def change_in(db: Any, wanted: dict[str, str | None], *, who: str,
              assignment: str | None = None) -> list[str]:
    """:func:`change` within the caller's transaction ``db``, without the LMS (the caller
    tells it after its commit): the fields that changed. DatesError when
    the late deadline would come before the deadline (the caller's transaction is then
    rolled back with everything else it wrote)."""
    if assignment is not None:
        return _change_own_in(db, wanted, who, assignment)
    saved = {row["key"]: row["value"] for row in db.execute("SELECT * FROM settings")}
    before = _stored(from_settings(saved))
    after = {**before, **{key: wanted[key] for key in FIELDS if key in wanted}}
    _check_order(after)
    changed = [key for key in FIELDS if after[key] != before[key]]
    for key in changed:
        if after[key] is None:
            db.execute("DELETE FROM settings WHERE key = ?", (key,))
        else:
            db.execute("INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) DO UPDATE "
                       "SET value = excluded.value", (key, after[key]))
        record_queries.log_in(db, who, KIND, key,
                              None if before[key] is None else {key: before[key]},
                              None if after[key] is None else {key: after[key]})
    if CHOICE in changed:        # one setting from now on: the old one would shadow none
        db.execute("DELETE FROM settings WHERE key = ?", (OLD_CHOICE,))
    return changed


def _check_order(after: dict[str, str | None]) -> None:
    if after[LATE_DEADLINE] is not None and after[DEADLINE] is not None \
            and parse_time(after[LATE_DEADLINE]) < parse_time(after[DEADLINE]):
        raise DatesError("the late deadline is before the deadline: give a late deadline "
                         "after the deadline, or none")


def _seen(db: Any, assignment: str) -> dict[str, str]:
    """The settings ``assignment`` sees in ``db``: its own over the course's."""
    saved = {row["key"]: row["value"] for row in db.execute("SELECT * FROM settings")}
    saved.pop("config_file", None)
    own = {row["key"]: row["value"] for row in db.execute(
        "SELECT key, value FROM assignment_settings WHERE assignment = ?", (assignment,))}
    return {**saved, **own}


def _change_own_in(db: Any, wanted: dict[str, str | None], who: str,
                   assignment: str) -> list[str]:
    """``change_in`` for one assignment's own dates."""
    own_before = {row["key"]: row["value"] for row in db.execute(
        "SELECT key, value FROM assignment_settings WHERE assignment = ?", (assignment,))}
    before = _stored(from_settings(_seen(db, assignment)))
    for key in FIELDS:
        if key in wanted:
            course_assignments.set_own(db, assignment, key, wanted[key])
    after = _stored(from_settings(_seen(db, assignment)))
    _check_order(after)
    changed = [key for key in FIELDS if after[key] != before[key]
               or (key in wanted and wanted[key] != own_before.get(key))]
    for key in changed:
        record_queries.log_in(db, who, KIND, key,
                              {key: own_before.get(key), "assignment": assignment},
                              {key: wanted.get(key), "assignment": assignment})
    return changed


def history(store: Store, assignment: str | None = None) -> list[Change]:
    """Every change of the course's dates and policy (of ``assignment``'s own, when given),
    oldest first."""
    return [one for one in record_queries.changes(store, KIND) if one.subject in FIELDS
            and _about(one) == assignment]


def _about(change_row: Change) -> str | None:
    """The assignment a change of dates was about (None: the course's)."""
    for text in (change_row.after, change_row.before):
        if text:
            try:
                value = json.loads(text).get("assignment")
            except (ValueError, AttributeError):
                continue
            return value if isinstance(value, str) else None
    return None


def change_json(change_row: Change) -> dict[str, Any]:
    """A change as the API answers it (before and after: the value, or None)."""
    def value(text: str | None) -> Any:
        return None if text is None else json.loads(text).get(change_row.subject)

    return {"at": change_row.at, "who": change_row.who, "field": change_row.subject,
            "before": value(change_row.before), "after": value(change_row.after)}
