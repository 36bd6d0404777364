"""What ``grader serve`` accepts as a submission, and the messages when it does not.

Every refusal is a :class:`Refused` with the HTTP status the JSON API answers and a message
a student can act on (what is wrong, and when they can submit again). The content is
checked first (empty, too large, an archive, binary, not UTF-8, then whether the grader can
read it as Python 3 at all: :func:`check_compiles`), then the deadline, then the limits that
depend on earlier submissions (one in flight, so many per hour), which
``storage.Store.add_submission`` checks in the transaction that stores it. A refused file is
not stored, so it is never the latest hand-in and never counts against the hourly limit.

>>> check_content("mm_player.py", b"def mm_move(board, player):\\n    pass\\n", 1024)
>>> check_content("mm_player.py", b"", 1024)
Traceback (most recent call last):
...
grader.service.course.intake.Refused: the file mm_player.py is empty: choose your mm_player.py (the one you edited), or paste its code
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from grader.sandbox.submission import compile_error
from grader.service.course.storage import InFlight, TooMany
from grader.service.course.times import parse_time, show_time
from provided.source import SourceError, decode_source

ARCHIVES = (".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar")
ARCHIVE_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b", b"7z\xbc\xaf", b"Rar!", b"BZh")
MAX_NAME = 200          # characters of a file name kept
PASTED_NAME = "mm_player.py (pasted)"   # the name of code pasted in the page's box


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


def clean_name(name: str | None) -> str:
    """The name of the handed-in file, for the history (no folders, bounded; kept as text:
    pages escape it).

    >>> clean_name("C:\\\\Users\\\\me\\\\mm_player.py"), clean_name(""), clean_name("../x.py")
    ('mm_player.py', 'mm_player.py', 'x.py')
    """
    name = (name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    name = "".join(ch for ch in name if ch.isprintable())
    return name[:MAX_NAME] or "mm_player.py"


def check_content(filename: str, data: bytes, max_size: int) -> None:
    """Refused (400 or 413) unless ``data`` is a non-empty UTF-8 text file within the limit."""
    if len(data) > max_size:
        raise Refused(413, f"the file {filename} is {show_size(len(data))}: the limit is "
                           f"{show_size(max_size)}. Hand in only mm_player.py (a test or "
                           "a saved game does not belong in it)")
    if not data.strip():
        raise Refused(400, f"the file {filename} is empty: choose your mm_player.py (the one "
                           "you edited), or paste its code")
    lowered = filename.lower()
    if lowered.endswith(ARCHIVES) or data.startswith(ARCHIVE_MAGIC):
        raise Refused(400, f"{filename} is an archive: hand in the single file mm_player.py, "
                           "not a .zip or a folder")
    if lowered.endswith(".ipynb"):
        raise Refused(400, f"{filename} is a notebook: hand in mm_player.py, the Python file "
                           "of the handout")
    if b"\x00" in data:
        raise Refused(400, f"{filename} is a binary file, not Python code: hand in "
                           "mm_player.py (a .pyc or a document will not do)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as problem:
        line = data[:problem.start].count(b"\n") + 1
        raise Refused(400, f"{filename} is not UTF-8 text (byte {problem.start + 1}, line "
                           f"{line}): save it as UTF-8 in your editor and hand it in "
                           "again") from None


def check_compiles(filename: str, data: bytes) -> None:
    """Refused (400) when the grader could not read ``data`` as Python 3 source at all (a
    Python 2 file, a page of prose, a coding line that does not fit the bytes): the grader
    would give it 0 without running a line, so it is refused here, in the grader's words
    (``provided.source.decode_source`` and ``grader.sandbox.submission.compile_error``, as
    the report would say it). A file that compiles goes on, right or wrong: it is graded.

    >>> check_compiles("mm_player.py", b"def mm_move(board, player):\\n    return 0, (-1, -1)\\n")
    >>> check_compiles("mm_player.py", b"def mm_move(board, player):\\n    print board\\n")
    Traceback (most recent call last):
    ...
    grader.service.course.intake.Refused: mm_player.py cannot be graded, so it was not handed in: line 2: print board  -> write print(board)
    This file is Python 2; the course runs Python 3.
    Fix it and hand it in again (a file that is refused does not count against your hand-ins per hour).
    """
    try:
        decode_source(data, filename)
    except SourceError as problem:
        reason = problem.message
    else:
        error = compile_error(data, filename)
        if error is None:
            return
        reason = error.message
    if not filename.lower().endswith(".py") and filename != PASTED_NAME:
        reason += (f"\n-> {filename} is not a Python file: hand in the .py file in which you "
                   "wrote mm_move")
    raise Refused(400, f"{filename} cannot be graded, so it was not handed in: {reason}\n"
                       "Fix it and hand it in again (a file that is refused does not count "
                       "against your hand-ins per hour).")


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
                zone: tzinfo | None = None) -> Refused:
    """The message of a limit the database found (409 in flight, 429 per hour)."""
    if isinstance(problem, InFlight):
        row = problem.row
        when = f" (about {show_wait(wait)})" if wait is not None else ""
        return Refused(409, f"your hand-in {row.ordinal or row.id}, received at "
                            f"{show_time(row.received_at, zone)}, is still {row.status}: you can "
                            f"submit again as soon as its report is ready{when}")
    free = parse_time(problem.oldest) + timedelta(hours=1)
    seconds = max(1, int((free - now).total_seconds()) + 1)
    return Refused(429, "you have reached the limit of submissions per hour: you can "
                        f"submit again at {show_time(free, zone)} (in {show_wait(seconds)})",
                   retry_after=seconds)
