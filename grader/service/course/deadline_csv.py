"""Students' own deadlines as an instructor writes them: one time in a form or the JSON API,
or a CSV ``student_id,deadline,late_deadline``. An empty late deadline means the course's
late window moved with the student's deadline (course due Dec 1, late until Dec 3: an
extension to Dec 5 takes late hand-ins until Dec 7), never "no late hand-ins". A time
without a zone is read in the course's time zone; the database keeps UTC.

>>> from zoneinfo import ZoneInfo
>>> read_deadlines_csv("student_id,deadline,late_deadline\\nada,2026-12-08 23:59,\\n",
...                    ZoneInfo("Europe/Paris"))
[('ada', '2026-12-08T22:59:00.000000Z', None)]
"""

from __future__ import annotations

import csv
import io
from datetime import tzinfo
from typing import Any

from grader.service.course.times import format_time, parse_time

COLUMNS = ("student_id", "deadline", "late_deadline")
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


def read_deadlines_csv(text: str, zone: tzinfo,
                       name: str = "the CSV") -> list[tuple[str, str, str | None]]:
    """Each line's ``(student_id, deadline, late_deadline)``; DeadlineError naming every bad
    line (up to ten) when any is wrong, so nothing is half imported."""
    reader = csv.DictReader(io.StringIO(text))
    header = [column.strip().lower() for column in reader.fieldnames or []]
    if "student_id" not in header or "deadline" not in header:
        raise DeadlineError(f"{name}: the first line must name the columns "
                            "student_id,deadline,late_deadline (found: "
                            f"{','.join(header) or 'nothing'})")
    reader.fieldnames = header
    entries, problems, seen = [], [], set()
    for line, row in enumerate(reader, start=2):
        if line > MAX_LINES:
            raise DeadlineError(f"{name}: more than {MAX_LINES} lines")
        student = (row.get("student_id") or "").strip()
        if not student and not any((value or "").strip() for value in row.values()
                                   if isinstance(value, str)):
            continue                           # an empty line
        try:
            if not student:
                raise DeadlineError("no student_id")
            if student in seen:
                raise DeadlineError(f"{student} is given twice")
            deadline = time_field(row.get("deadline"), "deadline", zone, required=True)
            late = time_field(row.get("late_deadline"), "late_deadline", zone)
            if late is not None and deadline is not None and late < deadline:
                raise DeadlineError("the late deadline is before the deadline")
        except DeadlineError as problem:
            problems.append(f"line {line}: {problem}")
            continue
        seen.add(student)
        entries.append((student, deadline, late))
    if problems:
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise DeadlineError(f"{name}: nothing was set: " + "; ".join(problems[:10]) + more)
    if not entries:
        raise DeadlineError(f"{name} has no deadlines: one line per student, "
                            "student_id,deadline,late_deadline")
    return entries
