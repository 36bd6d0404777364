"""The instructor's queries over the course's database: the class at a glance without
loading every results.json, the results of the chosen submissions, and regrades that keep
each earlier result. Functions over a :class:`~grader.service.course.storage.Store`, through its
database's public ``query``/``transaction``.

    rows = class_submissions(store)          # every submission, by student then oldest first
    regrade_submissions(store, [3, 7])       # graded again; their results kept
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from grader.classroom.gradebook import UNRECORDED
from grader.service.course.records import FinalScore
from grader.service.course.storage import Store, Submission
from grader.service.course.times import utc_now
from grader.suite.config import describe

# The instructor's pages (grader.service.pages.instructor): the class at a glance without loading
# every results.json, the results of the chosen submissions, and regrades that keep each
# earlier result. Functions over a Store (its connection and lock), kept below its class.

# result_facts caches what the class page reads of each results.json and of the columns
# stored after it: a results.json may be 200 KB, and 300 students' histories would be half
# a gigabyte to read on every page. A row is read again when the submission's status or
# finish time (its "version") changes: claim, finish, fail, retry and regrade all change it.
_VERSION = "COALESCE(s.finished_at, '') || '|' || s.status"
# What a result recorded it was graded under (results.json's extra_data.configuration),
# read by SQLite so that the class page never parses every results.json.
_RECORDED = ("CASE WHEN json_valid(results_json) THEN "
             "json_extract(results_json, '$.extra_data.configuration') END")
_GRADER_ERROR = ("CASE WHEN json_valid(results_json) THEN "
                 "json_extract(results_json, '$.extra_data.grader_error') END")


@dataclass(frozen=True)
class ClassSubmission:
    """A submission as the class page sees it: the Store's :class:`Submission` (without the
    columns stored after its results), what its newest result recorded (read by SQLite, not
    from every results.json), and what the course's records make of it, which
    :func:`grader.service.course.classbook.with_records` adds (``final``; ``late`` by the student's
    deadline in force now, where ``submission.late`` is as judged when it was received).

    >>> done = ClassSubmission(Submission(1, "ada42", "2026-01-05T10:00:00Z", score=80.0))
    >>> done.submission.id, done.graded, done.final_score
    (1, True, 80.0)
    """

    submission: Submission
    configuration: str | None = field(default=None, repr=False)   # results.json's, as JSON
    fingerprint: str | None = None    # ...its fingerprint (None: none recorded)
    grader_error: bool = False
    gradings: int = 0                 # results it has had: earlier ones and the newest
    final: FinalScore | None = None   # the score with the course's records applied
    late: bool = False                # by the student's deadline in force now

    @property
    def graded(self) -> bool:
        """It has a result whose score counts (the grader did not fail on it)."""
        return self.submission.score is not None and not self.grader_error

    @property
    def recorded_configuration(self) -> dict[str, Any] | None:
        """What its result recorded it was graded under (None: not recorded)."""
        try:
            recorded = json.loads(self.configuration) if self.configuration else None
        except ValueError:
            return None
        return recorded if isinstance(recorded, dict) else None

    @property
    def graded_fingerprint(self) -> str:
        """The short fingerprint of what its counting result was graded under, as the
        gradebook's config column says it ("" when it has none; UNRECORDED when its result
        recorded none)."""
        if not self.graded:
            return ""
        return str(self.fingerprint or UNRECORDED)

    @property
    def graded_under(self) -> str:
        """What its result was graded under, in words ("" when it has none)."""
        return describe(self.recorded_configuration) if self.graded else ""

    @property
    def final_score(self) -> float | None:
        """The score that counts: the final one when records apply, else the grader's."""
        if self.final is not None and self.final.final is not None:
            return self.final.final
        return self.submission.score


@dataclass(frozen=True)
class EarlierResult:
    """A result a regrade replaced: kept, never shown as the student's score."""

    submission: int
    status: str
    finished_at: str | None
    score: float | None
    max_score: float | None
    config: str
    replaced_at: str


def class_submissions(store: Store, student: str | None = None,
                      assignment: str | None = None) -> list[ClassSubmission]:
    """Every submission of the class (or of ``student``; of ``assignment`` only, when
    given), by student then oldest first, each with its assignment and its ordinal (the
    student's 1st, 2nd... hand-in of that assignment)."""
    stale = store.database.one("SELECT 1 FROM submissions s LEFT JOIN result_facts f ON "
                               f"f.submission = s.id WHERE f.version IS NOT {_VERSION} LIMIT 1")
    if stale is not None:                # bring the cache up to date (a write: only then)
        _refresh_facts(store)
    asked = [(column, value) for column, value in (("student", student),
                                                    ("assignment", assignment))
             if value is not None]
    parameters = [value for _, value in asked]
    where = ("WHERE " + " AND ".join(f"{column} = ?" for column, _ in asked)) if asked else ""
    # Each submission's assignment from the index on (assignment, student, id), never from
    # the table: the column sits after the results there (added by schema step 9).
    assignments = {int(row["id"]): row["assignment"] for row in store.database.query(
        f"SELECT id, assignment FROM submissions {where}", parameters)}
    # error, late and config come from result_facts: in submissions they sit after the
    # results (reading them would read every results.json).
    rows = store.database.query(
        "SELECT s.id, s.student, s.received_at, s.filename, s.size, s.sha256, s.status, "
        "s.attempts, s.worker, s.started_at, s.finished_at, s.score, s.max_score, f.error, "
        "f.late, f.config, f.configuration, f.fingerprint, f.grader_error, "
        "(SELECT COUNT(*) FROM earlier_results e WHERE e.submission = s.id) AS earlier "
        "FROM submissions s JOIN result_facts f ON f.submission = s.id "
        f"{'WHERE s.id IN (SELECT id FROM submissions ' + where + ') ' if asked else ''}"
        "ORDER BY s.student, s.id", parameters)
    found: list[ClassSubmission] = []
    counted: dict[tuple[str, str], int] = {}
    for row in rows:
        data = dict(row)
        if int(data["id"]) not in assignments:       # handed in between the two queries
            continue
        facts = {key: data.pop(key) for key in ("configuration", "fingerprint", "grader_error",
                                                "earlier")}
        data["late"] = bool(data["late"])
        data["assignment"] = assignments[int(data["id"])]
        key = (data["student"], data["assignment"])
        counted[key] = data["ordinal"] = counted.get(key, 0) + 1
        submission = Submission(**data)
        # a regrade keeps the old result in place until the new one replaces it
        gradings = int(facts["earlier"]) + (submission.status == "done"
                                            and submission.score is not None)
        found.append(ClassSubmission(submission, facts["configuration"], facts["fingerprint"],
                                     bool(facts["grader_error"]), gradings,
                                     late=submission.late))
    return found


def _refresh_facts(store: Store) -> None:
    """Read again what changed since the class page last looked (new or changed results)."""
    with store.database.transaction() as db:
        db.execute(
            "INSERT INTO result_facts (submission, version, configuration, fingerprint, "
            f"grader_error, late, config, error) SELECT s.id, {_VERSION}, {_RECORDED}, "
            f"json_extract({_RECORDED}, '$.fingerprint'), "
            f"COALESCE({_GRADER_ERROR}, 0) IS NOT 0, s.late, s.config, s.error "
            "FROM submissions s LEFT JOIN result_facts f ON f.submission = s.id "
            f"WHERE f.version IS NOT {_VERSION} "
            "ON CONFLICT (submission) DO UPDATE SET version = excluded.version, "
            "configuration = excluded.configuration, fingerprint = excluded.fingerprint, "
            "grader_error = excluded.grader_error, "
            "late = excluded.late, config = excluded.config, error = excluded.error")


def results_of(store: Store, submission_ids: Iterable[int]) -> dict[int, str]:
    """The newest results.json text of each of ``submission_ids`` that has one."""
    ids = sorted(set(int(number) for number in submission_ids))
    found: dict[int, str] = {}
    for start in range(0, len(ids), 500):          # SQLite's limit of parameters
        chunk = ids[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        for row in store.database.query(f"SELECT id, results_json FROM submissions WHERE id IN ({marks}) "
                                "AND results_json IS NOT NULL", chunk):
            found[int(row["id"])] = row["results_json"]
    return found


def regrade_submissions(store: Store, submission_ids: Iterable[int]) -> list[int]:
    """Queue ``submission_ids`` to be graded again, in one transaction: each one that is
    done or in error keeps its result in earlier_results and is queued with fresh attempts
    (a new result of the same submission, not a new submission). Those queued or running
    already are left alone. The ids queued, in order."""
    queued = []
    now = utc_now()
    with store.database.transaction() as db:
        for number in sorted(set(int(number) for number in submission_ids)):
            row = db.execute("SELECT status, results_json FROM submissions WHERE id = ?",
                             (number,)).fetchone()
            if row is None or row["status"] not in ("done", "error"):
                continue
            if row["results_json"] is not None or row["status"] == "done":
                db.execute("INSERT INTO earlier_results (submission, status, finished_at, "
                           "score, max_score, results_json, report_text, error, config, "
                           "replaced_at) SELECT id, status, finished_at, score, max_score, "
                           "results_json, report_text, error, config, ? FROM submissions "
                           "WHERE id = ?", (now, number))
            db.execute("UPDATE submissions SET status = 'queued', attempts = 0, worker = NULL, "
                       "started_at = NULL, finished_at = NULL, error = NULL, regrade = 1 "
                       "WHERE id = ?",
                       (number,))
            queued.append(number)
    return queued


def earlier_results(store: Store, submission_id: int) -> list[EarlierResult]:
    """The results regrades replaced for one submission, oldest first."""
    return [EarlierResult(int(row["submission"]), row["status"], row["finished_at"],
                          row["score"], row["max_score"], row["config"], row["replaced_at"])
            for row in store.database.query(
                "SELECT submission, status, finished_at, score, max_score, config, replaced_at "
                "FROM earlier_results WHERE submission = ? ORDER BY id", (submission_id,))]
