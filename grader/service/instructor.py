"""The instructor's pages of ``grader serve``: the class, the queue, the roster and the links,
the gradebook and the summary (``batch``'s own), similarity, retries, the configuration and
regrading everyone.

Every route needs the instructor's sign-in (the session of the instructor's link, or the
instructor's token as ``Authorization: Bearer``); a student gets 403, a stranger 401, and
neither learns anything. Every form carries the session's CSRF token; every page is a
Jinja2 template with autoescaping (``batch``'s summary page escapes what it shows itself).

    /instructor                      the class: one row per student
    /instructor/students/ID          a student: submissions, reports, files, their link
    /instructor/submissions/N        a submission's page (its report in full), /file, /retry
    /instructor/queue                waiting, running, on which worker
    /instructor/roster               import a roster CSV; /instructor/links.csv the links
    /instructor/summary              batch's summary.html, live (?choice=latest|best)
    /instructor/similarity           compare every student's latest file (copydetect)
    /instructor/config               the grading configuration; POST /instructor/regrade
    /api/gradebook.csv?choice=latest|best (default: the course's), /api/class (JSON)
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.classroom import lms, summary
from grader.classroom.state import graded_under
from grader.service import (auth, class_queries, classbook, course_dates, presentation,
                            record_queries, similarity_routes, storage)
from grader.service.pages import csv_response, path_for, render, with_inline_styles
from grader.service.student_routes import file_response, render_submission
from grader.classroom.roster import RosterError, parse_roster
from grader.suite import table
from grader.suite.config import DEFAULT_CONFIG, ConfigError, grader_version
from grader.service.course_config import CONFIG_SETTING, save_config
from grader.service.times import format_time

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


def _choice(request: Request) -> str:
    """The ``?choice=`` asked for, else the course's (which hand-in counts: Course dates)."""
    choice = request.query_params.get("choice") or course_dates.read(_store(request)).choice
    if choice not in classbook.CHOICES:
        raise HTTPException(400, f"choice must be latest or best, not {choice[:20]!r}")
    return choice


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


def class_students(request: Request) -> list[classbook.ClassStudent]:
    """Every student with their submissions, late and final scores by the course's records."""
    store = _store(request)
    dates = course_dates.read(store)
    records = classbook.CourseRecords.load(store, dates.deadlines, dates.policy)
    return classbook.class_students(store, records)


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
    """``/instructor``: one row per student, and what their results were graded under."""
    auth.require_grader(request)
    store = _store(request)
    students = await run_in_threadpool(class_students, request)
    grading = current_grading(request)
    current = await run_in_threadpool(current_fingerprint, grading)
    used = classbook.configurations(students, current)
    return render(request, "instructor_class.html", {
        "students": students, "counts": store.counts(), "configurations": used,
        "settings": _state(request).settings, "dates": course_dates.read(store),
        "mixed": len(used) > 1, "current": current,
        "config_name": grading.config.name if grading.config else "default",
        "stale": sum(configuration.count for configuration in used
                     if configuration.fingerprint != current),
        "forgotten": forgotten_config(request), "note": _note(request)})


async def class_json(request: Request) -> Response:
    """``GET /api/class``: every student with their counts, latest and best result."""
    auth.require_grader(request)
    students = await run_in_threadpool(class_students, request)
    current = await run_in_threadpool(current_fingerprint, current_grading(request))

    def brief(handed: class_queries.ClassSubmission | None) -> dict[str, Any] | None:
        if handed is None:
            return None
        row = handed.submission
        return {"id": row.id, "number": row.ordinal, "status": row.status,
                **presentation.scores_json(row.score, handed.final),
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
    return JSONResponse({
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
    """``/instructor/students/ID``: their submissions, reports, files, link and own
    deadline (``problem``: why the last change was refused)."""
    auth.require_grader(request)
    person = _student_or_404(request)
    store = _store(request)
    settings = _state(request).settings
    dates = course_dates.read(store)
    records = classbook.CourseRecords.load(store, dates.deadlines, dates.policy)
    rows = await run_in_threadpool(class_queries.class_submissions, store, person.id)
    submissions = [classbook.with_records(handed, records) for handed in reversed(rows)]
    link = "" if person.revoked else _base_url(request) + path_for(
        request, "sign_in", token=store.student_token(person.id))
    own = records.own.get(person.id)
    return render(request, "instructor_student.html", {
        "person": person, "submissions": submissions, "link": link,
        "current": await run_in_threadpool(current_fingerprint, current_grading(request)),
        "own": own, "course": dates.deadlines, "zone_name": settings.zone_name,
        "local_input": lambda moment: _local_input(moment, settings.zone),
        "deadline_changes": record_queries.changes(store, "deadline", person.id),
        "problem": problem, "note": _note(request)}, status_code=status_code)


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
    student's newest and their best, so neither gradebook (latest or best) is left mixed."""
    auth.require_grader(request)
    await _form(request)
    store = _store(request)
    students = await run_in_threadpool(class_students, request)
    counting = {handed.submission.id for entry in students
                for handed in (entry.latest, entry.chosen("latest"), entry.best)
                if handed is not None}
    queued = await run_in_threadpool(class_queries.regrade_submissions, store, counting)
    _wake(request, len(queued))
    log.info("the instructor queued %d submissions to be graded again", len(queued))
    return RedirectResponse(f"{path_for(request, 'instructor_class')}?did=regraded"
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
        "errors": [row for row in rows if row.status == "error"]})


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
    """``GET /api/gradebook.csv?choice=latest|best&format=plain|canvas|moodle``: batch's
    gradebook, one row per student (``plain``, the default), or the final scores as
    Canvas's or Moodle's grade import reads them (``&assignment=NAME`` names the grade
    column: Canvas matches "Minimax (12345)" to its assignment 12345)."""
    auth.require_grader(request)
    choice = _choice(request)
    format_name = request.query_params.get("format", classbook.PLAIN).strip().casefold()
    assignment = request.query_params.get("assignment", lms.DEFAULT_ASSIGNMENT)
    if format_name not in classbook.FORMATS:
        raise HTTPException(400, "format must be " + ", ".join(classbook.FORMATS)
                            + f", not {format_name[:20]!r}")
    if format_name != classbook.PLAIN:     # refused before the class is read
        try:
            lms.check_assignment(assignment)
        except lms.LmsFormatError as problem:
            raise HTTPException(400, str(problem)[:300]) from None
    store = _store(request)

    def rows() -> list[Any]:
        students = class_students(request)
        current = current_fingerprint(current_grading(request))
        return classbook.gradebook_rows(store, students, choice, current)

    if format_name == classbook.PLAIN:
        text = classbook.gradebook_csv(await run_in_threadpool(rows))
        return csv_response(text, f"gradebook-{choice}.csv")
    try:
        book = classbook.lms_gradebook(await run_in_threadpool(rows), format_name, assignment)
    except lms.LmsFormatError as problem:   # e.g. an assignment called "Section"
        raise HTTPException(400, str(problem)[:300]) from None
    return csv_response(book.csv(), f"gradebook-{choice}-{format_name}.csv")


async def summary_page(request: Request) -> Response:
    """``batch``'s summary.html, live, from the chosen result of each student."""
    auth.require_grader(request)
    choice = _choice(request)
    store = _store(request)
    found = None if similarity_routes.comparing(request) else classbook.load_similarity(
        similarity_routes.similarity_folder(request))

    def build() -> str:
        students = class_students(request)
        current = current_fingerprint(current_grading(request))
        rows = classbook.gradebook_rows(store, students, choice, current)
        return summary.summary_html(rows, f"Class summary ({choice} submission of each "
                                          "student)", similarity=found)

    advice = SERVE_ADVICE.format(config=path_for(request, "instructor_config"))
    html = (await run_in_threadpool(build)).replace(BATCH_ADVICE, advice)
    other = "best" if choice == "latest" else "latest"
    back = (f'<p><a href="{path_for(request, "instructor_class")}">Back to the class</a> · '
            f'<a href="{path_for(request, "instructor_summary")}?choice={other}">'
            f'{other} submission of each</a></p>')
    return with_inline_styles(html.replace("<body>", "<body>" + back, 1))


# --- the configuration page --------------------------------------------------------------

async def config_page(request: Request) -> Response:
    """``/instructor/config``: the configuration in use, and a form to change it."""
    auth.require_instructor(request)
    return await run_in_threadpool(_config_response, request)


def _config_response(request: Request, problem: str | None = None, text: str | None = None,
                     saved: bool = False, status_code: int = 200) -> Response:
    grading = current_grading(request)
    path = grading.config or DEFAULT_CONFIG
    try:
        current_text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        current_text = f"# cannot read {path}: {error}\n"
    students = class_students(request)
    current = current_fingerprint(grading)
    used = classbook.configurations(students, current)
    try:
        described = graded_under(grading).describe()
    except ConfigError as error:
        described = str(error)
    return render(request, "instructor_config.html", {
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
    try:
        classbook.check_config(text, name)
    except ConfigError as problem:
        return await run_in_threadpool(_config_response, request, str(problem), text, False,
                                       400)
    state = _state(request)
    path = save_config(state.settings.data, text, name)
    use_config(state.queue, path)
    _store(request).set_setting(CONFIG_SETTING, str(path.resolve()))
    log.info("the instructor changed the configuration: %s", path)
    return await run_in_threadpool(_config_response, request, None, None, True)


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
