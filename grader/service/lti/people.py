"""Who an LMS's user is on the course's roster, and what a launch records.

A learner is matched to the roster by the LMS's user id (a link made at an earlier launch
or roster sync; else a roster id equal to the LMS's user id, its SIS id or Canvas's user
id), else by email (one student with it), else added. A student is never linked to two users
of one platform. An Instructor or TA is the instructor.

    with store.database.transaction() as db:
        student, added = place_student(db, store, platform_id, Person("u-42", "Ada", ...))
    admitted = admit(store, launch)           # the launch's records; who to sign in
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass

from grader.service.lti.errors import LaunchRefused
from grader.service.lti.launch import Launch
from grader.service.lti.platforms import add_frame_origin
from grader.service.storage import INSTRUCTOR, Store
from grader.service.times import utc_now

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
CANVAS_USER_ID = "canvas_user_id"     # the custom parameter Dynamic Registration asks for
_SAFE_ID = re.compile(r"[^A-Za-z0-9._@-]+")


@dataclass(frozen=True)
class Person:
    """An LMS user as a launch or the roster service describes them."""

    sub: str
    name: str = ""
    email: str = ""
    sourcedid: str = ""
    lms_ids: tuple[str, ...] = ()     # other ids the LMS gave (Canvas's user id)

    def candidate_ids(self) -> list[str]:
        """Roster ids that would be this person's, most specific first."""
        return [one for one in dict.fromkeys((self.sub, *self.lms_ids, self.sourcedid)) if one]


@dataclass(frozen=True)
class Admitted:
    """Who a launch signs in: the instructor (``student`` None) or a student."""

    student: str | None
    added: bool = False

    @property
    def home(self) -> str:
        return "/instructor" if self.student is None else "/"


def linked_student(db: sqlite3.Connection, platform: int, sub: str) -> str | None:
    row = db.execute("SELECT student FROM lti_users WHERE platform = ? AND sub = ?",
                     (platform, sub)).fetchone()
    return None if row is None else row["student"]


def _free(db: sqlite3.Connection, platform: int, student: str, sub: str) -> bool:
    """``student`` is not linked to another user of ``platform``."""
    row = db.execute("SELECT sub FROM lti_users WHERE platform = ? AND student = ?",
                     (platform, student)).fetchone()
    return row is None or row["sub"] == sub


def match_student(db: sqlite3.Connection, platform: int, person: Person) -> str | None:
    """The roster's student this person is, or None (see the module's order)."""
    linked = linked_student(db, platform, person.sub)
    if linked is not None:
        return linked
    for candidate in person.candidate_ids():
        row = db.execute("SELECT id FROM students WHERE id = ?", (candidate,)).fetchone()
        if row is not None and _free(db, platform, row["id"], person.sub):
            return str(row["id"])
    if person.email:
        rows = db.execute("SELECT id FROM students WHERE lower(email) = lower(?) AND "
                          "email != ''", (person.email,)).fetchall()
        if len(rows) == 1 and _free(db, platform, rows[0]["id"], person.sub):
            return str(rows[0]["id"])
    return None


def _new_id(db: sqlite3.Connection, platform: int, person: Person) -> str:
    """An id for a student the roster lacks: their SIS id, else the LMS's, made unique."""
    for candidate in (person.sourcedid, *person.lms_ids, person.sub):
        clean = _SAFE_ID.sub("-", candidate).strip("-")[:64]
        if clean and clean.casefold() != INSTRUCTOR and db.execute(
                "SELECT 1 FROM students WHERE id = ?", (clean,)).fetchone() is None:
            return clean
    base = f"lms{platform}-" + _SAFE_ID.sub("-", person.sub)[:48]
    number = 2
    while db.execute("SELECT 1 FROM students WHERE id = ?", (base,)).fetchone() is not None:
        base = f"{base.rsplit('~', 1)[0]}~{number}"
        number += 1
    return base


def place_student(db: sqlite3.Connection, store: Store, platform: int,
                  person: Person) -> tuple[str, bool]:
    """The student ``person`` is (linked to them from now on; name and email updated when the
    LMS gives them), added to the roster when nobody matches: (id, added). Call it inside
    ``store.database.transaction()``."""
    student = match_student(db, platform, person)
    added = student is None
    if student is None:
        student = _new_id(db, platform, person)
        store.upsert_students([(student, person.name, person.email)])
    else:
        old = db.execute("SELECT name, email FROM students WHERE id = ?", (student,)).fetchone()
        if old is not None and (person.name or person.email):
            store.upsert_students([(student, person.name or old["name"],
                                    person.email or old["email"])])
    db.execute("INSERT OR IGNORE INTO lti_users (platform, sub, student, linked_at) "
               "VALUES (?, ?, ?, ?)", (platform, person.sub, student, utc_now()))
    return student, added


def record_context(db: sqlite3.Connection, launch: Launch) -> int:
    """The launch's LMS course (its services as the latest launch says): its row id."""
    db.execute("INSERT INTO lti_contexts (platform, deployment_id, context_id, title, "
               "memberships_url, ags_scopes, lineitems_url) VALUES (?, ?, ?, ?, ?, ?, ?) "
               "ON CONFLICT (platform, deployment_id, context_id) DO UPDATE SET "
               "title = excluded.title, "
               "memberships_url = COALESCE(excluded.memberships_url, memberships_url), "
               "ags_scopes = CASE WHEN excluded.ags_scopes = '[]' THEN ags_scopes "
               "ELSE excluded.ags_scopes END, "
               "lineitems_url = COALESCE(excluded.lineitems_url, lineitems_url)",
               (launch.platform.id, launch.deployment_id, launch.context_id,
                launch.context_title, launch.memberships_url,
                json.dumps(sorted(launch.ags_scopes)), launch.lineitems))
    row = db.execute("SELECT id FROM lti_contexts WHERE platform = ? AND deployment_id = ? "
                     "AND context_id = ?", (launch.platform.id, launch.deployment_id,
                                            launch.context_id)).fetchone()
    context = int(row["id"])
    if launch.lineitem:
        db.execute("INSERT OR IGNORE INTO lti_lineitems (context, resource_link_id, url) "
                   "VALUES (?, ?, ?)", (context, launch.resource_link_id, launch.lineitem))
    return context


def record_member(db: sqlite3.Connection, context: int, sub: str, student: str | None,
                  roles: tuple[str, ...], status: str = "active") -> None:
    """``sub`` is a member of ``context`` (with ``status``): seen now."""
    moment = utc_now()
    db.execute("INSERT INTO lti_members (context, sub, student, roles, status, seen_at, "
               "left_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (context, sub) DO UPDATE SET "
               "student = COALESCE(excluded.student, student), roles = excluded.roles, "
               "status = excluded.status, seen_at = excluded.seen_at, left_at = CASE WHEN "
               "excluded.status = 'left' THEN COALESCE(left_at, excluded.seen_at) END",
               (context, sub, student, " ".join(roles), status, moment,
                moment if status == "left" else None))


def admit(store: Store, launch: Launch, origin: str | None = None) -> Admitted:
    """Record a validated launch (its login used, once; the student matched or added; the
    course, its line item, the membership) and say who it signs in. LaunchRefused, with
    nothing stored, for a replayed launch or a student whose link is revoked."""
    with store.database.transaction() as db:
        used = db.execute("UPDATE lti_logins SET used_at = ? WHERE state_hash = ? AND "
                          "used_at IS NULL", (utc_now(), launch.state_hash)).rowcount
        if used != 1:
            raise LaunchRefused("this launch was used already (a launch signs in once): open "
                                "the assignment in the LMS again")
        student: str | None = None
        added = False
        if not launch.is_staff:
            person = Person(launch.sub, launch.name, launch.email, launch.sourcedid,
                            tuple(v for k, v in launch.custom.items()
                                  if k == CANVAS_USER_ID and v and not v.startswith("$")))
            matched = match_student(db, launch.platform.id, person)
            if matched is not None and _revoked(db, matched):
                raise LaunchRefused(f"your access to this course's page ({matched}) was "
                                    "revoked by the instructor: ask them to restore it")
            student, added = place_student(db, store, launch.platform.id, person)
        context = record_context(db, launch)
        record_member(db, context, launch.sub, student, launch.roles)
    if origin and launch.is_staff:       # a learner's Origin never frames the course
        add_frame_origin(store, launch.platform.id, origin)   # (see add_frame_origin)
    return Admitted(student, added)


def _revoked(db: sqlite3.Connection, student: str) -> bool:
    row = db.execute("SELECT revoked FROM students WHERE id = ?", (student,)).fetchone()
    return row is not None and bool(row["revoked"])


def token_hash_of(store: Store, admitted: Admitted) -> str:
    """The token hash a session for ``admitted`` keeps (the same as their link's)."""
    if admitted.student is None:
        found = store.get_setting("instructor_token_hash")
        if found is None:
            store.ensure_instructor()
            found = store.get_setting("instructor_token_hash")
        assert found is not None
        return found
    row = store.database.one("SELECT token_hash FROM students WHERE id = ?", (admitted.student,))
    if row is None:
        raise LaunchRefused(f"there is no student {admitted.student!r} on the roster")
    return str(row["token_hash"])


def student_subs(store: Store, student: str) -> dict[int, str]:
    """The student's user id on each platform (platform id -> sub)."""
    return {int(row["platform"]): row["sub"] for row in store.database.query(
        "SELECT platform, sub FROM lti_users WHERE student = ?", (student,))}
