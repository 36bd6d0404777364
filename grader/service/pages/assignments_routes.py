"""The course's assignments in the JSON API and on the instructor's "Assignments" page
(the records: :mod:`grader.service.course.course_assignments`).

    GET  /api/assignments               {"assignments": [{"name", "title", "position", "open",
                                        "deadline", "late_deadline", "late_penalty", "choice",
                                        "own": [the settings it has of its own]}],
                                        "available": [every assignment the grader knows]}
    POST /api/assignments               {"name": "montecarlo", "title"?: "...", "open"?: true,
                                        "deadline"?: ..., ...}: add one (201, as GET lists it)
    PUT  /api/assignments/NAME          {"open"?: false, "position"?: 1, "title"?: "...",
                                        "deadline"?: ..., ...}: change it ("" or null for a
                                        date: the course's again)
    GET  /instructor/assignments        the page: the list, a form per assignment, "add"
    POST /instructor/assignments        its forms (the instructor's; CSRF as every form)

The course staff read them; only the instructor changes them (a Bearer token, or the
session's cookie with X-CSRF-Token, and Content-Type: application/json).
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.assignments import available
from grader.service.course import auth, course_assignments, course_dates
from grader.service.course.storage import INSTRUCTOR, Store
from grader.service.course.times import parse_time
from grader.service.pages.course_dates_routes import local_input
from grader.service.pages.pages import path_for, render
from grader.service.pages.records_routes import api_instructor, instructor_form, json_body

log = logging.getLogger("grader.service")
SHAPE = ("open", "position", "title")     # what PUT changes besides the dates


def assignment_json(store: Store, one: course_assignments.CourseAssignment) -> dict[str, Any]:
    """One assignment as the API lists it: its place, whether it is open, its dates (its own
    or the course's) and which of them are its own."""
    dates = course_dates.read(store, one.name).json()
    own = sorted(key for key in course_assignments.own_settings(store, one.name)
                 if key in course_dates.FIELDS)
    return {**one.json(), **dates, "own": own}


def listing_json(store: Store) -> dict[str, Any]:
    held = course_assignments.names(store)
    return {"assignments": [assignment_json(store, one)
                            for one in course_assignments.listing(store)],
            "available": [{"name": known.name, "title": known.title, "held": known.name in held}
                          for known in available()]}


def _apply(store: Store, name: str, data: dict[str, Any], zone: Any, who: str) -> None:
    """Change ``name`` as ``data`` asks (its shape, then its dates); ValueError on a wrong
    field (nothing of the dates is changed then)."""
    unknown = sorted(str(key) for key in data if key not in SHAPE + course_dates.FIELDS
                     + ("name",))
    if unknown:
        raise ValueError(f"unknown field {unknown[0][:40]!r}: an assignment's fields are "
                         + ", ".join(SHAPE + course_dates.FIELDS))
    opened = data.get("open")
    if opened is not None and not isinstance(opened, bool):
        raise ValueError("open: true or false")
    position = data.get("position")
    if position is not None and (isinstance(position, bool) or not isinstance(position, int)
                                 or position < 1):
        raise ValueError("position: a whole number, 1 for the first")
    title = data.get("title")
    if title is not None and not isinstance(title, str):
        raise ValueError("title: a text")
    dates = {key: data[key] for key in course_dates.FIELDS if key in data}
    wanted = course_dates.parse_fields(dates, zone)
    course_assignments.update(store, name, who=who, opened=opened, position=position,
                              title=title)
    if wanted:
        course_dates.change(store, wanted, who=who, assignment=name)


async def api_assignments(request: Request) -> Response:
    """``GET /api/assignments`` (the course staff)."""
    auth.require_grader(request)
    return JSONResponse(await run_in_threadpool(listing_json, request.app.state.store),
                        headers={"cache-control": "no-store"})


async def api_add_assignment(request: Request) -> Response:
    """``POST /api/assignments`` (the instructor): add one of the grader's assignments."""
    api_instructor(request)
    data = await json_body(request)
    store = request.app.state.store
    name = data.get("name")
    if not isinstance(name, str) or not name:
        return JSONResponse({"error": "name: which assignment to add (GET /api/assignments "
                                      "lists the ones available)"}, 400)

    def add() -> dict[str, Any]:
        added = course_assignments.add(store, name, who=INSTRUCTOR,
                                       title=data.get("title") if isinstance(
                                           data.get("title"), str) else None,
                                       opened=data.get("open") is not False)
        rest = {key: value for key, value in data.items()
                if key not in ("name", "title", "open")}
        if rest:
            _apply(store, added.name, rest, request.app.state.settings.zone, INSTRUCTOR)
        return assignment_json(store, course_assignments.chosen(store, added.name))

    try:
        answer = await run_in_threadpool(add)
    except (ValueError, course_dates.DatesError) as problem:   # AssignmentRefused is one
        return JSONResponse({"error": str(problem)}, 400)
    log.info("the instructor added the assignment %s", name)
    return JSONResponse(answer, 201)


async def api_change_assignment(request: Request) -> Response:
    """``PUT /api/assignments/NAME`` (the instructor)."""
    api_instructor(request)
    data = await json_body(request)
    store = request.app.state.store
    name = request.path_params["assignment"]
    if course_assignments.find(store, name) is None:
        return JSONResponse({"error": f"this course has no assignment {name[:40]!r}"}, 404)
    try:
        await run_in_threadpool(_apply, store, name, data, request.app.state.settings.zone,
                                INSTRUCTOR)
    except (ValueError, course_dates.DatesError) as problem:
        return JSONResponse({"error": str(problem)}, 400)
    return JSONResponse(assignment_json(store, course_assignments.chosen(store, name)))


def _page(request: Request, problem: str | None = None, status_code: int = 200,
          done: str | None = None) -> Response:
    store = request.app.state.store
    settings = request.app.state.settings
    context = {**listing_json(store), "problem": problem, "done": done,
               "zone": settings.zone_name,
               "local_input": lambda text: local_input(parse_time(text), settings.zone)
               if text else ""}
    return render(request, "instructor_assignments.html", context, status_code)


async def assignments_page(request: Request) -> Response:
    """``GET /instructor/assignments``: the course's assignments (the course staff)."""
    auth.require_grader(request)
    return await run_in_threadpool(_page, request, None, 200,
                                   request.query_params.get("did"))


async def assignments_form(request: Request) -> Response:
    """``POST /instructor/assignments``: add one, or change one (open, close, move, dates)."""
    form = await instructor_form(request)
    store = request.app.state.store
    zone = request.app.state.settings.zone
    action = form.get("action")
    name = form.get("name")
    name = name if isinstance(name, str) else ""
    try:
        if action == "add":
            await run_in_threadpool(lambda: course_assignments.add(store, name,
                                                                   who=INSTRUCTOR))
        elif action in ("open", "close"):
            await run_in_threadpool(_apply, store, name, {"open": action == "open"}, zone,
                                    INSTRUCTOR)
        elif action in ("up", "down"):
            current = course_assignments.chosen(store, name)
            moved = current.position - 1 if action == "up" else current.position + 1
            await run_in_threadpool(_apply, store, name, {"position": max(1, moved)}, zone,
                                    INSTRUCTOR)
        elif action == "dates":
            fields = {key: form.get(key) for key in course_dates.FIELDS
                      if isinstance(form.get(key), str)}
            await run_in_threadpool(_apply, store, name, fields, zone, INSTRUCTOR)
        else:
            raise ValueError("choose what to do: add, open, close, up, down or dates")
    except (ValueError, course_dates.DatesError) as problem:
        return await run_in_threadpool(_page, request, str(problem), 400)
    return RedirectResponse(f"{path_for(request, 'instructor_assignments')}?did={action}",
                            status_code=303)


routes = [
    Route("/api/assignments", api_assignments, methods=["GET"], name="api_assignments"),
    Route("/api/assignments", api_add_assignment, methods=["POST"],
          name="api_add_assignment"),
    Route("/api/assignments/{assignment}", api_change_assignment, methods=["PUT"],
          name="api_change_assignment"),
    Route("/instructor/assignments", assignments_page, methods=["GET"],
          name="instructor_assignments"),
    Route("/instructor/assignments", assignments_form, methods=["POST"],
          name="instructor_assignments_form"),
]
