"""The instructor's configuration page: the configuration each hand-in is graded under (the
course's, or in a course of several each assignment's own), checked as ``grade --config``
checks it before it is kept and used.

    GET  /instructor/config?assignment=NAME   what it is, and a form to change it
    POST /instructor/config                   a new one (a file or the text), or refused
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from grader.assignments import get as get_assignment
from grader.classroom.state import graded_under
from grader.service.course import auth, classbook, course_assignments, record_queries
from grader.service.course.course_config import CONFIG_SETTING, save_config
from grader.service.course.storage import INSTRUCTOR
from grader.service.pages.instructor import (class_students, current_fingerprint,
                                             current_grading, forgotten_config, grading_of,
                                             upload_form, use_config)
from grader.service.pages.pages import render
from grader.suite.config import DEFAULT_CONFIG, ConfigError
from starlette.exceptions import HTTPException

log = logging.getLogger("grader.service")


async def config_page(request: Request) -> Response:
    """``/instructor/config``: the configuration in use, and a form to change it."""
    auth.require_instructor(request)
    return await run_in_threadpool(_config_response, request)


def _config_assignment(request: Request, asked: Any = None) -> Any:
    """The assignment whose configuration the page shows or saves, in a course of several
    (``?assignment=NAME`` or the form's field; its first by default); None in a course of
    one, whose configuration is the course's (as before there were several)."""
    store = request.app.state.store
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
        "assignment": assignment, "assignments": course_assignments.listing(request.app.state.store),
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
    form = await upload_form(request)
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
    state = request.app.state
    path = save_config(state.settings.data, text, name)
    if assignment is None:           # a course of one: the course's configuration
        use_config(state.queue, path)
        request.app.state.store.set_setting(CONFIG_SETTING, str(path.resolve()))
    else:                            # a course of several: that assignment's own
        with request.app.state.store.database.transaction() as db:
            course_assignments.set_own(db, assignment.name, "config_file",
                                       str(path.resolve()))
            record_queries.log_in(db, INSTRUCTOR, course_assignments.KIND, assignment.name,
                                  None, {"config_file": path.name})
    log.info("the instructor changed the configuration%s: %s",
             f" of {assignment.name}" if assignment else "", path)
    return await run_in_threadpool(_config_response, request, None, None, True, 200,
                                   assignment)



routes = [
    Route("/instructor/config", config_page, methods=["GET"], name="instructor_config"),
    Route("/instructor/config", config_save, methods=["POST"], name="instructor_config_save"),
]
