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

from grader.service.course.database import Database
from grader.service.course.times import utc_now

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

# Version 4: the course as an LTI 1.3 tool (grader.service.lti): the platforms (LMSs) and
# their deployments, each OIDC login's state and nonce, who a platform's user is on the
# roster, the LMS's courses (contexts) with their line items and members, the grade outbox
# (intent first, the call after), and the one-time hand-off of a launch to a new tab.
_LTI = """
CREATE TABLE IF NOT EXISTS lti_platforms (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    auth_login_url TEXT NOT NULL,
    auth_token_url TEXT NOT NULL,
    key_set_url TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    frame_origins TEXT NOT NULL DEFAULT '[]',
    added_at TEXT NOT NULL,
    added_by TEXT NOT NULL,
    UNIQUE (issuer, client_id)
);
CREATE TABLE IF NOT EXISTS lti_deployments (
    platform INTEGER NOT NULL REFERENCES lti_platforms(id),
    deployment_id TEXT NOT NULL,
    added_at TEXT NOT NULL,
    PRIMARY KEY (platform, deployment_id)
);
CREATE TABLE IF NOT EXISTS lti_logins (
    state_hash TEXT PRIMARY KEY,
    nonce TEXT NOT NULL,
    platform INTEGER NOT NULL REFERENCES lti_platforms(id),
    browser_hash TEXT NOT NULL,
    request TEXT NOT NULL,
    created_at TEXT NOT NULL,
    used_at TEXT
);
CREATE TABLE IF NOT EXISTS lti_users (
    platform INTEGER NOT NULL REFERENCES lti_platforms(id),
    sub TEXT NOT NULL,
    student TEXT NOT NULL REFERENCES students(id),
    linked_at TEXT NOT NULL,
    PRIMARY KEY (platform, sub)
);
CREATE INDEX IF NOT EXISTS lti_users_student ON lti_users (student);
CREATE TABLE IF NOT EXISTS lti_contexts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    platform INTEGER NOT NULL REFERENCES lti_platforms(id),
    deployment_id TEXT NOT NULL,
    context_id TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    memberships_url TEXT,
    ags_scopes TEXT NOT NULL DEFAULT '[]',
    lineitems_url TEXT,
    synced_at TEXT,
    UNIQUE (platform, deployment_id, context_id)
);
CREATE TABLE IF NOT EXISTS lti_lineitems (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    context INTEGER NOT NULL REFERENCES lti_contexts(id),
    resource_link_id TEXT NOT NULL,
    url TEXT NOT NULL,
    UNIQUE (context, url)
);
CREATE TABLE IF NOT EXISTS lti_members (
    context INTEGER NOT NULL REFERENCES lti_contexts(id),
    sub TEXT NOT NULL,
    student TEXT REFERENCES students(id),
    roles TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive', 'left')),
    seen_at TEXT NOT NULL,
    left_at TEXT,
    PRIMARY KEY (context, sub)
);
CREATE INDEX IF NOT EXISTS lti_members_student ON lti_members (student);
CREATE TABLE IF NOT EXISTS lti_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    student TEXT NOT NULL REFERENCES students(id),
    lineitem INTEGER NOT NULL REFERENCES lti_lineitems(id),
    submission INTEGER,
    score_given REAL NOT NULL,
    score_maximum REAL NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'sent', 'failed', 'superseded')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_try_at TEXT NOT NULL,
    last_error TEXT,
    created_at TEXT NOT NULL,
    sent_at TEXT
);
CREATE INDEX IF NOT EXISTS lti_outbox_due ON lti_outbox (status, next_try_at);
CREATE INDEX IF NOT EXISTS lti_outbox_target ON lti_outbox (student, lineitem, id);
CREATE TABLE IF NOT EXISTS lti_handoffs (
    code_hash TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    home TEXT NOT NULL,
    created_at TEXT NOT NULL,
    used_at TEXT
);
"""


# Version 5: a queued submission's place (status, regrade, id) and the last runs' times
# (status, finished_at, seconds) read from the index alone: a row holds the file, its
# results.json and report, and every poll of a waiting page asked for both.
_QUEUE_INDEXES = """
CREATE INDEX IF NOT EXISTS submissions_queue ON submissions (status, regrade, id);
CREATE INDEX IF NOT EXISTS submissions_done ON submissions (status, finished_at, seconds);
"""


# Version 6: who an LMS user is, made accountable (grader.service.lti.people): each link of a
# roster student to an LMS user says how it was made (SIS id or email, at a launch or a
# roster sync, or added), and the course's staff who are not its instructor (an LMS's TA,
# signed in by a launch; a random token's hash, which a session keeps as it keeps a link's).
_LTI_IDENTITY = """
CREATE TABLE IF NOT EXISTS lti_staff (
    platform INTEGER NOT NULL REFERENCES lti_platforms(id),
    sub TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('grader')),
    name TEXT NOT NULL DEFAULT '',
    token_hash TEXT NOT NULL UNIQUE,
    added_at TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    PRIMARY KEY (platform, sub)
)
"""


# Version 7: a TA is a grader under the instructor's say and the course's binding
# (grader.service.lti.staff): the LMS course of their latest launch (they grade only while the
# course is bound to it) and the instructor's removal (when, by whom: it sticks until restored).
def _add_staff_course_and_removal(db: sqlite3.Connection) -> None:
    columns = {row["name"] for row in db.execute("PRAGMA table_info(lti_staff)")}
    for column, kind in (("deployment_id", "TEXT NOT NULL DEFAULT ''"),
                         ("context_id", "TEXT NOT NULL DEFAULT ''"),
                         ("removed_at", "TEXT"), ("removed_by", "TEXT")):
        if column not in columns:
            db.execute(f"ALTER TABLE lti_staff ADD COLUMN {column} {kind}")


# Version 8: what an instructor's roster says of a student besides id, name and email (its
# SIS login id, section, SIS user id and, from a Canvas export, Canvas's numeric user id), so
# that the page's Canvas gradebook gives them back as Canvas's import reads them.
ROSTER_FIELDS = ("lms_user_id", "sis_user_id", "sis_login_id", "section")


def _add_roster_fields(db: sqlite3.Connection) -> None:
    columns = {row["name"] for row in db.execute("PRAGMA table_info(students)")}
    for column in ROSTER_FIELDS:
        if column not in columns:
            db.execute(f"ALTER TABLE students ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")


# Version 9: a course holds assignments (grader.service.course.course_assignments): each one named
# as the grader knows it (minimax, montecarlo), in the instructor's order, open or closed,
# with its own dates and configuration where it has them (else the course's); every hand-in,
# a student's own deadline and an LMS resource link name theirs. A course that graded before
# holds one: the one it graded (its "assignment" setting, else the minimax), nothing else
# changed; a course that holds none yet grades the minimax until one is added.
_ASSIGNMENTS = """
CREATE TABLE IF NOT EXISTS assignments (
    name TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    position INTEGER NOT NULL,
    open INTEGER NOT NULL DEFAULT 1,
    added_at TEXT NOT NULL,
    added_by TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS assignment_settings (
    assignment TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (assignment, key)
);
CREATE TABLE IF NOT EXISTS lti_links (
    platform INTEGER NOT NULL REFERENCES lti_platforms(id),
    deployment_id TEXT NOT NULL,
    context_id TEXT NOT NULL,
    resource_link_id TEXT NOT NULL,
    assignment TEXT NOT NULL,
    how TEXT NOT NULL,
    set_at TEXT NOT NULL,
    PRIMARY KEY (platform, deployment_id, context_id, resource_link_id)
);
CREATE TABLE IF NOT EXISTS student_deadlines_by_assignment (
    student TEXT NOT NULL REFERENCES students(id),
    assignment TEXT NOT NULL,
    deadline TEXT NOT NULL,
    late_deadline TEXT,
    set_by TEXT NOT NULL,
    set_at TEXT NOT NULL,
    PRIMARY KEY (student, assignment)
)
"""
FIRST_TITLES = {"minimax": "Mini-max Tic-Tac-Toe", "montecarlo": "Monte Carlo Tic-Tac-Toe"}


def _add_assignments(db: sqlite3.Connection) -> None:
    _statements(_ASSIGNMENTS)(db)
    row = db.execute("SELECT value FROM settings WHERE key = 'assignment'").fetchone()
    first = row["value"] if row is not None and row["value"] in FIRST_TITLES else "minimax"
    handed_in = db.execute("SELECT 1 FROM submissions LIMIT 1").fetchone() is not None
    if row is not None or handed_in:   # a course that graded: it holds what it graded
        db.execute("INSERT OR IGNORE INTO assignments VALUES (?, ?, 1, 1, ?, 'upgrade')",
                   (first, FIRST_TITLES[first], utc_now()))
    for table in ("submissions", "lti_lineitems"):
        columns = {r["name"] for r in db.execute(f"PRAGMA table_info({table})")}
        if "assignment" not in columns:
            # A constant default (SQLite's rule for ADD COLUMN): the first is one of two names.
            db.execute(f"ALTER TABLE {table} ADD COLUMN assignment TEXT NOT NULL "
                       f"DEFAULT '{first}'")
    db.execute("CREATE INDEX IF NOT EXISTS submissions_assignment ON submissions "
               "(assignment, student, id)")
    db.execute("INSERT OR IGNORE INTO student_deadlines_by_assignment SELECT student, ?, "
               "deadline, late_deadline, set_by, set_at FROM student_deadlines", (first,))
    db.execute("DROP TABLE student_deadlines")
    db.execute("ALTER TABLE student_deadlines_by_assignment RENAME TO student_deadlines")
    db.execute("DELETE FROM settings WHERE key = 'assignment'")


def _add_link_how(db: sqlite3.Connection) -> None:
    columns = {row["name"] for row in db.execute("PRAGMA table_info(lti_users)")}
    if "how" not in columns:
        db.execute("ALTER TABLE lti_users ADD COLUMN how TEXT NOT NULL DEFAULT ''")


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
    (4, "LTI 1.3: platforms, deployments, logins, users, contexts, line items, members, "
        "the grade outbox, hand-offs", _statements(_LTI)),
    (5, "indexes the queue's questions are answered from, without reading whole rows",
     _statements(_QUEUE_INDEXES)),
    (6, "LTI identity: how each LMS user was linked to a student; the LMS's TAs (lti_staff)",
     lambda db: (_add_link_how(db), _statements(_LTI_IDENTITY)(db))),
    (7, "LTI graders: the LMS course of a TA's latest launch; the instructor's removal",
     _add_staff_course_and_removal),
    (8, "the roster's identifiers of a student: Canvas's user id, SIS user and login ids, "
        "section", _add_roster_fields),
    (9, "a course of assignments: the assignments, their own settings, each hand-in's, "
        "students' own deadlines and LMS resource links by assignment", _add_assignments),
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
    ([1, 2, 3, 4, 5, 6, 7, 8, 9], [])
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
