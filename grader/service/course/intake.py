"""What ``grader serve`` accepts as a submission, and the messages when it does not.

Every refusal is a :class:`Refused` with the HTTP status the JSON API answers and a message
a student can act on (what is wrong, and when they can submit again), naming the file the
assignment expects (``expected``: ``mm_player.py``, ``mc_player.py``, an instructor's
template's name). The bytes are checked first, here (empty, too large, an archive, binary,
not UTF-8: :func:`check_content`); then what a child process found in them
(``checking``: whether the grader can read them as Python 3 at all, :func:`check_readable`);
then which assignment they are for (``course_assignments.for_hand_in``); then the deadline;
then the limits that depend on earlier submissions (one in flight per assignment, so many
per hour), which ``storage.Store.add_submission`` checks in the transaction that stores it.
A refused file is not stored, so it is never the latest hand-in and never counts against
the hourly limit; refused files that cost a check are limited per student
(:func:`refusal_for_checker`).

>>> check_content("mm_player.py", b"def mm_move(board, player):\\n    pass\\n", 1024)
>>> check_content("mc_player.py", b"", 1024, "mc_player.py")
Traceback (most recent call last):
...
grader.service.course.intake.Refused: the file mc_player.py is empty: choose your mc_player.py (the one you edited), or paste its code
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from grader.assignments import AssignmentError, get as get_assignment
from grader.sandbox.submission import load_error
from grader.service.course.checking import Checked, CheckerBusy, CheckLimits
from grader.service.course.storage import InFlight, TooMany
from grader.service.course.times import parse_time, show_time

ARCHIVES = (".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar")
ARCHIVE_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b", b"7z\xbc\xaf", b"Rar!", b"BZh")
MAX_NAME = 200          # characters of a file name kept
PASTED = " (pasted)"    # after the expected file's name: code pasted in the page's box


def expected_file(assignment: str) -> str:
    """The file a student hands in for the assignment ``assignment``: its template's name
    (an assignment without one, or unknown: ``NAME.py``).

    >>> expected_file("montecarlo"), expected_file("minimax"), expected_file("nosuch")
    ('mc_player.py', 'mm_player.py', 'nosuch.py')
    """
    try:
        template = get_assignment(assignment).template
    except AssignmentError:
        template = None
    return template.name if template is not None else f"{assignment}.py"


def pasted_name(expected: str) -> str:
    """The name code pasted in the page's box is kept under.

    >>> pasted_name("mc_player.py")
    'mc_player.py (pasted)'
    """
    return expected + PASTED


class Refused(Exception):
    """A submission not accepted: ``status`` for the API, the message for the person."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class Deadlines:
    """The course's deadline and optional late deadline (None: no deadline).

    >>> d = Deadlines(parse_time("2026-01-02T00:00:00Z"), None)
    >>> d.is_late(parse_time("2026-01-01T00:00:00Z")), d.closed(parse_time("2026-01-03T00:00:00Z"))
    (False, True)
    """

    deadline: datetime | None = None
    late_deadline: datetime | None = None

    @property
    def last(self) -> datetime | None:
        return self.late_deadline or self.deadline

    def is_late(self, now: datetime) -> bool:
        return self.deadline is not None and now > self.deadline

    def closed(self, now: datetime) -> bool:
        return self.last is not None and now > self.last

    def passed(self, now: datetime) -> bool:
        """The (first) deadline has passed: what Gradescope shows "after the due date"."""
        return self.is_late(now)

    def extension(self, deadline: datetime, late_deadline: datetime | None) -> "Deadlines":
        """A student's own deadlines under these, the course's: an empty late deadline is the
        course's late window moved with the student's deadline (as long after it as the
        course's late deadline is after the course's deadline), so an extension never takes
        away the late hand-ins everyone else may make; a course without one gives none.

        >>> course = Deadlines(parse_time("2026-12-01T23:59:00Z"),
        ...                    parse_time("2026-12-03T23:59:00Z"))
        >>> course.extension(parse_time("2026-12-05T23:59:00Z"), None).late_deadline.day
        7
        >>> Deadlines().extension(parse_time("2026-12-05T23:59:00Z"), None).late_deadline
        """
        if late_deadline is None and self.deadline is not None \
                and self.late_deadline is not None:
            late_deadline = deadline + (self.late_deadline - self.deadline)
        return Deadlines(deadline, late_deadline)


def show_size(size: int) -> str:
    """
    >>> show_size(1234), show_size(262144), show_size(12)
    ('1.2 KiB', '256 KiB', '12 bytes')
    """
    if size < 1024:
        return f"{size} bytes"
    return f"{size / 1024:.1f} KiB" if size < 10 * 1024 else f"{size // 1024} KiB"


def show_wait(seconds: float) -> str:
    """
    >>> show_wait(42), show_wait(150), show_wait(3700), show_wait(3599)
    ('42 s', '3 min', '1 h 2 min', '1 h')
    """
    seconds = max(0, round(seconds))
    if seconds < 100:
        return f"{seconds} s"
    minutes = (seconds + 59) // 60
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h" + (f" {minutes % 60} min" if minutes % 60 else "")


def clean_name(name: str | None, default: str = "") -> str:
    """The name of the handed-in file, for the history (no folders, bounded; kept as text:
    pages escape it); ``default`` when it has none.

    >>> clean_name("C:\\\\Users\\\\me\\\\mm_player.py"), clean_name("../x.py")
    ('mm_player.py', 'x.py')
    >>> clean_name("", "mc_player.py")
    'mc_player.py'
    """
    name = (name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    name = "".join(ch for ch in name if ch.isprintable())
    return name[:MAX_NAME] or default


def check_content(filename: str, data: bytes, max_size: int,
                  expected: str = "mm_player.py") -> None:
    """Refused (400 or 413) unless ``data`` is a non-empty UTF-8 text file within the limit
    (``expected``: the file the assignment asks for, as the messages name it)."""
    if len(data) > max_size:
        raise Refused(413, f"the file {filename} is too large ({show_size(len(data))}; the "
                           f"limit is {show_size(max_size)}). Hand in only {expected} (a test "
                           "or a saved game does not belong in it)")
    if not data.strip():
        raise Refused(400, f"the file {filename} is empty: choose your {expected} (the one "
                           "you edited), or paste its code")
    lowered = filename.lower()
    if lowered.endswith(ARCHIVES) or data.startswith(ARCHIVE_MAGIC):
        raise Refused(400, f"{filename} is an archive: hand in the single file {expected}, "
                           "not a .zip or a folder")
    if lowered.endswith(".ipynb"):
        raise Refused(400, f"{filename} is a notebook: hand in {expected}, the Python file "
                           "of the handout")
    if b"\x00" in data:
        raise Refused(400, f"{filename} is a binary file, not Python code: hand in "
                           f"{expected} (a .pyc or a document will not do)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as problem:
        line = data[:problem.start].count(b"\n") + 1
        raise Refused(400, f"{filename} is not UTF-8 text (byte {problem.start + 1}, line "
                           f"{line}): save it as UTF-8 in your editor and hand it in "
                           "again") from None


def refused_note(limits: CheckLimits) -> str:
    """What every refusal of a checked file says about what it costs.

    >>> refused_note(CheckLimits())
    'a refused file does not count against your hand-ins per hour, but at most 20 refused files are checked in 10 min'
    """
    return ("a refused file does not count against your hand-ins per hour, but at most "
            f"{limits.refused} refused files are checked in {show_wait(limits.refused_window)}")


def check_readable(filename: str, checked: Checked, data: bytes,
                   expected: str = "mm_player.py",
                   limits: CheckLimits = CheckLimits()) -> None:
    """Refused (400) when the check (``checking``) found that the grader could not read
    ``data`` as Python 3 source at all (a Python 2 file, a page of prose, a coding line
    that does not fit the bytes): the grader would give it 0 without running a line, so it
    is refused here, in the grader's words (``grader.sandbox.submission.load_error``, as
    the report would say it); or when checking it went past the check's limits. A file
    that compiles goes on, right or wrong.

    >>> check_readable("mm_player.py", Checked(frozenset({"mm_move"})), b"")
    >>> problem = {"kind": "syntax", "line": 2, "text": "print board", "message": "SyntaxError"}
    >>> check_readable("mm_player.py", Checked(problem=problem),
    ...                b"def mm_move(board, player):\\n    print board\\n")
    Traceback (most recent call last):
    ...
    grader.service.course.intake.Refused: mm_player.py cannot be graded, so it was not handed in: line 2: print board  -> write print(board)
    This file is Python 2; the course runs Python 3.
    Fix it and hand it in again (a refused file does not count against your hand-ins per hour, but at most 20 refused files are checked in 10 min).
    """
    if checked.limit is not None:
        raise Refused(400, _over_limit(filename, checked.limit, limits)
                      + f"\nNothing was handed in ({refused_note(limits)}).")
    problem = checked.problem
    if problem is None:
        return
    if problem.get("kind") == "syntax":
        reason = load_error(problem, data.decode("utf-8", "replace").splitlines()).message
    else:                  # the bytes' encoding: the grader's own words
        reason = str(problem.get("message", ""))
    if not filename.lower().endswith((".py", ".py" + PASTED)):
        reason += (f"\n-> {filename} is not a Python file: hand in the .py file you wrote "
                   f"({expected})")
    raise Refused(400, f"{filename} cannot be graded, so it was not handed in: {reason}\n"
                       f"Fix it and hand it in again ({refused_note(limits)}).")


def _over_limit(filename: str, limit: str, limits: CheckLimits) -> str:
    if limit == "cpu":
        return (f"{filename} takes more than {limits.cpu_seconds} s of CPU just to be read "
                "as Python (the page's limit): a course's file takes a fraction of a second. "
                "Remove what makes it slow (a huge expression, a very long f-string)")
    if limit == "memory":
        return (f"{filename} takes more than {show_size(limits.memory_bytes)} of memory just "
                "to be read as Python (the page's limit): remove what makes it so large")
    return (f"{filename} could not be checked within {show_wait(limits.wall_seconds)} (the "
            "page's limit; the server may be very busy): hand it in again in a few minutes")


def refusal_for_checker(busy: CheckerBusy, limits: CheckLimits,
                        now: datetime, zone: tzinfo | None = None) -> Refused:
    """The message when the page checks no file of a student now (429): one of theirs is
    being checked, or too many of theirs were refused lately.

    >>> busy = CheckerBusy("checking", 5)
    >>> refusal_for_checker(busy, CheckLimits(), parse_time("2026-01-01T10:00:00Z")).status
    429
    """
    seconds = max(1, int(busy.retry_after + 0.999))
    if busy.why == "checking":
        return Refused(429, "your previous file is still being checked: wait for its "
                            "answer, then hand in again", retry_after=seconds)
    free = now + timedelta(seconds=seconds)
    return Refused(429, f"too many of your files were refused in the last "
                        f"{show_wait(limits.refused_window)}: the page checks at most "
                        f"{limits.refused} refused files of a student in "
                        f"{show_wait(limits.refused_window)} (a file stopped at its checking "
                        f"limit counts as {limits.refused}), so you can hand in again at "
                        f"{show_time(free, zone)} (in {show_wait(seconds)}). Read the "
                        "refusals' reasons and fix the file meanwhile (refused files do not "
                        "count against your hand-ins per hour)", retry_after=seconds)


def check_deadline(deadlines: Deadlines, now: datetime, zone: tzinfo | None = None,
                   own: bool = False) -> bool:
    """Whether a submission now is late; Refused (403) after the last deadline (``own``:
    the student's own deadline, not the course's; ``zone``: the course's, for the message)."""
    if deadlines.closed(now):
        whose = "your own deadline (an extension) ended" if own else "submissions closed"
        raise Refused(403, f"{whose} at {show_time(deadlines.last, zone)}: your earlier "
                           "submissions and their reports stay here; ask your instructor "
                           "if you need an exception")
    return deadlines.is_late(now)


def refusal_for(problem: InFlight | TooMany, now: datetime, wait: float | None = None,
                zone: tzinfo | None = None, per_hour: int | None = None,
                title: str = "") -> Refused:
    """The message of a limit the database found (409 one in flight of the assignment
    ``title``, 429 per hour: all assignments together)."""
    if isinstance(problem, InFlight):
        row = problem.row
        when = f" (about {show_wait(wait)})" if wait is not None else ""
        of = f" of {title}" if title else ""
        return Refused(409, f"your hand-in {row.ordinal or row.id}{of}, received at "
                            f"{show_time(row.received_at, zone)}, is still {row.status}: you can "
                            f"hand in for it again as soon as its report is ready{when}")
    free = parse_time(problem.oldest) + timedelta(hours=1)
    seconds = max(1, int((free - now).total_seconds()) + 1)
    limit = f" ({per_hour}, all assignments together)" if per_hour else ""
    return Refused(429, f"you have reached the limit of hand-ins per hour{limit}: you can "
                        f"submit again at {show_time(free, zone)} (in {show_wait(seconds)})",
                   retry_after=seconds)
