"""The class as the instructor sees it on the page: each student's submissions, the one the
gradebook takes (latest or best), and what each result was graded under.

Nothing here speaks SQL or HTTP: the Store gives :class:`~grader.service.course.storage.Student`
and :class:`~grader.service.course.class_queries.ClassSubmission` values, a :class:`ClassStudent`
holds one student and theirs, and the gradebook rows are ``grader.classroom.gradebook`` rows,
so that the page's gradebook is the same CSV as ``batch``'s.

>>> done = ClassSubmission(Submission(1, "alice", "2026-01-05T10:00:00Z", status="done",
...                                   score=80.0))
>>> ClassStudent(storage.Student("alice", "Alice"), (done,)).chosen("best").submission.id
1
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Sequence

from grader.classroom import gradebook, lms, roster
from grader.classroom import similarity as similar
from grader.classroom.people import Person
from grader.service.course import class_queries, record_queries, storage
from grader.service.course.class_queries import ClassSubmission
from grader.service.course.intake import Deadlines
from grader.service.course.records import Adjustment, FinalScore, LatePolicy
from grader.service.course.storage import Submission  # noqa: F401 - the doctests build them
from grader.service.course.times import format_time, parse_time
from grader.suite import table, writers
from grader.suite.config import Config, ConfigError

CHOICES = ("latest", "best")
NO_SUBMISSION = gradebook.NO_SUBMISSION      # one wording for batch and the page
UNRECORDED = gradebook.UNRECORDED


@dataclass(frozen=True)
class CourseRecords:
    """What the class's numbers are computed from besides the grader's results: the course's
    deadlines, each student's own, the late policy and the instructor's adjustments.

    >>> records = CourseRecords(Deadlines(parse_time("2026-01-02T00:00:00Z")))
    >>> records.late("alice", "2026-01-02T10:00:00Z")
    True
    """

    deadlines: Deadlines = field(default_factory=Deadlines)
    own: dict[str, Deadlines] = field(default_factory=dict)
    policy: LatePolicy = field(default_factory=LatePolicy)
    adjustments: dict[int, Adjustment] = field(default_factory=dict)

    @classmethod
    def load(cls, store: storage.Store, deadlines: Deadlines = Deadlines(),
             policy: LatePolicy = LatePolicy(),
             assignment: str | None = None) -> "CourseRecords":
        """The records in ``store`` of ``assignment`` (the course's first when None), under
        its ``deadlines`` and ``policy``."""
        return cls(deadlines, record_queries.own_deadlines(store, deadlines, assignment),
                   policy, record_queries.adjustments(store))

    def deadlines_of(self, student: str) -> Deadlines:
        """The student's own deadlines, else the course's."""
        return self.own.get(student, self.deadlines)

    def late_by(self, student: str, received_at: str) -> timedelta:
        """How long after the student's deadline a hand-in came (0 or less: on time)."""
        deadline = self.deadlines_of(student).deadline
        if deadline is None:
            return timedelta(0)
        return parse_time(received_at) - deadline

    def late(self, student: str, received_at: str) -> bool:
        return self.late_by(student, received_at) > timedelta(0)

    def final(self, student: str, submission: int, received_at: str, score: float | None,
              max_score: float | None) -> FinalScore:
        """The final score of a result: the grader's, the late penalty its hand-in time
        earned by the student's deadline, the instructor's adjustment."""
        return FinalScore.compute(score, max_score, late_by=self.late_by(student, received_at),
                                  policy=self.policy,
                                  adjustment=self.adjustments.get(submission))


def with_records(handed: ClassSubmission,
                 records: CourseRecords | None = None) -> ClassSubmission:
    """``handed`` with what the course's records make of it: late by the student's own
    deadline (when one holds) and its final score; without records, as it was received.

    >>> records = CourseRecords(Deadlines(parse_time("2026-01-05T00:00:00Z")))
    >>> one = ClassSubmission(Submission(1, "a", "2026-01-05T10:00:00Z", score=9.0))
    >>> with_records(one, records).late, with_records(one).late
    (True, False)
    """
    if records is None:
        return handed
    row = handed.submission
    late = row.late
    if records.deadlines_of(row.student).deadline is not None:
        late = records.late(row.student, row.received_at)
    final = records.final(row.student, row.id, row.received_at, row.score, row.max_score)
    return dataclasses.replace(handed, late=late, final=final)


@dataclass(frozen=True)
class ClassStudent:
    """A student of the roster (:class:`~grader.service.course.storage.Student`) and their
    submissions, oldest first, as the class page sees them."""

    student: storage.Student
    submissions: tuple[ClassSubmission, ...] = ()
    own_deadline: Deadlines | None = None   # their own deadline, when they have one
    test_student: bool = False              # an LMS's fake student (Canvas's Test Student)

    @property
    def latest(self) -> ClassSubmission | None:
        """The newest submission, whatever its status."""
        return self.submissions[-1] if self.submissions else None

    def chosen(self, choice: str, current: str = "") -> ClassSubmission | None:
        """The submission the gradebook takes: the newest graded one (``latest``) or the
        highest final score (``best``; the newer of equal scores); None when none is
        graded. With ``current`` (the fingerprint new gradings use), ``best`` is chosen
        among the results graded under it when the student has any, so that a gradebook
        is never a mix of one student's old and new results.

        >>> one = ClassSubmission(Submission(1, "a", "t1", status="done", score=9.0))
        >>> two = ClassSubmission(Submission(2, "a", "t2", status="done", score=5.0))
        >>> ClassStudent(storage.Student("a"), (one, two)).chosen("best").submission.id
        1
        """
        if choice not in CHOICES:
            raise ValueError(f"choice must be one of {', '.join(CHOICES)}, not {choice!r}")
        graded = [handed for handed in self.submissions if handed.graded]
        if not graded:
            return None
        if choice == "latest":
            return graded[-1]
        if current:
            graded = [handed for handed in graded
                      if handed.graded_fingerprint == current] or graded
        return max(reversed(graded), key=lambda handed: handed.final_score or 0.0)

    @property
    def best(self) -> ClassSubmission | None:
        """The submission with the highest score (see :meth:`chosen`)."""
        return self.chosen("best")

    @property
    def status(self) -> str:
        """The newest submission's status, or "no submission"."""
        return self.latest.submission.status if self.latest else NO_SUBMISSION

    @property
    def late_count(self) -> int:
        """How many of the submissions were late."""
        return sum(handed.late for handed in self.submissions)


def class_students(store: storage.Store, records: CourseRecords | None = None,
                   assignment: str | None = None) -> list[ClassStudent]:
    """Every student of the roster with their submissions (of ``assignment`` only, when
    given; and anyone the database has submissions of but the roster lost: they are never
    hidden); with ``records`` (that assignment's), each submission's lateness and final
    score by the course's records."""
    submissions: dict[str, list[ClassSubmission]] = {}
    for handed in class_queries.class_submissions(store, assignment=assignment):
        submissions.setdefault(handed.submission.student, []).append(
            with_records(handed, records))
    own = records.own if records is not None else {}
    students = [ClassStudent(person, tuple(submissions.pop(person.id, ())), own.get(person.id),
                             roster.is_test_student(person.name))
                for person in store.students()]
    students += [ClassStudent(storage.Student(student_id), tuple(rows), own.get(student_id))
                 for student_id, rows in sorted(submissions.items())]
    return students


def gradebook_row(entry: ClassStudent, choice: str = "latest",
                  results: dict[str, Any] | None = None, current: str = "") -> gradebook.Row:
    """The student's gradebook row: the chosen submission's ``results`` (its results.json),
    read as ``batch`` reads a result. A student with nothing graded gets a row that says
    why (no submission, waiting, the grader failed), with empty scores.

    >>> data = {"score": 80.0, "tests": [], "extra_data": {"max_score": 100}}
    >>> one = ClassSubmission(Submission(1, "alice", "t", score=80.0))
    >>> row = gradebook_row(ClassStudent(storage.Student("alice", "Alice"), (one,)), "latest", data)
    >>> row.score, row.status, row.source
    (80.0, 'graded', 'submission 1')
    """
    student = entry.student
    handed = entry.chosen(choice, current)
    extra: dict[str, Any] = dict(name=student.name, people=(person_of(student),))
    if handed is not None and isinstance(results, dict):
        row = gradebook.row_from_results(student.id, results, late=handed.late,
                                         source=f"submission {handed.submission.id}",
                                         submitted_at=handed.submission.received_at, **extra)
        return dataclasses.replace(row, score=handed.final_score,
                                   records=record_cells(entry, handed))
    latest = handed or entry.latest
    if latest is None:          # an extension still shows: they may hand in until it ends
        return dataclasses.replace(gradebook.not_graded_row(student.id, NO_SUBMISSION, **extra),
                                   records=record_cells(entry, None))
    submission = latest.submission
    if handed is not None:
        reason = "its result cannot be read"
    elif submission.status == "error" or latest.grader_error:
        reason = "grader error" + (f": {submission.error}" if submission.error else "")
    else:
        # A sentence an instructor reads at a glance, as batch's statuses are.
        reason = {"queued": "waiting its turn in the queue (its report comes when it is graded)",
                  "running": "being graded now (its report comes in seconds)"}.get(
                      submission.status, f"{submission.status}, not graded yet")
    row = gradebook.not_graded_row(student.id, reason, late=latest.late,
                                   source=f"submission {submission.id}",
                                   submitted_at=submission.received_at, **extra)
    return dataclasses.replace(row, records=record_cells(entry, None))


def person_of(student: storage.Student) -> Person:
    """The student as the LMS gradebooks name them: the school's id (Canvas's "SIS User
    ID", Moodle's "ID number"), the email, and what the roster gave of Canvas's user id,
    SIS login id and section ("" where unknown: Canvas's import leaves those cells be).

    >>> person_of(storage.Student("12345", "Ada", lms_user_id="12345", section="B"))
    Person(name='Ada', sid='', email='', canvas_id='12345', login_id='', section='B')
    """
    return Person(student.name, student.school_id, student.email, student.lms_user_id,
                  student.sis_login_id, student.section)


def record_cells(entry: ClassStudent, handed: ClassSubmission | None) -> dict[str, str]:
    """The gradebook's cells of the course's records (gradebook.RECORD_COLUMNS): the
    grader's score (``score``; the row's own score is the final one), the late penalty, the
    adjustment and its note, the own deadline."""
    final = handed.final if handed is not None else None
    adjustment = final.adjustment if final is not None else None
    own = entry.own_deadline
    return {"score": gradebook.cell(handed.submission.score if handed else None),
            "penalty": _number(-final.penalty_points) if final and final.penalty_points
            else "",
            "adjustment": _number(adjustment.points) if adjustment else "",
            "adjustment_note": adjustment.note if adjustment else "",
            "own_deadline": format_time(own.deadline) if own and own.deadline else ""}


def _number(value: float) -> int | float:
    """A number for a CSV cell (numbers are never quoted as formulas; -5, not -5.0)."""
    return int(value) if float(value).is_integer() else round(value, 3)


def gradebook_rows(store: storage.Store, students: Sequence[ClassStudent],
                   choice: str = "latest", current: str = "") -> list[gradebook.Row]:
    """One gradebook row per student, in the order given (the chosen results read from
    ``store``); an LMS's test student who handed in nothing has none."""
    students = [entry for entry in students
                if not (entry.test_student and not entry.submissions)]
    chosen = [entry.chosen(choice, current) for entry in students]
    texts = class_queries.results_of(store, [handed.submission.id for handed in chosen
                                             if handed])
    rows = []
    for entry, handed in zip(students, chosen):
        results = None
        if handed is not None and handed.submission.id in texts:
            try:
                results = json.loads(texts[handed.submission.id])
            except ValueError:
                results = None
        rows.append(gradebook_row(entry, choice, results, current))
    return rows


def gradebook_csv(rows: Sequence[gradebook.Row]) -> str:
    """The gradebook as ``batch`` writes it (``grader.classroom.gradebook.gradebook_csv``:
    a BOM for Excel, formula-like cells neutralised), with the course's records' columns."""
    return gradebook.gradebook_csv(rows, records=True)


# The page's own gradebook, beside the LMS's formats (grader.classroom.lms.FORMATS).
PLAIN = "plain"
FORMATS = (PLAIN, *lms.FORMATS)


def lms_gradebook(rows: Sequence[gradebook.Row], format_name: str,
                  assignment: str = lms.DEFAULT_ASSIGNMENT) -> lms.LmsGradebook:
    """The class's final scores (the rows' scores: :func:`gradebook_row` puts the final
    score there) as Canvas's or Moodle's grade import reads them, written by the same
    writer as ``batch --gradebook-format``. Each student is identified by the roster's id
    (Canvas's "SIS User ID", Moodle's "ID number") and email, and for Canvas by what the
    roster gave besides (:func:`person_of`: its "ID", "SIS Login ID"); a student with nothing
    graded has no line, so the import leaves their grade as it is. LmsFormatError for an
    unknown format or an assignment name that cannot be a column.

    >>> data = {"score": 80.0, "tests": [], "extra_data": {"max_score": 100}}
    >>> one = ClassSubmission(Submission(1, "ada42", "t", score=80.0))
    >>> row = gradebook_row(ClassStudent(storage.Student("ada42", "Ada"), (one,)), "latest", data)
    >>> book = lms_gradebook([row], "canvas", "Minimax (777)")
    >>> book.lines[0]["SIS User ID"], book.lines[0]["Minimax (777)"]
    ('ada42', '80')
    """
    return lms.lms_gradebook(lms.lms_format(format_name), rows, assignment)


# The page's gradebook of several assignments: per assignment, these four (its name first:
# "minimax score"), the words of every submission's JSON (presentation.scores_json).
BY_ASSIGNMENT = ("score", "penalty", "adjustment", gradebook.FINAL_SCORE)
STUDENT_COLUMNS = ["student_id", "name", "email"]


def gradebook_by_assignment_csv(books: Sequence[tuple[str, Sequence[gradebook.Row]]]) -> str:
    """The class's gradebook of several assignments: one line per student, then for each
    of ``books`` (an assignment's name and its :func:`gradebook_rows`, in the course's
    order) the grader's score, the penalty, the adjustment and the final score of its
    counted hand-in (empty cells where none). UTF-8 with a BOM, cells safe from formulas.

    >>> data = {"score": 80.0, "tests": [], "extra_data": {"max_score": 100}}
    >>> one = ClassSubmission(Submission(1, "ada42", "t", score=80.0))
    >>> row = gradebook_row(ClassStudent(storage.Student("ada42", "Ada"), (one,)), "latest", data)
    >>> text = gradebook_by_assignment_csv([("minimax", [row]), ("montecarlo", [])])
    >>> text.splitlines()[0].lstrip("\ufeff")
    'student_id,name,email,minimax score,minimax penalty,minimax adjustment,minimax final_score,\
montecarlo score,montecarlo penalty,montecarlo adjustment,montecarlo final_score'
    >>> text.splitlines()[1]
    'ada42,Ada,,80,,,80,,,,'
    """
    columns = list(STUDENT_COLUMNS)
    lines: dict[str, dict[str, Any]] = {}
    for name, rows in books:
        named = [f"{name} {word}" for word in BY_ASSIGNMENT]
        columns += named
        for row in rows:
            line = lines.setdefault(row.student_id, {
                "student_id": row.student_id, "name": row.name,
                "email": "; ".join(person.email for person in row.people if person.email)})
            records = row.records or {}
            line.update(zip(named, (records.get("score", ""), records.get("penalty", ""),
                                    records.get("adjustment", ""), gradebook.cell(row.score))))
    return table.csv_text(columns, list(lines.values()))


def lms_gradebook_by_assignment(books: Sequence[tuple[str, Sequence[gradebook.Row]]],
                                format_name: str) -> lms.LmsGradebook:
    """The class's final scores of several assignments as Canvas's or Moodle's grade import
    reads them: a column per assignment (``books``: its column's name and its rows, as
    :func:`lms_gradebook` takes them), a line per student with a score in any."""
    return lms.lms_gradebook_by_assignment(lms.lms_format(format_name), books)


@dataclass(frozen=True)
class Configuration:
    """One configuration results were graded under, and how many of them."""

    fingerprint: str
    text: str
    count: int
    current: bool = False


def configurations(students: Sequence[ClassStudent], current: str = "",
                   choice: str = "latest") -> list[Configuration]:
    """The configurations the chosen results were graded under, the most used first;
    ``current`` (a fingerprint) marks the one new gradings use.

    >>> configurations([])
    []
    """
    counts: Counter[str] = Counter()
    texts: dict[str, str] = {}
    for student in students:
        handed = student.chosen(choice, current)
        if handed is None:
            continue
        counts[handed.graded_fingerprint] += 1
        texts.setdefault(handed.graded_fingerprint, handed.graded_under)
    return [Configuration(fingerprint, texts[fingerprint], count, fingerprint == current)
            for fingerprint, count in counts.most_common()]


def check_config(text: str, name: str = "config.cfg", assignment: str = "minimax") -> Config:
    """``text`` as a configuration of ``assignment``'s rubric, checked exactly as ``grade
    --config`` checks a file; raises ConfigError whose message names the file ``name`` as
    ``grade`` would.

    >>> check_config("[rubric]\\nscores = 30\\n").weights["scores"]
    30.0
    >>> try:
    ...     check_config("[rubric]\\nscroes = 30\\n", "mine.cfg")
    ... except ConfigError as problem:
    ...     print(str(problem)[:60])
    mine.cfg: [rubric] scroes: there is no rubric item of that n
    """
    safe_name = Path(name).name or "config.cfg"
    with tempfile.TemporaryDirectory(prefix="ttt-config-") as folder:
        path = Path(folder) / safe_name
        path.write_text(text, encoding="utf-8")
        try:
            return Config.load(path, assignment=assignment)
        except ConfigError as problem:
            raise ConfigError(str(problem).replace(str(path), safe_name)) from None


SIMILARITY_RESULT = "similarity.json"     # the last comparison's pairs, in its folder
SIMILARITY_ERROR = "similarity-error.txt"


def compare_class(files: Path, out: Path) -> similar.Similarity:
    """Compare every student's file in ``files`` (``ID.py``) with every other one, as
    ``batch --similarity`` does; write the CSV and side-by-side pages into ``out``, and the
    pairs into ``out/similarity.json`` (:func:`load_similarity` reads them back). Run it in
    another process: copydetect takes a while on a large class."""
    out = Path(out)
    (out / SIMILARITY_ERROR).unlink(missing_ok=True)
    try:
        submissions = {path.stem: path for path in sorted(Path(files).glob("*.py"))}
        found = similar.compare_and_write(out, submissions, similar.SimilarityOptions())
    except Exception as problem:   # the page shows why; the process exits 1
        writers.write_text_atomic(out / SIMILARITY_ERROR, f"{type(problem).__name__}: {problem}")
        raise
    kept = dataclasses.replace(found, pages=())        # the pages are files beside it
    writers.write_json_atomic(out / SIMILARITY_RESULT, dataclasses.asdict(kept))
    return found


def load_similarity(out: Path) -> similar.Similarity | None:
    """The pairs of the last :func:`compare_class` into ``out``, or None.

    >>> import tempfile
    >>> load_similarity(Path(tempfile.mkdtemp())) is None
    True
    """
    try:
        data = json.loads((Path(out) / SIMILARITY_RESULT).read_text(encoding="utf-8"))
        pairs = tuple(similar.Pair(**pair) for pair in data.pop("pairs"))
        data.pop("pages", None)
        return similar.Similarity(pairs, **{**data, "unread": tuple(data.get("unread", ()))})
    except (OSError, ValueError, TypeError, KeyError):
        return None


def similarity_problem(out: Path) -> str | None:
    """Why the last comparison into ``out`` failed, or None."""
    try:
        return (Path(out) / SIMILARITY_ERROR).read_text(encoding="utf-8")
    except OSError:
        return None
