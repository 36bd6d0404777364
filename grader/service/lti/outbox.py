"""The grade outbox: a grade that changed is a row first, a call to the LMS after.

"Write the intent first, do the network call after, mark it done": :func:`grade_changed`
writes one ``pending`` row per line item the student has (the score, over the maximum, with
the time it changed as the score's timestamp): a line item takes the grade of its resource
link's assignment only (:mod:`grader.service.lti.resource_links`); the :class:`Sender`
thread posts the due rows and marks them ``sent``. A platform that is down or refuses: the
row is tried again after 30 s, then every 45 s (so a grade reaches the LMS within a minute of
its return; the platform itself is asked at most once in that time), and after
``MAX_ATTEMPTS`` (about seven hours) it is ``failed`` until the instructor resends it. A crash between the call
and the mark repeats the call with the same payload and timestamp, which the LMS takes as the
same score; a newer grade supersedes the rows still waiting, so an old grade is never sent
after a new one.

    grade_changed(store, "alice")     # after a result, an adjustment, a deadline change
    grade_changed(store, "alice", assignment="montecarlo")   # ...of that assignment only
    sender = Sender(tool); sender.start(); ...; sender.stop()
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from grader.service.course import course_assignments
from grader.service.course.storage import Store
from grader.service.course.times import format_time, now, utc_now
from grader.service.lti import ags, binding
from grader.service.lti.errors import PlatformError
from grader.service.lti.platforms import platform_by_id

log = logging.getLogger("grader.service.lti")

BASE_DELAY = 30.0             # seconds before the first retry; doubled each time
MAX_DELAY = 45.0              # ...up to this: a grade is sent within a minute of the LMS's return
MAX_ATTEMPTS = 560            # about seven hours of trying, then "failed"
POLL_SECONDS = 2.0            # an idle sender looks for due rows this often (or when woken)
BATCH = 50

# The course a running sender serves, by database file: a hook called from the queue (which
# knows only the store) computes the grade under the served course's deadlines and wakes it.
_serving: dict[str, "Sender"] = {}
_serving_lock = threading.Lock()


@dataclass(frozen=True)
class OutboxRow:
    """One grade on its way to the LMS, as the instructor's page lists it."""

    id: int
    student: str
    lineitem: str
    platform: str
    score_given: float
    score_maximum: float
    status: str
    attempts: int
    next_try_at: str
    last_error: str | None
    created_at: str
    sent_at: str | None
    assignment: str = ""          # its line item's (its resource link's) assignment


def _targets(store: Store, student: str, assignment: str) -> list[Any]:
    """The line items the student's grade of ``assignment`` goes to, with their LMS user id
    there: those of its resource links in the LMS course the course is bound to (a course
    re-bound to another LMS course sends nothing more to the old one; a course from before
    bindings existed, not bound yet, keeps sending to every LMS course it knows until its
    instructor's next launch binds it)."""
    query = ("SELECT DISTINCT l.id AS lineitem, m.sub AS sub FROM lti_members m "
             "JOIN lti_contexts c ON c.id = m.context JOIN lti_lineitems l ON l.context = c.id "
             "WHERE m.student = ? AND l.assignment = ? AND instr(c.ags_scopes, ?) > 0")
    parameters: tuple[Any, ...] = (student, assignment, ags.SCORE_SCOPE)
    bound = binding.current(store)
    if bound is not None:
        query += " AND c.platform = ? AND c.deployment_id = ? AND c.context_id = ?"
        parameters += (bound.platform, bound.deployment_id, bound.context_id)
    return store.database.query(query + " ORDER BY l.id", parameters)


def _same(payload: dict[str, Any], stored: str) -> bool:
    """The same score as the stored payload (its timestamp aside)."""
    old = json.loads(stored)
    ignored = ("timestamp", ags.CANVAS_SUBMISSION)     # when, and whether it is a new attempt
    return {k: v for k, v in old.items() if k not in ignored} == \
        {k: v for k, v in payload.items() if k not in ignored}


def _course(store: Store, assignment: str) -> ags.Course:
    """The assignment's dates and policy as the course's records say now (the page changes
    them while it serves), with the serving sender's base URL when one serves it."""
    with _serving_lock:
        sender = _serving.get(str(store.path))
    base_url = sender.course.base_url if sender is not None and sender.course is not None \
        else None
    return ags.Course.remembered(store, base_url, assignment)


def grade_changed(store: Store, student: str, course: ags.Course | None = None,
                  assignment: str | None = None) -> int:
    """The student's grade of ``assignment`` (None: of each of the course's assignments)
    may have changed: a pending row for each line item of that assignment whose score
    differs from the last one sent or waiting. ``course``: the dates to grade under (None:
    each assignment's as the records say). How many rows were written. Never raises (a
    grade to the LMS is not worth failing a grading run for)."""
    try:
        names = [assignment] if assignment is not None else \
            course_assignments.names(store)
    except Exception:
        log.exception("cannot read the course's assignments for %s's grade", student)
        return 0
    written = sum(_assignment_grade_changed(store, student, name, course) for name in names)
    if written:
        wake(store)
    return written


def _assignment_grade_changed(store: Store, student: str, assignment: str,
                              course: ags.Course | None) -> int:
    """:func:`grade_changed` for one assignment, without waking the sender."""
    try:
        targets = _targets(store, student, assignment)
        if not targets:
            return 0
        grade = ags.grade_of(store, student, course or _course(store, assignment), assignment)
        if grade is None:
            return 0
        written = 0
        moment = utc_now()
        with store.database.transaction() as db:
            for target in targets:
                sent = db.execute("SELECT 1 FROM lti_outbox WHERE student = ? AND lineitem = ? "
                                  "AND submission = ? AND status = 'sent' LIMIT 1",
                                  (student, target["lineitem"], grade.submission)).fetchone()
                payload = ags.score_payload(grade, target["sub"], moment,
                                            new_submission=sent is None)
                last = db.execute("SELECT payload, status FROM lti_outbox WHERE student = ? "
                                  "AND lineitem = ? AND status IN ('pending', 'sent') "
                                  "ORDER BY id DESC LIMIT 1",
                                  (student, target["lineitem"])).fetchone()
                if last is not None and _same(payload, last["payload"]):
                    continue
                db.execute("UPDATE lti_outbox SET status = 'superseded' WHERE student = ? AND "
                           "lineitem = ? AND status IN ('pending', 'failed')",
                           (student, target["lineitem"]))
                db.execute("INSERT INTO lti_outbox (student, lineitem, submission, score_given, "
                           "score_maximum, payload, next_try_at, created_at) VALUES "
                           "(?, ?, ?, ?, ?, ?, ?, ?)",
                           (student, target["lineitem"], grade.submission, grade.score,
                            grade.maximum, json.dumps(payload), moment, moment))
                written += 1
        return written
    except Exception:
        log.exception("cannot queue %s's grade of %s for the LMS", student, assignment)
        return 0


def submission_changed(store: Store, submission: int) -> int:
    """The grade of the student who handed in ``submission`` may have changed (its
    adjustment was set or removed): :func:`grade_changed` for them. Never raises."""
    try:
        row = store.submission(submission)
    except Exception:
        log.exception("cannot read submission %s for the LMS", submission)
        return 0
    return 0 if row is None else grade_changed(store, row.student,
                                               assignment=row.assignment)


def grades_changed(store: Store, course: ags.Course | None = None,
                   assignment: str | None = None) -> int:
    """Every LMS-linked student's grade of ``assignment`` (None: of each assignment) may
    have changed (its deadline or late policy changed, or the grade choice): how many rows
    were written."""
    students = [row["student"] for row in store.database.query(
        "SELECT DISTINCT student FROM lti_members WHERE student IS NOT NULL ORDER BY student")]
    return sum(grade_changed(store, student, course, assignment) for student in students)


def wake(store: Store, now: bool = False) -> None:
    """Tell the sender serving ``store`` (if any) that rows are due (``now``: even to a
    platform it lets rest after a failure: the instructor said resend)."""
    with _serving_lock:
        sender = _serving.get(str(store.path))
    if sender is not None:
        sender.wake(now)


def rows(store: Store, statuses: tuple[str, ...] = ("pending", "failed"),
         limit: int = 200) -> list[OutboxRow]:
    """The outbox's rows with these statuses, newest first."""
    marks = ", ".join("?" for _ in statuses)
    return [OutboxRow(int(r["id"]), r["student"], r["url"], r["issuer"], r["score_given"],
                      r["score_maximum"], r["status"], int(r["attempts"]), r["next_try_at"],
                      r["last_error"], r["created_at"], r["sent_at"], r["assignment"])
            for r in store.database.query(
                "SELECT o.*, l.url, l.assignment, p.issuer FROM lti_outbox o JOIN lti_lineitems "
                "l ON l.id = o.lineitem JOIN lti_contexts c ON c.id = l.context JOIN lti_platforms "
                f"p ON p.id = c.platform WHERE o.status IN ({marks}) ORDER BY o.id DESC "
                "LIMIT ?", (*statuses, limit))]


def counts(store: Store) -> dict[str, int]:
    """How many rows have each status."""
    found = {r["status"]: int(r["n"]) for r in store.database.query(
        "SELECT status, COUNT(*) AS n FROM lti_outbox GROUP BY status")}
    return {status: found.get(status, 0) for status in ("pending", "failed", "sent",
                                                        "superseded")}


def resend(store: Store, row: int | None = None) -> int:
    """Try a failed (or waiting) row again now (``row`` None: every failed one): how many."""
    where, parameters = ("id = ? AND status IN ('failed', 'pending')", (row,)) \
        if row is not None else ("status = 'failed'", ())
    with store.database.transaction() as db:
        changed = db.execute(f"UPDATE lti_outbox SET status = 'pending', attempts = 0, "
                             f"next_try_at = ?, last_error = NULL WHERE {where}",
                             (utc_now(), *parameters)).rowcount
    if changed:
        wake(store, now=True)
    return changed


def delay(attempts: int, base: float = BASE_DELAY, most: float = MAX_DELAY) -> float:
    """Seconds before the next try after ``attempts`` failed ones.

    >>> [delay(n) for n in (1, 2, 3)], delay(20)
    ([30.0, 45.0, 45.0], 45.0)
    """
    return min(most, base * 2 ** max(0, attempts - 1))


class Sender:
    """The thread that posts due rows of the outbox to the platforms."""

    def __init__(self, tool: Any, course: ags.Course | None = None, *,
                 base_delay: float = BASE_DELAY, max_attempts: int = MAX_ATTEMPTS,
                 poll: float = POLL_SECONDS) -> None:
        self.tool = tool
        self.store: Store = tool.store
        self.course = course
        self.base_delay = base_delay
        self.max_attempts = max_attempts
        self.poll = poll
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._resting: dict[int, float] = {}     # platform -> monotonic time it may be asked

    def start(self) -> None:
        """Serve the course: rows left by a stopped server are sent first, at once (their
        backoff was the stopped server's: the LMS may well be back by now; their count of
        tries is kept)."""
        with self.store.database.transaction() as db:
            db.execute("UPDATE lti_outbox SET next_try_at = ? WHERE status = 'pending'",
                       (utc_now(),))
        with _serving_lock:
            _serving[str(self.store.path)] = self
        self._thread = threading.Thread(target=self._loop, name="lti-sender", daemon=True)
        self._thread.start()

    def stop(self, wait: float = 15.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(wait)
        with _serving_lock:
            if _serving.get(str(self.store.path)) is self:
                del _serving[str(self.store.path)]

    def wake(self, now: bool = False) -> None:
        if now:
            self._resting.clear()
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.send_due()
            except Exception:                  # our bug: log it, keep the thread alive
                log.exception("the LTI grade sender failed; it tries again")
            self._wake.wait(self.poll)
            self._wake.clear()

    def send_due(self) -> int:
        """Post every due row once (a resting platform's rows wait): how many were sent."""
        due = self.store.database.query(
            "SELECT o.id, o.student, o.lineitem, o.submission, o.payload, o.attempts, l.url, "
            "c.platform FROM lti_outbox o "
            "JOIN lti_lineitems l ON l.id = o.lineitem JOIN lti_contexts c ON c.id = l.context "
            "WHERE o.status = 'pending' AND o.next_try_at <= ? ORDER BY o.id LIMIT ?",
            (utc_now(), BATCH))
        sent = 0
        for row in due:
            if self._stop.is_set():
                break
            number = int(row["platform"])
            if self._resting.get(number, 0.0) > time.monotonic():
                continue
            still = self.store.database.one("SELECT status FROM lti_outbox WHERE id = ?",
                                            (row["id"],))
            if still is None or still["status"] != "pending":
                continue          # superseded by a newer grade since it was read: not sent
            platform = platform_by_id(self.store, number)
            assert platform is not None
            try:
                ags.send_score(self.tool, platform, row["url"], self._as_sent_now(row))
            except PlatformError as problem:
                final = not getattr(problem, "retry", True)     # 422: never, so failed now
                wait = self._failed(int(row["id"]), int(row["attempts"]) + 1, str(problem),
                                    final)
                self._resting[number] = time.monotonic() + wait
                continue
            with self.store.database.transaction() as db:
                # Delivered is sent, even if a newer grade superseded it in flight: the
                # newer one is then the same attempt, not a new one (_as_sent_now).
                db.execute("UPDATE lti_outbox SET status = 'sent', sent_at = ?, attempts = "
                           "attempts + 1, last_error = NULL WHERE id = ? AND status IN "
                           "('pending', 'superseded')", (utc_now(), row["id"]))
            self._resting.pop(number, None)
            sent += 1
        return sent

    def _as_sent_now(self, row: Any) -> dict[str, Any]:
        """The row's score as it is sent now: a new attempt only if no score of the same
        hand-in reached the line item before. Decided here, not when the row was queued: a
        grade queued while the previous one of its hand-in was on its way would otherwise be
        a second attempt, which a Canvas assignment of one attempt refuses (422)."""
        payload = json.loads(row["payload"])
        if ags.CANVAS_SUBMISSION in payload:
            earlier = self.store.database.one(
                "SELECT 1 FROM lti_outbox WHERE student = ? AND lineitem = ? AND submission = ? "
                "AND status = 'sent' AND id != ? LIMIT 1",
                (row["student"], row["lineitem"], row["submission"], row["id"]))
            payload[ags.CANVAS_SUBMISSION]["new_submission"] = earlier is None
        return payload

    def _failed(self, row: int, attempts: int, why: str, final: bool = False) -> float:
        wait = 0.0 if final else delay(attempts, self.base_delay)
        status = "failed" if final or attempts >= self.max_attempts else "pending"
        log.warning("grade %s to the LMS, attempt %s: %s (%s)", row, attempts, why,
                    "given up: the instructor can resend it" if status == "failed"
                    else f"next try in {wait:g} s")
        with self.store.database.transaction() as db:
            db.execute("UPDATE lti_outbox SET status = ?, attempts = ?, last_error = ?, "
                       "next_try_at = ? WHERE id = ? AND status = 'pending'",
                       (status, attempts, why[:500],
                        format_time(now() + timedelta(seconds=wait)), row))
        return wait
