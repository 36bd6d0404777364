"""The course's records in the database: students' own deadlines, adjustments, and the log of
every change to them (who, when, before, after). Functions over a
:class:`~grader.service.course.storage.Store`, through its database's public methods; each change
and its log line are one transaction.

    set_deadline(store, "alice", "2026-12-08T23:59:00.000000Z", None, who="instructor")
    set_adjustment(store, 17, -5, "copied the winner check from the slides", who="instructor")
    changes(store, "adjustment", "17")       # every change of submission 17's adjustment
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from grader.service.course.intake import Deadlines
from grader.service.course.records import Adjustment, Change
from grader.service.course.storage import Store
from grader.service.course.times import parse_time, utc_now

MAX_NOTE = 2000          # characters of an adjustment's note


class RecordError(ValueError):
    """A record that cannot be kept as given; the message says what to change."""


def _log(db: sqlite3.Connection, who: str, kind: str, subject: str,
         before: dict[str, Any] | None, after: dict[str, Any] | None) -> None:
    db.execute("INSERT INTO changes (at, who, kind, subject, before, after) "
               "VALUES (?, ?, ?, ?, ?, ?)",
               (utc_now(), who, kind, subject,
                None if before is None else json.dumps(before, sort_keys=True),
                None if after is None else json.dumps(after, sort_keys=True)))


def log_in(db: sqlite3.Connection, who: str, kind: str, subject: str,
           before: dict[str, Any] | None, after: dict[str, Any] | None) -> None:
    """Keep one change within the caller's transaction ``db`` (the change and its row are
    written together, or neither)."""
    _log(db, who, kind, subject, before, after)


def log_change(store: Store, who: str, kind: str, subject: str,
               before: dict[str, Any] | None, after: dict[str, Any] | None) -> None:
    """Keep one change of a record that lives elsewhere (a course setting)."""
    with store.database.transaction() as db:
        _log(db, who, kind, subject, before, after)


def changes(store: Store, kind: str | None = None, subject: str | None = None) -> list[Change]:
    """The changes kept, oldest first (of one kind, or of one record)."""
    where, parameters = [], []
    for column, value in (("kind", kind), ("subject", subject)):
        if value is not None:
            where.append(f"{column} = ?")
            parameters.append(value)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    return [Change(row["at"], row["who"], row["kind"], row["subject"], row["before"],
                   row["after"])
            for row in store.database.query(f"SELECT * FROM changes{clause} ORDER BY id",
                                            parameters)]


# --- a student's own deadline ----------------------------------------------------------

def first_assignment(db: Any) -> str:
    """The course's first assignment's name (the one a record without one is about)."""
    sql = "SELECT name FROM assignments ORDER BY position, name LIMIT 1"
    row = db.one(sql) if hasattr(db, "one") else db.execute(sql).fetchone()   # Database or a
    return row["name"] if row is not None else "minimax"                    # transaction's


def _deadline_row(db: Any, student: str, assignment: str) -> dict[str, Any] | None:
    row = db.execute("SELECT deadline, late_deadline FROM student_deadlines WHERE student = ? "
                     "AND assignment = ?", (student, assignment)).fetchone()
    return None if row is None else {"deadline": row["deadline"],
                                     "late_deadline": row["late_deadline"],
                                     "assignment": assignment}


def set_deadline(store: Store, student: str, deadline: str, late_deadline: str | None, *,
                 who: str, assignment: str | None = None) -> None:
    """Give ``student`` their own deadline for ``assignment`` (the course's first when None;
    times as the database keeps them); it replaces the assignment's for them.
    ``late_deadline`` None: the assignment's late window, moved with ``deadline`` (see
    :func:`own_deadlines`). RecordError when the student or the assignment is unknown or the
    dates disagree."""
    if late_deadline is not None and parse_time(late_deadline) < parse_time(deadline):
        raise RecordError(f"{student}'s late deadline is before their deadline: give a late "
                          "deadline after the deadline, or none")
    with store.database.transaction() as db:
        if db.execute("SELECT 1 FROM students WHERE id = ?", (student,)).fetchone() is None:
            raise RecordError(f"there is no student {student!r} in the roster")
        assignment = _course_assignment(db, assignment)
        before = _deadline_row(db, student, assignment)
        db.execute("INSERT INTO student_deadlines (student, assignment, deadline, "
                   "late_deadline, set_by, set_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT "
                   "(student, assignment) DO UPDATE SET deadline = excluded.deadline, "
                   "late_deadline = excluded.late_deadline, set_by = excluded.set_by, "
                   "set_at = excluded.set_at",
                   (student, assignment, deadline, late_deadline, who, utc_now()))
        _log(db, who, "deadline", student, before,
             {"deadline": deadline, "late_deadline": late_deadline, "assignment": assignment})


def _course_assignment(db: Any, assignment: str | None) -> str:
    """``assignment`` if the course has it (RecordError otherwise), the first when None."""
    if assignment is None or assignment == first_assignment(db):
        return first_assignment(db)     # the minimax, in a course that holds none yet
    if db.execute("SELECT 1 FROM assignments WHERE name = ?", (assignment,)).fetchone() is None:
        known = ", ".join(row["name"] for row in db.execute(
            "SELECT name FROM assignments ORDER BY position, name"))
        raise RecordError(f"this course has no assignment {assignment[:40]!r}; its "
                          f"assignments are: {known}")
    return assignment


def remove_deadline(store: Store, student: str, *, who: str,
                    assignment: str | None = None) -> bool:
    """The student goes back to the assignment's deadline. False when they had none of their
    own for it."""
    with store.database.transaction() as db:
        assignment = _course_assignment(db, assignment)
        before = _deadline_row(db, student, assignment)
        if before is None:
            return False
        db.execute("DELETE FROM student_deadlines WHERE student = ? AND assignment = ?",
                   (student, assignment))
        _log(db, who, "deadline", student, before, None)
    return True


def _own(row: Any, course: Deadlines) -> Deadlines:
    """A stored own deadline under the course's: an empty late deadline is kept empty in the
    database and means the course's late window, moved with the student's deadline
    (:meth:`~grader.service.course.intake.Deadlines.extension`), worked out as it is read so that
    it follows the course's dates."""
    return course.extension(parse_time(row["deadline"]),
                            parse_time(row["late_deadline"]) if row["late_deadline"] else None)


def own_deadlines(store: Store, course: Deadlines = Deadlines(),
                  assignment: str | None = None) -> dict[str, Deadlines]:
    """Every student's own deadline for ``assignment`` (the first when None) under its
    deadlines ``course``, by student id."""
    name = assignment or first_assignment(store.database)
    return {row["student"]: _own(row, course) for row in store.database.query(
        "SELECT * FROM student_deadlines WHERE assignment = ?", (name,))}


def deadlines_of(store: Store, student: str, course: Deadlines,
                 assignment: str | None = None) -> tuple[Deadlines, bool]:
    """The deadlines that hold for ``student`` in ``assignment`` (the first when None):
    their own (True) or the assignment's, ``course`` (False)."""
    name = assignment or first_assignment(store.database)
    row = store.database.one("SELECT deadline, late_deadline FROM student_deadlines "
                             "WHERE student = ? AND assignment = ?", (student, name))
    if row is None:
        return course, False
    return _own(row, course), True


# --- an instructor's adjustment ----------------------------------------------------------

def _adjustment_row(db: Any, submission: int) -> dict[str, Any] | None:
    row = db.execute("SELECT points, note FROM adjustments WHERE submission = ?",
                     (submission,)).fetchone()
    return None if row is None else {"points": row["points"], "note": row["note"]}


def set_adjustment(store: Store, submission: int, points: float, note: str, *,
                   who: str) -> Adjustment:
    """Add ``points`` (negative: take) to a submission's score, with a note the student
    reads. It replaces the submission's earlier adjustment; both stay in the log."""
    note = note.strip()
    if not note:
        raise RecordError("an adjustment needs a note: say why, the student reads it")
    if len(note) > MAX_NOTE:
        raise RecordError(f"the note is {len(note)} characters: keep it under {MAX_NOTE}")
    if points != points or abs(points) > 1e6:          # NaN, or not a score
        raise RecordError(f"{points!r} is not a number of points")
    at = utc_now()
    with store.database.transaction() as db:
        if db.execute("SELECT 1 FROM submissions WHERE id = ?",
                      (submission,)).fetchone() is None:
            raise RecordError(f"there is no submission {submission}")
        before = _adjustment_row(db, submission)
        db.execute("INSERT INTO adjustments (submission, points, note, set_by, set_at) "
                   "VALUES (?, ?, ?, ?, ?) ON CONFLICT (submission) DO UPDATE SET "
                   "points = excluded.points, note = excluded.note, set_by = excluded.set_by, "
                   "set_at = excluded.set_at", (submission, points, note, who, at))
        _log(db, who, "adjustment", str(submission), before, {"points": points, "note": note})
    return Adjustment(submission, float(points), note, who, at)


def remove_adjustment(store: Store, submission: int, *, who: str) -> bool:
    """The submission's score is the grader's again. False when it had no adjustment."""
    with store.database.transaction() as db:
        before = _adjustment_row(db, submission)
        if before is None:
            return False
        db.execute("DELETE FROM adjustments WHERE submission = ?", (submission,))
        _log(db, who, "adjustment", str(submission), before, None)
    return True


def adjustments(store: Store, submissions: list[int] | None = None) -> dict[int, Adjustment]:
    """The adjustments in force, by submission (of ``submissions`` only, when given)."""
    rows = store.database.query("SELECT * FROM adjustments")
    wanted = None if submissions is None else set(submissions)
    return {int(row["submission"]): Adjustment(int(row["submission"]), float(row["points"]),
                                               row["note"], row["set_by"], row["set_at"])
            for row in rows if wanted is None or int(row["submission"]) in wanted}
