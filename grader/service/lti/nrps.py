"""The roster from the LMS (Names and Role Provisioning Services): the course's learners
added, their names and emails updated, those who left the LMS course marked; nobody is ever
removed from the roster, so nobody's history is lost. Only the bound LMS course's roster
is read (:mod:`grader.service.lti.binding`): its members are linked to students by the
rules of :mod:`grader.service.lti.people`, with the LMS's own user id, SIS id and email.

    result = sync_context(store, tool, context_id)
    result.describe()       # "12 members: 2 students added, 1 updated, 1 left"
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from grader.service.course.storage import Store
from grader.service.course.times import utc_now
from grader.service.lti import binding, staff
from grader.service.lti.errors import PlatformError
from grader.service.lti.launch import GRADER_ACCESS, access, is_learner, is_staff, role_names
from grader.service.lti.people import Person, match_student, place_student, record_member
from grader.service.lti.platforms import platform_by_id

NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEMBERSHIPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 200                   # a course of 20,000 at 100 a page; a loop of "next" ends
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


@dataclass(frozen=True)
class SyncResult:
    """What one sync of an LMS course changed."""

    context: int
    title: str
    members: int = 0
    added: int = 0
    updated: int = 0
    left: int = 0

    def describe(self) -> str:
        """One line for the instructor.

        >>> SyncResult(1, "CS 1", 12, 2, 1, 1).describe()
        'CS 1: 12 members; 2 students added, 1 updated, 1 marked as having left'
        """
        return (f"{self.title or 'the LMS course'}: {self.members} members; {self.added} "
                f"students added, {self.updated} updated, {self.left} marked as having left")


def fetch_members(tool: Any, platform: Any, url: str) -> list[dict[str, Any]]:
    """Every member the roster service lists (its pages followed); PlatformError if not."""
    members: list[dict[str, Any]] = []
    next_url: str | None = url
    for _ in range(MAX_PAGES):
        if next_url is None:
            return members
        answer = tool.tokens.call(platform, [NRPS_SCOPE], "the roster service", "GET",
                                  next_url, headers={"accept": MEMBERSHIPS})
        if answer.status_code != 200:
            raise PlatformError(f"{platform.label}: the roster service answered "
                                f"{answer.status_code}: {answer.text[:200]}",
                                answer.status_code)
        try:
            page = answer.json().get("members", [])
        except (ValueError, AttributeError):
            raise PlatformError(f"{platform.label}: the roster service's answer is not a "
                                "membership container") from None
        members.extend(member for member in page if isinstance(member, dict))
        found = _NEXT.search(answer.headers.get("link", ""))
        next_url = found.group(1) if found else None
    raise PlatformError(f"{platform.label}: the roster service gave more than {MAX_PAGES} "
                        "pages")


def _person(member: dict[str, Any]) -> Person:
    name = str(member.get("name") or " ".join(
        str(part) for part in (member.get("given_name"), member.get("family_name")) if part))
    return Person(str(member.get("user_id") or ""), name.strip(),
                  str(member.get("email") or "").strip(),
                  str(member.get("lis_person_sourcedid") or "").strip())


def sync_context(store: Store, tool: Any, context: int) -> SyncResult:
    """Bring the roster up to date with the LMS course ``context`` (a row of lti_contexts)."""
    row = store.database.one("SELECT * FROM lti_contexts WHERE id = ?", (context,))
    if row is None:
        raise LookupError(f"no LMS course {context}")
    platform = platform_by_id(store, int(row["platform"]))
    assert platform is not None
    title = row["title"] or row["context_id"]
    bound = binding.current(store)
    if bound is None or not bound.same_as(int(row["platform"]), row["deployment_id"],
                                          row["context_id"]):
        raise PlatformError(f"{title}: not the LMS course this course is bound to, so its "
                            "roster is not read (change the binding on the LTI page)")
    if not row["memberships_url"]:
        raise PlatformError(f"{title}: the LMS did not offer its roster service to this tool "
                            "(enable Names and Role Provisioning for the tool in the LMS)")
    members = fetch_members(tool, platform, row["memberships_url"])
    added = updated = left = 0
    seen: set[str] = set()
    with store.database.transaction() as db:
        for member in members:
            person = _person(member)
            roles = role_names(member.get("roles"))
            if not person.sub:
                continue
            seen.add(person.sub)
            # NRPS says Inactive for an enrolment that ended (a student who left), Deleted
            # for one removed: both have left the LMS course.
            status = "active" if str(member.get("status") or "Active") == "Active" else "left"
            previous = db.execute("SELECT status FROM lti_members WHERE context = ? AND "
                                  "sub = ?", (context, person.sub)).fetchone()
            student = None
            if is_learner(roles) and not is_staff(roles):
                before = db.execute("SELECT s.name, s.email FROM lti_users u JOIN students s "
                                    "ON s.id = u.student WHERE u.platform = ? AND u.sub = ?",
                                    (platform.id, person.sub)).fetchone()
                known = match_student(db, platform.id, person)
                if status == "active" or known is not None:   # nobody is added as gone
                    student, was_added = place_student(db, store, platform.id, person,
                                                       "roster")
                    added += was_added
                    updated += bool(before is not None and (
                        (person.name and person.name != before["name"]) or
                        (person.email and person.email != before["email"])))
            record_member(db, context, person.sub, student, roles, status)
            if status == "left" or access(roles) != GRADER_ACCESS:   # no TA (any more)
                staff.drop_user(db, platform.id, person.sub, "the LMS (the roster says "
                                f"{status}, roles {' '.join(roles) or 'none'})")
            left += status == "left" and (previous is None or previous["status"] != "left")
        gone = [r["sub"] for r in db.execute(
            "SELECT sub FROM lti_members WHERE context = ? AND status != 'left'", (context,))
            if r["sub"] not in seen]
        for sub in gone:
            db.execute("UPDATE lti_members SET status = 'left', left_at = ? WHERE context = ? "
                       "AND sub = ?", (utc_now(), context, sub))
            staff.drop_user(db, platform.id, sub, "the LMS (no longer on the roster)")
        left += len(gone)
        db.execute("UPDATE lti_contexts SET synced_at = ? WHERE id = ?", (utc_now(), context))
    return SyncResult(context, title, len(members), added, updated, left)


def sync_all(store: Store, tool: Any) -> list[SyncResult | PlatformError]:
    """Sync the bound LMS course, when it offers its roster: its result or its problem
    (nothing before the course is bound; another LMS course's roster is never read)."""
    outcomes: list[SyncResult | PlatformError] = []
    bound = binding.current(store)
    if bound is None:
        return outcomes
    for row in store.database.query("SELECT id FROM lti_contexts WHERE memberships_url IS NOT "
                                    "NULL AND platform = ? AND deployment_id = ? AND "
                                    "context_id = ? ORDER BY id",
                                    (bound.platform, bound.deployment_id, bound.context_id)):
        try:
            outcomes.append(sync_context(store, tool, int(row["id"])))
        except PlatformError as problem:
            outcomes.append(problem)
    return outcomes
