"""The course database's tables, and the ordered steps that bring any older file up to date.

The stored version (``settings.schema``) says which steps a file has had; opening it runs
the missing ones in order, each in its own transaction with the new version, so a course
folder from an earlier release is migrated on open and a step is never run twice. A new
table or column is a new step at the end of :data:`MIGRATIONS`; a step is never edited
once released.

    database = Database(path)
    migrate(database)        # a new file: every step; an old one: the steps it lacks
"""

from __future__ import annotations

import sqlite3
from typing import Callable

from grader.service.database import Database

# Version 1: what the first release created (its file says "1").
_FIRST = """
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
    config TEXT NOT NULL DEFAULT 'default'
);
CREATE INDEX IF NOT EXISTS submissions_status ON submissions (status, id);
CREATE INDEX IF NOT EXISTS submissions_student ON submissions (student, id);
"""

# Version 2: regrades (queued after hand-ins, earlier results kept) and the class page's
# cache of what each results.json says (a results.json may be 200 KB; the class page of
# 300 students must not read them all).
_REGRADES = """
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

# Version 3: the course's records beside the grader's results (a student's own deadline, an
# instructor's adjustment, and the log of every change to them: who, when, before, after),
# and sessions the server can end.
_RECORDS = """
CREATE TABLE IF NOT EXISTS student_deadlines (
    student TEXT PRIMARY KEY REFERENCES students(id),
    deadline TEXT NOT NULL,
    late_deadline TEXT,
    set_by TEXT NOT NULL,
    set_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS adjustments (
    submission INTEGER PRIMARY KEY REFERENCES submissions(id),
    points REAL NOT NULL,
    note TEXT NOT NULL,
    set_by TEXT NOT NULL,
    set_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    who TEXT NOT NULL,
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    before TEXT,
    after TEXT
);
CREATE INDEX IF NOT EXISTS changes_subject ON changes (kind, subject, id);
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    ended_at TEXT
);
CREATE INDEX IF NOT EXISTS sessions_token ON sessions (token_hash);
"""


def _add_regrade_column(db: sqlite3.Connection) -> None:
    # Some files at version 1 have the column already (it was added before versions were read).
    columns = {row["name"] for row in db.execute("PRAGMA table_info(submissions)")}
    if "regrade" not in columns:
        db.execute("ALTER TABLE submissions ADD COLUMN regrade INTEGER NOT NULL DEFAULT 0")


def _statements(sql: str) -> Callable[[sqlite3.Connection], None]:
    def run(db: sqlite3.Connection) -> None:
        for statement in sql.split(";"):
            if statement.strip():
                db.execute(statement)
    return run


# (version, what it adds, the step): in order, never edited once released.
MIGRATIONS: tuple[tuple[int, str, Callable[[sqlite3.Connection], None]], ...] = (
    (1, "settings, students, submissions", _statements(_FIRST)),
    (2, "regrades: the regrade column, earlier results, the class page's cache",
     lambda db: (_add_regrade_column(db), _statements(_REGRADES)(db))),
    (3, "records: students' own deadlines, adjustments, the change log, sessions",
     _statements(_RECORDS)),
)
VERSION = MIGRATIONS[-1][0]


class SchemaError(Exception):
    """The file was made by a newer release than this one (its steps are unknown here)."""


def stored_version(database: Database) -> int:
    """The version the file says it has (0: a new, empty file)."""
    exists = database.one("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                          "name = 'settings'")
    if exists is None:
        return 0
    row = database.one("SELECT value FROM settings WHERE key = 'schema'")
    return int(row["value"]) if row is not None else 1


def migrate(database: Database) -> list[int]:
    """Run the steps the file lacks, in order: the versions run (none when up to date).

    >>> import tempfile, pathlib
    >>> database = Database(pathlib.Path(tempfile.mkdtemp()) / "course.sqlite3")
    >>> migrate(database), migrate(database)
    ([1, 2, 3], [])
    """
    have = stored_version(database)
    if have > VERSION:
        raise SchemaError(f"{database.path} was made by a newer release (schema version "
                          f"{have}; this one knows up to {VERSION}): upgrade the grader "
                          "before serving this course")
    ran = []
    for version, _what, step in MIGRATIONS:
        if version <= have:
            continue
        with database.transaction() as db:
            step(db)
            db.execute("INSERT INTO settings VALUES ('schema', ?) ON CONFLICT(key) DO UPDATE "
                       "SET value = excluded.value", (str(version),))
        ran.append(version)
    return ran
