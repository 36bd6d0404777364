"""A class's results as a gradebook: one row per submission, and its CSV.

A :class:`Row` is one submission as the gradebook sees it, read from the Gradescope
results.json its grading run wrote (or, when it was not graded, the reason why). Nothing
here grades, prints, or reads anything but those. (The summary page: ``summary``.)

>>> rows = [not_graded_row("bob", "empty folder"), Row("alice", "graded", 80.0, 100.0)]
>>> rows[0].status
'not graded: empty folder'

The columns after the scores say whose a row is: ``name``, ``sid`` and ``email`` (each
"; "-separated for a group's submitters), when it was handed in (``submitted_at``), and,
with a roster, whether its student is on it (``roster``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from grader.classroom.people import Person
from grader.judge.results import NO_ANSWER
from grader.suite import table, writers
from grader.suite.config import describe

# After table.csv_header's columns; config: the fingerprint of what the row was graded
# under (grader.suite.config.GradedUnder), so that a class graded twice shows it.
EXTRA_COLUMNS = ["late", "name", "source", "no_answer", "config", "sid", "email",
                 "submitted_at", "roster"]
# The submission page's gradebook adds the course's records: the grader's score, the late
# penalty, the instructor's adjustment and its note, and the student's own deadline. Its
# second column is then the final score (grader.service.course.records.FinalScore), called
# FINAL_SCORE as in the page's JSON, so that "score" always means the grader's.
RECORD_COLUMNS = ["score", "penalty", "adjustment", "adjustment_note", "own_deadline"]
FINAL_SCORE = "final_score"
UNRECORDED = "unrecorded"      # the config of a result from a grader that did not record it
NOT_GRADED = "not graded"
NO_SUBMISSION = "no submission"   # the reason of a roster's student who handed in nothing



@dataclass(frozen=True)
class ItemScore:
    """One rubric item of one submission."""

    name: str
    score: float
    max_score: float
    passed: bool
    state: str = ""   # "passed", "failed", or "no answer": no check failed, some got no answer

    @property
    def unanswered(self) -> bool:
        """Lost points only because calls gave no answer (not because anything was wrong)."""
        return self.state == NO_ANSWER



@dataclass(frozen=True)
class Row:
    """One submission in the gradebook: its scores, or why it has none.

    ``status`` is ``"graded"``, ``"grader error"``, ``"not run: KIND"`` (the
    submission could not be run: a syntax error, ...) or ``"not graded: WHY"``
    (the batch could not grade it: an empty folder, a duplicate id, ...; "not graded: no
    submission" is a student on the roster who handed in nothing).
    """

    student_id: str
    status: str
    score: float | None = None        # None: not graded
    max_score: float | None = None
    items: tuple[ItemScore, ...] = ()
    cpu_seconds: float | None = None  # the student's code, all calls together
    wall_seconds: float | None = None
    name: str = ""
    late: bool = False
    source: str = ""
    config: str = ""                  # the fingerprint it was graded under ("": not graded)
    config_text: str = ""             # ...in words (grader.suite.config.describe)
    people: tuple[Person, ...] = ()   # whose it is (a group's submitters), as far as known
    submitted_at: str = ""            # ISO 8601, when the export tells
    roster: str = ""                  # with a roster: whether its student is on it
    records: dict[str, Any] | None = None   # RECORD_COLUMNS' cells, on the page's gradebook
    assignment: str = ""              # the assignment it is for ("": none could be told)

    @property
    def missing(self) -> bool:
        """A student on the roster who handed in nothing (whatever score was given)."""
        return self.status == f"{NOT_GRADED}: {NO_SUBMISSION}"

    @property
    def ran(self) -> bool:
        """Graded, and the submission could be run (so its items say something)."""
        return (self.score is not None and not self.status.startswith("not run")
                and not self.status.startswith(NOT_GRADED))



def row_from_results(student_id: str, data: dict[str, Any], name: str = "",
                     late: bool = False, source: str = "", people: tuple[Person, ...] = (),
                     submitted_at: str = "", roster: str = "", assignment: str = "") -> Row:
    """The row of a submission from its Gradescope results.json (``grade --json``).

    >>> data = {"score": 15.0, "tests": [{"name": "scores", "score": 15.0,
    ...         "max_score": 20.0, "status": "failed"}], "extra_data": {}}
    >>> row_from_results("alice", data).items[0]
    ItemScore(name='scores', score=15.0, max_score=20.0, passed=False, state='failed')
    """
    tests = [test for test in data.get("tests", []) if isinstance(test, dict)]
    items = tuple(ItemScore(str(test.get("name", f"test {number}")),
                            _number(test.get("score")) or 0.0,
                            _number(test.get("max_score")) or 0.0,
                            test.get("status") == "passed", _state(test))
                  for number, test in enumerate(tests, 1))
    extra: dict[str, Any] = data.get("extra_data") or {}
    if not isinstance(extra, dict):
        extra = {}
    max_score = _number(extra.get("max_score"))
    if max_score is None:
        max_score = round(sum(item.max_score for item in items), 2)
    if extra.get("grader_error"):
        status = "grader error"
    elif extra.get("load_error"):
        status = f"not run: {extra.get('load_kind') or 'error'}"
    else:
        status = "graded"
    wall = _number(extra.get("wall_seconds"))
    recorded = extra.get("configuration")
    fingerprint = recorded.get("fingerprint") if isinstance(recorded, dict) else None
    return Row(student_id, status, _number(data.get("score")) or 0.0, max_score, items,
               _number(extra.get("student_cpu_seconds")),
               wall if wall is not None else _number(data.get("execution_time")),
               name, late, source, str(fingerprint or UNRECORDED),
               describe(recorded if isinstance(recorded, dict) else None),
               people, submitted_at, roster, assignment=assignment)



def _state(test: dict[str, Any]) -> str:
    extra = test.get("extra_data")
    state = extra.get("state") if isinstance(extra, dict) else None
    if state in ("passed", "failed", NO_ANSWER):
        return state
    return "passed" if test.get("status") == "passed" else "failed"



def not_graded_row(student_id: str, reason: str, name: str = "", late: bool = False,
                   source: str = "", people: tuple[Person, ...] = (), submitted_at: str = "",
                   roster: str = "", assignment: str = "") -> Row:
    """The row of a submission the batch could not grade, with the reason.

    >>> not_graded_row("carol", "duplicate student id").score is None
    True
    """
    return Row(student_id, f"{NOT_GRADED}: {reason}", name=name, late=late, source=source,
               people=people, submitted_at=submitted_at, roster=roster, assignment=assignment)



def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None



def item_names(rows: Iterable[Row]) -> list[str]:
    """The rubric items of ``rows``, in the order they first appear."""
    names: list[str] = []
    for row in rows:
        for item in row.items:
            if item.name not in names:
                names.append(item.name)
    return names



def gradebook_columns(names: Sequence[str], records: bool = False) -> list[str]:
    """``grade --csv``'s columns (table.csv_header), then late, name, source, the
    items on which no call gave an answer (nothing judged, no points: "no_answer"), the
    fingerprint of the configuration and grader version it was graded under, and whose
    it is: SIDs, emails, when it was handed in and whether its student is on the roster.

    >>> gradebook_columns(["scores"])[-10:]
    ['wall_seconds', 'late', 'name', 'source', 'no_answer', 'config', 'sid', 'email', \
'submitted_at', 'roster']
    """
    for name in names:
        if name in EXTRA_COLUMNS + RECORD_COLUMNS + [FINAL_SCORE]:
            raise ValueError(f"a rubric item cannot be called {name!r}: that is a CSV column")
    columns = table.csv_header(list(names)) + EXTRA_COLUMNS
    if not records:
        return columns
    return [FINAL_SCORE if column == "score" else column for column in columns] + RECORD_COLUMNS



def gradebook_csv(rows: Sequence[Row], records: bool = False) -> str:
    """The gradebook as CSV text: one row per submission; empty cells when not graded
    (``records``: the course's records' columns too, RECORD_COLUMNS, and the rows' scores,
    final ones, under FINAL_SCORE).

    UTF-8 with a byte-order mark (what Excel needs to read accents), and every text cell safe
    from being read as a formula (see ``table.safe_cell``).
    """
    names = item_names(rows)
    lines = []
    for row in rows:
        line: dict[str, Any] = {
            "student_id": row.student_id,
            "score": cell(row.score),
            "max_score": cell(row.max_score),
            "status": row.status,
            "cpu_seconds": cell(row.cpu_seconds),
            "wall_seconds": cell(row.wall_seconds),
            "late": "late" if row.late else "",
            "name": row.name,
            "source": row.source,
            "no_answer": "; ".join(item.name for item in row.items if item.unanswered),
            "config": row.config,
            "sid": "; ".join(person.sid for person in row.people if person.sid),
            "email": "; ".join(person.email for person in row.people if person.email),
            "submitted_at": row.submitted_at,
            "roster": row.roster,
        }
        for item in row.items:
            line[item.name] = cell(item.score)
        if records:      # the row's score is the final one; its records hold the grader's
            line[FINAL_SCORE] = line.pop("score")
            line.update(row.records or {})
        lines.append(line)
    return table.csv_text(gradebook_columns(names, records), lines)



def cell(value: float | None) -> str:
    return "" if value is None else f"{round(value, 3):g}"



def write_gradebook(path: Path, rows: Sequence[Row]) -> None:
    """Write :func:`gradebook_csv` to ``path`` atomically (readers never see half of it)."""
    writers.write_text_atomic(path, gradebook_csv(rows))


CLASS_COLUMNS = ["student_id", "name", "sid", "email", "roster"]
ASSIGNMENT_WORDS = ["score", "max_score", "status"]   # each assignment's: "minimax score", ...
NO_ASSIGNMENT_COLUMN = "not graded"    # what of a student's is for no assignment, and why


def class_gradebook_csv(rows: Sequence[Row], assignments: Sequence[str]) -> str:
    """A class of several assignments in one table: a line per student, and for each of
    ``assignments`` its score, maximum and status, from that assignment's rows only (empty:
    nothing of theirs for it); NO_ASSIGNMENT_COLUMN says what of theirs is for none of them.

    >>> text = class_gradebook_csv([Row("ann", "graded", 80.0, 100.0, assignment="minimax"),
    ...                             Row("ann", "graded", 90.0, 100.0, assignment="montecarlo")],
    ...                            ["minimax", "montecarlo"])
    >>> text.splitlines()[1]
    'ann,,,,,80,100,graded,90,100,graded,'
    """
    lines: dict[str, dict[str, str]] = {}
    for row in rows:
        line = lines.setdefault(row.student_id, {"student_id": row.student_id})
        people = {"name": row.name, "roster": row.roster,
                  "sid": "; ".join(person.sid for person in row.people if person.sid),
                  "email": "; ".join(person.email for person in row.people if person.email)}
        for column, value in people.items():
            line[column] = line.get(column) or value
        if row.assignment in assignments:
            line.update({f"{row.assignment} score": cell(row.score),
                         f"{row.assignment} max_score": cell(row.max_score),
                         f"{row.assignment} status": row.status})
        else:
            earlier = line.get(NO_ASSIGNMENT_COLUMN)
            line[NO_ASSIGNMENT_COLUMN] = "; ".join(filter(None, [earlier, row.status]))
    columns = CLASS_COLUMNS + [f"{name} {word}" for name in assignments
                               for word in ASSIGNMENT_WORDS] + [NO_ASSIGNMENT_COLUMN]
    return table.csv_text(columns, list(lines.values()))
