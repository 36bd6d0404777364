"""The class's gradebooks and ``batch``'s summary, live, for the course staff.

    /api/gradebook.csv?format=plain|canvas|moodle&choice=latest|best&assignment=NAME
                                     every assignment's column(s), or one's
    /instructor/summary              batch's summary.html, live (?choice=latest|best)
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from grader.classroom import lms, summary
from grader.service.course import auth, classbook, course_assignments, course_dates
from grader.service.pages import similarity_routes
from grader.service.pages.instructor import (assignment_asked, choice_asked, class_students,
                                             current_fingerprint, grading_of)
from grader.service.pages.pages import csv_response, path_for, with_inline_styles

# The summary's advice is batch's; here the instructor regrades from the page.
BATCH_ADVICE = ("Run the batch again with <code>--regrade-changed</code> to grade every "
                "submission under one.")
SERVE_ADVICE = ('<a href="{config}">Regrade everyone</a> to grade each student\'s '
                "latest submission under the current one.")


async def gradebook_csv(request: Request) -> Response:
    """``GET /api/gradebook.csv?format=plain|canvas|moodle&choice=latest|best
    &assignment=NAME``: the class's gradebook, one line per student, with a column (Canvas,
    Moodle) or four (plain: each assignment's grader's score, penalty, adjustment and
    final score) per assignment of the course, in its order; ``assignment`` restricts it to
    one (by its name, or its title). Each value is the final score of that assignment's
    counted hand-in: its own choice (latest or best) unless ``choice`` says one for all.
    Canvas's and Moodle's column is the assignment's title (Canvas's import offers to
    create an assignment of that name; "Minimax (12345)" is its assignment 12345).

    A course of one assignment gets the files it always had: ``plain`` is ``batch``'s
    gradebook with the course's records (the rubric's items too), and there ``assignment``
    may name the LMS's grade column (Canvas matches "Minimax (12345)" to its assignment
    12345; "Minimax" by default)."""
    auth.require_grader(request)
    store = request.app.state.store
    format_name = request.query_params.get("format", classbook.PLAIN).strip().casefold()
    if format_name not in classbook.FORMATS:
        raise HTTPException(400, "format must be " + ", ".join(classbook.FORMATS)
                            + f", not {format_name[:20]!r}")
    asked_choice = request.query_params.get("choice") or None
    if asked_choice is not None and asked_choice not in classbook.CHOICES:
        raise HTTPException(400, f"choice must be latest or best, not {asked_choice[:20]!r}")
    course = course_assignments.listing(store)
    asked = request.query_params.get("assignment")
    chosen = _asked(course, asked) if asked else course
    column = None          # a course of one: ?assignment= names its grade column, as before
    if asked and not chosen:
        if len(course) > 1:
            raise HTTPException(400, f"this course has no assignment {asked[:40]!r}: name one "
                                "of its assignments, or its column ("
                                + ", ".join(f"{one.name}: {one.title!r}" for one in course)
                                + "); an assignment's column is its title, set with PUT "
                                "/api/assignments/NAME {\"title\": \"Minimax (12345)\"}")
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


def _asked(course: list[course_assignments.CourseAssignment],
           asked: str) -> list[course_assignments.CourseAssignment]:
    """The assignment ``?assignment=`` names: by its name, else by its title (its column in
    the LMS's gradebook: "Minimax (12345)" once the title is that); [] for none."""
    return [one for one in course if one.name == asked] or \
        [one for one in course if one.title == asked][:1]


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
    assignment = assignment_asked(request)
    choice = choice_asked(request, assignment.name)
    store = request.app.state.store
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



routes = [
    Route("/instructor/summary", summary_page, name="instructor_summary"),
    Route("/instructor/summary.html", summary_page, name="instructor_summary_html"),
    Route("/api/gradebook.csv", gradebook_csv, name="api_gradebook"),
]
