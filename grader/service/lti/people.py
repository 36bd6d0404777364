"""Who an LMS's user is on the course's roster, and what a launch records.

An LMS user is (platform, sub): the platform row is the issuer and the client id, and a
``sub`` means nothing on another platform (the same ``sub`` from two platforms is two
people). A roster student is linked to one LMS user, once, and stays linked to them
(``lti_users``: how and when each link was made; the instructor's LTI page shows each and
can undo one). Links are made only for the course's bound LMS course
(:mod:`grader.service.lti.binding`: its launches, its roster service), from what that LMS
itself says of the person:

1. the LMS user's own link, made before;
2. else their LIS ``person_sourcedid`` (the SIS id the LMS holds) equal to a roster id;
3. else their email, equal (in any case) to the email of exactly one student;

and only to a student no LMS user is linked to yet. Never by a claim the launch's author can
set (custom parameters such as Canvas's ``canvas_user_id``), never by a ``sub`` equal to a
roster id (a ``sub`` is the LMS's opaque id: on another LMS anyone's can be anything). Nobody
matching, the person is added as a new student: a second LMS user whose SIS id or email is a
linked student's is added as a student of their own (the instructor sees both on the LTI
page), never given the linked one's work.

A context Instructor or an Administrator is the instructor; a TA signs in as a grader of
their own (:mod:`grader.service.lti.staff`: the grading pages, not the course's settings;
the instructor can remove one).

    with store.database.transaction() as db:
        student, added = place_student(db, store, platform_id, Person("u-42", "Ada", ...),
                                       how="roster")
    admitted = admit(store, launch)           # the launch's records; who to sign in
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from urllib.parse import urlencode

from grader.service.course.storage import INSTRUCTOR, Store
from grader.service.course.times import utc_now
from grader.service.lti import binding, resource_links, staff
from grader.service.lti.errors import LaunchRefused
from grader.service.lti.launch import GRADER_ACCESS, INSTRUCTOR_ACCESS, Launch
from grader.service.lti.login_state import use_once
from grader.service.lti.platforms import add_frame_origin

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
# The custom parameter Dynamic Registration asks Canvas for. Whoever places the link in the
# LMS writes custom parameters, so it never links anyone to a student.
CANVAS_USER_ID = "canvas_user_id"
_SAFE_ID = re.compile(r"[^A-Za-z0-9._@-]+")
CHOOSE_PAGE = "/instructor/lti/link"      # the instructor chooses a new link's assignment
UNCHOSEN_PAGE = "/lti/unchosen"           # a student's launch of a link not chosen yet


@dataclass(frozen=True)
class Person:
    """An LMS user as a launch or the roster service describes them (the LMS's own data:
    never a custom parameter)."""

    sub: str
    name: str = ""
    email: str = ""
    sourcedid: str = ""


@dataclass(frozen=True)
class Admitted:
    """Who a launch signs in: the instructor, a grader (``grader_hash``: their token's hash)
    or a student (``student``); in a course of several assignments, the assignment of the
    launch's link (``assignment``; None: not chosen yet) and the link (``link``).

    >>> Admitted("ada").home, Admitted("ada", several=True, assignment="montecarlo").home
    ('/', '/?assignment=montecarlo')
    >>> Admitted(None, several=True, assignment="montecarlo").home
    '/instructor?assignment=montecarlo'
    """

    student: str | None
    added: bool = False
    grader_hash: str | None = None
    assignment: str | None = None
    several: bool = False
    link: resource_links.LinkKey | None = None

    @property
    def home(self) -> str:
        """Where the launch lands: a student on their page (of the link's assignment when
        the course has several; a page that says so while it is not chosen), the
        instructor on theirs (first on the page that asks a new link's assignment), a
        grader on the class (of the link's assignment when the course has several)."""
        if self.student is not None:
            if not self.several:
                return "/"
            return f"/?{urlencode({'assignment': self.assignment})}" if self.assignment \
                else UNCHOSEN_PAGE
        if self.several and self.assignment is None and self.grader_hash is None \
                and self.link is not None and self.link.resource_link_id:
            return f"{CHOOSE_PAGE}?{self.link.query()}"
        if self.several and self.assignment:
            return f"/instructor?{urlencode({'assignment': self.assignment})}"
        return "/instructor"


def linked_student(db: sqlite3.Connection, platform: int, sub: str) -> str | None:
    row = db.execute("SELECT student FROM lti_users WHERE platform = ? AND sub = ?",
                     (platform, sub)).fetchone()
    return None if row is None else row["student"]


def _free(db: sqlite3.Connection, student: str) -> bool:
    """No LMS user, of any platform, is linked to ``student``: once linked, a student is
    never taken over by another LMS user."""
    return db.execute("SELECT 1 FROM lti_users WHERE student = ?",
                      (student,)).fetchone() is None


def match(db: sqlite3.Connection, platform: int, person: Person) -> tuple[str, str] | None:
    """The roster's student this person is and how they were found ("link", "SIS id",
    "email"), or None (see the module's order)."""
    linked = linked_student(db, platform, person.sub)
    if linked is not None:
        return linked, "link"
    if person.sourcedid:
        row = db.execute("SELECT id FROM students WHERE id = ?", (person.sourcedid,)).fetchone()
        if row is not None and _free(db, row["id"]):
            return str(row["id"]), "SIS id"
    if person.email:
        rows = db.execute("SELECT id FROM students WHERE lower(email) = lower(?) AND "
                          "email != ''", (person.email,)).fetchall()
        if len(rows) == 1 and _free(db, rows[0]["id"]):
            return str(rows[0]["id"]), "email"
    return None


def match_student(db: sqlite3.Connection, platform: int, person: Person) -> str | None:
    """The roster's student this person is, or None."""
    found = match(db, platform, person)
    return None if found is None else found[0]


def _new_id(db: sqlite3.Connection, platform: int, person: Person) -> str:
    """An id for a student the roster lacks: their SIS id, else the LMS's, made unique."""
    for candidate in (person.sourcedid, person.sub):
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


def place_student(db: sqlite3.Connection, store: Store, platform: int, person: Person,
                  how: str = "launch") -> tuple[str, bool]:
    """The student ``person`` is (linked to them from now on; name and email updated when the
    LMS gives them), added to the roster when nobody matches: (id, added). ``how`` says where
    it came from ("launch", "roster"), for the link's record. Call it inside
    ``store.database.transaction()``, and only for the bound LMS course's platform."""
    found = match(db, platform, person)
    added = found is None
    if found is None:
        student, way = _new_id(db, platform, person), "added"
        store.upsert_students([(student, person.name, person.email)])
    else:
        student, way = found
        old = db.execute("SELECT name, email FROM students WHERE id = ?", (student,)).fetchone()
        if old is not None and (person.name or person.email):
            store.upsert_students([(student, person.name or old["name"],
                                    person.email or old["email"])])
    if way != "link":
        db.execute("INSERT INTO lti_users (platform, sub, student, linked_at, how) "
                   "VALUES (?, ?, ?, ?, ?)", (platform, person.sub, student, utc_now(),
                                              f"{how}: {way}"))
    return student, added


def links(store: Store) -> list[dict[str, object]]:
    """Every link of a student to an LMS user, for the instructor's page."""
    return [dict(row) for row in store.database.query(
        "SELECT u.platform, u.sub, u.student, u.linked_at, u.how, s.name, p.issuer, "
        "p.client_id, p.name AS platform_name FROM lti_users u JOIN students s ON "
        "s.id = u.student JOIN lti_platforms p ON p.id = u.platform "
        "ORDER BY u.student, u.platform")]


def unlink(store: Store, platform: int, sub: str, who: str) -> str | None:
    """Undo the link of the LMS user (platform, sub): the student it named, or None when
    there was none. The user's next launch (or sync) links them again by the rules above;
    the change is kept in the course's change log."""
    with store.database.transaction() as db:
        row = db.execute("SELECT student, how, linked_at FROM lti_users WHERE platform = ? AND "
                         "sub = ?", (platform, sub)).fetchone()
        if row is None:
            return None
        db.execute("DELETE FROM lti_users WHERE platform = ? AND sub = ?", (platform, sub))
        db.execute("UPDATE lti_members SET student = NULL WHERE sub = ? AND context IN "
                   "(SELECT id FROM lti_contexts WHERE platform = ?)", (sub, platform))
        db.execute("INSERT INTO changes (at, who, kind, subject, before, after) VALUES "
                   "(?, ?, 'lti_link', ?, ?, NULL)",
                   (utc_now(), who, row["student"],
                    json.dumps({"platform": platform, "sub": sub, "how": row["how"],
                                "linked_at": row["linked_at"]})))
        return str(row["student"])


def record_context(db: sqlite3.Connection, launch: Launch) -> int:
    """The launch's LMS course (its services as the latest launch says): its row id. Its
    line item belongs to the assignment of its resource link (none while not chosen)."""
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
        db.execute("INSERT OR IGNORE INTO lti_lineitems (context, resource_link_id, url, "
                   "assignment) VALUES (?, ?, ?, ?)",
                   (context, launch.resource_link_id, launch.lineitem,
                    resource_links.line_item_assignment(db, resource_links.LinkKey.of(launch))))
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
    """Record a validated launch (its login used, once; the course bound by a first
    instructor launch; its resource link's assignment, :mod:`resource_links`; the student
    matched or added; the course, its line item, the membership) and say who it signs in.
    LaunchRefused, with nothing stored, for a replayed launch, a launch from another LMS
    course than the bound one (or a learner's before any binding), or a student whose link
    is revoked."""
    with store.database.transaction() as db:
        if not use_once(db, launch.state_hash, launch.login):
            raise LaunchRefused("this launch was used already (a launch signs in once): open "
                                "the assignment in the LMS again")
        binding.check(store, launch)
        assignment = resource_links.resolve(db, store, launch)
        student: str | None = None
        added = False
        grader_hash = None
        if launch.access == GRADER_ACCESS:
            grader_hash = staff.enter(db, launch)
        else:                           # the LMS no longer says TA: no grader of their own
            staff.drop(db, launch)
        if launch.access not in (GRADER_ACCESS, INSTRUCTOR_ACCESS):
            person = Person(launch.sub, launch.name, launch.email, launch.sourcedid)
            matched = match_student(db, launch.platform.id, person)
            if matched is not None and _revoked(db, matched):
                raise LaunchRefused(f"your access to this course's page ({matched}) was "
                                    "revoked by the instructor: ask them to restore it")
            student, added = place_student(db, store, launch.platform.id, person, "launch")
        context = record_context(db, launch)
        record_member(db, context, launch.sub, student, launch.roles)
    # Only the instructor's Origin frames the course (see add_frame_origin): a learner or a
    # TA can replay their own launch with any Origin header.
    if origin and launch.access == INSTRUCTOR_ACCESS:
        add_frame_origin(store, launch.platform.id, origin)
    return Admitted(student, added, grader_hash, assignment, resource_links.several(store),
                    resource_links.LinkKey.of(launch))


def _revoked(db: sqlite3.Connection, student: str) -> bool:
    row = db.execute("SELECT revoked FROM students WHERE id = ?", (student,)).fetchone()
    return row is not None and bool(row["revoked"])


def token_hash_of(store: Store, admitted: Admitted) -> str:
    """The token hash a session for ``admitted`` keeps (the same as their link's)."""
    if admitted.grader_hash is not None:
        return admitted.grader_hash
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
