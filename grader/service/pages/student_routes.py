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

from grader.assignments import AssignmentError, get as get_assignment
from grader.sandbox.submission import SIGNATURES
from grader.service.course import auth, course_assignments, course_dates, record_queries
from grader.service.course.classbook import CourseRecords
from grader.service.course.checking import Checker, CheckerBusy, CheckFailed
from grader.service.course.intake import (PASTED, Refused, check_content, check_deadline,
                                          check_readable, clean_name, expected_file,
                                          pasted_name, refusal_for, refusal_for_checker,
                                          refused_note)
from grader.service.course.records import FinalScore
from grader.service.course.storage import InFlight, Store, Submission, TooMany
from grader.service.course.times import format_time, now
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
    """The student's page: one assignment's form and hand-ins (the one asked for, else the
    course's only open one); in a course of several open assignments asked for none, the
    list of them, each with a link to its own form (the page asks which first)."""
    state = request.app.state
    store: Store = state.store
    settings: ServiceSettings = state.settings
    moment = now()
    every = course_assignments.listing(store)
    shown = _shown_assignment(store, assignment or request.query_params.get("assignment"))
    rows = assignment_rows(store, student, moment)
    context: dict[str, Any] = {
        "student": store.student(student), "several": len(every) > 1,
        "per_hour": settings.per_hour, "max_size": settings.max_size,
        "refusal": refusal.message if refusal else None, "assignments": rows,
        "choosing": shown is None,
        "expected_files": {one.name: expected_file(one.name) for one in every}}
    if shown is None:
        context["open_rows"] = [row for row in rows if not row["closed"]]
    else:
        dates = course_dates.read(store, shown.name)
        deadlines, own = record_queries.deadlines_of(store, student, dates.deadlines,
                                                     shown.name)
        history = store.history(student, shown.name)
        records = CourseRecords.load(store, dates.deadlines, dates.policy, shown.name)
        context.update({
            "history": history, "finals": {row.id: final_of(records, row) for row in history},
            "deadline": deadlines.deadline, "late_deadline": deadlines.late_deadline,
            "own_deadline": own, "policy": dates.policy, "choice": dates.choice,
            "closed": deadlines.closed(moment) or not shown.opened,
            "late": deadlines.is_late(moment), "code": code, "assignment": shown,
            "template_name": expected_file(shown.name), "placeholder": placeholder(shown.name)})
    status = refusal.status if refusal else 200
    headers = {"retry-after": str(refusal.retry_after)} if refusal and refusal.retry_after \
        else None
    return render(request, "student_home.html", context, status, headers)


def _shown_assignment(store: Store,
                      name: str | None) -> course_assignments.CourseAssignment | None:
    """The assignment a student's page shows: the one asked for, else the course's only
    open one (its first, when none is open); None when several are open and none was asked
    for (the page then asks which)."""
    found = course_assignments.find(store, name) if name else None
    if found is not None:
        return found
    every = course_assignments.listing(store)
    open_ones = [one for one in every if one.opened]
    if len(open_ones) > 1:
        return None
    return open_ones[0] if open_ones else every[0]


def placeholder(name: str) -> str:
    """The code box's hint: the first function the assignment asks for.

    >>> placeholder("minimax")
    'def mm_move(board, player):'
    """
    try:
        function = get_assignment(name).functions[0]
    except AssignmentError:
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
    """``POST /submit``: an assignment's form on the home page (a chosen file, or pasted
    code; ``assignment`` names the assignment whose form it is)."""
    identity = auth.require_student(request)
    try:
        _admitted(request, identity.student)
    except Refused as problem:
        return _home_page(request, identity.student, problem)
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
            row = await _accept(request, identity.student, upload.filename, await upload.read(),
                                asked)
        elif code.strip():
            row = await _accept(request, identity.student, None,
                                code.replace("\r\n", "\n").encode("utf-8"), asked, pasted=True)
        else:
            expected = await run_in_threadpool(_expected, request.app.state.store, asked)
            raise Refused(400, f"nothing was handed in: choose your {expected} file, or paste "
                               "its code in the box")
    except Refused as problem:
        return _home_page(request, identity.student, problem, code, asked)
    return RedirectResponse(path_for(request, "submission", number=row.id), status_code=303)


def _admitted(request: Request, student: str) -> None:
    """Refused (429) before the upload is read when the page would check no file of the
    student now (one of theirs is being checked, or too many were refused lately)."""
    checker: Checker = request.app.state.checker
    try:
        checker.admit(student)
    except CheckerBusy as busy:
        raise refusal_for_checker(busy, checker.limits, now(),
                                  request.app.state.settings.zone) from None


def _expected(store: Store, asked: str | None) -> str:
    """The file a hand-in for ``asked`` is (the course's assignment of that name), else
    one of the files of the course's open assignments ("mm_player.py or mc_player.py"), as
    messages name it."""
    found = course_assignments.find(store, asked) if asked else None
    if found is not None:
        return expected_file(found.name)
    files = dict.fromkeys(expected_file(one.name) for one in course_assignments.listing(store)
                          if one.opened)
    return " or ".join(files) or "your .py file"


async def _accept(request: Request, student: str, name: str | None, data: bytes,
                  asked: str | None = None, pasted: bool = False) -> Submission:
    """Check and store a submission of ``student`` (a file called ``name``, or code pasted
    in the box) for the assignment ``asked`` (else the one its file is for: see
    course_assignments.for_hand_in); Refused when it is not accepted, with nothing stored.
    Then wake a grader.

    The file is read by a child process (``checking``), never in this one: its names decide
    which assignment it is for. A refusal after a check counts against the student's
    refused files (``Checker.refused``), never against their hand-ins."""
    state = request.app.state
    settings: ServiceSettings = state.settings
    store: Store = state.store
    checker: Checker = state.checker
    moment = now()
    expected = await run_in_threadpool(_expected, store, asked)
    filename = pasted_name(expected) if pasted else clean_name(name, expected)
    check_content(filename, data, settings.max_size, expected)
    try:
        checked = await checker.check(student, filename, data)
    except CheckerBusy as busy:
        raise refusal_for_checker(busy, checker.limits, moment, settings.zone) from None
    except CheckFailed as problem:
        log.error("%s", problem)
        raise Refused(503, "the page could not check your file (a problem of the server, "
                           "not of your file; it has been logged): try again in a few "
                           "minutes, or tell your instructor") from None
    try:
        check_readable(filename, checked, data, expected, checker.limits)
        assignment = await run_in_threadpool(course_assignments.for_hand_in, store, asked,
                                             checked.defined)
    except course_assignments.AssignmentRefused as problem:
        checker.refused(student, checked)
        raise Refused(400, f"{filename} was not handed in: {problem}. "
                           f"({refused_note(checker.limits).capitalize()}.)") from None
    except Refused:
        checker.refused(student, checked)
        raise
    if pasted or not clean_name(name):      # kept under the name its assignment expects
        filename = expected_file(assignment.name) + (PASTED if pasted else "")
    deadlines, own = record_queries.deadlines_of(
        store, student, course_dates.read(store, assignment.name).deadlines, assignment.name)
    late = check_deadline(deadlines, moment, settings.zone, own)
    per_hour = settings.per_hour if settings.per_hour > 0 else None
    try:
        row = await run_in_threadpool(
            store.add_submission, student, filename, data, late=late,
            # received when it arrived, the moment its lateness was judged at, not after
            # its check: a file that came before the deadline is on time, and says so
            received_at=format_time(moment),
            config=state.queue.label_for(assignment.name), one_in_flight=True,
            per_hour=per_hour, assignment=assignment.name)
    except InFlight as problem:
        several = len(course_assignments.listing(store)) > 1
        raise refusal_for(problem, moment, wait_for(store, state.queue, problem.row),
                          settings.zone, title=assignment.title if several else "") from None
    except TooMany as problem:
        raise refusal_for(problem, moment, zone=settings.zone, per_hour=per_hour) from None
    log.info("received submission %s of %s for %s (%d bytes, sha256 %s%s)", row.id, student,
             assignment.name, row.size, row.short_hash, ", late" if late else "")
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
    """``POST /api/submissions`` (multipart field ``file``, optional field ``assignment``;
    Bearer token, or a session with the X-CSRF-Token header)."""
    identity = _api_identity(request)
    if identity.student is None:
        return JSONResponse({"error": "the instructor's token cannot hand in a submission: "
                                      "use a student's"}, 403)
    auth.require_api_csrf(request)
    try:
        _admitted(request, identity.student)
    except Refused as problem:
        return refused(request, problem)
    form = await read_form(request)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        return JSONResponse({"error": "no file: send your player's .py file as the multipart "
                                      "field 'file'"}, 400)
    asked = form.get("assignment")
    try:
        row = await _accept(request, identity.student, upload.filename, await upload.read(),
                            asked if isinstance(asked, str) and asked else None)
    except Refused as problem:
        return refused(request, problem)
    return JSONResponse({"id": row.id, "number": row.ordinal, "assignment": row.assignment,
                         "status": row.status,
                         "received_at": row.received_at, "filename": row.filename,
                         "size": row.size, "sha256": row.sha256, "late": row.late,
                         "queue_position": request.app.state.store.queue_position(row.id),
                         "url": path_for(request, "submission", number=row.id)}, 201)


async def api_limits(request: Request) -> Response:
    """``GET /api/limits``: what the page takes (``max_size`` in bytes, ``per_hour``: 0 for
    no limit) and each assignment of the course with the file it expects, so that a client
    checks a file before it sends it (``python -m student submit``)."""
    _api_identity(request)
    settings: ServiceSettings = request.app.state.settings
    every = await run_in_threadpool(course_assignments.listing, request.app.state.store)
    return JSONResponse({"max_size": settings.max_size, "per_hour": settings.per_hour,
                         "assignments": [{**one.json(), "file": expected_file(one.name)}
                                         for one in every]},
                        headers={"cache-control": "no-store"})


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
    Route("/api/limits", api_limits, name="api_limits"),
]
