"""The course's graders from the LMS (its TAs), and the instructor's say over them.

A launch whose roles make its person a TA (``launch.GRADER_ACCESS``), from the bound LMS
course, signs them in as a grader of their own: a row of ``lti_staff`` (platform, sub; the
LMS course of their latest launch; first and last launch; a random token's hash, which
their sessions keep). :meth:`Store.identify_hash` resolves the row to a grader only while

- the instructor has not removed it. Removing ends its sessions at once, and its next
  launch is refused with a page until the instructor restores it: "removed" sticks, whatever
  the LMS says (an instructor who removes a TA means it; a TA still enrolled in the LMS is
  the common case, not a reason to let them back);
- the course stays bound to the LMS course it launched from. Re-binding or forgetting the
  binding ends the sessions of every grader of another LMS course; a TA of the newly bound
  course becomes a grader again by launching from it;
- the LMS still says TA: a later launch with another role (Learner, Instructor), or a roster
  sync that lists them with another role or as gone from the LMS course, deletes the row
  (not a removed one: that stays the instructor's decision) and ends its sessions.

Every removal, restoration and drop is kept in the course's change log (kind "lti_staff").

    token_hash = enter(db, launch)          # in people.admit: a TA's launch
    remove(store, platform_id, "u-7", who="instructor")     # their sessions end now
    restore(store, platform_id, "u-7", who="instructor")    # their next launch signs in
    end_sessions_outside(store, platform_id, "d1", "course-7")    # binding.bind does it
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from typing import Any

from grader.service.course import auth
from grader.service.course.storage import GRADER, Store
from grader.service.course.times import format_time, now, utc_now
from grader.service.lti.errors import LaunchRefused
from grader.service.lti.launch import Launch

KIND = "lti_staff"           # the change log's kind for a grader's removal, restoration, drop


def _log(db: sqlite3.Connection, who: str, row: sqlite3.Row, before: dict[str, Any] | None,
         after: dict[str, Any] | None) -> None:
    db.execute("INSERT INTO changes (at, who, kind, subject, before, after) VALUES "
               "(?, ?, ?, ?, ?, ?)",
               (utc_now(), who, KIND, f"{row['platform']}/{row['sub']}",
                None if before is None else json.dumps(before, sort_keys=True),
                None if after is None else json.dumps(after, sort_keys=True)))


def _end_sessions(db: sqlite3.Connection, token_hash: str) -> int:
    return db.execute("UPDATE sessions SET ended_at = ? WHERE token_hash = ? AND "
                      "ended_at IS NULL", (format_time(now()), token_hash)).rowcount


def enter(db: sqlite3.Connection, launch: Launch) -> str:
    """The token hash a TA's launch signs in (their row made at their first launch; its LMS
    course, name and last launch updated). LaunchRefused when the instructor removed them.
    Call it inside the launch's transaction, after the binding's check."""
    row = db.execute("SELECT token_hash, removed_at FROM lti_staff WHERE platform = ? AND "
                     "sub = ?", (launch.platform.id, launch.sub)).fetchone()
    moment = utc_now()
    if row is not None and row["removed_at"] is not None:
        raise LaunchRefused("the instructor removed you from this course's graders, so this "
                            "page no longer signs you in as a TA. If that is a mistake, ask "
                            "the instructor to restore you (on their LTI page)")
    if row is not None:
        db.execute("UPDATE lti_staff SET name = ?, seen_at = ?, deployment_id = ?, "
                   "context_id = ? WHERE platform = ? AND sub = ?",
                   (launch.name, moment, launch.deployment_id, launch.context_id,
                    launch.platform.id, launch.sub))
        return str(row["token_hash"])
    # a random token nobody holds: the session keeps its hash, as it keeps a link's
    token_hash = auth.hash_token(secrets.token_urlsafe(32))
    db.execute("INSERT INTO lti_staff (platform, sub, role, name, token_hash, added_at, "
               "seen_at, deployment_id, context_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (launch.platform.id, launch.sub, GRADER, launch.name, token_hash, moment,
                moment, launch.deployment_id, launch.context_id))
    return token_hash


def drop(db: sqlite3.Connection, launch: Launch) -> bool:
    """A launch by someone the LMS no longer calls a TA (a Learner, an Instructor): their
    grader row goes and its sessions end (a removed row stays: the instructor's decision).
    True when there was one. Call it inside the launch's transaction."""
    return drop_user(db, launch.platform.id, launch.sub,
                     f"the LMS (a launch with the roles {' '.join(launch.roles) or 'none'})")


def drop_user(db: sqlite3.Connection, platform: int, sub: str, why: str) -> bool:
    """The LMS says (platform, sub) is no longer a TA of the bound course (``why``: who
    said so, for the change log): as :func:`drop`. The roster sync calls it for a TA who
    left the LMS course or has another role there."""
    row = db.execute("SELECT * FROM lti_staff WHERE platform = ? AND sub = ? AND "
                     "removed_at IS NULL", (platform, sub)).fetchone()
    if row is None:
        return False
    _end_sessions(db, row["token_hash"])
    db.execute("DELETE FROM lti_staff WHERE platform = ? AND sub = ?", (platform, sub))
    _log(db, why, row, {"name": row["name"], "role": row["role"],
                        "added_at": row["added_at"]}, None)
    return True


def graders(store: Store) -> list[dict[str, Any]]:
    """The course's graders from the LMS, for the instructor's page: platform, sub, name,
    first and last launch (added_at, seen_at), the LMS course of the last one, the platform's
    name, and removed_at/removed_by for removed ones."""
    return [dict(row) for row in store.database.query(
        "SELECT s.platform, s.sub, s.name, s.added_at, s.seen_at, s.deployment_id, "
        "s.context_id, s.removed_at, s.removed_by, p.issuer, p.client_id, "
        "p.name AS platform_name FROM lti_staff s JOIN lti_platforms p ON p.id = s.platform "
        "ORDER BY s.removed_at IS NOT NULL, s.name, s.sub")]


def remove(store: Store, platform: int, sub: str, who: str) -> str | None:
    """Remove the grader (platform, sub): their sessions end now and their launches are
    refused until :func:`restore`. Their name (or sub), or None when there is no such grader
    or they were removed already."""
    with store.database.transaction() as db:
        row = db.execute("SELECT * FROM lti_staff WHERE platform = ? AND sub = ? AND "
                         "removed_at IS NULL", (platform, sub)).fetchone()
        if row is None:
            return None
        moment = utc_now()
        db.execute("UPDATE lti_staff SET removed_at = ?, removed_by = ? WHERE platform = ? "
                   "AND sub = ?", (moment, who, platform, sub))
        _end_sessions(db, row["token_hash"])
        _log(db, who, row, {"removed_at": None}, {"removed_at": moment})
        return str(row["name"] or sub)


def restore(store: Store, platform: int, sub: str, who: str) -> str | None:
    """Undo the removal of the grader (platform, sub): their next launch from the bound LMS
    course signs them in (the sessions ended by the removal stay ended). Their name (or
    sub), or None when no removed grader is (platform, sub)."""
    with store.database.transaction() as db:
        row = db.execute("SELECT * FROM lti_staff WHERE platform = ? AND sub = ? AND "
                         "removed_at IS NOT NULL", (platform, sub)).fetchone()
        if row is None:
            return None
        db.execute("UPDATE lti_staff SET removed_at = NULL, removed_by = NULL WHERE "
                   "platform = ? AND sub = ?", (platform, sub))
        _log(db, who, row, {"removed_at": row["removed_at"]}, {"removed_at": None})
        return str(row["name"] or sub)


def end_sessions_outside(store: Store, platform: int | None = None, deployment_id: str = "",
                         context_id: str = "") -> int:
    """End the sessions of every grader whose last launch came from another LMS course than
    (platform, deployment_id, context_id) (of every grader, with ``platform`` None: the
    course is bound to none): how many were live. The binding calls it on each change."""
    with store.database.transaction() as db:
        return db.execute(
            "UPDATE sessions SET ended_at = ? WHERE ended_at IS NULL AND token_hash IN "
            "(SELECT token_hash FROM lti_staff WHERE ? IS NULL OR platform != ? OR "
            "deployment_id != ? OR context_id != ?)",
            (format_time(now()), platform, platform, deployment_id, context_id)).rowcount
