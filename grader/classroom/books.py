"""The books a batch writes from its rows, for a class of one assignment or of several.

One assignment (every class before there were two): ``gradebook.csv`` has a row per
submission, and each LMS gradebook one grade column. Several: ``gradebook.csv`` has a line
per student with each assignment's score, maximum and status, each assignment's own
gradebook (a row per submission, its rubric items) is ``gradebook-NAME.csv``, and each LMS
gradebook has a grade column per assignment; each column and file holds only its
assignment's scores. The summary page is written with them. Nothing here grades or prints.

>>> gradebook_file("montecarlo")
'gradebook-montecarlo.csv'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from grader.classroom import gradebook, lms, summary
from grader.classroom.gradebook import Row
from grader.classroom.meant import in_order
from grader.classroom.similarity import Similarity
from grader.suite import writers


@dataclass(frozen=True)
class Books:
    """What the books are made of besides the rows: the LMS gradebooks to write, each
    assignment's grade column in them (``columns``; else ``lms.default_column``), a
    student's choice among several submissions, the similar pairs and the sentence of what
    was graded as what (for the summary)."""

    formats: tuple[lms.LmsFormat, ...] = ()
    columns: dict[str, str] = field(default_factory=dict)
    choice: str = "latest"
    similarity: Similarity | None = None
    graded_as: str = ""


def assignments_of(rows: Sequence[Row]) -> list[str]:
    """The assignments ``rows`` are for, in the course's order.

    >>> assignments_of([Row("a", "graded", assignment="montecarlo"), Row("b", "graded")])
    ['montecarlo']
    """
    return in_order([row.assignment for row in rows])


def gradebook_file(assignment: str) -> str:
    """The name of an assignment's own gradebook, beside gradebook.csv (never an LMS's)."""
    if assignment in lms.FORMATS:
        return f"gradebook-{assignment}-assignment.csv"
    return f"gradebook-{assignment}.csv"


def write_books(root: Path, rows: Sequence[Row], books: Books,
                title: str = "Class summary") -> tuple[lms.LmsGradebook, ...]:
    """Write every book of ``rows`` into ``root`` (atomically, each); the LMS gradebooks."""
    assignments = assignments_of(rows)
    if len(assignments) > 1:
        writers.write_text_atomic(root / "gradebook.csv",
                                  gradebook.class_gradebook_csv(rows, assignments))
        for assignment in assignments:
            gradebook.write_gradebook(root / gradebook_file(assignment),
                                      [row for row in rows if row.assignment == assignment])
    else:
        gradebook.write_gradebook(root / "gradebook.csv", rows)
    columns = [(books.columns.get(name) or lms.default_column(name),
                [row for row in rows if row.assignment == name]) for name in assignments]
    if len(assignments) < 2:     # one column: every row (a row for no assignment has no score)
        only = assignments[0] if assignments else "minimax"
        columns = [(books.columns.get(only) or lms.default_column(only), list(rows))]
    made = tuple(lms.lms_gradebook_by_assignment(format, columns, books.choice)
                 for format in books.formats)
    for book in made:
        lms.write_lms_gradebook(root, book)
    summary.write_summary(root / "summary.html", rows, title=title,
                          similarity=books.similarity, graded_as=books.graded_as)
    return made
