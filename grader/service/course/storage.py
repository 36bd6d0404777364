"""The course's database: settings, students, sign-in tokens (hashed) and submissions.

The only module that speaks SQL. SQLite through the standard library, in WAL mode, one
connection shared by the web server's and the grading threads under a lock (every query
here takes well under a millisecond). A submission's bytes, hash, time and student are
committed (and synced) before :meth:`Store.add_submission` returns: what the page calls
"received" survives a SIGKILL.

    store = Store(Path("ttt-course/course.sqlite3"), secret=b"...")
    store.upsert_students([("alice", "Alice A.", "alice@example.org")])
    row = store.add_submission("alice", "mm_player.py", b"...", late=False, config="default")
    claimed = store.claim_next("grade_0")      # the oldest queued one, now running
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from grader.service.course import auth
from grader.service.course.database import Database
from grader.service.course.rows import (_STUDENT_COLUMNS, GRADER, INSTRUCTOR,  # noqa: F401
                                         Identity, InFlight, Link, Student, Submission,
                                         TooMany, _row, _student)
from grader.service.course.schema import ROSTER_FIELDS, migrate
from grader.service.course.times import format_time, parse_time, utc_now

MAX_ATTEMPTS = 2            # a grading run that fails is run once more, then "error"
MAX_RECOVERIES = 3          # starts of one submission (server restarts included) before "error"
LTI_BINDING_SETTING = "lti_binding"     # the LMS course the course is bound to (JSON)
STATUSES = ("queued", "running", "done", "error")

# What a row of submissions is, without its bytes (pages list many; the file is fetched alone).
_COLUMNS = ("id, student, received_at, filename, size, sha256, status, attempts, worker, "
            "started_at, finished_at, score, max_score, results_json, report_text, error, "
            "seconds, late, config, assignment, (SELECT COUNT(*) FROM submissions AS mine "
            "WHERE mine.student = submissions.student AND mine.assignment = "
            "submissions.assignment AND mine.id <= submissions.id) AS ordinal")


class Store:
    """The course's database file (created with its schema when missing).

    ``secret`` is the course's key (DATA/secret.key): sign-in tokens are derived from it
    and a random nonce per person, and only their SHA-256 is stored, so the database
    alone signs nobody in while ``--links`` can still print every link.
    """

    def __init__(self, path: Path, secret: bytes) -> None:
        self.path = Path(path)
        self._secret = secret
        self.database = Database(self.path)
        migrate(self.database)

    def close(self) -> None:
        self.database.close()

    def _transaction(self) -> Any:
        return self.database.transaction()

    def _query(self, sql: str, parameters: Iterable[Any] = ()) -> list[sqlite3.Row]:
        return self.database.query(sql, parameters)

    def _one(self, sql: str, parameters: Iterable[Any] = ()) -> sqlite3.Row | None:
        return self.database.one(sql, parameters)

    # --- settings -----------------------------------------------------------------------

    def get_setting(self, key: str, default: str | None = None) -> str | None:
        row = self._one("SELECT value FROM settings WHERE key = ?", (key,))
        return default if row is None else row["value"]

    def set_setting(self, key: str, value: str | None) -> None:
        """Set ``key`` (``None`` removes it)."""
        with self._transaction() as db:
            if value is None:
                db.execute("DELETE FROM settings WHERE key = ?", (key,))
            else:
                db.execute("INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) "
                           "DO UPDATE SET value = excluded.value", (key, value))

    def settings(self) -> dict[str, str]:
        return {row["key"]: row["value"] for row in self._query("SELECT * FROM settings")}

    # --- people and tokens ----------------------------------------------------------------

    def ensure_instructor(self) -> str | None:
        """Create the instructor's token on the first start: its token then, else None."""
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM settings WHERE key = 'instructor_nonce'").fetchone():
                return None
            nonce = auth.new_nonce()
            token = auth.derive_token(self._secret, nonce)
            db.execute("INSERT INTO settings VALUES ('instructor_nonce', ?)", (nonce,))
            db.execute("INSERT INTO settings VALUES ('instructor_token_hash', ?)",
                       (auth.hash_token(token),))
            db.execute("INSERT OR IGNORE INTO settings VALUES ('created_at', ?)", (utc_now(),))
            return token

    def instructor_token(self) -> str:
        nonce = self.get_setting("instructor_nonce")
        if nonce is None:
            raise LookupError("the course has no instructor token yet (start the server once)")
        return auth.derive_token(self._secret, nonce)

    def renew_instructor_token(self) -> str:
        """A new instructor link (the old one and every session it opened stop working)."""
        nonce = auth.new_nonce()
        token = auth.derive_token(self._secret, nonce)
        with self._transaction() as db:
            _end_sessions(db, self.get_setting("instructor_token_hash"))
            for key, value in (("instructor_nonce", nonce),
                               ("instructor_token_hash", auth.hash_token(token))):
                db.execute("INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) "
                           "DO UPDATE SET value = excluded.value", (key, value))
        return token

    def upsert_students(self, entries: Iterable[tuple[str, str, str]],
                        fields: Mapping[str, Mapping[str, str]] | None = None
                        ) -> tuple[int, int]:
        """Add or update ``(id, name, email)`` rows: (how many added, how many updated).
        ``fields``: by student id, the roster's other identifiers it gives (names from
        schema.ROSTER_FIELDS, e.g. ``{"ada42": {"section": "B"}}``); a field not given is
        kept as it was, so that a roster without those columns loses nothing.

        A student who is already there keeps their link (and their revocation)."""
        entries = list(entries)
        fields = fields or {}
        if any(student_id == INSTRUCTOR for student_id, _, _ in entries):
            raise ValueError(f"a student cannot have the id {INSTRUCTOR!r} (the instructor's "
                             "row of --links): rename them in the roster")
        unknown = {name for given in fields.values() for name in given} - set(ROSTER_FIELDS)
        if unknown:
            raise ValueError(f"no roster field {sorted(unknown)}: the fields are "
                             + ", ".join(ROSTER_FIELDS))
        added = updated = 0
        with self._transaction() as db:
            for student_id, name, email in entries:
                given = dict(fields.get(student_id, {}))
                old = db.execute("SELECT * FROM students WHERE id = ?",
                                 (student_id,)).fetchone()
                if old is None:
                    nonce = auth.new_nonce()
                    token_hash = auth.hash_token(auth.derive_token(self._secret, nonce))
                    db.execute("INSERT INTO students (id, name, email, token_nonce, "
                               "token_hash, added_at) VALUES (?, ?, ?, ?, ?, ?)",
                               (student_id, name, email, nonce, token_hash, utc_now()))
                    added += 1
                    changed = {key: value for key, value in given.items() if value}
                else:
                    changed = {key: value for key, value in
                               {"name": name, "email": email, **given}.items()
                               if old[key] != value}
                    updated += bool(changed)
                if changed:     # the names are the table's columns (checked above)
                    db.execute("UPDATE students SET "
                               + ", ".join(f"{key} = ?" for key in changed)
                               + " WHERE id = ?", (*changed.values(), student_id))
        return added, updated

    def students(self) -> list[Student]:
        return [_student(row) for row in self._query(f"SELECT {_STUDENT_COLUMNS} FROM "
                                                     "students ORDER BY id")]

    def student(self, student_id: str) -> Student | None:
        row = self._one(f"SELECT {_STUDENT_COLUMNS} FROM students WHERE id = ?",
                        (student_id,))
        return None if row is None else _student(row)

    def student_token(self, student_id: str) -> str:
        row = self._one("SELECT token_nonce FROM students WHERE id = ?", (student_id,))
        if row is None:
            raise LookupError(f"no student {student_id!r} in the roster")
        return auth.derive_token(self._secret, row["token_nonce"])

    def renew_student_token(self, student_id: str) -> str:
        """A new link for ``student_id`` (the old one stops working; a revoked one works again)."""
        nonce = auth.new_nonce()
        token = auth.derive_token(self._secret, nonce)
        with self._transaction() as db:
            _end_sessions(db, self._token_hash_of(db, student_id))
            changed = db.execute("UPDATE students SET token_nonce = ?, token_hash = ?, "
                                 "revoked = 0 WHERE id = ?",
                                 (nonce, auth.hash_token(token), student_id)).rowcount
        if not changed:
            raise LookupError(f"no student {student_id!r} in the roster")
        return token

    def set_revoked(self, student_id: str, revoked: bool = True) -> None:
        """Revoke (or restore) a student's link; revoking ends the sessions it opened."""
        with self._transaction() as db:
            if revoked:
                _end_sessions(db, self._token_hash_of(db, student_id))
            changed = db.execute("UPDATE students SET revoked = ? WHERE id = ?",
                                 (int(revoked), student_id)).rowcount
        if not changed:
            raise LookupError(f"no student {student_id!r} in the roster")

    @staticmethod
    def _token_hash_of(db: sqlite3.Connection, student_id: str) -> str | None:
        row = db.execute("SELECT token_hash FROM students WHERE id = ?",
                         (student_id,)).fetchone()
        return None if row is None else row["token_hash"]

    def student_links(self, base_url: str) -> list[Link]:
        """Every student's sign-in link (revoked ones left out), then the instructor's."""
        base = base_url.rstrip("/")
        rows = self._query("SELECT id, name, email, token_nonce FROM students "
                           "WHERE revoked = 0 ORDER BY id")
        links = [Link(row["id"], row["name"], row["email"],
                      f"{base}/s/{auth.derive_token(self._secret, row['token_nonce'])}")
                 for row in rows]
        links.append(Link(INSTRUCTOR, "", "", f"{base}/s/{self.instructor_token()}"))
        return links

    def identify(self, token: str) -> Identity | None:
        """Who ``token`` signs in, or None (unknown, forged, renewed or revoked)."""
        if not token or len(token) > 200:
            return None
        return self.identify_hash(auth.hash_token(token))

    def identify_hash(self, token_hash: str) -> Identity | None:
        """Who the token with this SHA-256 signs in (a session keeps the hash), or None."""
        if auth.same(token_hash, self.get_setting("instructor_token_hash") or ""):
            return Identity(INSTRUCTOR)
        row = self._one("SELECT id FROM students WHERE token_hash = ? AND revoked = 0",
                        (token_hash,))
        if row is not None:
            return Identity("student", row["id"])
        staff = self._one("SELECT s.role, s.name, s.sub, s.platform, s.deployment_id, "
                          "s.context_id, p.issuer FROM lti_staff s JOIN lti_platforms p ON "
                          "p.id = s.platform WHERE s.token_hash = ? AND s.removed_at IS NULL",
                          (token_hash,))
        if staff is None or not self._bound_to(staff["platform"], staff["deployment_id"],
                                               staff["context_id"]):
            return None
        return Identity(staff["role"], None, f"{staff['name'] or 'TA'} (TA, LMS user "
                                            f"{staff['sub']} of {staff['issuer']})")

    def _bound_to(self, platform: int, deployment_id: str, context_id: str) -> bool:
        """The course is bound to this LMS course (grader.service.lti.binding's setting): a
        TA grades only while it is bound to the course they launched from."""
        text = self.get_setting(LTI_BINDING_SETTING)
        if not text:
            return False
        bound = json.loads(text)
        return (bound.get("platform"), bound.get("deployment_id"), bound.get("context_id")) \
            == (platform, deployment_id, context_id)

    # --- submissions ----------------------------------------------------------------------

    def add_submission(self, student: str, filename: str, data: bytes, *, late: bool,
                       config: str, received_at: str | None = None,
                       one_in_flight: bool = False,
                       per_hour: int | None = None,
                       assignment: str | None = None) -> Submission:
        """Commit a submission (queued) and return it: after this, it is "received".

        The limits are checked in the same transaction as the insert, so two uploads at
        once cannot both pass them: InFlight when ``one_in_flight`` and one of the same
        assignment is queued or running (a regrade the instructor queued does not count: the
        student may hand in meanwhile; nor does another assignment's hand-in); TooMany when
        ``per_hour`` were received in the hour before, all assignments together."""
        digest = hashlib.sha256(data).hexdigest()
        now = received_at or utc_now()
        with self._transaction() as db:
            if assignment is None:    # the course's first assignment
                first = db.execute("SELECT name FROM assignments ORDER BY position, name "
                                   "LIMIT 1").fetchone()
                assignment = first["name"] if first is not None else "minimax"
            if one_in_flight:
                row = db.execute(f"SELECT {_COLUMNS} FROM submissions WHERE student = ? AND "
                                 "assignment = ? AND status IN ('queued', 'running') AND "
                                 "regrade = 0 ORDER BY id LIMIT 1",
                                 (student, assignment)).fetchone()
                if row is not None:
                    raise InFlight(_row(row))
            if per_hour is not None:
                since = format_time(parse_time(now) - timedelta(hours=1))
                times = [r["received_at"] for r in db.execute(
                    "SELECT received_at FROM submissions WHERE student = ? AND received_at > ? "
                    "ORDER BY received_at", (student, since))]
                if len(times) >= per_hour:
                    raise TooMany(times[len(times) - per_hour])
            cursor = db.execute(
                "INSERT INTO submissions (student, received_at, filename, size, sha256, bytes, "
                "late, config, assignment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (student, now, filename, len(data), digest, data, int(late), config,
                 assignment))
            number = cursor.lastrowid
        row = self.submission(int(number))
        assert row is not None
        return row

    def submission(self, submission_id: int, student: str | None = None) -> Submission | None:
        """One submission; with ``student``, only if it is theirs (else None, as if missing)."""
        if student is None:
            row = self._one(f"SELECT {_COLUMNS} FROM submissions WHERE id = ?",
                            (submission_id,))
        else:
            row = self._one(f"SELECT {_COLUMNS} FROM submissions WHERE id = ? AND student = ?",
                            (submission_id, student))
        return None if row is None else _row(row)

    def submission_bytes(self, submission_id: int) -> bytes:
        row = self._one("SELECT bytes FROM submissions WHERE id = ?", (submission_id,))
        if row is None:
            raise LookupError(f"no submission {submission_id}")
        return bytes(row["bytes"])

    def history(self, student: str, assignment: str | None = None) -> list[Submission]:
        """A student's submissions (of ``assignment``, when given), newest first."""
        if assignment is None:
            return [_row(row) for row in self._query(
                f"SELECT {_COLUMNS} FROM submissions WHERE student = ? ORDER BY id DESC",
                (student,))]
        return [_row(row) for row in self._query(
            f"SELECT {_COLUMNS} FROM submissions WHERE student = ? AND assignment = ? "
            "ORDER BY id DESC", (student, assignment))]

    def in_flight(self, student: str) -> Submission | None:
        """The student's submission that is queued or running, if any."""
        row = self._one(f"SELECT {_COLUMNS} FROM submissions WHERE student = ? AND "
                        "status IN ('queued', 'running') ORDER BY id LIMIT 1", (student,))
        return None if row is None else _row(row)

    def received_since(self, student: str, since: str) -> list[str]:
        """The times of the student's submissions received at or after ``since``, oldest first."""
        return [row["received_at"] for row in self._query(
            "SELECT received_at FROM submissions WHERE student = ? AND received_at >= ? "
            "ORDER BY received_at", (student, since))]

    def queue_position(self, submission_id: int) -> int:
        """1 for the next one to be graded; 0 when it is not waiting (claim_next's order)."""
        row = self._one("SELECT COUNT(*) AS ahead FROM submissions AS s, submissions AS me "
                        "WHERE me.id = ? AND me.status = 'queued' AND s.status = 'queued' "
                        "AND (s.regrade, s.id) <= (me.regrade, me.id)", (submission_id,))
        return int(row["ahead"]) if row is not None else 0

    def counts(self) -> dict[str, int]:
        """How many submissions have each status."""
        found = {row["status"]: row["n"] for row in self._query(
            "SELECT status, COUNT(*) AS n FROM submissions GROUP BY status")}
        return {status: int(found.get(status, 0)) for status in STATUSES}

    def running_started(self) -> list[str]:
        """When each running grading run started (for an estimate of the wait)."""
        return [row["started_at"] for row in self._query(
            "SELECT started_at FROM submissions WHERE status = 'running'")]

    def recent_seconds(self, limit: int = 20) -> list[float]:
        """How long the last finished grading runs took, newest first."""
        return [float(row["seconds"]) for row in self._query(
            "SELECT seconds FROM submissions WHERE status = 'done' AND seconds IS NOT NULL "
            "ORDER BY finished_at DESC LIMIT ?", (limit,))]

    def claim_next(self, worker: str, config: str | None = None) -> Submission | None:
        """Atomically take the oldest queued submission, hand-ins before the instructor's
        regrades (a student waiting at a deadline does not wait behind the whole class): it
        is now running on ``worker`` (``config``: what it is graded under, when known)."""
        with self._transaction() as db:
            row = db.execute("SELECT id FROM submissions WHERE status = 'queued' "
                             "ORDER BY regrade, id LIMIT 1").fetchone()
            if row is None:
                return None
            db.execute("UPDATE submissions SET status = 'running', attempts = attempts + 1, "
                       "worker = ?, started_at = ?, finished_at = NULL, "
                       "config = COALESCE(?, config) WHERE id = ?",
                       (worker, utc_now(), config, row["id"]))
            number = row["id"]
        return self.submission(number)

    def set_config_label(self, submission_id: int, config: str) -> None:
        """What a claimed submission is graded under (the queue's label), for the pages."""
        with self._transaction() as db:
            db.execute("UPDATE submissions SET config = ? WHERE id = ?", (config, submission_id))

    def finish(self, submission_id: int, *, score: float | None, max_score: float | None,
               results_json: str | None, report_text: str, seconds: float,
               error: str | None = None) -> None:
        """A grading run ended with a report: the submission is done (``error``: a note)."""
        with self._transaction() as db:
            db.execute("UPDATE submissions SET status = 'done', score = ?, max_score = ?, "
                       "results_json = ?, report_text = ?, error = ?, seconds = ?, "
                       "finished_at = ? WHERE id = ? AND status = 'running'",
                       (score, max_score, results_json, report_text, error, seconds,
                        utc_now(), submission_id))

    def fail(self, submission_id: int, why: str, *, report_text: str | None = None,
             results_json: str | None = None) -> str:
        """A grading run failed: queued again if it may be retried, else "error". The status."""
        with self._transaction() as db:
            row = db.execute("SELECT attempts FROM submissions WHERE id = ?",
                             (submission_id,)).fetchone()
            status = "queued" if row is not None and row["attempts"] < MAX_ATTEMPTS else "error"
            db.execute("UPDATE submissions SET status = ?, error = ?, report_text = "
                       "COALESCE(?, report_text), results_json = COALESCE(?, results_json), "
                       "finished_at = ?, worker = NULL WHERE id = ? AND status = 'running'",
                       (status, why, report_text, results_json,
                        utc_now() if status == "error" else None, submission_id))
        return status

    def release(self, submission_id: int) -> None:
        """A run stopped because the server stops: queued again, the attempt not counted."""
        with self._transaction() as db:
            db.execute("UPDATE submissions SET status = 'queued', worker = NULL, "
                       "started_at = NULL, attempts = MAX(attempts - 1, 0) "
                       "WHERE id = ? AND status = 'running'", (submission_id,))

    def recover(self) -> int:
        """After a crash: runs left "running" are queued again (the attempt counted; after
        MAX_RECOVERIES starts, "error"). How many were queued again."""
        with self._transaction() as db:
            db.execute("UPDATE submissions SET status = 'error', worker = NULL, finished_at = ?, "
                       "error = 'the server stopped while grading it, "
                       f"{MAX_RECOVERIES} times' WHERE status = 'running' "
                       "AND attempts >= ?", (utc_now(), MAX_RECOVERIES))
            return db.execute("UPDATE submissions SET status = 'queued', worker = NULL, "
                              "started_at = NULL WHERE status = 'running'").rowcount

    def retry(self, submission_id: int) -> bool:
        """The instructor's retry of a submission in "error" (or regrade of a done one):
        queued again with fresh attempts. False when it is queued or running already."""
        with self._transaction() as db:
            return db.execute("UPDATE submissions SET status = 'queued', attempts = 0, "
                              "worker = NULL, started_at = NULL, finished_at = NULL, "
                              "error = NULL, regrade = (status = 'done') "
                              "WHERE id = ? AND status IN ('done', 'error')",
                              (submission_id,)).rowcount == 1

    def queue(self) -> list[Submission]:
        """What is waiting or running, in the order it will be (is being) graded."""
        return [_row(row) for row in self._query(
            f"SELECT {_COLUMNS} FROM submissions WHERE status IN ('queued', 'running') "
            "ORDER BY status = 'queued', regrade, id")]

    def all_submissions(self) -> Iterator[Submission]:
        """Every submission, oldest first."""
        for row in self._query(f"SELECT {_COLUMNS} FROM submissions ORDER BY id"):
            yield _row(row)


def _end_sessions(db: sqlite3.Connection, token_hash: str | None) -> None:
    """End every session a link opened (its cookie then signs nobody in, even if the link
    is restored later)."""
    if token_hash:
        db.execute("UPDATE sessions SET ended_at = ? WHERE token_hash = ? AND ended_at IS NULL",
                   (utc_now(), token_hash))
