"""The instructor's pages of ``grader serve``: the class, the queue, the roster and the links,
the gradebook and the summary (``batch``'s own), similarity, retries, the configuration and
regrading everyone.

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
    /instructor/roster               import a roster CSV; /instructor/links.csv the links
    /instructor/summary              batch's summary.html, live (?choice=latest|best)
    /instructor/similarity           compare every student's latest file (copydetect)
    /instructor/config               the grading configuration; POST /instructor/regrade
    /api/gradebook.csv?format=plain|canvas|moodle&choice=latest|best&assignment=NAME
                                     every assignment's column(s), or one's
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
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.classroom import lms, summary
from grader.classroom.state import graded_under
from grader.assignments import get as get_assignment
from grader.service.course import (auth, class_queries, classbook, course_assignments,
                                   course_dates, record_queries, storage)
from grader.service.course.storage import INSTRUCTOR
from grader.service.pages import presentation, similarity_routes
from grader.service.pages.pages import csv_response, path_for, render, with_inline_styles
from grader.service.pages.student_routes import file_response, render_submission
from grader.classroom.roster import RosterError, parse_roster
from grader.suite import table
from grader.suite.config import DEFAULT_CONFIG, ConfigError, grader_version
from grader.service.course.course_config import CONFIG_SETTING, save_config
from grader.service.course.times import format_time

log = logging.getLogger("grader.service")

MAX_UPLOAD = 1024 * 1024         # a roster or a configuration file
LINKS_COLUMNS = ["student_id", "name", "email", "link"]
# The summary's advice is batch's; here the instructor regrades from the page.
BATCH_ADVICE = ("Run the batch again with <code>--regrade-changed</code> to grade every "
                "submission under one.")
SERVE_ADVICE = ('<a href="{config}">Regrade everyone</a> to grade each student\'s '
                "latest submission under the current one.")
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


def _base_url(request: Request) -> str:
    return (_state(request).settings.base_url or str(request.base_url)).rstrip("/")


def _note(request: Request) -> str:
    text = NOTES.get(request.query_params.get("did", ""), "")
    count = request.query_params.get("n", "")
    return text.format(n=int(count) if count.isdigit() else "Some")


def _choice(request: Request, assignment: str | None = None) -> str:
    """The ``?choice=`` asked for, else the assignment's (which hand-in counts: Course
    dates, or the assignment's own)."""
    choice = (request.query_params.get("choice")
              or course_dates.read(_store(request), assignment).choice)
    if choice not in classbook.CHOICES:
        raise HTTPException(400, f"choice must be latest or best, not {choice[:20]!r}")
    return choice


def _assignment(request: Request) -> course_assignments.CourseAssignment:
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


async def _form(request: Request) -> Any:
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
    assignment = _assignment(request)
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
    assignment = _assignment(request)
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
    link = "" if person.revoked else _base_url(request) + path_for(
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
    await _form(request)
    person = _student_or_404(request)
    _store(request).set_revoked(person.id, True)
    log.info("the instructor revoked the link of %s", person.id)
    return _to_student(request, person.id, "revoked")


async def renew(request: Request) -> Response:
    """A new link for a student (the old one stops working; a revoked one is restored)."""
    auth.require_instructor(request)
    await _form(request)
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
    await _form(request)
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
    form = await _form(request)
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


# --- the roster and the links ------------------------------------------------------------

async def roster_page(request: Request) -> Response:
    """``/instructor/roster``: the import form and the links CSV."""
    auth.require_instructor(request)
    return render(request, "instructor_roster.html", {"outcome": None, "problem": None,
                                                      "count": len(_store(request).students())})


async def roster_import(request: Request) -> Response:
    """Add or update the students of an uploaded roster CSV: all of it, or nothing."""
    auth.require_instructor(request)
    form = await _form(request)
    upload = form.get("roster")
    store = _store(request)
    context: dict[str, Any] = {"outcome": None, "problem": None}
    if not isinstance(upload, UploadFile) or not upload.filename:
        context["problem"] = "no file: choose the roster's .csv file"
        return render(request, "instructor_roster.html",
                      {**context, "count": len(store.students())}, 400)
    name = Path(upload.filename).name[:100]
    try:
        known = {student.email.casefold(): student.id for student in store.students()
                 if student.email}        # a line without an id keeps its student's
        roster = parse_roster(await upload.read(), name, known,
                              [student.id for student in store.students()])
        outcome = await run_in_threadpool(_import, store, roster)
    except RosterError as problem:
        context["problem"] = str(problem)
        return render(request, "instructor_roster.html",
                      {**context, "count": len(store.students())}, 400)
    log.info("roster %s: %d added, %d updated", name, len(outcome["added"]),
             len(outcome["updated"]))
    return render(request, "instructor_roster.html",
                  {**context, "outcome": outcome, "name": name, "count": len(store.students())})


def _import(store: storage.Store, roster: Any) -> dict[str, Any]:
    """Sort the roster's entries into added, updated and unchanged, then store them in one
    transaction. A RosterError (nothing stored) when an id differs from a known student's
    only by capitals."""
    known = {student.id: student for student in store.students()}
    folded = {student_id.casefold(): student_id for student_id in known}
    clashes = [f"{entry.student_id!r} (the course has {folded[entry.student_id.casefold()]!r})"
               for entry in roster.entries if entry.student_id not in known
               and entry.student_id.casefold() in folded]
    if clashes:
        raise RosterError("nothing was imported: these ids differ from students of the course "
                          "only by capitals (write them as the course has them): "
                          + "; ".join(clashes[:10]))
    added = [entry for entry in roster.entries if entry.student_id not in known]
    updated = [entry for entry in roster.entries if entry.student_id in known
               and _changes(known[entry.student_id], entry, roster.identifiers(entry))]
    store.upsert_students(((entry.student_id, entry.name, entry.email)
                           for entry in roster.entries),
                          {entry.student_id: roster.identifiers(entry)
                           for entry in roster.entries})
    listed = {entry.student_id for entry in roster.entries}
    return {"added": added, "updated": updated,
            "unchanged": len(roster.entries) - len(added) - len(updated),
            "not_listed": sorted(student_id for student_id in known if student_id not in listed),
            "notes": roster.notes, "columns": roster.columns}


def _changes(student: storage.Student, entry: Any, identifiers: dict[str, str]) -> bool:
    """Whether the roster's line changes what the course has of ``student``: the name, the
    email, or an identifier the roster has a column of (Roster.identifiers)."""
    return ((student.name, student.email) != (entry.name, entry.email)
            or any(getattr(student, key) != value for key, value in identifiers.items()))


async def links_csv(request: Request) -> Response:
    """Every student's sign-in link (not the revoked), then the instructor's, as CSV for a
    mail merge: student_id,name,email,link."""
    auth.require_instructor(request)
    links = _store(request).student_links(_base_url(request))
    rows = [{"student_id": link.student_id, "name": link.name, "email": link.email,
             "link": link.link} for link in links]
    return csv_response(table.csv_text(LINKS_COLUMNS, rows), "links.csv")


# --- the gradebook and the summary ---------------------------------------------------------

async def gradebook_csv(request: Request) -> Response:
    """``GET /api/gradebook.csv?format=plain|canvas|moodle&choice=latest|best
    &assignment=NAME``: the class's gradebook, one line per student, with a column (Canvas,
    Moodle) or four (plain: each assignment's grader's score, penalty, adjustment and
    final score) per assignment of the course, in its order; ``assignment`` restricts it to
    one. Each value is the final score of that assignment's counted hand-in: its own choice
    (latest or best) unless ``choice`` says one for all. Canvas's column is the
    assignment's title (its import offers to create an assignment of that name).

    A course of one assignment gets the files it always had: ``plain`` is ``batch``'s
    gradebook with the course's records (the rubric's items too), and there ``assignment``
    may name the LMS's grade column (Canvas matches "Minimax (12345)" to its assignment
    12345; "Minimax" by default)."""
    auth.require_grader(request)
    store = _store(request)
    format_name = request.query_params.get("format", classbook.PLAIN).strip().casefold()
    if format_name not in classbook.FORMATS:
        raise HTTPException(400, "format must be " + ", ".join(classbook.FORMATS)
                            + f", not {format_name[:20]!r}")
    asked_choice = request.query_params.get("choice") or None
    if asked_choice is not None and asked_choice not in classbook.CHOICES:
        raise HTTPException(400, f"choice must be latest or best, not {asked_choice[:20]!r}")
    course = course_assignments.listing(store)
    asked = request.query_params.get("assignment")
    chosen = [one for one in course if one.name == asked] if asked else course
    column = None          # a course of one: ?assignment= names its grade column, as before
    if asked and not chosen:
        if len(course) > 1:
            raise HTTPException(400, f"this course has no assignment {asked[:40]!r}; its "
                                "assignments are: " + ", ".join(one.name for one in course))
        chosen, column = course, asked
    columns = [column or _lms_column(one, len(course)) for one in chosen]
    if format_name != classbook.PLAIN:     # refused before the class is read
        try:
            for name in columns:
                lms.check_assignment(name)
        except lms.LmsFormatError as problem:
            raise HTTPException(400, str(problem)[:300]) from None
    choices = {one.name: asked_choice or course_dates.read(store, one.name).choice
               for one in chosen}

    def rows_of(one: course_assignments.CourseAssignment) -> list[Any]:
        students = class_students(request, one.name)
        current = current_fingerprint(grading_of(request, one.name))
        return classbook.gradebook_rows(store, students, choices[one.name], current)

    books = [await run_in_threadpool(rows_of, one) for one in chosen]
    name = _gradebook_name(chosen, course, asked_choice or choices[chosen[0].name],
                           bool(asked_choice))
    if format_name == classbook.PLAIN:
        if len(chosen) == 1:       # one assignment: its full gradebook, as batch writes it
            return csv_response(classbook.gradebook_csv(books[0]), f"{name}.csv")
        text = classbook.gradebook_by_assignment_csv(
            [(one.name, rows) for one, rows in zip(chosen, books)])
        return csv_response(text, f"{name}.csv")
    try:
        book = classbook.lms_gradebook_by_assignment(list(zip(columns, books)), format_name)
    except lms.LmsFormatError as problem:   # e.g. an assignment called "Section"
        raise HTTPException(400, str(problem)[:300]) from None
    return csv_response(book.csv(), f"{name}-{format_name}.csv")


def _lms_column(assignment: course_assignments.CourseAssignment, assignments: int) -> str:
    """The LMS's grade column of ``assignment`` in a course of ``assignments``: its title
    (Canvas's import creates an assignment of that name); "Minimax" in a course of the
    minimax alone, the column it always had."""
    if assignments == 1 and assignment.name == course_assignments.DEFAULT:
        return lms.DEFAULT_ASSIGNMENT
    return assignment.title


def _gradebook_name(chosen: list[course_assignments.CourseAssignment],
                    course: list[course_assignments.CourseAssignment], choice: str,
                    asked: bool) -> str:
    """The gradebook file's name without its extension: ``gradebook-latest`` in a course of
    one assignment (as always), ``gradebook-montecarlo-best`` for one of several,
    ``gradebook`` (``gradebook-best`` when the choice was asked) for several."""
    if len(course) == 1:
        return f"gradebook-{choice}"
    if len(chosen) == 1:
        return f"gradebook-{chosen[0].name}-{choice}"
    return f"gradebook-{choice}" if asked else "gradebook"


async def summary_page(request: Request) -> Response:
    """``batch``'s summary.html, live, from the chosen result of each student, for one
    assignment (``?assignment=NAME``; the course's first by default)."""
    auth.require_grader(request)
    assignment = _assignment(request)
    choice = _choice(request, assignment.name)
    store = _store(request)
    found = None if similarity_routes.comparing(request) else classbook.load_similarity(
        similarity_routes.similarity_folder(request))
    several = len(course_assignments.listing(store)) > 1
    named = f"{assignment.title}: " if several else ""

    def build() -> str:
        students = class_students(request, assignment.name)
        current = current_fingerprint(grading_of(request, assignment.name))
        rows = classbook.gradebook_rows(store, students, choice, current)
        return summary.summary_html(rows, f"{named}Class summary ({choice} submission of "
                                          "each student)", similarity=found)

    advice = SERVE_ADVICE.format(config=path_for(request, "instructor_config"))
    html = (await run_in_threadpool(build)).replace(BATCH_ADVICE, advice)
    other = "best" if choice == "latest" else "latest"
    which = f"assignment={quote(assignment.name)}&" if several else ""
    back = (f'<p><a href="{path_for(request, "instructor_class")}'
            f'{"?" + which[:-1] if which else ""}">Back to the class</a> · '
            f'<a href="{path_for(request, "instructor_summary")}?{which}choice={other}">'
            f'{other} submission of each</a></p>')
    return with_inline_styles(html.replace("<body>", "<body>" + back, 1))


# --- the configuration page --------------------------------------------------------------

async def config_page(request: Request) -> Response:
    """``/instructor/config``: the configuration in use, and a form to change it."""
    auth.require_instructor(request)
    return await run_in_threadpool(_config_response, request)


def _config_assignment(request: Request, asked: Any = None) -> Any:
    """The assignment whose configuration the page shows or saves, in a course of several
    (``?assignment=NAME`` or the form's field; its first by default); None in a course of
    one, whose configuration is the course's (as before there were several)."""
    store = _store(request)
    if len(course_assignments.listing(store)) < 2:
        return None
    name = asked if isinstance(asked, str) and asked else request.query_params.get("assignment")
    try:
        return course_assignments.chosen(store, name or None)
    except course_assignments.AssignmentRefused as problem:
        raise HTTPException(404, str(problem)[:300]) from None


def _config_response(request: Request, problem: str | None = None, text: str | None = None,
                     saved: bool = False, status_code: int = 200,
                     assignment: Any = None) -> Response:
    assignment = assignment or _config_assignment(request)
    grading = current_grading(request) if assignment is None \
        else grading_of(request, assignment.name)
    path = grading.config or (DEFAULT_CONFIG if assignment is None
                              else get_assignment(assignment.name).default_config)
    try:
        current_text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        current_text = f"# cannot read {path}: {error}\n"
    students = class_students(request, assignment.name if assignment else None)
    current = current_fingerprint(grading)
    used = classbook.configurations(students, current)
    try:
        described = graded_under(grading).describe()
    except ConfigError as error:
        described = str(error)
    return render(request, "instructor_config.html", {
        "assignment": assignment, "assignments": course_assignments.listing(_store(request)),
        "name": grading.config.name if grading.config else "default",
        "described": described, "current": current, "configurations": used,
        "text": current_text if text is None else text, "problem": problem, "saved": saved,
        "forgotten": forgotten_config(request),
        "stale": sum(one.count for one in used if one.fingerprint != current)},
        status_code=status_code)


async def config_save(request: Request) -> Response:
    """Check a configuration exactly as ``grade --config`` does; keep and use it, or
    refuse it with ``grade``'s message (nothing changes)."""
    auth.require_instructor(request)
    form = await _form(request)
    upload = form.get("file")
    name = "config.cfg"
    if isinstance(upload, UploadFile) and upload.filename:
        name = Path(upload.filename).name[:100] or name
        try:
            text = (await upload.read()).decode("utf-8-sig")
        except UnicodeDecodeError:
            return await run_in_threadpool(
                _config_response, request, f"{name} is not UTF-8 text: save it as UTF-8",
                None, False, 400)
    else:
        text = str(form.get("config") or "")
        name = str(form.get("name") or "") or name
    text = text.replace("\r\n", "\n")
    assignment = _config_assignment(request, form.get("assignment"))
    try:
        classbook.check_config(text, name, assignment.name if assignment else "minimax")
    except ConfigError as problem:
        return await run_in_threadpool(_config_response, request, str(problem), text, False,
                                       400, assignment)
    state = _state(request)
    path = save_config(state.settings.data, text, name)
    if assignment is None:           # a course of one: the course's configuration
        use_config(state.queue, path)
        _store(request).set_setting(CONFIG_SETTING, str(path.resolve()))
    else:                            # a course of several: that assignment's own
        with _store(request).database.transaction() as db:
            course_assignments.set_own(db, assignment.name, "config_file",
                                       str(path.resolve()))
            record_queries.log_in(db, INSTRUCTOR, course_assignments.KIND, assignment.name,
                                  None, {"config_file": path.name})
    log.info("the instructor changed the configuration%s: %s",
             f" of {assignment.name}" if assignment else "", path)
    return await run_in_threadpool(_config_response, request, None, None, True, 200,
                                   assignment)


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
    Route("/instructor/roster", roster_page, methods=["GET"], name="instructor_roster"),
    Route("/instructor/roster", roster_import, methods=["POST"],
          name="instructor_roster_import"),
    Route("/instructor/links.csv", links_csv, name="instructor_links"),
    Route("/instructor/summary", summary_page, name="instructor_summary"),
    Route("/instructor/summary.html", summary_page, name="instructor_summary_html"),
    Route("/instructor/config", config_page, methods=["GET"], name="instructor_config"),
    Route("/instructor/config", config_save, methods=["POST"], name="instructor_config_save"),
    Route("/api/gradebook.csv", gradebook_csv, name="api_gradebook"),
    Route("/api/class", class_json, name="api_class"),
    *similarity_routes.routes,
]
