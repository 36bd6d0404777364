"""The course's dates on the page and in the JSON API: its deadline, late deadline, late
policy and which hand-in counts, changed while the server serves (the records the pages read:
:mod:`grader.service.course.course_dates`), each change kept with who made it.

    GET /instructor/course     the "Course dates" page: the values, the form, the changes
    POST /instructor/course    its form (the instructor's; CSRF as every form)
    GET /api/course            {"deadline": ISO or null, "late_deadline": ..., "late_penalty":
                               "10%/day,max=50%", "choice": "latest" or "best", "timezone",
                               "changes": [{"at", "who", "field", "before", "after"}]}
    PUT /api/course            {"late_deadline": "2026-12-05T23:59", "choice": "best"}: the
                               fields given change (null or "": no deadline); as GET answers

The course staff (a TA too) read them; only the instructor changes them: a Bearer token, or
the session's cookie with the X-CSRF-Token header, and Content-Type: application/json.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.service import lti
from grader.service.course import auth, course_assignments, course_dates
from grader.service.course.storage import INSTRUCTOR
from grader.service.pages.pages import path_for, render
from grader.service.pages.records_routes import api_instructor, instructor_form, json_body

log = logging.getLogger("grader.service")


def course_json(request: Request) -> dict[str, Any]:
    """The course's dates now, its time zone and every change of them (oldest first)."""
    store = request.app.state.store
    return {**course_dates.read(store).json(), "timezone": request.app.state.settings.zone_name,
            "changes": [course_dates.change_json(one) for one in course_dates.history(store)]}


async def api_course(request: Request) -> Response:
    """``GET /api/course``: the course's dates (the course staff)."""
    auth.require_grader(request)
    return JSONResponse(await run_in_threadpool(course_json, request),
                        headers={"cache-control": "no-store"})


async def api_change_course(request: Request) -> Response:
    """``PUT /api/course``: change the fields given (the instructor); 400 and nothing
    changed when any is wrong."""
    api_instructor(request)
    data = await json_body(request)
    settings = request.app.state.settings
    try:
        wanted = course_dates.parse_fields(data, settings.zone)
        changed = await run_in_threadpool(course_dates.change, request.app.state.store,
                                          wanted, who=INSTRUCTOR)
    except course_dates.DatesError as problem:
        return JSONResponse({"error": str(problem)}, 400)
    if changed:                                       # the LMS's grades follow the dates
        log.info("the instructor changed the course's %s", ", ".join(changed))
        await run_in_threadpool(lti.grades_changed, request.app.state.store)
    return JSONResponse(await run_in_threadpool(course_json, request),
                        headers={"cache-control": "no-store"})


def local_input(moment: Any, zone: Any) -> str:
    """A time as an <input type="datetime-local"> shows it, in the course's zone."""
    return moment.astimezone(zone).strftime("%Y-%m-%dT%H:%M") if moment else ""


def _page(request: Request, problem: str | None = None, saved: bool = False,
          status_code: int = 200, form: Any = None) -> Response:
    store = request.app.state.store
    settings = request.app.state.settings
    dates = course_dates.read(store)
    every = course_assignments.listing(store)
    following = [one for one in every if not set(course_assignments.own_settings(
        store, one.name)) & set(course_dates.FIELDS)]
    return render(request, "instructor_course.html", {
        "dates": dates, "zone_name": settings.zone_name, "assignments": every,
        "following": following,
        "local_input": lambda moment: local_input(moment, settings.zone),
        "changes": [course_dates.change_json(one) for one in course_dates.history(store)],
        "form": form, "problem": problem, "saved": saved}, status_code=status_code)


async def course_page(request: Request) -> Response:
    """``/instructor/course``: the course's dates, the form to change them, their changes."""
    auth.require_grader(request)
    return await run_in_threadpool(_page, request, None,
                                   request.query_params.get("did") == "saved")


async def course_form(request: Request) -> Response:
    """The page's form: every field of it is set (only those that changed are logged)."""
    form = await instructor_form(request)
    fields = {key: form.get(key) for key in course_dates.FIELDS if key in form}
    # A time the inputs show as it was shown is left as it is: they show it to the minute,
    # in the course's zone, so read back it would lose its seconds (23:59:59 -> 23:59) or,
    # in the hour that a zone lives twice, become the other 02:30.
    zone = request.app.state.settings.zone
    now = course_dates.read(request.app.state.store).deadlines
    unchanged = {key for key, moment in ((course_dates.DEADLINE, now.deadline),
                                         (course_dates.LATE_DEADLINE, now.late_deadline))
                 if moment is not None and fields.get(key) == local_input(moment, zone)}
    try:
        wanted = course_dates.parse_fields({key: value for key, value in fields.items()
                                            if key not in unchanged}, zone)
        changed = await run_in_threadpool(course_dates.change, request.app.state.store,
                                          wanted, who=INSTRUCTOR)
    except course_dates.DatesError as problem:
        return await run_in_threadpool(_page, request, str(problem), False, 400, fields)
    if changed:                                       # the LMS's grades follow the dates
        log.info("the instructor changed the course's %s", ", ".join(changed))
        await run_in_threadpool(lti.grades_changed, request.app.state.store)
    return RedirectResponse(f"{path_for(request, 'instructor_course_dates')}?did=saved",
                            status_code=303)


routes = [
    Route("/instructor/course", course_page, methods=["GET"], name="instructor_course_dates"),
    Route("/instructor/course", course_form, methods=["POST"],
          name="instructor_course_dates_save"),
    Route("/api/course", api_course, methods=["GET"], name="api_course"),
    Route("/api/course", api_change_course, methods=["PUT"], name="api_change_course"),
]
