"""Reading a class roster: a CSV with a student id, a name and an email on each line.

Read by ``batch --roster`` (who handed in nothing, whose submission is whose) and by the
submission page (``grader serve``: who may sign in).

The first line names the columns. ``id,name,email`` is the plain form; the exports of the
LMSes are read too, their headers matched case-insensitively (Canvas's gradebook: Student,
ID, SIS User ID; Moodle's: First name, Last name, ID number, Email address; Gradescope's
roster: First Name, Last Name, SID, Email). Only the id column is required. Canvas's other
ids and its section are kept too (``sis_id``, ``login_id``, ``section``): its grade import
wants them back. UTF-8 (with or without Excel's byte-order mark), UTF-16 with a byte-order
mark, or else Windows-1252 (with a note); commas, semicolons or tabs between cells.

A line with an email and no id gets an id made from the email (:func:`id_from_email`: its
local part, or the whole email where two students would share one), and keeps the id the
course already gave that email. A line that is read right but gives no usable student (no
id and no email, an id with a space) is left out with a note naming its line; the others
are read. A file that is no roster (no id column, an id on two lines, no usable line) or
that has a malformed line (a quote left open, a cell running over lines, another number of
cells than the first line names: :mod:`grader.classroom.csv_lines`) is refused whole,
naming the lines.

>>> roster = parse_roster("id,name,email\\nalice,Alice A,alice@example.org\\n".encode())
>>> roster.entries[0].name, roster.entries[0].email
('Alice A', 'alice@example.org')
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Collection, Mapping

from grader.classroom.csv_lines import MalformedLines, problems_message, read_lines

# The id the instructor's own sign-in link has in the links CSV.
INSTRUCTOR_ID = "instructor"
MAX_ID_LENGTH = 100
MAX_PROBLEMS = 10          # a message lists at most this many problems (and says how many)
_ID_CHARS = re.compile(r"^[A-Za-z0-9._@+-]+$")   # the ids batch gives files (discover.py)

# Header names after _normal(): lower case, runs of spaces, "_" and "-" made one space.
# The first alias found wins: Canvas's "ID" (the id in its download's file names, so that
# `batch` and the page name a student alike) before its "SIS User ID".
ID_ALIASES = ("student id", "studentid", "id", "sid", "sis user id", "sis id",
              "id number", "idnumber", "student number", "user id", "userid", "username",
              "login id", "sis login id")
NAME_ALIASES = ("name", "full name", "fullname", "student name", "student", "display name")
FIRST_ALIASES = ("first name", "firstname", "given name", "first")
LAST_ALIASES = ("last name", "lastname", "surname", "family name", "last")
EMAIL_ALIASES = ("email", "e mail", "email address", "e mail address", "mail")
# Canvas's gradebook export: kept beside its "ID" (the Canvas user id) for its grade import.
SIS_ID_ALIASES = ("sis user id",)
LOGIN_ALIASES = ("sis login id", "login id")
SECTION_ALIASES = ("section", "sections")
# Canvas's gradebook export has a second line of points, not a student.
_CANVAS_POINTS = "points possible"


# Canvas's fake student (its "Student View"), in every course's roster and gradebook export.
_TEST_STUDENT_NAMES = ("test student", "student, test")


def is_test_student(name: str, sis_id: str = "") -> bool:
    """Whether a roster line is Canvas's "Test Student": the fake student Canvas adds to
    every course (its Student View), named "Test Student" ("Student, Test" in the
    gradebook's order), with no SIS id. It is nobody's missing hand-in.

    >>> is_test_student("Test Student"), is_test_student("Student,  Test")
    (True, True)
    >>> is_test_student("Test Student", sis_id="S1234"), is_test_student("Ada Lovelace")
    (False, False)
    """
    # A real student with that name has an SIS id; Canvas's fake one never has one.
    return " ".join(name.split()).casefold() in _TEST_STUDENT_NAMES and not sis_id.strip()


class RosterError(ValueError):
    """The roster cannot be imported; the message names the lines and the fix."""


@dataclass(frozen=True)
class RosterEntry:
    """One student of the roster.

    >>> RosterEntry("alice", "Alice A", "alice@example.org").student_id
    'alice'
    """

    student_id: str
    name: str = ""
    email: str = ""
    sis_id: str = ""       # Canvas's SIS User ID, when the id is its Canvas user id ("ID")
    login_id: str = ""     # Canvas's SIS Login ID
    section: str = ""


@dataclass(frozen=True)
class Roster:
    """A roster's students in file order, and notes about how it was read (an encoding
    guessed, a column missing) that a person should see but that do not refuse it."""

    entries: tuple[RosterEntry, ...]
    notes: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()     # the columns used: id, name, email, ... (as headed)
    canvas: bool = False              # Canvas's gradebook export: the ids are Canvas user ids
    optional: tuple[str, ...] = ()    # which of sis_id, login_id, section it has a column of

    def identifiers(self, entry: RosterEntry) -> dict[str, str]:
        """What this roster says of ``entry`` besides id, name and email, by the names the
        submission page stores them under (grader.service.course.schema.ROSTER_FIELDS): only the
        fields it has a column for (an empty cell included), so that a roster without
        them leaves what an earlier one said. A Canvas export's id is Canvas's user id.

        >>> roster = parse_roster(b"Student,ID,SIS User ID,SIS Login ID,Section\\n"
        ...                       b"Ada,12345,S001,ada,B\\n")
        >>> roster.identifiers(roster.entries[0])
        {'lms_user_id': '12345', 'sis_user_id': 'S001', 'sis_login_id': 'ada', 'section': 'B'}
        >>> plain = parse_roster(b"id,section\\nada,B\\n")
        >>> plain.identifiers(plain.entries[0])
        {'section': 'B'}
        """
        given = {"lms_user_id": entry.student_id} if self.canvas else {}
        for stored, kept in (("sis_user_id", "sis_id"), ("sis_login_id", "login_id"),
                             ("section", "section")):
            if kept in self.optional:
                given[stored] = getattr(entry, kept)
        return given


def id_from_email(email: str, whole: bool = False) -> str:
    """A student id made from ``email``: its local part (``whole``: all of it), without
    accents, in lower case, only letters, digits and . _ + - (and @ when whole); "" when
    nothing is left.

    >>> id_from_email("Zoë.Núñez-Ørsted@uni.example"), id_from_email("ada@x.org", whole=True)
    ('zoe.nunez-rsted', 'ada@x.org')
    >>> id_from_email("学生@x.org")
    ''
    """
    text = email.strip() if whole else email.strip().rsplit("@", 1)[0]
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    allowed = r"[^a-z0-9._+@-]" if whole else r"[^a-z0-9._+-]"
    return re.sub(allowed, "", text.casefold()).strip("._+-@")[:MAX_ID_LENGTH]


def read_roster(path: Path) -> list[RosterEntry]:
    """The students of the roster CSV at ``path``; raises RosterError on any mistake.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "roster.csv"
    >>> _ = path.write_text("SID,Email,First Name,Last Name\\n42,ada@x.org,Ada,Lovelace\\n")
    >>> read_roster(path) == [RosterEntry("42", "Ada Lovelace", "ada@x.org")]
    True
    """
    return list(load_roster(path).entries)


def load_roster(path: Path, known: Mapping[str, str] | None = None,
                course_ids: Collection[str] = ()) -> Roster:
    """:func:`read_roster` with the notes (see :class:`Roster`); ``known``: the ids the
    course gave before, by email in lower case (a line without an id keeps its student's);
    ``course_ids``: every id the course has (an id made from an email is none of them)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise RosterError(f"{path} is a folder: give the roster's .csv file") from None
    except FileNotFoundError:
        raise RosterError(f"there is no roster file {path}") from None
    except OSError as problem:
        raise RosterError(f"cannot read the roster {path}: {problem.strerror or problem}") \
            from None
    return parse_roster(data, str(path), known, course_ids)


def parse_roster(data: bytes, source: str = "the roster",
                 known: Mapping[str, str] | None = None,
                 course_ids: Collection[str] = ()) -> Roster:
    """The roster in ``data`` (a CSV file's bytes); ``source`` names it in messages;
    ``known`` and ``course_ids`` as :func:`load_roster` takes them.

    >>> roster = parse_roster(b"id,name,email\\n,Ada,ada@x.org\\n,Nobody,\\nbo,Bo,\\n")
    >>> [entry.student_id for entry in roster.entries]
    ['ada', 'bo']
    >>> print(roster.notes[-1])
    the roster: line 3 was left out (the others were read): no student id (the id cell is empty) and no email to make one from: give it an id, then import the roster again

    >>> parse_roster(b"id,name\\n7,=1+2\\n").entries[0].name
    '=1+2'
    >>> try:
    ...     parse_roster(b"id,name\\na,A\\nb,B\\na,C\\n", "r.csv")
    ... except RosterError as problem:
    ...     print(problem)
    r.csv: a student id appears more than once (each student must be on one line only; \
remove or correct the extra lines): 'a' on lines 2 and 4
    """
    text, notes = _decode(data, source)
    if not any(line.strip(" \t,;") for line in text.splitlines()):
        raise RosterError(f"{source} is empty: it needs a first line naming the columns "
                          "(id,name,email), then one line per student")
    try:
        numbered = [(line.number, line.cells) for line in read_lines(text)]
    except MalformedLines as problem:
        raise RosterError(problems_message(source, problem.problems)) from None
    header_line, header = numbered[0]
    columns = _columns(header, source)
    if columns.email is None:
        notes.append(f"{source} has no email column (the students' emails will be empty); "
                     "the columns found: " + _listed(header))
    entries, problems = _entries(numbered[1:], columns)
    made, unmade = _ids_from_emails(entries, known or {}, course_ids)
    entries = [entry for entry in entries if entry[1].student_id]
    problems = sorted(problems + unmade, key=lambda problem: problem[0])
    duplicates = _duplicates(entries)
    if duplicates:
        raise RosterError(_problems_message(source, duplicates))
    if not entries and problems:
        raise RosterError(_problems_message(source, [f"line {number}: {problem}"
                                                     for number, problem in problems]))
    if not entries:
        raise RosterError(f"{source} has a first line of column names but no student "
                          f"(line {header_line}: {_listed(header)})")
    if made:
        shown = ", ".join(f"line {number}: {student_id}" for number, student_id in made[:10])
        more = f" and {len(made) - 10} more" if len(made) > 10 else ""
        notes.append(f"{source}: {len(made)} line(s) without an id got one made from the "
                     f"email ({shown}{more}); give them an id in the roster to choose it")
    for number, problem in problems[:MAX_PROBLEMS]:
        notes.append(f"{source}: line {number} was left out (the others were read): "
                     f"{problem}, then import the roster again")
    if len(problems) > MAX_PROBLEMS:
        notes.append(f"{source}: and {len(problems) - MAX_PROBLEMS} more lines left out")
    optional = tuple(kept for kept, index in (("sis_id", columns.sis_id),
                                              ("login_id", columns.login_id),
                                              ("section", columns.section))
                     if index is not None)
    used = tuple(header[index] for index in (columns.student_id, columns.name, columns.email,
                                             columns.sis_id, columns.login_id, columns.section)
                 if index is not None)
    # Canvas's export: "Student" and "ID" (a TA's export may lack the SIS columns).
    canvas = (_normal(header[columns.student_id]) == "id"
              and (columns.sis_id is not None or "student" in map(_normal, header)))
    return Roster(tuple(entry for _, entry in entries), tuple(notes), used, canvas,
                  optional)


def _decode(data: bytes, source: str) -> tuple[str, list[str]]:
    """The text of ``data`` and the notes on its encoding."""
    if data.startswith(b"PK\x03\x04"):
        raise RosterError(f"{source} is a zip or an Excel workbook (.xlsx), not a CSV file: "
                          "save it as CSV (File > Save As > CSV UTF-8) and import that")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16"), []
        except UnicodeDecodeError:
            raise RosterError(f"{source} starts like UTF-16 but is not: save it as "
                              "CSV UTF-8") from None
    if b"\x00" in data:
        raise RosterError(f"{source} is not a text file (it holds NUL bytes): save the "
                          "roster as CSV UTF-8 and import that")
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as utf8_problem:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            line = data[:utf8_problem.start].count(b"\n") + 1
            raise RosterError(
                f"{source} is neither UTF-8 nor Windows-1252 text (byte "
                f"0x{data[utf8_problem.start]:02x} on line {line}): save it as CSV UTF-8 "
                "and import that") from None
        line = data[:utf8_problem.start].count(b"\n") + 1
        return text, [f"{source} is not UTF-8 (line {line} first): it was read as "
                      "Windows-1252; check that the accented names look right, or save it "
                      "as CSV UTF-8"]


@dataclass(frozen=True)
class _Columns:
    student_id: int
    name: int | None = None
    first: int | None = None
    last: int | None = None
    email: int | None = None
    sis_id: int | None = None
    login_id: int | None = None
    section: int | None = None


def _normal(header: str) -> str:
    return re.sub(r"[\s_-]+", " ", header.strip().strip("\ufeff").casefold()).strip()


def _find(normal: list[str], aliases: tuple[str, ...]) -> int | None:
    for alias in aliases:
        if alias in normal:
            return normal.index(alias)
    return None


def _columns(header: list[str], source: str) -> _Columns:
    normal = [_normal(cell) for cell in header]
    student_id = _find(normal, ID_ALIASES)
    if student_id is None:
        raise RosterError(
            f"{source} has no column for the student id; the columns found: "
            f"{_listed(header)}. The first line must name the columns, e.g. id,name,email "
            "(also understood: student_id, SID, SIS User ID, ID number, username)")
    others = [(_find(normal, aliases)) for aliases in (SIS_ID_ALIASES, LOGIN_ALIASES)]
    return _Columns(student_id, _find(normal, NAME_ALIASES), _find(normal, FIRST_ALIASES),
                    _find(normal, LAST_ALIASES), _find(normal, EMAIL_ALIASES),
                    *(index if index != student_id else None for index in others),
                    _find(normal, SECTION_ALIASES))


def _listed(header: list[str]) -> str:
    shown = [repr(cell.strip()) for cell in header[:12]]
    return ", ".join(shown) + (f" (and {len(header) - 12} more)" if len(header) > 12 else "")


def _cell(row: list[str], index: int | None) -> str:
    if index is None or index >= len(row):
        return ""
    return " ".join(row[index].split())      # no line breaks or runs of spaces in a name


def _entries(rows: list[tuple[int, list[str]]], columns: _Columns
             ) -> tuple[list[tuple[int, RosterEntry]], list[tuple[int, str]]]:
    """Each usable line's entry (with an empty id where the email is to make one) and each
    unusable line's problem, by line number."""
    entries: list[tuple[int, RosterEntry]] = []
    problems: list[tuple[int, str]] = []
    for number, row in rows:
        student_id = _cell(row, columns.student_id)
        name = _cell(row, columns.name) or " ".join(
            part for part in (_cell(row, columns.first), _cell(row, columns.last)) if part)
        if not student_id and name.casefold() == _CANVAS_POINTS:
            continue
        if not student_id and is_test_student(name, _cell(row, columns.sis_id)):
            continue      # Canvas's fake student, sometimes without an id: not a student
        email = _cell(row, columns.email)
        problem = _id_problem(student_id) if student_id or not email else None
        if problem:
            fix = ("and no email to make one from: give it an id" if not student_id
                   else "write another id")
            problems.append((number, f"{problem} {fix}" if not student_id
                             else f"{problem}: {fix}"))
            continue
        entries.append((number, RosterEntry(student_id, name, email,
                                            _cell(row, columns.sis_id),
                                            _cell(row, columns.login_id),
                                            _cell(row, columns.section))))
    return entries, problems


def _ids_from_emails(entries: list[tuple[int, RosterEntry]], known: Mapping[str, str],
                     course_ids: Collection[str] = ()
                     ) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """Give each entry without an id (in place) the id the course ``known`` for its email,
    else its email's local part, or the whole email where the local part is another
    line's or the course's (``course_ids``: a student without an email too; so the ids
    made do not depend on the lines' order). The ids made and the lines that could not get
    one, by line number."""
    given = {entry.student_id.casefold() for _, entry in entries if entry.student_id}
    given.add(INSTRUCTOR_ID)
    pending = [index for index, (_, entry) in enumerate(entries) if not entry.student_id]
    chosen: dict[int, str] = {}
    for index in pending:
        known_id = known.get(entries[index][1].email.casefold())
        if known_id and known_id.casefold() not in given:
            chosen[index] = known_id
    locals_ = [id_from_email(entries[index][1].email) for index in pending
               if index not in chosen]
    taken = given | {student_id.casefold() for student_id in chosen.values()} \
        | {student_id.casefold() for student_id in known.values()} \
        | {student_id.casefold() for student_id in course_ids}
    made, unmade = [], []
    for index in pending:
        number, entry = entries[index]
        student_id = chosen.get(index)
        if student_id is None:
            student_id = id_from_email(entry.email)
            if not student_id or student_id in taken or locals_.count(student_id) > 1:
                student_id = id_from_email(entry.email, whole=True)
            if not student_id or student_id in taken or _id_problem(student_id):
                unmade.append((number, f"no student id, and the id made from the email "
                                       f"{entry.email!r} ({student_id or 'none'}) is another "
                                       "student's or unusable: give it an id"))
                continue
            taken.add(student_id)
        entries[index] = (number, replace(entry, student_id=student_id))
        made.append((number, student_id))
    return made, unmade


def _id_problem(student_id: str) -> str | None:
    if not student_id:
        return "no student id (the id cell is empty)"
    if student_id.casefold() == INSTRUCTOR_ID:
        return f"the id {INSTRUCTOR_ID!r} is the instructor's own: give the student another"
    if len(student_id) > MAX_ID_LENGTH:
        return f"the student id is longer than {MAX_ID_LENGTH} characters"
    if not _ID_CHARS.match(student_id):
        return (f"the student id {student_id!r} may hold only letters, digits and . _ @ + - "
                "(no spaces)")
    return None


def _duplicates(entries: list[tuple[int, RosterEntry]]) -> list[str]:
    lines: dict[str, list[int]] = {}
    first: dict[str, str] = {}
    for number, entry in entries:
        key = entry.student_id.casefold()     # batch too takes Alice and alice for one
        lines.setdefault(key, []).append(number)
        first.setdefault(key, entry.student_id)
    repeated = [f"{first[key]!r} on lines " + _and(numbers)
                for key, numbers in lines.items() if len(numbers) > 1]
    if not repeated:
        return []
    return ["a student id appears more than once (each student must be on one line only; "
            "remove or correct the extra lines): " + "; ".join(repeated)]


def _and(numbers: list[int]) -> str:
    text = [str(number) for number in numbers]
    return text[0] if len(text) == 1 else ", ".join(text[:-1]) + " and " + text[-1]


def _problems_message(source: str, problems: list[str]) -> str:
    shown = problems[:MAX_PROBLEMS]
    more = len(problems) - len(shown)
    tail = f"; and {more} more" if more else ""
    if len(problems) == 1:
        return f"{source}: {problems[0]}"
    return (f"{source}: nothing was imported; {len(problems)} problems: "
            + "; ".join(shown) + tail)
