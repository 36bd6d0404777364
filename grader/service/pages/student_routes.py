"""The student's pages and JSON API of ``grader serve``: the home page (hand in, history),
a submission's page and file, and ``/api/submissions``. A student sees only their own
submissions: any other id answers 404 with the same body as a missing one.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.assignments import get as get_assignment
from grader.sandbox.submission import SIGNATURES
from grader.service.course import auth, course_assignments, course_dates, record_queries
from grader.service.course.classbook import CourseRecords
from grader.service.course.intake import (PASTED_NAME, Refused, check_compiles, check_content,
                                          check_deadline, clean_name, refusal_for)
from grader.service.course.records import FinalScore
from grader.service.course.storage import InFlight, Store, Submission, TooMany
from grader.service.course.times import now
from grader.service.pages.pages import path_for, read_form, refused, render
from grader.service.pages.presentation import page_context, scores_json, submission_json, wait_for
from grader.service.settings import ServiceSettings

log = logging.getLogger("grader.service")

# --- the student's pages -------------------------------------------------------------------

async def home(request: Request) -> Response:
    identity = auth.current_identity(request)
    if identity is None:
        return render(request, "signin_needed.html", status_code=200)
    if identity.is_grader:            # the instructor, or a TA
        return RedirectResponse(path_for(request, "instructor_class"), status_code=303)
    return _home_page(request, identity.student)


def _home_page(request: Request, student: str, refusal: Refused | None = None,
               code: str = "", assignment: str | None = None) -> Response:
    state = request.app.state
    store: Store = state.store
    settings: ServiceSettings = state.settings
    moment = now()
    shown = _shown_assignment(store, assignment or request.query_params.get("assignment"))
    dates = course_dates.read(store, shown.name)
    deadlines, own = record_queries.deadlines_of(store, student, dates.deadlines, shown.name)
    history = store.history(student, shown.name)
    records = CourseRecords.load(store, dates.deadlines, dates.policy, shown.name)
    context = {"student": store.student(student), "history": history,
               "finals": {row.id: final_of(records, row) for row in history},
               "deadline": deadlines.deadline, "late_deadline": deadlines.late_deadline,
               "own_deadline": own, "policy": dates.policy, "choice": dates.choice,
               "closed": deadlines.closed(moment) or not shown.opened,
               "late": deadlines.is_late(moment),
               "per_hour": settings.per_hour, "max_size": settings.max_size,
               "code": code, "refusal": refusal.message if refusal else None,
               "assignment": shown, "template_name": template_name(shown.name),
               "placeholder": placeholder(shown.name),
               "assignments": assignment_rows(store, student, moment)}
    status = refusal.status if refusal else 200
    headers = {"retry-after": str(refusal.retry_after)} if refusal and refusal.retry_after \
        else None
    return render(request, "student_home.html", context, status, headers)


def _shown_assignment(store: Store, name: str | None) -> course_assignments.CourseAssignment:
    """The assignment a student's page shows: the one asked for, else the course's first
    open one (else its first)."""
    found = course_assignments.find(store, name) if name else None
    if found is not None:
        return found
    every = course_assignments.listing(store)
    return next((one for one in every if one.opened), every[0])


def template_name(name: str) -> str:
    """The file a student hands in for the assignment ``name`` (its template's name).

    >>> template_name("montecarlo"), template_name("nosuch")
    ('mc_player.py', 'mm_player.py')
    """
    try:
        template = get_assignment(name).template
    except ValueError:
        return "mm_player.py"
    return template.name if template is not None else "mm_player.py"


def placeholder(name: str) -> str:
    """The code box's hint: the first function the assignment asks for.

    >>> placeholder("minimax")
    'def mm_move(board, player):'
    """
    try:
        function = get_assignment(name).functions[0]
    except ValueError:
        function = "mm_move"
    return f"def {SIGNATURES.get(function, function + '(...)')}:"


def assignment_rows(store: Store, student: str, moment: Any) -> list[dict[str, Any]]:
    """Each of the course's assignments as a student's page lists them: open or closed,
    the deadline that holds for them, and the final score that counts (latest or best)."""
    rows = []
    for one in course_assignments.listing(store):
        dates = course_dates.read(store, one.name)
        deadlines, _own = record_queries.deadlines_of(store, student, dates.deadlines, one.name)
        history = store.history(student, one.name)
        records = CourseRecords.load(store, dates.deadlines, dates.policy, one.name)
        graded = [row for row in history if row.status == "done"]
        finals = [(final_of(records, row), row) for row in graded]
        counted = None
        if finals:
            counted = (max(finals, key=lambda pair: (pair[0].final or 0.0, pair[1].id))
                       if dates.choice == "best" else finals[0])
        rows.append({"assignment": one, "deadline": deadlines.deadline,
                     "closed": deadlines.closed(moment) or not one.opened,
                     "handed_in": len(history),
                     "final": counted[0].final if counted else None,
                     "max_score": counted[1].max_score if counted else None})
    return rows


async def submit_form(request: Request) -> Response:
    """``POST /submit``: the home page's form (a chosen file, or pasted code)."""
    identity = auth.require_student(request)
    form = await read_form(request)
    auth.require_csrf(request, form)
    upload = form.get("file")
    code = form.get("code")
    code = code if isinstance(code, str) else ""
    asked = form.get("assignment")
    asked = asked if isinstance(asked, str) and asked else None
    chosen = isinstance(upload, UploadFile) and bool(upload.filename)
    try:
        if chosen and code.strip():
            raise Refused(400, "you chose a file and pasted code: hand in one of them. To hand "
                               "in the file, empty the box; to hand in the pasted code, "
                               "choose the file again and remove it (or reload the page)")
        if isinstance(upload, UploadFile) and chosen:
            filename, data = clean_name(upload.filename), await upload.read()
        elif code.strip():
            filename, data = PASTED_NAME, code.replace("\r\n", "\n").encode("utf-8")
        else:
            raise Refused(400, "nothing was handed in: choose your mm_player.py file, or paste "
                               "its code in the box")
        row = await _accept(request, identity.student, filename, data, asked)
    except Refused as problem:
        return _home_page(request, identity.student, problem, code, asked)
    return RedirectResponse(path_for(request, "submission", number=row.id), status_code=303)


async def _accept(request: Request, student: str, filename: str, data: bytes,
                  asked: str | None = None) -> Submission:
    """Check and store a submission for the assignment ``asked`` (else the one its file is
    for: see course_assignments.for_hand_in); Refused when it is not accepted. Then wake a
    grader."""
    state = request.app.state
    settings: ServiceSettings = state.settings
    store: Store = state.store
    moment = now()
    check_content(filename, data, settings.max_size)
    await run_in_threadpool(check_compiles, filename, data)   # nothing stored, nothing counted
    try:
        assignment = course_assignments.for_hand_in(store, asked,
                                                    data.decode("utf-8", "replace"))
    except course_assignments.AssignmentRefused as problem:
        raise Refused(400, str(problem)) from None
    deadlines, own = record_queries.deadlines_of(
        store, student, course_dates.read(store, assignment.name).deadlines, assignment.name)
    late = check_deadline(deadlines, moment, settings.zone, own)
    try:
        row = await run_in_threadpool(
            store.add_submission, student, filename, data, late=late,
            config=state.queue.label_for(assignment.name), one_in_flight=True,
            per_hour=settings.per_hour if settings.per_hour > 0 else None,
            assignment=assignment.name)
    except InFlight as problem:
        raise refusal_for(problem, moment, wait_for(store, state.queue, problem.row),
                          settings.zone) from None
    except TooMany as problem:
        raise refusal_for(problem, moment, zone=settings.zone) from None
    log.info("received submission %s of %s (%d bytes, sha256 %s%s)", row.id, student,
             row.size, row.short_hash, ", late" if late else "")
    state.queue.wake()
    return row


async def submission_page(request: Request) -> Response:
    identity = auth.require_student(request)
    row = _own_submission(request, identity.student)
    return render_submission(request, row, instructor=False)


def render_submission(request: Request, row: Submission, instructor: bool,
                      extra: dict[str, Any] | None = None, status_code: int = 200) -> Response:
    """The page of one submission (the instructor's pages use it too, with ``extra``)."""
    state = request.app.state
    store: Store = state.store
    settings: ServiceSettings = state.settings
    deadlines, _own = record_queries.deadlines_of(
        store, row.student, course_dates.read(store, row.assignment).deadlines, row.assignment)
    final = final_of(course_records(store, settings, row.assignment), row)
    context = page_context(store, state.queue, settings, row, instructor, final, deadlines)
    return render(request, "submission.html", {**context, **(extra or {})}, status_code)


def course_records(store: Store, settings: ServiceSettings,
                   assignment: str | None = None) -> CourseRecords:
    """The records of ``assignment`` (the course's first when None), under its deadlines
    and late policy as they are now."""
    dates = course_dates.read(store, assignment)
    return CourseRecords.load(store, dates.deadlines, dates.policy, assignment)


def final_of(records: CourseRecords, row: Submission) -> FinalScore:
    """The submission's final score: the grader's, the late penalty, the adjustment."""
    return records.final(row.student, row.id, row.received_at,
                         row.score if row.status == "done" else None, row.max_score)


def _own_submission(request: Request, student: str | None) -> Submission:
    """The submission of the URL if it is ``student``'s; 404 with one body otherwise."""
    row = request.app.state.store.submission(request.path_params["number"], student=student)
    if row is None:     # the same answer for another student's id as for a missing one
        raise HTTPException(404, "there is no such submission among yours")
    return row


async def submission_file(request: Request) -> Response:
    identity = auth.require_student(request)
    row = _own_submission(request, identity.student)
    return file_response(request.app.state.store, row)


def file_response(store: Store, row: Submission) -> Response:
    """The handed-in file as a download (never shown inline: it is the student's text)."""
    name = "".join(ch if ch.isalnum() or ch in "._-" else "_"
                   for ch in row.filename.replace(" (pasted)", ""))
    return Response(store.submission_bytes(row.id), media_type="text/x-python; charset=utf-8",
                    headers={"content-disposition": f'attachment; filename="{name}"',
                             "cache-control": "no-store"})


# --- the JSON API --------------------------------------------------------------------------

async def api_submit(request: Request) -> Response:
    """``POST /api/submissions`` (multipart field ``file``; Bearer token, or a session with
    the X-CSRF-Token header)."""
    identity = _api_identity(request)
    if identity.student is None:
        return JSONResponse({"error": "the instructor's token cannot hand in a submission: "
                                      "use a student's"}, 403)
    auth.require_api_csrf(request)
    form = await read_form(request)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        return JSONResponse({"error": "no file: send mm_player.py as the multipart field "
                                      "'file'"}, 400)
    asked = form.get("assignment")
    try:
        row = await _accept(request, identity.student, clean_name(upload.filename),
                            await upload.read(), asked if isinstance(asked, str) and asked
                            else None)
    except Refused as problem:
        return refused(request, problem)
    return JSONResponse({"id": row.id, "assignment": row.assignment, "status": row.status,
                         "received_at": row.received_at,
                         "size": row.size, "sha256": row.sha256, "late": row.late,
                         "queue_position": request.app.state.store.queue_position(row.id),
                         "url": path_for(request, "submission", number=row.id)}, 201)


async def api_submission(request: Request) -> Response:
    identity = _api_identity(request)
    if identity.is_grader:
        row = _own_submission(request, None)
    else:
        row = _own_submission(request, identity.student)
    state = request.app.state
    settings: ServiceSettings = state.settings
    deadlines, _own = record_queries.deadlines_of(
        state.store, row.student, course_dates.read(state.store, row.assignment).deadlines,
        row.assignment)
    final = final_of(course_records(state.store, settings, row.assignment), row)
    return JSONResponse(submission_json(state.store, state.queue, settings, row,
                                        identity.is_grader, final, deadlines),
                        headers={"cache-control": "no-store"})


async def api_history(request: Request) -> Response:
    """``GET /api/submissions``: the student's hand-ins, each with the same four scores as
    ``/api/submissions/N`` (the grader's, the penalty, the adjustment, the final one)."""
    identity = auth.require_student(request)
    state = request.app.state

    def build() -> list[dict[str, Any]]:
        records: dict[str, CourseRecords] = {}
        rows = state.store.history(identity.student)
        for row in rows:
            if row.assignment not in records:
                records[row.assignment] = course_records(state.store, state.settings,
                                                         row.assignment)
        return [{"id": row.id, "assignment": row.assignment, "status": row.status,
                 "received_at": row.received_at,
                 "filename": row.filename, "size": row.size, "sha256": row.sha256,
                 "late": row.late, "max_score": row.max_score,
                 **scores_json(row.score if row.status == "done" else None,
                               final_of(records[row.assignment], row)
                               if row.status == "done" else None, row.assignment)}
                for row in rows]

    return JSONResponse({"submissions": await run_in_threadpool(build)},
                        headers={"cache-control": "no-store"})


def _api_identity(request: Request) -> Any:
    identity = auth.current_identity(request)
    if identity is None:
        raise auth.NotSignedIn("no valid token: send the header 'Authorization: Bearer TOKEN' "
                               "(the last part of your sign-in link)")
    return identity




routes = [
    Route("/", home, name="home"),
    Route("/submit", submit_form, methods=["POST"], name="submit"),
    Route("/submissions/{number:int}", submission_page, name="submission"),
    Route("/submissions/{number:int}/file", submission_file, name="submission_file"),
    Route("/api/submissions", api_submit, methods=["POST"], name="api_submit"),
    Route("/api/submissions", api_history, methods=["GET"], name="api_history"),
    Route("/api/submissions/{number:int}", api_submission, name="api_submission"),
]
