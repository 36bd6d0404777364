"""The course's assignments: which of the grader's assignments it holds, in which order, which
are open, and the settings each has of its own (its dates, its configuration).

A course holds one or more of the assignments the grader knows (``grader.assignments``:
``minimax``, ``montecarlo``, or an instructor's own), each by that name. They change only
as the instructor says: adding one keeps every other (the minimax a new course lists
included), and taking one out is its own action, refused while it has hand-ins. An assignment's
setting it does not have of its own is the course's: the course's deadline is every
assignment's deadline until one is given its own. Every change is a row of the course's
change log (kind "assignment").

    add(store, "montecarlo", who="instructor")          # CourseAssignment(...), open
    update(store, "minimax", who="instructor", opened=False)
    remove(store, "montecarlo", who="instructor")       # refused while it has hand-ins
    listing(store)                                       # in the course's order
    for_hand_in(store, asked=None, defined={"mm_move"})  # which one a file is handed in for
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection

from grader.assignments import Assignment, AssignmentError, available, get as get_assignment
from grader.sandbox.submission import SIGNATURES
from grader.service.course import record_queries
from grader.service.course.intake import expected_file
from grader.service.course.storage import Store
from grader.service.course.times import utc_now
from grader.suite.config import Config, ConfigError

KIND = "assignment"              # its rows' kind in the change log
DEFAULT = "minimax"              # what a course grades before it holds any assignment
OWN_KEYS = ("deadline", "late_deadline", "late_penalty", "choice", "config_file")


class AssignmentRefused(ValueError):
    """An assignment that cannot be used as asked; the message says which ones can."""


class NotHeld(AssignmentRefused):
    """The course holds no assignment of that name."""


class InUse(AssignmentRefused):
    """The assignment cannot be taken out of the course; the message says why (with the
    count) and that closing it is the way."""


@dataclass(frozen=True)
class CourseAssignment:
    """One assignment of the course.

    >>> CourseAssignment("montecarlo", "Monte Carlo Tic-Tac-Toe", 2).json()["name"]
    'montecarlo'
    """

    name: str
    title: str
    position: int
    opened: bool = True

    def json(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "position": self.position,
                "open": self.opened}


def _from(row: Any) -> CourseAssignment:
    return CourseAssignment(row["name"], row["title"], int(row["position"]), bool(row["open"]))


def listing(store: Store) -> list[CourseAssignment]:
    """The course's assignments, in its order: a course that holds none yet holds the
    minimax (until one is added)."""
    rows = store.database.query("SELECT * FROM assignments ORDER BY position, name")
    return [_from(row) for row in rows] or [CourseAssignment(
        DEFAULT, get_assignment(DEFAULT).title, 1)]


def names(store: Store) -> list[str]:
    return [one.name for one in listing(store)]


def first(store: Store) -> CourseAssignment:
    """The course's first assignment: where a hand-in goes when nothing says otherwise."""
    return listing(store)[0]


def find(store: Store, name: str | None) -> CourseAssignment | None:
    """The course's assignment of that name (None: the course has none such)."""
    return next((one for one in listing(store) if one.name == name), None)


def chosen(store: Store, name: str | None) -> CourseAssignment:
    """The assignment ``name`` names (the first when None); AssignmentRefused naming the
    course's when it holds none of that name."""
    if not name:
        return first(store)
    found = find(store, name)
    if found is None:
        raise AssignmentRefused(f"this course has no assignment {str(name)[:40]!r}; its "
                                f"assignments are: {', '.join(names(store))}")
    return found


def add(store: Store, name: str, *, who: str, title: str | None = None,
        opened: bool = True, keep_default: bool = True) -> CourseAssignment:
    """Add one of the grader's assignments to the course, last in its order: adding never
    removes, so the minimax a course holds before it holds any row is kept, first (unless
    ``keep_default`` is False: the command line's first start of a new course, which says
    what the course holds). AssignmentRefused when the grader knows no such assignment or
    the course has it."""
    with store.database.transaction() as db:
        add_in(db, name, who=who, title=title, opened=opened, keep_default=keep_default)
    found = find(store, name)
    assert found is not None
    return found


def add_in(db: Any, name: str, *, who: str, title: str | None = None, opened: bool = True,
           keep_default: bool = True) -> None:
    """:func:`add` within the caller's transaction ``db`` (rolled back with it)."""
    try:
        known = get_assignment(name)
    except AssignmentError as problem:
        raise AssignmentRefused(str(problem)) from None
    shown = (title or known.title).strip()[:100] or known.title
    if db.execute("SELECT 1 FROM assignments WHERE name = ?", (name,)).fetchone():
        raise AssignmentRefused(f"the course has the assignment {name} already")
    if keep_default and name != DEFAULT:
        _held_in(db, who)
    last = db.execute("SELECT COALESCE(MAX(position), 0) AS p FROM assignments").fetchone()
    db.execute("INSERT INTO assignments VALUES (?, ?, ?, ?, ?, ?)",
               (name, shown, int(last["p"]) + 1, int(opened), utc_now(), who))
    record_queries.log_in(db, who, KIND, name, None, {"title": shown, "open": opened})


def _held_in(db: Any, who: str) -> None:
    """The minimax a course lists before it holds any row becomes a row (first, open), so
    that a change of the course's assignments keeps it."""
    if db.execute("SELECT 1 FROM assignments LIMIT 1").fetchone() is None:
        db.execute("INSERT INTO assignments VALUES (?, ?, 1, 1, ?, ?)",
                   (DEFAULT, get_assignment(DEFAULT).title, utc_now(), who))


def update(store: Store, name: str, *, who: str, opened: bool | None = None,
           position: int | None = None, title: str | None = None) -> CourseAssignment:
    """Open or close an assignment, move it to ``position`` (1 first), or rename it for
    people. AssignmentRefused when the course has no such assignment."""
    chosen(store, name)
    with store.database.transaction() as db:
        update_in(db, name, who=who, opened=opened, position=position, title=title)
    return chosen(store, name)


def update_in(db: Any, name: str, *, who: str, opened: bool | None = None,
              position: int | None = None, title: str | None = None) -> None:
    """:func:`update` within the caller's transaction ``db`` (``name`` is the course's)."""
    _held_in(db, who)
    row = db.execute("SELECT * FROM assignments WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise AssignmentRefused(f"this course has no assignment {name[:40]!r}")
    before = _from(row).json()
    if opened is not None:
        db.execute("UPDATE assignments SET open = ? WHERE name = ?", (int(opened), name))
    if title is not None and title.strip():
        db.execute("UPDATE assignments SET title = ? WHERE name = ?",
                   (title.strip()[:100], name))
    if position is not None:
        order = [one["name"] for one in db.execute(
            "SELECT name FROM assignments ORDER BY position, name") if one["name"] != name]
        order.insert(max(0, min(position - 1, len(order))), name)
        for index, each in enumerate(order, start=1):
            db.execute("UPDATE assignments SET position = ? WHERE name = ?", (index, each))
    after = _from(db.execute("SELECT * FROM assignments WHERE name = ?",
                             (name,)).fetchone()).json()
    if after != before:
        record_queries.log_in(db, who, KIND, name, before, after)


def hand_ins(store: Store, name: str) -> int:
    """How many hand-ins the course holds of ``name`` (an assignment with any cannot be
    taken out of the course: it is closed instead)."""
    row = store.database.one("SELECT COUNT(*) AS n FROM submissions WHERE assignment = ?",
                             (name,))
    return int(row["n"]) if row is not None else 0


def remove(store: Store, name: str, *, who: str) -> CourseAssignment:
    """Take ``name`` out of the course, with its own settings and students' own deadlines
    (kept in the change log). AssignmentRefused when the course has no such assignment
    (:class:`NotHeld`), or when it has hand-ins, LMS links or is the course's only one
    (:class:`InUse`): closing it is the way then. The assignment as it was."""
    with store.database.transaction() as db:
        _held_in(db, who)
        row = db.execute("SELECT * FROM assignments WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise NotHeld(f"this course has no assignment {name[:40]!r}; its assignments "
                          "are: " + ", ".join(one["name"] for one in db.execute(
                              "SELECT name FROM assignments ORDER BY position, name")))
        gone = _from(row)
        _check_removable(db, gone)
        own = {one["key"]: one["value"] for one in db.execute(
            "SELECT key, value FROM assignment_settings WHERE assignment = ?", (name,))}
        deadlines = {one["student"]: [one["deadline"], one["late_deadline"]]
                     for one in db.execute("SELECT student, deadline, late_deadline FROM "
                                           "student_deadlines WHERE assignment = ?", (name,))}
        for table, column in (("assignment_settings", "assignment"),
                              ("student_deadlines", "assignment"), ("assignments", "name")):
            db.execute(f"DELETE FROM {table} WHERE {column} = ?", (name,))
        for index, each in enumerate([one["name"] for one in db.execute(
                "SELECT name FROM assignments ORDER BY position, name")], start=1):
            db.execute("UPDATE assignments SET position = ? WHERE name = ?", (index, each))
        record_queries.log_in(db, who, KIND, name, {**gone.json(), "own": own,
                                                    "own_deadlines": deadlines}, None)
    return gone


def _check_removable(db: Any, one: CourseAssignment) -> None:
    closing = (f"close it instead (it then takes no hand-ins; its grades stay): PUT "
               f"/api/assignments/{one.name} {{\"open\": false}}, or Close on the "
               "Assignments page")
    count = db.execute("SELECT COUNT(*) AS n, COUNT(DISTINCT student) AS people FROM "
                       "submissions WHERE assignment = ?", (one.name,)).fetchone()
    if count["n"]:
        raise InUse(f"the assignment {one.title} ({one.name}) has {count['n']} hand-in"
                    f"{'s' if count['n'] != 1 else ''} (of {count['people']} student"
                    f"{'s' if count['people'] != 1 else ''}): it stays in the course; "
                    + closing)
    links = db.execute("SELECT (SELECT COUNT(*) FROM lti_links WHERE assignment = ?) + "
                       "(SELECT COUNT(*) FROM lti_lineitems WHERE assignment = ?) AS n",
                       (one.name, one.name)).fetchone()["n"]
    if links:
        raise InUse(f"the assignment {one.title} ({one.name}) has {links} LMS link"
                    f"{'s' if links != 1 else ''} or grade column"
                    f"{'s' if links != 1 else ''}: it stays in the course; " + closing)
    if db.execute("SELECT COUNT(*) AS n FROM assignments").fetchone()["n"] < 2:
        raise InUse(f"the assignment {one.title} ({one.name}) is the course's only one: add "
                    "another before taking it out")


def own_settings(store: Store, name: str) -> dict[str, str]:
    """The settings ``name`` has of its own (its dates, its configuration)."""
    return {row["key"]: row["value"] for row in store.database.query(
        "SELECT key, value FROM assignment_settings WHERE assignment = ?", (name,))}


def settings_of(store: Store, name: str | None) -> dict[str, str]:
    """The course's settings as ``name`` sees them: its own over the course's (the course's
    alone when ``name`` is None). The configuration is :func:`config_of`'s business."""
    course = store.settings()
    if name is None:
        return course
    return {**course, **own_settings(store, name)}


def config_of(store: Store, name: str, course_config: Path | None) -> Path | None:
    """The configuration ``name`` is graded under: its own, else the course's
    (``course_config``) when that one fits its rubric, else its defaults (None)."""
    own = own_settings(store, name).get("config_file")
    if own:
        return Path(own)
    if course_config is not None and _fits(str(course_config), name):
        return course_config
    return None


@functools.lru_cache(maxsize=64)
def _fits(path: str, name: str) -> bool:
    """Whether the configuration file at ``path`` is one for ``name``'s rubric."""
    try:
        Config.load(Path(path), assignment=name)
    except ConfigError:
        return False
    return True


def set_own(db: Any, name: str, key: str, value: str | None) -> None:
    """Set (or, with None, remove) one of ``name``'s own settings, in ``db``'s transaction."""
    if key not in OWN_KEYS:
        raise ValueError(f"an assignment has no setting {key!r}")
    if value is None:
        db.execute("DELETE FROM assignment_settings WHERE assignment = ? AND key = ?",
                   (name, key))
    else:
        db.execute("INSERT INTO assignment_settings VALUES (?, ?, ?) ON CONFLICT (assignment, "
                   "key) DO UPDATE SET value = excluded.value", (name, key, value))


def for_hand_in(store: Store, asked: str | None, defined: Collection[str]) -> CourseAssignment:
    """The assignment a hand-in is for, from ``defined`` (the names the file defines, as
    ``checking`` read them): the one ``asked`` (it must be the course's and open), else the
    one whose functions the file defines (``recognise``: the most of them), when the course
    has it open. Either way the file must define all its functions. Never an assignment
    because it is the only one open: AssignmentRefused says what is missing, which
    assignment the file looks like, and which are open.

    >>> _looks_like({"mc_move", "mc_trial"}).name, _looks_like({"x"})
    ('montecarlo', None)
    """
    every = listing(store)
    open_ones = [one for one in every if one.opened]
    names = set(defined)
    if asked:
        found = chosen(store, asked)
    elif not open_ones:
        raise AssignmentRefused("no assignment of this course takes hand-ins now")
    else:
        known = _looks_like(names)
        if known is None:
            raise AssignmentRefused(
                "say which assignment this hand-in is for: this file defines none of the "
                "functions of this course's open assignments ("
                + "; ".join(f"{one.title}: {', '.join(_wanted(one.name))}"
                            for one in open_ones) + ")" + _open_list(open_ones))
        found = find(store, known.name)
        if found is None:
            raise AssignmentRefused(
                f"this file is a {known.title} player ({_defines(known, names)}), an "
                "assignment this course does not have" + _open_list(open_ones))
    if not found.opened:
        raise AssignmentRefused(f"the assignment {found.title} ({found.name}) is closed: "
                                "it takes no hand-ins now" + _open_list(open_ones))
    missing = [name for name in _wanted(found.name) if name not in names]
    if missing:
        raise AssignmentRefused(_not_for(found, missing, names, every))
    return found


def _wanted(name: str) -> tuple[str, ...]:
    """The functions a hand-in for the assignment ``name`` must define."""
    try:
        return get_assignment(name).functions
    except AssignmentError:          # an instructor's package that no longer loads
        return ()


def _looks_like(names: set[str], besides: str = "") -> Assignment | None:
    """The grader's assignment (other than ``besides``) whose recognising functions
    ``names`` hold the most of (the first on a tie), or None when they hold none."""
    best, count = None, 0
    for assignment in available():
        mine = len(names & set(assignment.recognise))
        if assignment.name != besides and mine > count:
            best, count = assignment, mine
    return best


def _defines(assignment: Assignment, names: set[str]) -> str:
    held = [name for name in assignment.recognise if name in names]
    return f"it defines {', '.join(held)}"


def _not_for(found: CourseAssignment, missing: list[str], names: set[str],
             every: list[CourseAssignment]) -> str:
    """Why a file is not a hand-in for ``found``: what it lacks, and what it looks like."""
    signatures = ", ".join(SIGNATURES.get(name, f"{name}(...)") for name in missing)
    said = (f"this file is not a hand-in for {found.title}: it does not define "
            f"{signatures}")
    other = _looks_like(names, besides=found.name)
    if other is None:
        return said + f" (hand in your {expected_file(found.name)}, the file you wrote it in)"
    theirs = next((one for one in every if one.name == other.name), None)
    said += (f". It looks like a {other.title} player ({expected_file(other.name)}: "
             f"{_defines(other, names)})")
    if theirs is None:
        return said + ", an assignment this course does not have"
    if not theirs.opened:
        return said + f"; that assignment ({theirs.name}) is closed"
    return said + f": hand it in for {theirs.title} ({theirs.name}) instead"


def _open_list(open_ones: list[CourseAssignment]) -> str:
    if not open_ones:
        return ""
    return "; open now: " + ", ".join(f"{one.title} ({one.name})" for one in open_ones)
