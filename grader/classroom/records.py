"""A class's submissions checked against its roster: whose each one is, who handed in nothing.

A submission is matched to a roster line by any id both know (the roster's id, Canvas's
SIS User ID and SIS Login ID; the export's Canvas user id, Gradescope's SID, a plain file's
name), or by email, case-insensitively; failing that, by a name that only one line of the
roster has (Moodle's downloads name a student but give no id the roster has). The roster then
gives the name (its own, where it has one: the reports and the gradebook use it) and fills
in what the export lacked (an email, Canvas's ids and section). A submission
that matches no one is kept and flagged; a student that no submission matches is a
:func:`missing_row`. Nothing here grades, prints or writes.

>>> from grader.classroom.roster import Roster, RosterEntry
>>> roster = Roster((RosterEntry("alice", "Alice A", "alice@x.org"), RosterEntry("bob")))
>>> matched = match_roster([Submission("ALICE", None)], roster)
>>> matched.submissions[0].roster, matched.submissions[0].people[0].email
('on the roster', 'alice@x.org')
>>> [entry.student_id for entry in matched.missing]
['bob']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from grader.classroom import gradebook
from grader.classroom.discover import Submission
from grader.classroom.people import Person
from grader.classroom.roster import Roster, RosterEntry, is_test_student

ON_ROSTER = "on the roster"
BY_NAME = "on the roster (matched by name: check it)"
NOT_ON_ROSTER = "not on the roster"
NO_SUBMISSION = gradebook.NO_SUBMISSION
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Matched:
    """The submissions with what the roster says of them, and who handed in nothing: for
    each assignment of the class, ``missing_from``; ``missing`` is everyone in it."""

    submissions: tuple[Submission, ...]
    missing: tuple[RosterEntry, ...] = ()
    canvas: bool = False                  # the roster's ids are Canvas user ids
    warnings: tuple[str, ...] = ()        # a student in several submissions, ...
    missing_from: tuple[tuple[str, tuple[RosterEntry, ...]], ...] = ()

    @property
    def unmatched(self) -> tuple[Submission, ...]:
        """The submissions whose student (or one of whose group) is not on the roster."""
        return tuple(submission for submission in self.submissions
                     if submission.roster.startswith(NOT_ON_ROSTER))


def match_roster(submissions: Sequence[Submission], roster: Roster) -> Matched:
    """Each submission with its roster line(s), and, for each assignment of the class, the
    roster's students with none for it (a student whose hand-in is for no assignment that
    could be told is missing from none: they handed something in)."""
    by_key = _index(roster.entries, _keys)
    by_name = _index(roster.entries, lambda entry: _name_keys(entry.name))
    # assignment -> roster id -> the submissions it matched
    taken: dict[str, dict[str, list[str]]] = {}
    result = []
    for submission in submissions:
        people = submission.people or (Person(),)
        found: list[tuple[Person, RosterEntry | None, bool]] = []
        for person in people:
            entry = _first(by_key, _person_keys(submission, person, len(people)))
            named = entry is None and bool(person.name)
            if named:
                entry = _first(by_name, _name_keys(person.name))
            found.append((person, entry, named and entry is not None))
        mine = taken.setdefault(submission.assignment, {})
        for _, entry, _ in found:
            if entry is not None:
                mine.setdefault(entry.student_id, []).append(submission.student_id)
        result.append(_matched(submission, found, roster.canvas))
    warnings = [f"{student} is in {len(ids)} submissions ({', '.join(ids)}): the LMS "
                "gradebooks take one of them (--gradebook-choice)"
                for mine in taken.values() for student, ids in mine.items() if len(ids) > 1]
    unassigned = taken.pop("", {}) if len(taken) > 1 else {}
    # Canvas's Test Student is on every Canvas roster and hands in nothing on purpose.
    missing_from = tuple(
        (assignment, tuple(entry for entry in roster.entries
                           if entry.student_id not in mine and entry.student_id not in unassigned
                           and not is_test_student(entry.name, entry.sis_id)))
        for assignment, mine in (taken.items() or [("", {})]))
    missing = tuple(entry for entry in roster.entries
                    if any(entry in entries for _, entries in missing_from))
    return Matched(tuple(result), missing, roster.canvas, tuple(warnings), missing_from)


def _matched(submission: Submission, found: list[tuple[Person, RosterEntry | None, bool]],
             canvas: bool) -> Submission:
    people = tuple(_filled(person, entry, canvas) if entry else person
                   for person, entry, _ in found)
    strangers = [person.name or person.sid or person.email or submission.student_id
                 for person, entry, _ in found if entry is None]
    if not strangers:
        status = BY_NAME if any(named for _, _, named in found) else ON_ROSTER
    elif len(strangers) == len(found):
        status = NOT_ON_ROSTER
    else:
        status = f"{NOT_ON_ROSTER}: {', '.join(strangers)}"
    names = "; ".join(person.name for person in people if person.name)
    return replace(submission, people=tuple(p for p in people if p != Person()),
                   roster=status, name=names or submission.name)


def _filled(person: Person, entry: RosterEntry, canvas: bool) -> Person:
    """``person`` with the roster line's name, when it gives one (an export's is often a
    file name's mangling: Canvas's "nunezorstedzoe" for "Ñúñez-Ørsted, Zoë"), and the blanks
    it fills (the export's own ids and email win)."""
    return Person(entry.name or person.name,
                  person.sid or (entry.sis_id if canvas else entry.student_id),
                  person.email or entry.email,
                  person.canvas_id or (entry.student_id if canvas else ""),
                  person.login_id or entry.login_id, person.section or entry.section)


def person_of(entry: RosterEntry, canvas: bool) -> Person:
    """The person a roster line describes."""
    return _filled(Person(), entry, canvas)


def _keys(entry: RosterEntry) -> set[str]:
    return {key.casefold() for key in (entry.student_id, entry.sis_id, entry.login_id,
                                       entry.email) if key}


def _person_keys(submission: Submission, person: Person, group: int) -> list[str]:
    """What a person may be found by: the export's ids and email; a plain file's or folder's
    name too (Moodle's and Gradescope's numbers are their own, never a roster's)."""
    keys = [person.canvas_id, person.sid, person.email]
    if not submission.lms and group == 1:
        keys.append(submission.student_id)
    return [key.casefold() for key in keys if key]


def _name_keys(name: str) -> set[str]:
    """A name's spellings that the LMSes share: "Lovelace, Ada", "Ada Lovelace" and
    Canvas's file names' "lovelaceada" all give "ada lovelace" or "lovelaceada".

    >>> sorted(_name_keys("Lovelace, Ada"))
    ['ada lovelace', 'adalovelace', 'lovelaceada']
    """
    words = [word.casefold() for word in _WORD.findall(name)]
    if not words:
        return set()
    return {" ".join(sorted(words)), "".join(words), "".join(reversed(words))}


def _index(entries: Iterable[RosterEntry], keys_of) -> dict[str, RosterEntry | None]:
    """key -> the one roster line that has it (None: several have it, so it decides nothing)."""
    index: dict[str, RosterEntry | None] = {}
    for entry in entries:
        for key in keys_of(entry):
            index[key] = entry if key not in index or index[key] is entry else None
    return index


def _first(index: dict[str, RosterEntry | None], keys: Iterable[str]) -> RosterEntry | None:
    for key in keys:
        entry = index.get(key)
        if entry is not None:
            return entry
    return None


def missing_row(entry: RosterEntry, canvas: bool = False, zero: bool = False,
                max_score: float | None = None, assignment: str = "") -> gradebook.Row:
    """The gradebook row of a student on the roster who handed in nothing: no score, or 0
    when the instructor asks for it (``zero``).

    >>> row = missing_row(RosterEntry("bob", "Bob B"), zero=True, max_score=100.0)
    >>> row.status, row.score, row.missing
    ('not graded: no submission', 0.0, True)
    """
    row = gradebook.not_graded_row(entry.student_id, NO_SUBMISSION, name=entry.name,
                                   people=(person_of(entry, canvas),), roster=ON_ROSTER,
                                   assignment=assignment)
    return replace(row, score=0.0, max_score=max_score) if zero else row
