"""The instructor's "Roster and links" page: import a roster CSV (all of it, or nothing when a
line is malformed), download every sign-in link; the page also holds the students' own
deadlines' CSV form (``records_routes``) and the button for a new instructor link.

    GET  /instructor/roster          the page
    POST /instructor/roster          a roster CSV (the parser: grader.classroom.roster)
    GET  /instructor/links.csv       student_id,name,email,link for a mail merge
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

from grader.classroom.roster import RosterError, parse_roster
from grader.service.course import auth, course_assignments, storage
from grader.service.pages.instructor import base_url_of, upload_form
from grader.service.pages.pages import csv_response, render
from grader.suite import table

log = logging.getLogger("grader.service")

LINKS_COLUMNS = ["student_id", "name", "email", "link"]


def roster_page_response(request: Request, status_code: int = 200,
                         **context: Any) -> Response:
    """The page, with what ``context`` says of the last import (``outcome``, ``problem``,
    ``deadlines_outcome``, ``deadlines_problem``)."""
    store = request.app.state.store
    shown = {"outcome": None, "problem": None, "deadlines_outcome": None,
             "deadlines_problem": None, **context}
    return render(request, "instructor_roster.html", {
        **shown, "count": len(store.students()),
        "assignments": course_assignments.listing(store)}, status_code)


async def roster_page(request: Request) -> Response:
    """``/instructor/roster``: the import forms and the links CSV."""
    auth.require_instructor(request)
    return roster_page_response(request)


async def roster_import(request: Request) -> Response:
    """Add or update the students of an uploaded roster CSV: all of it, or nothing (a
    malformed line, an id twice, an id that differs from a student's only by capitals)."""
    auth.require_instructor(request)
    form = await upload_form(request)
    upload = form.get("roster")
    store = request.app.state.store
    if not isinstance(upload, UploadFile) or not upload.filename:
        return roster_page_response(request, 400,
                                    problem="no file: choose the roster's .csv file")
    name = Path(upload.filename).name[:100]
    try:
        known = {student.email.casefold(): student.id for student in store.students()
                 if student.email}        # a line without an id keeps its student's
        roster = parse_roster(await upload.read(), name, known,
                              [student.id for student in store.students()])
        outcome = await run_in_threadpool(_import, store, roster)
    except RosterError as problem:
        return roster_page_response(request, 400, problem=str(problem))
    log.info("roster %s: %d added, %d updated", name, len(outcome["added"]),
             len(outcome["updated"]))
    return roster_page_response(request, outcome=outcome, name=name)


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
    links = request.app.state.store.student_links(base_url_of(request))
    rows = [{"student_id": link.student_id, "name": link.name, "email": link.email,
             "link": link.link} for link in links]
    return csv_response(table.csv_text(LINKS_COLUMNS, rows), "links.csv")


routes = [
    Route("/instructor/roster", roster_page, methods=["GET"], name="instructor_roster"),
    Route("/instructor/roster", roster_import, methods=["POST"],
          name="instructor_roster_import"),
    Route("/instructor/links.csv", links_csv, name="instructor_links"),
]
