"""The course's assignments in the JSON API and on the instructor's "Assignments" page
(the records: :mod:`grader.service.course.course_assignments`).

    GET  /api/assignments               {"assignments": [{"name", "title", "position", "open",
                                        "deadline", "late_deadline", "late_penalty", "choice",
                                        "own": [the settings it has of its own],
                                        "hand_ins": how many it holds}],
                                        "available": [every assignment the grader knows]}
    POST /api/assignments               {"name": "montecarlo", "title"?: "...", "open"?: true,
                                        "deadline"?: ..., ...}: add one (201, as GET lists it)
    PUT  /api/assignments/NAME          {"open"?: false, "position"?: 1, "title"?: "...",
                                        "deadline"?: ..., ...}: change it ("" or null for a
                                        date: the course's again)
    DELETE /api/assignments/NAME        take it out of the course (409 while it has
                                        hand-ins: close it instead)
    GET  /instructor/assignments        the page: the list, a form per assignment, "add"
    POST /instructor/assignments        its forms (the instructor's; CSRF as every form)

Every write does all it says or nothing: each field is read and checked first, then the
whole change is one transaction. The course staff read them; only the instructor changes
them (a Bearer token, or the session's cookie with X-CSRF-Token, and Content-Type:
application/json).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.assignments import available
from grader.service import lti
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
    or the course's), which of them are its own, and how many hand-ins it holds."""
    dates = course_dates.read(store, one.name).json()
    own = sorted(key for key in course_assignments.own_settings(store, one.name)
                 if key in course_dates.FIELDS)
    return {**one.json(), **dates, "own": own,
            "hand_ins": course_assignments.hand_ins(store, one.name)}


def listing_json(store: Store) -> dict[str, Any]:
    held = course_assignments.names(store)
    return {"assignments": [assignment_json(store, one)
                            for one in course_assignments.listing(store)],
            "available": [{"name": known.name, "title": known.title, "held": known.name in held}
                          for known in available()]}


@dataclass(frozen=True)
class Asked:
    """What a request asks of an assignment, every field read and checked before anything
    is written (:func:`asked`)."""

    opened: bool | None = None
    position: int | None = None
    title: str | None = None
    dates: dict[str, str | None] = field(default_factory=dict)


def asked(data: dict[str, Any], zone: Any, also: tuple[str, ...] = ()) -> Asked:
    """The fields of ``data`` (a JSON body or a form), read and checked; ValueError (a
    DatesError for a date) naming the first that is wrong. ``also``: fields the caller
    reads itself (``name``).

    >>> from datetime import timezone
    >>> asked({"open": False, "deadline": "2026-12-15T23:59"}, timezone.utc).dates
    {'deadline': '2026-12-15T23:59:00.000000Z'}
    """
    unknown = sorted(str(key) for key in data if key not in SHAPE + course_dates.FIELDS + also)
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
    dates = course_dates.parse_fields({key: data[key] for key in course_dates.FIELDS
                                       if key in data}, zone)
    return Asked(opened, position, title, dates)


def _write(store: Store, name: str, wanted: Asked, who: str, add: bool = False) -> None:
    """Add ``name`` (when ``add``) and change it as ``wanted`` says, all in one transaction:
    a refusal on any part (an assignment the course has already, a late deadline before
    the deadline) changes nothing."""
    with store.database.transaction() as db:
        if add:
            course_assignments.add_in(db, name, who=who, title=wanted.title,
                                      opened=wanted.opened is not False)
        course_assignments.update_in(db, name, who=who, position=wanted.position,
                                     opened=None if add else wanted.opened,
                                     title=None if add else wanted.title)
        changed = course_dates.change_in(db, wanted.dates, who=who, assignment=name) \
            if wanted.dates else []
    if changed:                                       # the LMS's grades follow the dates
        lti.grades_changed(store, assignment=name)


async def api_assignments(request: Request) -> Response:
    """``GET /api/assignments`` (the course staff)."""
    auth.require_grader(request)
    return JSONResponse(await run_in_threadpool(listing_json, request.app.state.store),
                        headers={"cache-control": "no-store"})


async def api_add_assignment(request: Request) -> Response:
    """``POST /api/assignments`` (the instructor): add one of the grader's assignments, with
    what the body says of it; 400 and nothing changed when any of it is refused."""
    api_instructor(request)
    data = await json_body(request)
    store = request.app.state.store
    name = data.get("name")
    if not isinstance(name, str) or not name:
        return JSONResponse({"error": "name: which assignment to add (GET /api/assignments "
                                      "lists the ones available)"}, 400)
    try:
        wanted = asked(data, request.app.state.settings.zone, also=("name",))
        await run_in_threadpool(_write, store, name, wanted, INSTRUCTOR, True)
    except ValueError as problem:     # AssignmentRefused and DatesError are ones
        return JSONResponse({"error": str(problem)}, 400)
    log.info("the instructor added the assignment %s", name)
    return JSONResponse(assignment_json(store, course_assignments.chosen(store, name)), 201)


async def api_change_assignment(request: Request) -> Response:
    """``PUT /api/assignments/NAME`` (the instructor); 400 and nothing changed when any
    field is refused."""
    api_instructor(request)
    data = await json_body(request)
    store = request.app.state.store
    name = request.path_params["assignment"]
    if course_assignments.find(store, name) is None:
        return JSONResponse({"error": f"this course has no assignment {name[:40]!r}"}, 404)
    try:
        wanted = asked(data, request.app.state.settings.zone, also=("name",))
        await run_in_threadpool(_write, store, name, wanted, INSTRUCTOR)
    except ValueError as problem:
        return JSONResponse({"error": str(problem)}, 400)
    return JSONResponse(assignment_json(store, course_assignments.chosen(store, name)))


async def api_remove_assignment(request: Request) -> Response:
    """``DELETE /api/assignments/NAME`` (the instructor): take it out of the course (404
    when the course has none such; 409, with the count, while it has hand-ins)."""
    api_instructor(request)
    store = request.app.state.store
    name = request.path_params["assignment"]
    try:
        gone = await run_in_threadpool(
            lambda: course_assignments.remove(store, name, who=INSTRUCTOR))
    except course_assignments.NotHeld as problem:
        return JSONResponse({"error": str(problem)}, 404)
    except course_assignments.InUse as problem:
        return JSONResponse({"error": str(problem)}, 409)
    log.info("the instructor took the assignment %s out of the course", name)
    return JSONResponse({"removed": gone.json(), **listing_json(store)})


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
    """``POST /instructor/assignments``: add one, or change one (open, close, move, dates),
    or take one out; every field is checked before anything is written."""
    form = await instructor_form(request)
    store = request.app.state.store
    zone = request.app.state.settings.zone
    action = form.get("action")
    name = form.get("name")
    name = name if isinstance(name, str) else ""
    try:
        if action == "add":
            await run_in_threadpool(_write, store, name, Asked(), INSTRUCTOR, True)
        elif action == "remove":
            await run_in_threadpool(
                lambda: course_assignments.remove(store, name, who=INSTRUCTOR))
        elif action in ("open", "close", "up", "down", "dates"):
            current = course_assignments.chosen(store, name)
            if action == "dates":
                wanted = asked({key: form.get(key) for key in course_dates.FIELDS
                                if isinstance(form.get(key), str)}, zone)
            elif action in ("up", "down"):
                wanted = Asked(position=max(1, current.position + (-1 if action == "up"
                                                                   else 1)))
            else:
                wanted = Asked(opened=action == "open")
            await run_in_threadpool(_write, store, name, wanted, INSTRUCTOR)
        else:
            raise ValueError("choose what to do: add, open, close, up, down, dates or remove")
    except ValueError as problem:     # AssignmentRefused and DatesError are ones
        return await run_in_threadpool(_page, request, str(problem), 400)
    return RedirectResponse(f"{path_for(request, 'instructor_assignments')}?did={action}",
                            status_code=303)


routes = [
    Route("/api/assignments", api_assignments, methods=["GET"], name="api_assignments"),
    Route("/api/assignments", api_add_assignment, methods=["POST"],
          name="api_add_assignment"),
    Route("/api/assignments/{assignment}", api_change_assignment, methods=["PUT"],
          name="api_change_assignment"),
    Route("/api/assignments/{assignment}", api_remove_assignment, methods=["DELETE"],
          name="api_remove_assignment"),
    Route("/instructor/assignments", assignments_page, methods=["GET"],
          name="instructor_assignments"),
    Route("/instructor/assignments", assignments_form, methods=["POST"],
          name="instructor_assignments_form"),
]
