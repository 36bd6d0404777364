"""Gradebooks an LMS imports as they are: Canvas's gradebook import and Moodle's "Import
grades from CSV", one line per student with the identifier each one matches students by.

    python -m grader batch class.zip --out grades --gradebook-format canvas

Each format is a frozen dataclass that says its columns and which of them identify a
student. A group's submission gives a line to each of its submitters; a student in several
submissions gets one line, the latest (or best) of them; a row without a score (not graded)
writes no line, so the import leaves that student's grade as it is. A student the importer
could not identify (no Canvas id, no email nor ID number) is never written: they come back
as a problem to report. Nothing here grades or prints.

>>> from grader.classroom.gradebook import Row
>>> rows = [Row("12345", "graded", 80.0, 100.0, people=(Person("lovelaceada",
...                                                         canvas_id="12345"),))]
>>> book = lms_gradebook(CANVAS, rows, "Minimax (777)")
>>> book.lines[0]["ID"], book.lines[0]["Minimax (777)"]
('12345', '80')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from grader.classroom.gradebook import Row, cell
from grader.classroom.people import Person
from grader.suite import table, writers

DEFAULT_ASSIGNMENT = "Minimax"
CHOICES = ("latest", "best")      # as the submission page's gradebook (grader serve)


class LmsFormatError(ValueError):
    """An LMS gradebook cannot be written as asked (an unknown format, a bad column name)."""


@dataclass(frozen=True)
class CanvasFormat:
    """Canvas's gradebook import (Grades > Import): Student, ID, SIS User ID, SIS Login ID
    and Section, then the assignment's column, named as Canvas's export names it,
    ``Name (assignment id)``. Canvas finds a student by ID (its user id: the number in its
    download's file names, the ID column of its gradebook export), else by SIS User ID or
    SIS Login ID; a column whose name has no assignment id makes Canvas offer to create a
    new assignment."""

    name: str = "canvas"
    file_name: str = "gradebook-canvas.csv"
    columns: tuple[str, ...] = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
    identifiers: tuple[str, ...] = ("ID", "SIS User ID", "SIS Login ID")
    needs: str = ("a Canvas id (grade Canvas's download, or give its gradebook export as "
                  "--roster)")

    def cells(self, person: Person) -> dict[str, str]:
        """A student's cells before the grade: the SIS User ID is the school's id (a Canvas
        roster's, Gradescope's SID, a plain roster's id); a name is shown, never matched."""
        return {"Student": person.name, "ID": person.canvas_id, "SIS User ID": person.sid,
                "SIS Login ID": person.login_id, "Section": person.section}


@dataclass(frozen=True)
class MoodleFormat:
    """Moodle's "Import grades from CSV" (Grades > Import > CSV file): a column that
    identifies the student, mapped on import ("Map from" Email address "to" email address,
    or ID number to idnumber), and a grade column mapped to the assignment's grade item."""

    name: str = "moodle"
    file_name: str = "gradebook-moodle.csv"
    columns: tuple[str, ...] = ("Full name", "Email address", "ID number")
    identifiers: tuple[str, ...] = ("Email address", "ID number")
    needs: str = ("an email address or ID number (Gradescope's metadata has them; else give "
                  "--roster, e.g. Moodle's grade export)")

    def cells(self, person: Person) -> dict[str, str]:
        """A student's cells before the grade."""
        return {"Full name": person.name, "Email address": person.email,
                "ID number": person.sid}


CANVAS = CanvasFormat()
MOODLE = MoodleFormat()
FORMATS = {format.name: format for format in (CANVAS, MOODLE)}
LmsFormat = CanvasFormat | MoodleFormat


def lms_format(name: str) -> LmsFormat:
    """The format called ``name``; LmsFormatError when there is none.

    >>> lms_format("Moodle").file_name
    'gradebook-moodle.csv'
    """
    try:
        return FORMATS[name.strip().casefold()]
    except KeyError:
        raise LmsFormatError(f"no gradebook format {name!r}: choose "
                             + " or ".join(FORMATS)) from None


@dataclass(frozen=True)
class LmsGradebook:
    """One LMS's gradebook: its lines (column -> cell), the columns, and who was left out."""

    format: LmsFormat
    header: tuple[str, ...]
    lines: tuple[dict[str, str], ...]
    unidentified: tuple[str, ...] = ()   # student ids of rows with a score but no identifier
    not_graded: int = 0                  # rows without a score (no line: the LMS keeps its own)

    def csv(self) -> str:
        """The CSV text (UTF-8 with a BOM, which both importers accept; cells safe from
        being read as formulas)."""
        return table.csv_text(list(self.header), self.lines)


def check_assignment(assignment: str) -> str:
    """``assignment`` as a column name; LmsFormatError when it cannot be one.

    >>> check_assignment("  Minimax (12345) ")
    'Minimax (12345)'
    """
    name = assignment.strip()
    if not name or any(char in name for char in "\r\n") or name[:1] in "=+-@":
        raise LmsFormatError(f"the assignment's column name {assignment!r} must be one "
                             "line of text, not starting with = + - or @ (e.g. "
                             "'Minimax (12345)')")
    return name


def default_column(assignment: str) -> str:
    """An assignment's grade column when none is named: "Minimax" for the minimax (as it
    always was), the title of any other.

    >>> default_column("minimax"), default_column("montecarlo")
    ('Minimax', 'Monte Carlo Tic-Tac-Toe')
    """
    if assignment == "minimax":
        return DEFAULT_ASSIGNMENT
    from grader.assignments import AssignmentError, get
    try:
        return get(assignment).title
    except AssignmentError:
        return assignment


def grade_columns(values: Sequence[str], assignments: Sequence[str]) -> dict[str, str]:
    """Each of ``assignments``' grade column, from ``--assignment-name`` values: ``NAME=COLUMN``
    names assignment NAME's column, a bare ``COLUMN`` the class's only assignment's (an
    assignment the class does not hold is left out); the others keep :func:`default_column`.
    LmsFormatError when a class of several is given a bare name, or two columns are one.

    >>> grade_columns(["montecarlo=Monte Carlo (77)"], ["minimax", "montecarlo"])
    {'minimax': 'Minimax', 'montecarlo': 'Monte Carlo (77)'}
    >>> grade_columns(["Minimax (12345)"], ["minimax"])
    {'minimax': 'Minimax (12345)'}
    """
    from grader.assignments import available
    known = {assignment.name for assignment in available()}
    columns = {name: default_column(name) for name in assignments}
    for value in values:
        name, equals, column = value.partition("=")
        if equals and name.strip() in known:
            if name.strip() in columns:
                columns[name.strip()] = check_assignment(column)
            continue
        if len(assignments) > 1:
            raise LmsFormatError(
                f"this class holds {len(assignments)} assignments ({', '.join(assignments)}): "
                f"name each one's grade column, e.g. --assignment-name "
                f"'{assignments[0]}={check_assignment(value)}'")
        for only in assignments:
            columns[only] = check_assignment(value)
    if len(set(columns.values())) < len(columns):
        raise LmsFormatError("two assignments cannot have one grade column: "
                             + ", ".join(f"{name}={column}" for name, column in columns.items()))
    return columns


def lms_gradebook(format: LmsFormat, rows: Sequence[Row], assignment: str = DEFAULT_ASSIGNMENT,
                  choice: str = "latest") -> LmsGradebook:
    """The gradebook ``format``'s importer reads, from the batch's ``rows``."""
    return lms_gradebook_by_assignment(format, [(assignment, rows)], choice)


def lms_gradebook_by_assignment(format: LmsFormat, books: Sequence[tuple[str, Sequence[Row]]],
                                choice: str = "latest") -> LmsGradebook:
    """One gradebook with a grade column per assignment: ``books`` holds each column's name
    and its rows (one course's students, each assignment's chosen result). A student has one
    line, with an empty cell where an assignment has no score of theirs (the importer leaves
    that grade as it is); a student with no score in any has none.

    >>> ada = (Person("Ada", canvas_id="1"),)
    >>> book = lms_gradebook_by_assignment(CANVAS, [
    ...     ("Minimax", [Row("ada", "graded", 80.0, people=ada)]),
    ...     ("Monte Carlo", [Row("ada", "not graded: no submission", people=ada)])])
    >>> book.header[-2:], book.lines[0]["Minimax"], book.lines[0]["Monte Carlo"]
    (('Minimax', 'Monte Carlo'), '80', '')
    """
    if choice not in CHOICES:
        raise LmsFormatError(f"choice must be one of {', '.join(CHOICES)}, not {choice!r}")
    columns: list[str] = []
    for name, _ in books:
        column = check_assignment(name)
        if column in format.columns or column in columns:
            raise LmsFormatError(f"the assignment cannot be called {column!r}: that is a "
                                 f"column of {format.name}'s gradebook already")
        columns.append(column)
    # identifier key -> (the first order any assignment saw it in, its cells, its grades)
    merged: dict[tuple[str, ...], tuple[int, dict[str, str], dict[str, str]]] = {}
    unidentified: list[str] = []
    not_graded = 0
    for column, (_, rows) in zip(columns, books):
        chosen, missing, skipped = _chosen_lines(format, rows, choice)
        not_graded += skipped
        unidentified += [student for student in missing if student not in unidentified]
        for key, (order, row, cells) in chosen.items():
            earlier = merged.get(key)
            first, kept, grades = earlier or (order, cells, {})
            merged[key] = (min(first, order), kept, {**grades, column: cell(row.score)})
    lines = tuple({**cells, **{column: grades.get(column, "") for column in columns}}
                  for _, cells, grades in sorted(merged.values(), key=lambda item: item[0]))
    return LmsGradebook(format, format.columns + tuple(columns), lines, tuple(unidentified),
                        not_graded)


def _chosen_lines(format: LmsFormat, rows: Sequence[Row], choice: str
                  ) -> tuple[dict[tuple[str, ...], tuple[int, Row, dict[str, str]]],
                             list[str], int]:
    """The row each identified student's grade comes from (with its order among ``rows``
    and the student's cells), the ids of graded rows nobody could be identified in, and
    how many rows had no score."""
    chosen: dict[tuple[str, ...], tuple[int, Row, dict[str, str]]] = {}
    unidentified: list[str] = []
    not_graded = 0
    for order, row in enumerate(rows):
        if row.score is None:
            not_graded += 1
            continue
        for person in row.people or (Person(),):
            cells = format.cells(person)
            key = tuple(cells[column].casefold() for column in format.identifiers)
            if not any(key):
                if row.student_id not in unidentified:
                    unidentified.append(row.student_id)
                continue
            earlier = chosen.get(key)
            if earlier is None or _better(row, order, earlier[1], earlier[0], choice):
                chosen[key] = (order, row, cells)
    return chosen, unidentified, not_graded


def _better(row: Row, order: int, other: Row, other_order: int, choice: str) -> bool:
    """Whether ``row`` replaces ``other`` for one student: the later one (by submission
    time, else by order), or with ``best`` the higher score (the later one of equal)."""
    newer = (row.submitted_at, order) > (other.submitted_at, other_order)
    if choice == "best" and row.score != other.score:
        return (row.score or 0.0) > (other.score or 0.0)
    return newer


def write_lms_gradebook(folder: Path, book: LmsGradebook) -> Path:
    """Write ``book`` beside gradebook.csv in ``folder`` (atomically); its path."""
    path = Path(folder) / book.format.file_name
    writers.write_text_atomic(path, book.csv())
    return path


def mapping_help(format: LmsFormat) -> str:
    """What to map on import, in a sentence (for --help and the closing lines).

    >>> "Email address" in mapping_help(MOODLE)
    True
    """
    if format is CANVAS or format.name == "canvas":
        return ("Canvas: Grades > Import; it matches students by ID, SIS User ID or SIS "
                "Login ID and the assignment by the id in its column's name")
    return ("Moodle: Grades > Import > CSV file; map from 'Email address' to email address "
            "(or 'ID number' to idnumber) and the grade column to the assignment")
