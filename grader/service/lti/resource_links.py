"""Which of the course's assignments each LMS resource link is (the table ``lti_links``).

An LMS course holds one link (an "external tool" activity) per assignment: its launches
name it by the resource link id (within the bound platform, deployment and context). A link
is bound to one assignment, once, in this order (see :func:`resolve`):

1. its binding, made before (a launch never changes it: a bound link stays bound);
2. else, when the link has line items recorded before links were bound (a course that ran in
   the LMS before it held several assignments), their assignment;
3. else, when the course holds one assignment, that one (silently: a one-assignment course
   behaves as it always did);
4. else the launch's custom parameter ``assignment`` (``assignment=montecarlo``, written by
   whoever placed the link in the LMS), when it names one of the course's assignments;
5. else it waits for the instructor: their launch asks which assignment the link is
   (:func:`assign`, from the choice page), a learner's says the link is not chosen yet. The
   link is kept as "not chosen" (``assignment`` empty) so the LTI page lists it.

A link's line items (``lti_lineitems.assignment``) follow its assignment: the outbox sends
each assignment's grade to its own line items only. The instructor changes a link's
assignment on the LTI page (:func:`assign`: logged as a change, kind ``lti_resource_link``).

    with store.database.transaction() as db:
        name = resolve(db, store, launch)        # "montecarlo", or None: not chosen yet
    assign(store, LinkKey(1, "d1", "course-7", "rl-2"), "montecarlo", who="instructor")
    for link in listing(store): ...
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from grader.service.course import course_assignments, record_queries
from grader.service.course.storage import Store
from grader.service.course.times import utc_now
from grader.service.lti.launch import Launch

CUSTOM = "assignment"          # the custom parameter that names a link's assignment
KIND = "lti_resource_link"     # its changes' kind in the course's change log
NOT_CHOSEN = ""                # a link recorded before the instructor chose its assignment


@dataclass(frozen=True)
class LinkKey:
    """One LMS resource link: the platform row, the deployment, the LMS course (context) and
    the link's id there.

    >>> LinkKey(1, "d1", "c7", "rl-2").query()
    'platform=1&deployment=d1&context=c7&link=rl-2'
    """

    platform: int
    deployment_id: str
    context_id: str
    resource_link_id: str

    @classmethod
    def of(cls, launch: Launch) -> "LinkKey":
        return cls(launch.platform.id, launch.deployment_id, launch.context_id,
                   launch.resource_link_id)

    @classmethod
    def from_fields(cls, fields: Any) -> "LinkKey | None":
        """The link a form or a query names (``platform``, ``deployment``, ``context``,
        ``link``), or None when one is missing."""
        number = str(fields.get("platform") or "")
        parts = [str(fields.get(name) or "") for name in ("deployment", "context", "link")]
        if not number.isdigit() or not all(parts):
            return None
        return cls(int(number), *parts)

    def query(self) -> str:
        """The fields :meth:`from_fields` reads, as a query string."""
        return urlencode({"platform": self.platform, "deployment": self.deployment_id,
                          "context": self.context_id, "link": self.resource_link_id})

    def where(self) -> tuple[str, tuple[Any, ...]]:
        return ("platform = ? AND deployment_id = ? AND context_id = ? AND "
                "resource_link_id = ?", (self.platform, self.deployment_id, self.context_id,
                                         self.resource_link_id))


@dataclass(frozen=True)
class ResourceLink:
    """A link as the instructor's page lists it (``assignment`` empty: not chosen yet)."""

    key: LinkKey
    assignment: str
    how: str
    set_at: str
    line_items: int = 0

    @property
    def chosen(self) -> bool:
        return self.assignment != NOT_CHOSEN


def assignment_of(db: sqlite3.Connection, key: LinkKey) -> str | None:
    """The assignment the link is bound to, or None (unknown, or not chosen yet)."""
    where, parameters = key.where()
    row = db.execute(f"SELECT assignment FROM lti_links WHERE {where}", parameters).fetchone()
    return row["assignment"] if row is not None and row["assignment"] else None


def _earlier_line_items(db: sqlite3.Connection, key: LinkKey, names: list[str]) -> str | None:
    """The assignment of the link's line items recorded before links were bound (one of the
    course's), or None."""
    row = db.execute(
        "SELECT l.assignment FROM lti_lineitems l JOIN lti_contexts c ON c.id = l.context "
        "WHERE c.platform = ? AND c.deployment_id = ? AND c.context_id = ? AND "
        "l.resource_link_id = ? AND l.assignment != ? ORDER BY l.id LIMIT 1",
        (key.platform, key.deployment_id, key.context_id, key.resource_link_id,
         NOT_CHOSEN)).fetchone()
    return row["assignment"] if row is not None and row["assignment"] in names else None


def resolve(db: sqlite3.Connection, store: Store, launch: Launch) -> str | None:
    """The assignment the launch's link is (bound now when the module's rules say so), or
    None while the instructor has not chosen it. Call it inside the launch's transaction
    ``db``, once the launch is known to come from the bound LMS course."""
    key = LinkKey.of(launch)
    bound = assignment_of(db, key)
    if bound is not None:
        return bound                    # a custom parameter never re-binds a bound link
    names = course_assignments.names(store)
    asked = str(launch.custom.get(CUSTOM, "")).strip()
    earlier = _earlier_line_items(db, key, names)
    if earlier is not None:
        chosen, how = earlier, "its line items' (recorded before links were bound)"
    elif len(names) == 1:
        chosen, how = names[0], "the course's only assignment"
    elif asked in names:
        chosen, how = asked, (f"the link's custom parameter {CUSTOM}={asked} (launch by LMS "
                              f"user {launch.sub})")
    else:
        chosen, how = NOT_CHOSEN, ""
    _, parameters = key.where()
    db.execute("INSERT INTO lti_links (platform, deployment_id, context_id, resource_link_id, "
               "assignment, how, set_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (platform, "
               "deployment_id, context_id, resource_link_id) DO UPDATE SET assignment = "
               "excluded.assignment, how = excluded.how, set_at = excluded.set_at "
               "WHERE lti_links.assignment = ''",
               (*parameters, chosen, how, utc_now()))
    if chosen:
        _line_items_follow(db, key, chosen)
    return chosen or None


def _line_items_follow(db: sqlite3.Connection, key: LinkKey, assignment: str) -> None:
    db.execute("UPDATE lti_lineitems SET assignment = ? WHERE resource_link_id = ? AND "
               "context IN (SELECT id FROM lti_contexts WHERE platform = ? AND "
               "deployment_id = ? AND context_id = ?)",
               (assignment, key.resource_link_id, key.platform, key.deployment_id,
                key.context_id))


def line_item_assignment(db: sqlite3.Connection, key: LinkKey) -> str:
    """What a line item newly recorded for the link belongs to: the link's assignment, or
    :data:`NOT_CHOSEN` (no grade goes to it until the link is chosen)."""
    return assignment_of(db, key) or NOT_CHOSEN


def assign(store: Store, key: LinkKey, assignment: str, who: str) -> str | None:
    """Bind the link (one launched before) to ``assignment``, or change its assignment: its
    line items follow, the grades waiting for them of the one before are dropped, and each
    of its students' grade of ``assignment`` is queued. The assignment it had (None: not
    chosen). ValueError, saying what to do, for an unknown link or assignment."""
    if course_assignments.find(store, assignment) is None:
        raise ValueError(f"this course has no assignment {assignment[:40]!r}: choose one of "
                         f"{', '.join(course_assignments.names(store))}")
    where, parameters = key.where()
    with store.database.transaction() as db:
        row = db.execute(f"SELECT assignment FROM lti_links WHERE {where}",
                         parameters).fetchone()
        if row is None:
            raise ValueError("this LMS link never launched the tool: choose a link of the "
                             "list on the LTI page")
        before = row["assignment"] or None
        if before == assignment:
            return before
        db.execute(f"UPDATE lti_links SET assignment = ?, how = ?, set_at = ? WHERE {where}",
                   (assignment, f"chosen by {who}", utc_now(), *parameters))
        _line_items_follow(db, key, assignment)
        # What was waiting for these line items was the other assignment's grade.
        db.execute("UPDATE lti_outbox SET status = 'superseded' WHERE status IN ('pending', "
                   "'failed') AND lineitem IN (SELECT l.id FROM lti_lineitems l JOIN "
                   "lti_contexts c ON c.id = l.context WHERE c.platform = ? AND "
                   "c.deployment_id = ? AND c.context_id = ? AND l.resource_link_id = ?)",
                   parameters)
        record_queries.log_in(db, who, KIND, f"{key.context_id} {key.resource_link_id}",
                              {"assignment": before, "platform": key.platform,
                               "deployment_id": key.deployment_id},
                              {"assignment": assignment, "platform": key.platform,
                               "deployment_id": key.deployment_id})
    from grader.service.lti import outbox     # outbox reads the links' line items
    outbox.grades_changed(store, assignment=assignment)
    return before


def listing(store: Store) -> list[ResourceLink]:
    """Every link that launched the tool, by LMS course then link id."""
    return [ResourceLink(LinkKey(int(row["platform"]), row["deployment_id"], row["context_id"],
                                 row["resource_link_id"]), row["assignment"], row["how"],
                         row["set_at"], int(row["items"]))
            for row in store.database.query(
                "SELECT k.*, (SELECT COUNT(*) FROM lti_lineitems l JOIN lti_contexts c ON "
                "c.id = l.context WHERE c.platform = k.platform AND c.deployment_id = "
                "k.deployment_id AND c.context_id = k.context_id AND l.resource_link_id = "
                "k.resource_link_id) AS items FROM lti_links k ORDER BY k.platform, "
                "k.deployment_id, k.context_id, k.resource_link_id")]


def several(store: Store) -> bool:
    """The course holds several assignments (a link's assignment is then asked for)."""
    return len(course_assignments.names(store)) > 1


def changes(store: Store) -> list[dict[str, Any]]:
    """The instructor's choices of links' assignments, oldest first (for the LTI page):
    each with ``at``, ``who``, ``link`` ("CONTEXT LINK"), ``before`` and ``after``."""
    def named(text: str | None) -> str | None:
        return json.loads(text).get("assignment") if text else None

    return [{"at": one.at, "who": one.who, "link": one.subject, "before": named(one.before),
             "after": named(one.after)} for one in record_queries.changes(store, KIND)]
