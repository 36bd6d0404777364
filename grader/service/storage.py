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

import contextlib
import hashlib
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator

from grader.service import auth

SCHEMA_VERSION = "1"
MAX_ATTEMPTS = 2            # a grading run that fails is run once more, then "error"
MAX_RECOVERIES = 3          # starts of one submission (server restarts included) before "error"
INSTRUCTOR = "instructor"   # the student_id of the instructor's row in --links
STATUSES = ("queued", "running", "done", "error")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS students (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    token_nonce TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    revoked INTEGER NOT NULL DEFAULT 0,
    added_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    student TEXT NOT NULL REFERENCES students(id),
    received_at TEXT NOT NULL,
    filename TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    bytes BLOB NOT NULL,
    status TEXT NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'running', 'done', 'error')),
    attempts INTEGER NOT NULL DEFAULT 0,
    worker TEXT,
    started_at TEXT,
    finished_at TEXT,
    score REAL,
    max_score REAL,
    results_json TEXT,
    report_text TEXT,
    error TEXT,
    seconds REAL,
    late INTEGER NOT NULL DEFAULT 0,
    config TEXT NOT NULL DEFAULT 'default',
    regrade INTEGER NOT NULL DEFAULT 0   -- 1: queued again by the instructor; graded after hand-ins
);
CREATE INDEX IF NOT EXISTS submissions_status ON submissions (status, id);
CREATE INDEX IF NOT EXISTS submissions_student ON submissions (student, id);
"""

# What a row of submissions is, without its bytes (pages list many; the file is fetched alone).
_COLUMNS = ("id, student, received_at, filename, size, sha256, status, attempts, worker, "
            "started_at, finished_at, score, max_score, results_json, report_text, error, "
            "seconds, late, config")


def utc_now() -> str:
    """The time now as the database keeps it (ISO 8601, UTC, microseconds, sortable as text).

    >>> len(utc_now()), utc_now().endswith("Z")
    (27, True)
    """
    return format_time(datetime.now(timezone.utc))


def format_time(moment: datetime) -> str:
    """``moment`` as the database keeps times.

    >>> format_time(datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    '2026-01-02T03:04:05.000000Z'
    """
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime:
    """A time as the database keeps it (or any ISO 8601 time; naive means UTC).

    >>> parse_time("2026-01-02T03:04:05.000000Z").hour
    3
    """
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


class InFlight(Exception):
    """The student has a submission queued or running already (``row``)."""

    def __init__(self, row: "SubmissionRow") -> None:
        super().__init__(f"submission {row.id} is {row.status}")
        self.row = row


class TooMany(Exception):
    """The hourly limit is reached; ``oldest`` is the time of the submission that, an hour
    after it was received, frees a place."""

    def __init__(self, oldest: str) -> None:
        super().__init__(f"the hourly limit is reached (a place frees an hour after {oldest})")
        self.oldest = oldest


@dataclass(frozen=True)
class Student:
    """One student of the roster."""

    id: str
    name: str
    email: str
    revoked: bool


@dataclass(frozen=True)
class Identity:
    """Who a token signs in: the instructor (``student is None``) or one student."""

    role: str                 # "student" or "instructor"
    student: str | None = None

    @property
    def is_instructor(self) -> bool:
        return self.role == INSTRUCTOR


@dataclass(frozen=True)
class Link:
    """One row of ``--links``: a person and their sign-in link."""

    student_id: str
    name: str
    email: str
    link: str


@dataclass(frozen=True)
class SubmissionRow:
    """One submission as the pages and the queue see it (without its bytes)."""

    id: int
    student: str
    received_at: str
    filename: str
    size: int
    sha256: str
    status: str
    attempts: int
    worker: str | None
    started_at: str | None
    finished_at: str | None
    score: float | None
    max_score: float | None
    results_json: str | None
    report_text: str | None
    error: str | None
    seconds: float | None
    late: bool
    config: str

    @property
    def short_hash(self) -> str:
        return self.sha256[:12]

    @property
    def in_flight(self) -> bool:
        return self.status in ("queued", "running")


def _row(values: sqlite3.Row) -> SubmissionRow:
    data = dict(values)
    data["late"] = bool(data["late"])
    return SubmissionRow(**data)


class Store:
    """The course's database file (created with its schema when missing).

    ``secret`` is the course's key (DATA/secret.key): sign-in tokens are derived from it
    and a random nonce per person, and only their SHA-256 is stored, so the database
    alone signs nobody in while ``--links`` can still print every link.
    """

    def __init__(self, path: Path, secret: bytes) -> None:
        self.path = Path(path)
        self._secret = secret
        self._lock = threading.RLock()
        self._db = self._connect(check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        # Readers: one connection per thread, never behind the writer's lock (WAL lets them
        # read while a commit waits for the disk), so a page does not wait for a grader.
        self._readers = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._writing: int | None = None               # the thread inside a transaction
        with self._lock:
            self._db.executescript(_SCHEMA)
            columns = {row["name"] for row in self._db.execute("PRAGMA table_info(submissions)")}
            if "regrade" not in columns:      # a store made before regrades queued last
                self._db.execute("ALTER TABLE submissions ADD COLUMN regrade INTEGER NOT NULL "
                                 "DEFAULT 0")
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO settings VALUES ('schema', ?)", (SCHEMA_VERSION,))

    def _connect(self, check_same_thread: bool = True) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, check_same_thread=check_same_thread,
                                     isolation_level=None, timeout=30.0)
        connection.row_factory = sqlite3.Row
        connection.execute("PRAGMA synchronous=FULL")     # "received" means on the disk
        connection.execute("PRAGMA foreign_keys=ON")
        return connection

    def _reader(self) -> sqlite3.Connection:
        """This thread's connection for reading (the writer's, inside a transaction)."""
        if self._writing == threading.get_ident():
            return self._db
        connection = getattr(self._readers, "connection", None)
        if connection is None:
            connection = self._readers.connection = self._connect(check_same_thread=False)
            with self._lock:
                self._opened.append(connection)
        return connection

    def close(self) -> None:
        with self._lock:
            self._db.close()
            for connection in self._opened:
                with contextlib.suppress(sqlite3.ProgrammingError):   # another thread's
                    connection.close()

    # --- plumbing -----------------------------------------------------------------------

    class _Tx:
        def __init__(self, store: "Store") -> None:
            self.store = store

        def __enter__(self) -> sqlite3.Connection:
            self.store._lock.acquire()
            try:
                self.store._db.execute("BEGIN IMMEDIATE")
            except BaseException:
                self.store._lock.release()
                raise
            self.outer = self.store._writing
            self.store._writing = threading.get_ident()
            return self.store._db

        def __exit__(self, kind: Any, value: Any, trace: Any) -> None:
            try:
                self.store._db.execute("COMMIT" if kind is None else "ROLLBACK")
            finally:
                self.store._writing = self.outer
                self.store._lock.release()

    def _transaction(self) -> "Store._Tx":
        """``with self._transaction() as db:`` one atomic write (BEGIN IMMEDIATE)."""
        return Store._Tx(self)

    def _query(self, sql: str, parameters: Iterable[Any] = ()) -> list[sqlite3.Row]:
        return self._reader().execute(sql, tuple(parameters)).fetchall()

    def _one(self, sql: str, parameters: Iterable[Any] = ()) -> sqlite3.Row | None:
        rows = self._query(sql, parameters)
        return rows[0] if rows else None

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
        """A new instructor link (the old one stops working)."""
        nonce = auth.new_nonce()
        token = auth.derive_token(self._secret, nonce)
        with self._transaction() as db:
            for key, value in (("instructor_nonce", nonce),
                               ("instructor_token_hash", auth.hash_token(token))):
                db.execute("INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) "
                           "DO UPDATE SET value = excluded.value", (key, value))
        return token

    def upsert_students(self, entries: Iterable[tuple[str, str, str]]) -> tuple[int, int]:
        """Add or update ``(id, name, email)`` rows: (how many added, how many updated).

        A student who is already there keeps their link (and their revocation)."""
        entries = list(entries)
        if any(student_id == INSTRUCTOR for student_id, _, _ in entries):
            raise ValueError(f"a student cannot have the id {INSTRUCTOR!r} (the instructor's "
                             "row of --links): rename them in the roster")
        added = updated = 0
        with self._transaction() as db:
            for student_id, name, email in entries:
                old = db.execute("SELECT name, email FROM students WHERE id = ?",
                                 (student_id,)).fetchone()
                if old is None:
                    nonce = auth.new_nonce()
                    token_hash = auth.hash_token(auth.derive_token(self._secret, nonce))
                    db.execute("INSERT INTO students (id, name, email, token_nonce, "
                               "token_hash, added_at) VALUES (?, ?, ?, ?, ?, ?)",
                               (student_id, name, email, nonce, token_hash, utc_now()))
                    added += 1
                elif (old["name"], old["email"]) != (name, email):
                    db.execute("UPDATE students SET name = ?, email = ? WHERE id = ?",
                               (name, email, student_id))
                    updated += 1
        return added, updated

    def students(self) -> list[Student]:
        return [Student(row["id"], row["name"], row["email"], bool(row["revoked"]))
                for row in self._query("SELECT id, name, email, revoked FROM students "
                                       "ORDER BY id")]

    def student(self, student_id: str) -> Student | None:
        row = self._one("SELECT id, name, email, revoked FROM students WHERE id = ?",
                        (student_id,))
        return None if row is None else Student(row["id"], row["name"], row["email"],
                                                bool(row["revoked"]))

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
            changed = db.execute("UPDATE students SET token_nonce = ?, token_hash = ?, "
                                 "revoked = 0 WHERE id = ?",
                                 (nonce, auth.hash_token(token), student_id)).rowcount
        if not changed:
            raise LookupError(f"no student {student_id!r} in the roster")
        return token

    def set_revoked(self, student_id: str, revoked: bool = True) -> None:
        with self._transaction() as db:
            changed = db.execute("UPDATE students SET revoked = ? WHERE id = ?",
                                 (int(revoked), student_id)).rowcount
        if not changed:
            raise LookupError(f"no student {student_id!r} in the roster")

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
        return None if row is None else Identity("student", row["id"])

    # --- submissions ----------------------------------------------------------------------

    def add_submission(self, student: str, filename: str, data: bytes, *, late: bool,
                       config: str, received_at: str | None = None,
                       one_in_flight: bool = False,
                       per_hour: int | None = None) -> SubmissionRow:
        """Commit a submission (queued) and return it: after this, it is "received".

        The limits are checked in the same transaction as the insert, so two uploads at
        once cannot both pass them: InFlight when ``one_in_flight`` and one is queued or
        running (a regrade the instructor queued does not count: the student may hand in
        meanwhile); TooMany when ``per_hour`` were received in the hour before."""
        digest = hashlib.sha256(data).hexdigest()
        now = received_at or utc_now()
        with self._transaction() as db:
            if one_in_flight:
                row = db.execute(f"SELECT {_COLUMNS} FROM submissions WHERE student = ? AND "
                                 "status IN ('queued', 'running') AND regrade = 0 "
                                 "ORDER BY id LIMIT 1",
                                 (student,)).fetchone()
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
                "late, config) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (student, now, filename, len(data), digest, data, int(late), config))
            number = cursor.lastrowid
        row = self.submission(int(number))
        assert row is not None
        return row

    def submission(self, submission_id: int, student: str | None = None) -> SubmissionRow | None:
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

    def history(self, student: str) -> list[SubmissionRow]:
        """A student's submissions, newest first."""
        return [_row(row) for row in self._query(
            f"SELECT {_COLUMNS} FROM submissions WHERE student = ? ORDER BY id DESC",
            (student,))]

    def in_flight(self, student: str) -> SubmissionRow | None:
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

    def claim_next(self, worker: str, config: str | None = None) -> SubmissionRow | None:
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

    def queue(self) -> list[SubmissionRow]:
        """What is waiting or running, in the order it will be (is being) graded."""
        return [_row(row) for row in self._query(
            f"SELECT {_COLUMNS} FROM submissions WHERE status IN ('queued', 'running') "
            "ORDER BY status = 'queued', regrade, id")]

    def all_submissions(self) -> Iterator[SubmissionRow]:
        """Every submission, oldest first."""
        for row in self._query(f"SELECT {_COLUMNS} FROM submissions ORDER BY id"):
            yield _row(row)


# --- Instructor queries (roster, class, gradebook) ---
# The instructor's pages (grader.service.instructor): the class at a glance without loading
# every results.json, the results of the chosen submissions, and regrades that keep each
# earlier result. Functions over a Store (its connection and lock), kept below its class.

_INSTRUCTOR_SCHEMA = """
CREATE TABLE IF NOT EXISTS earlier_results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission INTEGER NOT NULL REFERENCES submissions(id),
    status TEXT NOT NULL,
    finished_at TEXT,
    score REAL,
    max_score REAL,
    results_json TEXT,
    report_text TEXT,
    error TEXT,
    config TEXT NOT NULL,
    replaced_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS earlier_results_submission ON earlier_results (submission, id);
CREATE TABLE IF NOT EXISTS result_facts (
    submission INTEGER PRIMARY KEY REFERENCES submissions(id),
    version TEXT NOT NULL,
    configuration TEXT,
    fingerprint TEXT,
    grader_error INTEGER NOT NULL DEFAULT 0,
    late INTEGER NOT NULL DEFAULT 0,
    config TEXT NOT NULL DEFAULT '',
    error TEXT
);
"""
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
    """One submission as the class page sees it: no bytes, no results.json, but what its
    newest result was graded under and how many results it has had (regrades included)."""

    id: int
    student: str
    received_at: str
    filename: str
    size: int
    sha256: str
    status: str
    worker: str | None
    started_at: str | None
    finished_at: str | None
    score: float | None
    max_score: float | None
    error: str | None
    late: bool
    config: str                 # the queue's label of what it was graded under
    configuration: str | None   # results.json's extra_data.configuration (JSON), if any
    fingerprint: str | None     # ...its fingerprint
    grader_error: bool
    gradings: int               # results it has had: earlier ones and the newest


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


def ensure_instructor_tables(store: Store) -> None:
    """Create the instructor's tables when missing (once per Store)."""
    with store._lock:
        if not getattr(store, "_instructor_tables", False):
            store._db.executescript(_INSTRUCTOR_SCHEMA)
            store._instructor_tables = True  # type: ignore[attr-defined]


def class_submissions(store: Store, student: str | None = None) -> list[ClassSubmission]:
    """Every submission of the class (or of ``student``), by student then oldest first."""
    ensure_instructor_tables(store)
    stale = store._one("SELECT 1 FROM submissions s LEFT JOIN result_facts f ON "
                       f"f.submission = s.id WHERE f.version IS NOT {_VERSION} LIMIT 1")
    if stale is not None:                # bring the cache up to date (a write: only then)
        _refresh_facts(store)
    where, parameters = ("WHERE s.student = ? ", (student,)) if student is not None else ("", ())
    rows = store._query(
        "SELECT s.id, s.student, s.received_at, s.filename, s.size, s.sha256, s.status, "
        "s.worker, s.started_at, s.finished_at, s.score, s.max_score, f.error, f.late, "
        "f.config, f.configuration, f.fingerprint, f.grader_error, "
        "(SELECT COUNT(*) FROM earlier_results e WHERE e.submission = s.id) AS earlier "
        "FROM submissions s JOIN result_facts f ON f.submission = s.id "
        f"{where}ORDER BY s.student, s.id", parameters)
    found = []
    for row in rows:
        data = dict(row)
        earlier = int(data.pop("earlier"))
        data["late"] = bool(data["late"])
        data["grader_error"] = bool(data["grader_error"])
        # a regrade keeps the old result in place until the new one replaces it
        data["gradings"] = earlier + (data["status"] == "done" and data["score"] is not None)
        found.append(ClassSubmission(**data))
    return found


def _refresh_facts(store: Store) -> None:
    """Read again what changed since the class page last looked (new or changed results)."""
    with store._transaction() as db:
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
        for row in store._query(f"SELECT id, results_json FROM submissions WHERE id IN ({marks}) "
                                "AND results_json IS NOT NULL", chunk):
            found[int(row["id"])] = row["results_json"]
    return found


def regrade_submissions(store: Store, submission_ids: Iterable[int]) -> list[int]:
    """Queue ``submission_ids`` to be graded again, in one transaction: each one that is
    done or in error keeps its result in earlier_results and is queued with fresh attempts
    (a new result of the same submission, not a new submission). Those queued or running
    already are left alone. The ids queued, in order."""
    ensure_instructor_tables(store)
    queued = []
    now = utc_now()
    with store._transaction() as db:
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
    ensure_instructor_tables(store)
    return [EarlierResult(int(row["submission"]), row["status"], row["finished_at"],
                          row["score"], row["max_score"], row["config"], row["replaced_at"])
            for row in store._query(
                "SELECT submission, status, finished_at, score, max_score, config, replaced_at "
                "FROM earlier_results WHERE submission = ? ORDER BY id", (submission_id,))]
