"""The instructor's routes for the course's records: a student's own deadline (on their page,
in the JSON API, from a CSV), an adjustment of a submission's score with its note, and a new
instructor link. Every change is kept with who made it and when (``changes``).

    PUT    /api/students/ID/deadline          {"deadline": ISO, "late_deadline": ISO or null}
                                              (null: the course's late window, moved with it)
    DELETE /api/students/ID/deadline
    POST   /api/submissions/N/adjustment      {"points": -5, "note": "..."}
    DELETE /api/submissions/N/adjustment
    POST   /instructor/students/ID/deadline   the student page's form (action=remove: remove)
    POST   /instructor/deadlines              a CSV student_id,deadline,late_deadline
    POST   /instructor/submissions/N/adjustment   the submission page's form
    POST   /instructor/renew-link             a new instructor link, shown once

The JSON API's calls need the instructor's Bearer token, or their session's cookie with the
X-CSRF-Token header; a body must say Content-Type: application/json (else 415).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.service import lti
from grader.service.course import auth, course_assignments, course_dates, record_queries
from grader.service.course.deadline_csv import (DeadlineError, OwnDeadline, read_deadlines_csv,
                                                time_field)
from grader.service.course.intake import Deadlines
from grader.service.course.record_queries import RecordError
from grader.service.course.storage import INSTRUCTOR, Store
from grader.service.course.times import format_time
from grader.service.pages.instructor import student_page, submission_page
from grader.service.pages.pages import path_for, render
from grader.service.pages.roster_routes import roster_page_response

log = logging.getLogger("grader.service")

MAX_JSON = 64 * 1024
MAX_CSV = 1024 * 1024


def _store(request: Request) -> Store:
    return request.app.state.store


def _zone(request: Request) -> Any:
    return request.app.state.settings.zone


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object; 415 unless it says Content-Type: application/json (a
    browser sends text/plain from any site's form without asking: JSON it cannot)."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "application/json":
        raise HTTPException(415, "send the body as JSON, with the header Content-Type: "
                                 "application/json")
    body = await request.body()
    if len(body) > MAX_JSON:
        raise HTTPException(413)
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        raise HTTPException(400, "the body is not JSON: send e.g. {\"deadline\": "
                                 "\"2026-12-08T23:59:00+01:00\"}") from None
    if not isinstance(data, dict):
        raise HTTPException(400, "the body must be a JSON object")
    return data


async def _instructor_form(request: Request, require: Any = auth.require_instructor) -> Any:
    """The instructor's form of a page (no file), its CSRF token checked (``require``:
    auth.require_grader for a grading page's form)."""
    require(request)
    form = await request.form(max_files=0, max_fields=10, max_part_size=MAX_JSON)
    auth.require_csrf(request, form)
    return form


def _api_instructor(request: Request, check: Any = auth.require_instructor) -> Any:
    """The instructor (or whoever ``check`` admits: a grader for adjustments), for an API
    call that changes something: with a Bearer token, or with the session's cookie and the
    X-CSRF-Token header (a cookie alone: another site's page could have sent it)."""
    identity = check(request)
    auth.require_api_csrf(request)
    return identity


def _refusal(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status)


# The same checks for the other modules of the instructor's forms and JSON API
# (course_dates_routes): one way to read a body, one way to admit a change.
json_body, instructor_form, api_instructor = _json_body, _instructor_form, _api_instructor


def _student_exists(request: Request) -> str:
    student = request.path_params["student_id"]
    if _store(request).student(student) is None:
        raise HTTPException(404, f"there is no student {student!r} in the roster")
    return student


def deadline_json(store: Store, student: str, course: Deadlines,
                  assignment: str | None = None) -> dict[str, Any]:
    """A student's deadlines for ``assignment`` (the course's first when None) as the API
    answers them (own: whether they are their own; an own deadline given without a late
    deadline answers with the assignment's late window moved with it)."""
    name = course_assignments.chosen(store, assignment).name
    own = record_queries.own_deadlines(store, course, name).get(student)
    return {"student_id": student, "assignment": name, "own": own is not None,
            "deadline": format_time(own.deadline) if own and own.deadline else None,
            "late_deadline": format_time(own.late_deadline)
            if own and own.late_deadline else None}


# --- a student's own deadline ------------------------------------------------------------

def _asked_assignment(request: Request, data: dict[str, Any] | None = None) -> str:
    """The assignment a deadline request is about: the URL's
    (``/api/assignments/NAME/...``), else the body's or the query's ``assignment``, else
    the course's first. HTTPException 400 when the course has no such assignment."""
    name = request.path_params.get("assignment") or (data or {}).get("assignment") \
        or request.query_params.get("assignment")
    try:
        return course_assignments.chosen(_store(request),
                                         name if isinstance(name, str) else None).name
    except course_assignments.AssignmentRefused as problem:
        raise HTTPException(400, str(problem)) from None


async def api_set_deadline(request: Request) -> Response:
    """``PUT /api/students/ID/deadline`` (``assignment`` in the body: which one; the course's
    first when none), or ``PUT /api/assignments/NAME/students/ID/deadline``: the student's
    own deadline (and late deadline) for that assignment."""
    _api_instructor(request)
    student = _student_exists(request)
    data = await _json_body(request)
    try:
        assignment = _asked_assignment(request, data)
    except HTTPException as problem:
        return _refusal(str(problem.detail))
    try:
        deadline = time_field(data.get("deadline"), "deadline", _zone(request), required=True)
        late = time_field(data.get("late_deadline"), "late_deadline", _zone(request))
        await run_in_threadpool(record_queries.set_deadline, _store(request), student,
                                deadline, late, who=INSTRUCTOR, assignment=assignment)
    except (DeadlineError, RecordError) as problem:
        return _refusal(str(problem))
    await run_in_threadpool(lti.grade_changed, _store(request), student)
    log.info("the instructor gave %s their own deadline %s for %s", student, deadline,
             assignment)
    return JSONResponse(deadline_json(
        _store(request), student, course_dates.read(_store(request), assignment).deadlines,
        assignment))


async def api_remove_deadline(request: Request) -> Response:
    """``DELETE /api/students/ID/deadline`` (``?assignment=NAME``), or ``DELETE
    /api/assignments/NAME/students/ID/deadline``: the student goes back to the
    assignment's."""
    _api_instructor(request)
    student = _student_exists(request)
    try:
        assignment = _asked_assignment(request)
    except HTTPException as problem:
        return _refusal(str(problem.detail))
    await run_in_threadpool(record_queries.remove_deadline, _store(request), student,
                            who=INSTRUCTOR, assignment=assignment)
    await run_in_threadpool(lti.grade_changed, _store(request), student)
    return JSONResponse(deadline_json(
        _store(request), student, course_dates.read(_store(request), assignment).deadlines,
        assignment))


async def form_deadline(request: Request) -> Response:
    """The student page's form: set (or, with action=remove, remove) their own deadline."""
    form = await _instructor_form(request)
    student = _student_exists(request)
    store = _store(request)
    asked = form.get("assignment")
    assignment = asked if isinstance(asked, str) and asked else None
    try:
        if form.get("action") == "remove":
            await run_in_threadpool(record_queries.remove_deadline, store, student,
                                    who=INSTRUCTOR, assignment=assignment)
            did = "deadline-removed"
        else:
            deadline = time_field(form.get("deadline"), "deadline", _zone(request),
                                  required=True)
            late = time_field(form.get("late_deadline"), "late deadline", _zone(request))
            await run_in_threadpool(record_queries.set_deadline, store, student, deadline,
                                    late, who=INSTRUCTOR, assignment=assignment)
            did = "deadline-set"
    except (DeadlineError, RecordError) as problem:
        return await student_page(request, problem=str(problem), status_code=400)
    await run_in_threadpool(lti.grade_changed, store, student)   # the LMS's grade follows
    return RedirectResponse(f"{path_for(request, 'instructor_student', student_id=student)}"
                            f"?did={did}", status_code=303)


async def form_deadlines_csv(request: Request) -> Response:
    """``POST /instructor/deadlines``: many students' own deadlines from a CSV
    (student_id,deadline,late_deadline, and optionally assignment): all of them, or none
    when any line is wrong."""
    auth.require_instructor(request)
    form = await request.form(max_files=1, max_fields=5, max_part_size=MAX_CSV)
    auth.require_csrf(request, form)
    upload = form.get("deadlines")
    if not isinstance(upload, UploadFile) or not upload.filename:
        return roster_page_response(request, 400, deadlines_problem="no file: choose the "
                                                                    "deadlines' .csv file")
    try:
        entries = read_deadlines_csv((await upload.read()).decode("utf-8-sig"),
                                     _zone(request), upload.filename)
        counts = await run_in_threadpool(store_deadlines, _store(request), entries)
    except UnicodeDecodeError:
        return roster_page_response(request, 400, deadlines_problem=(
            f"{upload.filename} is not UTF-8 text: save it as CSV UTF-8"))
    except (DeadlineError, RecordError) as problem:
        return roster_page_response(request, 400, deadlines_problem=str(problem))
    return roster_page_response(
        request, deadlines_outcome=f"{upload.filename}: {deadlines_said(counts)}.")


def store_deadlines(store: Store, entries: list[OwnDeadline],
                    who: str = INSTRUCTOR) -> dict[str, int]:
    """Set every own deadline of ``entries`` in one transaction (all or none): how many of
    each assignment, in the course's order. RecordError naming the students the roster does
    not have, or the assignments the course does not hold (with the ones it holds)."""
    unknown = sorted({entry.student for entry in entries if store.student(entry.student) is None})
    if unknown:
        raise RecordError("nothing was set: these ids are not in the roster (import it "
                          "first, or fix the ids): " + ", ".join(unknown[:10]))
    held = course_assignments.names(store)
    foreign = sorted({entry.assignment for entry in entries
                      if entry.assignment is not None and entry.assignment not in held})
    if foreign:
        raise RecordError(f"nothing was set: this course has no assignment "
                          f"{', '.join(repr(name[:40]) for name in foreign[:5])}; its "
                          f"assignments are: {', '.join(held)}")
    counts = {name: 0 for name in held}
    with store.database.transaction():
        for entry in entries:
            name = entry.assignment or held[0]
            record_queries.set_deadline(store, entry.student, entry.deadline,
                                        entry.late_deadline, who=who, assignment=name)
            counts[name] += 1
    for student in dict.fromkeys(entry.student for entry in entries):
        lti.grade_changed(store, student)
    return {name: count for name, count in counts.items() if count}


def deadlines_said(counts: dict[str, int]) -> str:
    """What was set, by assignment.

    >>> deadlines_said({"minimax": 2, "montecarlo": 1})
    "3 own deadlines set (minimax: 2, montecarlo: 1); each assignment's holds for the others"
    """
    total = sum(counts.values())
    return (f"{total} own deadline{'s' if total != 1 else ''} set ("
            + ", ".join(f"{name}: {count}" for name, count in counts.items())
            + "); each assignment's holds for the others")


# --- an adjustment ---------------------------------------------------------------------------

def _submission_exists(request: Request) -> int:
    number = request.path_params["number"]
    if _store(request).submission(number) is None:
        raise HTTPException(404, f"there is no submission {number}")
    return number


def _points(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise RecordError("points must be a number, such as -5 or 2.5")
    try:
        return float(str(value).strip().replace(",", "."))
    except ValueError:
        raise RecordError(f"points must be a number, such as -5 or 2.5, not {value!r}") \
            from None


def adjustment_json(store: Store, number: int) -> dict[str, Any]:
    found = record_queries.adjustments(store, [number]).get(number)
    return {"submission": number,
            "adjustment": None if found is None else {
                "points": found.points, "note": found.note, "set_by": found.set_by,
                "set_at": found.set_at},
            "changes": [{"at": change.at, "who": change.who,
                         "before": json.loads(change.before) if change.before else None,
                         "after": json.loads(change.after) if change.after else None}
                        for change in record_queries.changes(store, "adjustment",
                                                             str(number))]}


async def api_adjust(request: Request) -> Response:
    """``POST /api/submissions/N/adjustment``: points added (or taken) and a note."""
    identity = _api_instructor(request, auth.require_grader)
    number = _submission_exists(request)
    data = await _json_body(request)
    try:
        points = _points(data.get("points"))
        await run_in_threadpool(record_queries.set_adjustment, _store(request), number,
                                points, str(data.get("note") or ""), who=identity.who)
    except RecordError as problem:
        return _refusal(str(problem))
    await run_in_threadpool(lti.submission_changed, _store(request), number)
    log.info("%s adjusted submission %s by %+g", identity.who, number, points)
    return JSONResponse(adjustment_json(_store(request), number))


async def api_remove_adjustment(request: Request) -> Response:
    """``DELETE /api/submissions/N/adjustment``: the score is the grader's again."""
    identity = _api_instructor(request, auth.require_grader)
    number = _submission_exists(request)
    await run_in_threadpool(record_queries.remove_adjustment, _store(request), number,
                            who=identity.who)
    await run_in_threadpool(lti.submission_changed, _store(request), number)
    return JSONResponse(adjustment_json(_store(request), number))


async def form_adjust(request: Request) -> Response:
    """The submission page's form: set (or, with action=remove, remove) the adjustment."""
    form = await _instructor_form(request, auth.require_grader)
    identity = auth.current_identity(request)
    number = _submission_exists(request)
    store = _store(request)
    try:
        if form.get("action") == "remove":
            await run_in_threadpool(record_queries.remove_adjustment, store, number,
                                    who=identity.who)
        else:
            await run_in_threadpool(record_queries.set_adjustment, store, number,
                                    _points(form.get("points")), str(form.get("note") or ""),
                                    who=identity.who)
    except RecordError as problem:
        return await submission_page(request, problem=str(problem), status_code=400)
    await run_in_threadpool(lti.submission_changed, store, number)   # the LMS's grade follows
    return RedirectResponse(f"{path_for(request, 'instructor_submission', number=number)}"
                            "#adjustment", status_code=303)


# --- the instructor's link -------------------------------------------------------------------

async def renew_instructor_link(request: Request) -> Response:
    """A new instructor link: the old one (and every session it opened, this one too) stops
    working; the new link is shown once, here."""
    await _instructor_form(request)
    token = await run_in_threadpool(_store(request).renew_instructor_token)
    settings = request.app.state.settings
    base = (settings.base_url or str(request.base_url)).rstrip("/")
    log.info("the instructor renewed the instructor's link")
    return render(request, "instructor_renewed.html",
                  {"link": base + path_for(request, "sign_in", token=token)})


routes = [
    Route("/api/students/{student_id}/deadline", api_set_deadline, methods=["PUT"],
          name="api_set_deadline"),
    Route("/api/students/{student_id}/deadline", api_remove_deadline, methods=["DELETE"],
          name="api_remove_deadline"),
    Route("/api/assignments/{assignment}/students/{student_id}/deadline", api_set_deadline,
          methods=["PUT"], name="api_set_assignment_deadline"),
    Route("/api/assignments/{assignment}/students/{student_id}/deadline",
          api_remove_deadline, methods=["DELETE"], name="api_remove_assignment_deadline"),
    Route("/api/submissions/{number:int}/adjustment", api_adjust, methods=["POST"],
          name="api_adjust"),
    Route("/api/submissions/{number:int}/adjustment", api_remove_adjustment,
          methods=["DELETE"], name="api_remove_adjustment"),
    Route("/instructor/students/{student_id}/deadline", form_deadline, methods=["POST"],
          name="instructor_deadline"),
    Route("/instructor/deadlines", form_deadlines_csv, methods=["POST"],
          name="instructor_deadlines"),
    Route("/instructor/submissions/{number:int}/adjustment", form_adjust, methods=["POST"],
          name="instructor_adjust"),
    Route("/instructor/renew-link", renew_instructor_link, methods=["POST"],
          name="instructor_renew_link"),
]
