"""Students' own deadlines as an instructor writes them: one time in a form or the JSON API,
or a CSV ``student_id,deadline,late_deadline`` (with an optional ``assignment`` column: which
of the course's assignments each line is for; without it, the course's first). A file with a
malformed line is refused whole, naming it. An empty late deadline means the course's
late window moved with the student's deadline (course due Dec 1, late until Dec 3: an
extension to Dec 5 takes late hand-ins until Dec 7), never "no late hand-ins". A time
without a zone is read in the course's time zone; the database keeps UTC.

>>> from zoneinfo import ZoneInfo
>>> read_deadlines_csv("student_id,deadline,late_deadline\\nada,2026-12-08 23:59,\\n",
...                    ZoneInfo("Europe/Paris"))
[OwnDeadline(student='ada', deadline='2026-12-08T22:59:00.000000Z', late_deadline=None, \
assignment=None)]
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

from grader.classroom.csv_lines import MalformedLines, problems_message, read_lines
from grader.service.course.times import format_time, parse_time

COLUMNS = ("student_id", "assignment", "deadline", "late_deadline")
MAX_LINES = 10000


class DeadlineError(ValueError):
    """A deadline that cannot be read; the message names the line or field and what to write."""


def time_field(value: Any, name: str, zone: tzinfo, required: bool = False) -> str | None:
    """A time from a form, the API or a CSV cell, as the database keeps it ("" or None:
    none, unless ``required``).

    >>> from datetime import timezone
    >>> time_field("2026-12-08T23:59:00+01:00", "deadline", timezone.utc)
    '2026-12-08T22:59:00.000000Z'
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise DeadlineError(f"{name}: a time is needed, such as 2026-12-08T23:59 (the "
                                "course's time zone) or 2026-12-08T23:59:00+01:00")
        return None
    if not isinstance(value, str):
        raise DeadlineError(f"{name}: {value!r} is not a time: write it like 2026-12-08T23:59")
    try:
        return format_time(parse_time(value.strip().replace(" ", "T", 1), zone))
    except ValueError:
        raise DeadlineError(f"{name}: {value.strip()[:40]!r} is not an ISO 8601 time: write "
                            "it like 2026-12-08T23:59 (the course's time zone) or "
                            "2026-12-08T23:59:00+01:00") from None


@dataclass(frozen=True)
class OwnDeadline:
    """One line of a deadlines CSV: the student's own deadline for ``assignment`` (None: the
    file has no ``assignment`` column, so it is the course's first), times as the database
    keeps them."""

    student: str
    deadline: str
    late_deadline: str | None = None
    assignment: str | None = None


def read_deadlines_csv(text: str, zone: tzinfo, name: str = "the CSV") -> list[OwnDeadline]:
    """Each line's own deadline. DeadlineError, so that nothing is half imported: naming the
    malformed lines when any line cannot be read as the first line says (a quote left open,
    a cell over lines, a cell too many or too few), the columns this file takes when one is
    unknown, or every wrong line (up to ten).

    >>> from datetime import timezone
    >>> read_deadlines_csv("student_id,assignment,deadline\\nada,montecarlo,2026-12-08T23:59\\n",
    ...                    timezone.utc)[0].assignment
    'montecarlo'
    """
    try:
        lines = read_lines(text)
    except MalformedLines as problem:
        raise DeadlineError(problems_message(name, problem.problems, "nothing was set")) \
            from None
    header = [cell.strip().lower() for cell in lines[0].cells] if lines else []
    if "student_id" not in header or "deadline" not in header:
        raise DeadlineError(f"{name}: the first line must name the columns "
                            f"{','.join(COLUMNS)} (assignment is optional; found: "
                            f"{','.join(header) or 'nothing'})")
    unknown = [column for column in header if column and column not in COLUMNS]
    if unknown:
        raise DeadlineError(f"{name}: nothing was set: the column {unknown[0][:40]!r} is none "
                            f"this file takes; its columns are {', '.join(COLUMNS)} "
                            "(assignment is optional: without it, the course's first)")
    entries: list[OwnDeadline] = []
    problems: list[str] = []
    seen: set[tuple[str, str | None]] = set()
    for line in lines[1:]:
        if line.number > MAX_LINES:
            raise DeadlineError(f"{name}: more than {MAX_LINES} lines")
        row = dict(zip(header, (cell.strip() for cell in line.cells)))
        try:
            entry = _entry(row, zone, "assignment" in header)
            if (entry.student, entry.assignment) in seen:
                raise DeadlineError(f"{entry.student} is given twice"
                                    + (f" for {entry.assignment}" if entry.assignment else ""))
        except DeadlineError as problem:
            problems.append(f"line {line.number}: {problem}")
            continue
        seen.add((entry.student, entry.assignment))
        entries.append(entry)
    if problems:
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise DeadlineError(f"{name}: nothing was set: " + "; ".join(problems[:10]) + more)
    if not entries:
        raise DeadlineError(f"{name} has no deadlines: one line per student, "
                            "student_id,deadline,late_deadline")
    return entries


def _entry(row: dict[str, str], zone: tzinfo, by_assignment: bool) -> OwnDeadline:
    student = row.get("student_id", "")
    if not student:
        raise DeadlineError("no student_id")
    assignment = row.get("assignment", "") if by_assignment else None
    if by_assignment and not assignment:
        raise DeadlineError("no assignment (the file has an assignment column: name one "
                            "on every line)")
    deadline = time_field(row.get("deadline"), "deadline", zone, required=True)
    late = time_field(row.get("late_deadline"), "late_deadline", zone)
    assert deadline is not None
    if late is not None and late < deadline:
        raise DeadlineError("the late deadline is before the deadline")
    return OwnDeadline(student, deadline, late, assignment)
