"""The instructor's pages of ``grader serve``: the class, a student, a submission, the queue,
retries and regrading everyone; and what the other instructor pages share (who asks, which
assignment, its class with its records, what it is graded under). The roster and the links
(``roster_routes``), the gradebook and the summary (``gradebook_routes``), the configuration
(``config_routes``) and similarity (``similarity_routes``) are pages of their own.

Every route needs the instructor's sign-in (the session of the instructor's link, or the
instructor's token as ``Authorization: Bearer``); a student gets 403, a stranger 401, and
neither learns anything. Every form carries the session's CSRF token; every page is a
Jinja2 template with autoescaping (``batch``'s summary page escapes what it shows itself).

    /instructor?assignment=NAME      the class: one row per student, for one assignment
                                     (the course's first by default)
    /instructor/students/ID          a student: each assignment's submissions and own
                                     deadline, reports, files, their link
    /instructor/submissions/N        a submission's page (its report in full), /file, /retry
    /instructor/queue                waiting, running, on which worker
    POST /instructor/regrade         every counted hand-in graded again
    /api/class?assignment=NAME       the class as JSON, for one assignment
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.classroom.state import graded_under
from grader.service.course import (auth, class_queries, classbook, course_assignments,
                                   course_dates, record_queries, storage)
from grader.service.pages import presentation
from grader.service.pages.pages import path_for, render
from grader.service.pages.student_routes import file_response, render_submission
from grader.suite.config import ConfigError, grader_version
from grader.service.course.course_config import CONFIG_SETTING
from grader.service.course.times import format_time

log = logging.getLogger("grader.service")

MAX_UPLOAD = 1024 * 1024         # a roster or a configuration file
# The notes a redirect may ask the class page to show (never text from the URL itself).
NOTES = {"regraded": "{n} submissions queued to be graded again under the current "
                     "configuration: each student's newest and their best (each keeps its "
                     "earlier result).",
         "deadline-set": "Their own deadline is set: their hand-ins are on time, late or "
                         "refused by it.",
         "deadline-removed": "Their own deadline is removed: the course's holds for them.",
         "renewed": "A new link was made; the old one no longer signs in.",
         "revoked": "The link was revoked: it now gets the refusal page.",
         "retried": "Queued to be graded again."}


# --- helpers -----------------------------------------------------------------------------

def _state(request: Request) -> Any:
    return request.app.state


def _store(request: Request) -> storage.Store:
    return request.app.state.store


def base_url_of(request: Request) -> str:
    return (_state(request).settings.base_url or str(request.base_url)).rstrip("/")


def _note(request: Request) -> str:
    text = NOTES.get(request.query_params.get("did", ""), "")
    count = request.query_params.get("n", "")
    return text.format(n=int(count) if count.isdigit() else "Some")


def choice_asked(request: Request, assignment: str | None = None) -> str:
    """The ``?choice=`` asked for, else the assignment's (which hand-in counts: Course
    dates, or the assignment's own)."""
    choice = (request.query_params.get("choice")
              or course_dates.read(_store(request), assignment).choice)
    if choice not in classbook.CHOICES:
        raise HTTPException(400, f"choice must be latest or best, not {choice[:20]!r}")
    return choice


def assignment_asked(request: Request) -> course_assignments.CourseAssignment:
    """The course's assignment ``?assignment=NAME`` names (its first when none); 404
    naming the course's assignments when it has none of that name."""
    try:
        return course_assignments.chosen(_store(request),
                                         request.query_params.get("assignment") or None)
    except course_assignments.AssignmentRefused as problem:
        raise HTTPException(404, str(problem)[:300]) from None


def _student_or_404(request: Request) -> storage.Student:
    student = _store(request).student(request.path_params["student_id"])
    if student is None:
        raise HTTPException(404, "there is no such student in the roster")
    return student


def _to_student(request: Request, student_id: str, did: str) -> Response:
    """Back to the student's page, with the note ``did`` (a key of NOTES)."""
    return RedirectResponse(f"{path_for(request, 'instructor_student', student_id=student_id)}"
                            f"?did={did}", status_code=303)


def _submission_or_404(request: Request) -> storage.Submission:
    row = _store(request).submission(request.path_params["number"])
    if row is None:
        raise HTTPException(404, f"there is no submission {request.path_params['number']}")
    return row


async def upload_form(request: Request) -> Any:
    form = await request.form(max_files=2, max_fields=10, max_part_size=MAX_UPLOAD)
    auth.require_csrf(request, form)
    return form


def _wake(request: Request, times: int) -> None:
    queue = _state(request).queue
    for _ in range(max(1, min(times, queue.jobs))):
        queue.wake()


# --- the configuration -------------------------------------------------------------------

def current_grading(request: Request) -> Any:
    """The grading options new gradings use (the queue's)."""
    return _state(request).queue.options.grading


def forgotten_config(request: Request) -> str:
    """The configuration last chosen on the configuration page when the server does not
    use it (it was started again with another ``--config``, or none), else ""."""
    chosen = _store(request).get_setting(CONFIG_SETTING)
    used = current_grading(request).config
    if not chosen or (used is not None and Path(used).resolve() == Path(chosen).resolve()):
        return ""
    return chosen


def grading_of(request: Request, assignment: str) -> Any:
    """The grading options new gradings of ``assignment`` use (its configuration)."""
    return _state(request).queue.grading_for(assignment)


def class_students(request: Request,
                   assignment: str | None = None) -> list[classbook.ClassStudent]:
    """Every student with their submissions of ``assignment`` (the course's first when
    None), late and final scores by its records (its dates, own deadlines, late policy)."""
    store = _store(request)
    name = assignment or course_assignments.first(store).name
    dates = course_dates.read(store, name)
    records = classbook.CourseRecords.load(store, dates.deadlines, dates.policy, name)
    return classbook.class_students(store, records, name)


def rubric_of(request: Request, assignment: str) -> dict[str, float]:
    """``assignment``'s rubric as the course grades it (item -> points); empty when its
    configuration cannot be read now (the configuration page says why)."""
    try:
        return _state(request).queue.weights_for(assignment)
    except ConfigError:
        return {}


def current_fingerprint(grading: Any) -> str:
    """The fingerprint a result graded now records (as ``batch`` computes it). The grader's
    version is a hash of its source, read again: an upgrade while serving shows."""
    grader_version.cache_clear()
    try:
        return graded_under(grading).fingerprint
    except ConfigError:
        return ""


def use_config(queue: Any, path: Path) -> None:
    """Grade from now on under the configuration file at ``path``."""
    grading = dataclasses.replace(queue.options.grading, config=Path(path).resolve())
    queue.reconfigure(grading)


# --- the class -----------------------------------------------------------------------------

async def class_page(request: Request) -> Response:
    """``/instructor?assignment=NAME``: one row per student for that assignment (the
    course's first by default), and what their results were graded under."""
    auth.require_grader(request)
    store = _store(request)
    assignment = assignment_asked(request)
    students = await run_in_threadpool(class_students, request, assignment.name)
    grading = grading_of(request, assignment.name)
    current = await run_in_threadpool(current_fingerprint, grading)
    used = classbook.configurations(students, current)
    return render(request, "instructor_class.html", {
        "students": students, "counts": store.counts(), "configurations": used,
        "settings": _state(request).settings,
        "dates": course_dates.read(store, assignment.name),
        "assignment": assignment, "assignments": course_assignments.listing(store),
        "rubric": await run_in_threadpool(rubric_of, request, assignment.name),
        "mixed": len(used) > 1, "current": current,
        "config_name": grading.config.name if grading.config else "default",
        "stale": sum(configuration.count for configuration in used
                     if configuration.fingerprint != current),
        "forgotten": forgotten_config(request), "note": _note(request)})


async def class_json(request: Request) -> Response:
    """``GET /api/class?assignment=NAME``: every student with their counts, latest and
    best result of that assignment (the course's first by default); each result in the four
    words of every submission's JSON (``score`` the grader's, ``penalty``, ``adjustment``,
    ``final_score``) and its ``assignment``."""
    auth.require_grader(request)
    store = _store(request)
    assignment = assignment_asked(request)
    students = await run_in_threadpool(class_students, request, assignment.name)
    current = await run_in_threadpool(current_fingerprint,
                                      grading_of(request, assignment.name))

    def brief(handed: class_queries.ClassSubmission | None) -> dict[str, Any] | None:
        if handed is None:
            return None
        row = handed.submission
        return {"id": row.id, "number": row.ordinal, "status": row.status,
                **presentation.scores_json(row.score, handed.final, row.assignment),
                "max_score": row.max_score, "late": handed.late,
                "received_at": row.received_at, "config": handed.graded_fingerprint}

    def own(entry: classbook.ClassStudent) -> dict[str, Any] | None:
        deadlines = entry.own_deadline
        if deadlines is None:
            return None
        return {"deadline": format_time(deadlines.deadline) if deadlines.deadline else None,
                "late_deadline": format_time(deadlines.late_deadline)
                if deadlines.late_deadline else None}

    used = classbook.configurations(students, current)
    dates = course_dates.read(store, assignment.name)
    return JSONResponse({
        "assignment": assignment.name, "title": assignment.title,
        "assignments": [one.json() for one in course_assignments.listing(store)],
        "dates": dates.json(),
        "rubric": await run_in_threadpool(rubric_of, request, assignment.name),
        "students": [{"student_id": entry.student.id, "name": entry.student.name,
                      "email": entry.student.email, "revoked": entry.student.revoked,
                      "submissions": len(entry.submissions), "late": entry.late_count,
                      "status": entry.status, "latest": brief(entry.latest),
                      "latest_graded": brief(entry.chosen("latest")),
                      "best": brief(entry.chosen("best", current)),
                      "own_deadline": own(entry), "test_student": entry.test_student}
                     for entry in students],
        "configuration": {"current": current, "mixed": len(used) > 1,
                          "used": [dataclasses.asdict(one) for one in used]}},
        headers={"cache-control": "no-store"})


async def student_page(request: Request, problem: str | None = None,
                       status_code: int = 200) -> Response:
    """``/instructor/students/ID``: for each assignment of the course, their submissions
    (reports, files) and own deadline; their link (``problem``: why the last change was
    refused)."""
    auth.require_grader(request)
    person = _student_or_404(request)
    store = _store(request)
    settings = _state(request).settings
    parts = [await run_in_threadpool(_student_part, request, person.id, one)
             for one in course_assignments.listing(store)]
    link = "" if person.revoked else base_url_of(request) + path_for(
        request, "sign_in", token=store.student_token(person.id))
    return render(request, "instructor_student.html", {
        "person": person, "parts": parts, "link": link, "zone_name": settings.zone_name,
        "local_input": lambda moment: _local_input(moment, settings.zone),
        "problem": problem, "note": _note(request)}, status_code=status_code)


@dataclasses.dataclass(frozen=True)
class StudentPart:
    """One assignment on a student's page: their hand-ins of it (newest first, with its
    records), their own deadline of it (None: its deadline holds), its deadlines, the
    fingerprint its new gradings record, and the changes of their own deadline of it."""

    assignment: course_assignments.CourseAssignment
    submissions: list[class_queries.ClassSubmission]
    own: Any
    course: Any
    current: str
    deadline_changes: list[Any]


def _student_part(request: Request, student: str,
                  assignment: course_assignments.CourseAssignment) -> StudentPart:
    store = _store(request)
    dates = course_dates.read(store, assignment.name)
    records = classbook.CourseRecords.load(store, dates.deadlines, dates.policy,
                                           assignment.name)
    rows = class_queries.class_submissions(store, student, assignment.name)
    first = course_assignments.first(store).name
    changes = [change for change in record_queries.changes(store, "deadline", student)
               if _change_assignment(change, first) == assignment.name]
    return StudentPart(assignment,
                       [classbook.with_records(handed, records) for handed in reversed(rows)],
                       records.own.get(student), dates.deadlines,
                       current_fingerprint(grading_of(request, assignment.name)), changes)


def _change_assignment(change: Any, first: str) -> str:
    """The assignment a change of an own deadline was of (its record names it; one kept
    before a course held assignments was of its first)."""
    for text in (change.after, change.before):
        try:
            kept = json.loads(text) if text else None
        except ValueError:
            kept = None
        if isinstance(kept, dict) and kept.get("assignment"):
            return str(kept["assignment"])
    return first


def _local_input(moment: Any, zone: Any) -> str:
    """A time as an <input type="datetime-local"> shows it, in the course's zone."""
    return moment.astimezone(zone).strftime("%Y-%m-%dT%H:%M") if moment else ""


async def revoke(request: Request) -> Response:
    """Revoke a student's link: it gets the refusal page from now on."""
    auth.require_instructor(request)
    await upload_form(request)
    person = _student_or_404(request)
    _store(request).set_revoked(person.id, True)
    log.info("the instructor revoked the link of %s", person.id)
    return _to_student(request, person.id, "revoked")


async def renew(request: Request) -> Response:
    """A new link for a student (the old one stops working; a revoked one is restored)."""
    auth.require_instructor(request)
    await upload_form(request)
    person = _student_or_404(request)
    _store(request).renew_student_token(person.id)
    log.info("the instructor renewed the link of %s", person.id)
    return _to_student(request, person.id, "renewed")


async def submission_page(request: Request, problem: str | None = None,
                          status_code: int = 200) -> Response:
    """A submission's page as the instructor sees it: the report in full, and the form to
    adjust its score (``problem``: why the last adjustment was refused)."""
    auth.require_grader(request)
    row = _submission_or_404(request)
    store = _store(request)
    return render_submission(request, row, instructor=True, extra={
        "adjustment": record_queries.adjustments(store, [row.id]).get(row.id),
        "adjustment_changes": record_queries.changes(store, "adjustment", str(row.id)),
        "adjustment_problem": problem}, status_code=status_code)


async def submission_file(request: Request) -> Response:
    """The file a student handed in, as a download."""
    auth.require_grader(request)
    return file_response(_store(request), _submission_or_404(request))


async def retry(request: Request) -> Response:
    """Grade a submission again (a grader error, or a result to redo): its earlier result
    is kept, and it stays one submission in the student's history."""
    auth.require_grader(request)
    await upload_form(request)
    row = _submission_or_404(request)
    queued = class_queries.regrade_submissions(_store(request), [row.id])
    if queued:
        _wake(request, 1)
        log.info("the instructor queued submission %s again", row.id)
    return _to_student(request, row.student, "retried")


async def regrade_everyone(request: Request) -> Response:
    """Every submission that can count graded again under the current configuration: each
    student's newest and their best, so neither gradebook (latest or best) is left mixed;
    of the form's ``assignment`` (the class page's), else of every assignment."""
    auth.require_grader(request)
    form = await upload_form(request)
    store = _store(request)
    asked = str(form.get("assignment") or "")
    try:
        names = [course_assignments.chosen(store, asked).name] if asked \
            else course_assignments.names(store)
    except course_assignments.AssignmentRefused as problem:
        raise HTTPException(404, str(problem)[:300]) from None
    counting: set[int] = set()
    for name in names:
        students = await run_in_threadpool(class_students, request, name)
        counting |= {handed.submission.id for entry in students
                     for handed in (entry.latest, entry.chosen("latest"), entry.best)
                     if handed is not None}
    queued = await run_in_threadpool(class_queries.regrade_submissions, store, counting)
    _wake(request, len(queued))
    log.info("the instructor queued %d submissions to be graded again", len(queued))
    back = f"?assignment={quote(asked)}&" if asked else "?"
    return RedirectResponse(f"{path_for(request, 'instructor_class')}{back}did=regraded"
                            f"&n={len(queued)}", status_code=303)


# --- the queue -------------------------------------------------------------------------------

async def queue_page(request: Request) -> Response:
    """``/instructor/queue``: waiting, running (on which worker), grader errors."""
    auth.require_grader(request)
    store = _store(request)
    queue = _state(request).queue
    # the class query, not the queue's: it reads no results.json (a regrade queues many)
    rows = sorted((handed.submission for handed in
                   await run_in_threadpool(class_queries.class_submissions, store)),
                  key=lambda row: row.id)            # the order they are taken in
    return render(request, "instructor_queue.html", {
        "running": [row for row in rows if row.status == "running"],
        "waiting": [row for row in rows if row.status == "queued"],
        "workers": sorted(dict(queue.workers).items()), "jobs": queue.jobs,
        "scheduler": queue.options.scheduler, "counts": store.counts(),
        "errors": [row for row in rows if row.status == "error"],
        # a course of several: each entry names its assignment
        "titles": {one.name: one.title for one in course_assignments.listing(store)}})


routes = [
    Route("/instructor", class_page, name="instructor_class"),
    Route("/instructor/students/{student_id}", student_page, name="instructor_student"),
    Route("/instructor/students/{student_id}/revoke", revoke, methods=["POST"],
          name="instructor_revoke"),
    Route("/instructor/students/{student_id}/renew", renew, methods=["POST"],
          name="instructor_renew"),
    Route("/instructor/submissions/{number:int}", submission_page,
          name="instructor_submission"),
    Route("/instructor/submissions/{number:int}/file", submission_file,
          name="instructor_submission_file"),
    Route("/instructor/submissions/{number:int}/retry", retry, methods=["POST"],
          name="instructor_retry"),
    Route("/instructor/regrade", regrade_everyone, methods=["POST"], name="instructor_regrade"),
    Route("/instructor/queue", queue_page, name="instructor_queue"),
    Route("/api/class", class_json, name="api_class"),
]
