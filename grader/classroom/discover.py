"""Finding a class's submissions, and whose each one is: the naming rules of the LMSes.

A folder or an unpacked zip holds one entry per student: ``alice.py``, a folder, or the
names Moodle, Canvas and Gradescope give their downloads (``HELP_EPILOG`` in
``grader.classroom.command`` says which); a Gradescope export's ``submission_metadata.yml``
says whose each of its folders is (``grader.classroom.people``). Nothing here grades or
writes outside the scratch folder a zip is unpacked into.

>>> student_id_of("lastfirst_LATE_12345_67890_mm_player.py", is_dir=False)
('12345', 'lastfirst', True)
"""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator

from grader.classroom.people import (METADATA_FILE, MetadataError, Person,
                                     read_gradescope_metadata, time_text)
from grader.classroom.unpack import SubmissionsError, extract_zip

MAX_SOURCE_BYTES = 5 * 1024 * 1024        # a .py file larger than this is not graded
IGNORED_NAMES = {"__MACOSX", "__pycache__", "submission_metadata.yml", "Thumbs.db",
                 "desktop.ini"}
SUBMISSION_FILE = "mm_player.py"

_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_[A-Za-z]+(?:_(?P<rest>.*))?$")
_CANVAS = re.compile(r"^(?P<name>[^_]+?)(?P<late>_LATE)?_(?P<id>\d+)_(?P<att>\d+)_(?P<rest>.+)$")
_GRADESCOPE = re.compile(r"^submission_(?P<id>\d+)$")
_CANVAS_COPY = re.compile(r"-\d+(?=\.py$)")   # Canvas renames a resubmitted mm_player.py
_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9._@+-]+")


@dataclass(frozen=True)
class Submission:
    """One student's submission, or why it cannot be graded.

    >>> Submission("alice", Path("alice.py")).problem is None
    True
    """

    student_id: str
    path: Path | None             # the .py file to grade; None when it is not graded
    problem: str | None = None    # why it is not graded ("empty folder", ...)
    source: str = ""              # where it was found, relative to SUBMISSIONS
    name: str = ""                # the student's name (names: a group's), when the LMS tells
    late: bool = False            # Canvas marked it LATE; Gradescope's time is past the due date
    lms: str = ""                 # whose naming rule found it: canvas, moodle, gradescope or ""
    people: tuple[Person, ...] = ()   # whose it is, as far as the export and roster tell
    submitted_at: str = ""        # when it was handed in (ISO 8601), when the export tells
    roster: str = ""              # with a roster: whether it matched (grader.classroom.records)


@dataclass(frozen=True)
class _Identity:
    student_id: str
    name: str = ""
    late: bool = False
    grouped: bool = False      # one of several files of a student (Canvas, flat Moodle)
    file_name: str = ""        # the file's own name, without the LMS's prefix
    lms: str = ""


def student_id_of(entry_name: str, is_dir: bool) -> tuple[str, str, bool]:
    """The student id, name and lateness an LMS download gives a file or folder name.

    >>> student_id_of("lastfirst_LATE_12345_67890_mm_player.py", is_dir=False)
    ('12345', 'lastfirst', True)
    >>> student_id_of("Ada Lovelace_4321_assignsubmission_file_", is_dir=True)
    ('4321', 'Ada Lovelace', False)
    >>> student_id_of("submission_98765", is_dir=True)
    ('98765', '', False)
    >>> student_id_of("bob smith.py", is_dir=False)
    ('bob_smith', '', False)
    """
    identity = _identify(entry_name, is_dir)
    return identity.student_id, identity.name, identity.late


def _identify(entry_name: str, is_dir: bool) -> _Identity:
    moodle = _MOODLE.match(entry_name)
    if moodle:
        rest = moodle["rest"] or ""
        return _Identity(moodle["id"], moodle["name"], grouped=not is_dir and bool(rest),
                         file_name=rest, lms="moodle")
    if is_dir:
        gradescope = _GRADESCOPE.match(entry_name)
        if gradescope:
            return _Identity(gradescope["id"], lms="gradescope")
        return _Identity(_clean_id(entry_name))
    canvas = _CANVAS.match(entry_name)
    if canvas:
        return _Identity(canvas["id"], canvas["name"], bool(canvas["late"]), grouped=True,
                         file_name=canvas["rest"], lms="canvas")
    stem = entry_name[:-3] if entry_name.endswith(".py") else Path(entry_name).stem
    return _Identity(_clean_id(stem), file_name=entry_name)


def _clean_id(text: str) -> str:
    return _UNSAFE_ID_CHARS.sub("_", text.strip()).strip("._-")[:100]


def _ignored(path: Path) -> bool:
    return path.name.startswith(".") or path.name in IGNORED_NAMES


def find_submissions(source: Path, work: Path) -> tuple[list[Submission], list[str]]:
    """Every submission in ``source`` (a folder, or a zip unpacked into ``work``), by id.

    Returns the submissions sorted by student id, and warnings about the zip
    (entries skipped as unsafe) and about a Gradescope export's metadata (unreadable: the
    rows keep Gradescope's submission ids). Problems of single submissions (an empty
    folder, two submissions with one id, a binary file, ...) are not errors:
    they come back as submissions with a ``problem``.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "alice.py").write_text("def mm_move(board, player): pass\\n")
    >>> (folder / "bob").mkdir()
    >>> found, warnings = find_submissions(folder, folder / ".work")
    >>> [(s.student_id, s.problem) for s in found]
    [('alice', None), ('bob', 'empty folder')]
    """
    source = Path(source)
    warnings: list[str] = []
    if not source.exists():
        raise SubmissionsError(f"{source}: no such file or folder")
    if source.is_dir():
        root = source
    elif zipfile.is_zipfile(source):
        root = Path(work) / "unzipped"
        warnings = extract_zip(source, root)
        root = _unwrap(root)
    else:
        raise SubmissionsError(f"{source}: neither a folder nor a .zip file")
    submissions = _collect(root)
    if (root / METADATA_FILE).is_file():
        submissions, more = _with_metadata(submissions, root / METADATA_FILE)
        warnings += more
    return submissions, warnings


def _with_metadata(submissions: list[Submission],
                   path: Path) -> tuple[list[Submission], list[str]]:
    """The Gradescope submissions with their submitters, time and lateness from ``path``;
    when it cannot be read, they are kept as they are (ids only) with a warning."""
    try:
        metadata = read_gradescope_metadata(path)
    except MetadataError as problem:
        return submissions, [f"{problem}; the Gradescope submissions keep their submission "
                             "ids, without names, SIDs or emails"]
    warnings = list(metadata.warnings)
    found, unknown = [], []
    for submission in submissions:
        handed = metadata.submissions.get(submission.student_id)
        if submission.lms != "gradescope":
            found.append(submission)
        elif handed is None:
            unknown.append(submission.student_id)
            found.append(submission)
        else:
            found.append(replace(submission, people=handed.people,
                                 name="; ".join(p.name for p in handed.people if p.name),
                                 late=handed.late, submitted_at=time_text(handed.submitted_at)))
    if unknown:
        warnings.append(f"{path.name} does not name the submitters of "
                        + ", ".join(f"submission_{number}" for number in unknown[:5])
                        + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""))
    return found, warnings


def _unwrap(root: Path) -> Path:
    """A zip of one folder (no LMS name): that folder holds the class."""
    while True:
        entries = [entry for entry in root.iterdir() if not _ignored(entry)]
        if len(entries) != 1 or not entries[0].is_dir():
            return root
        name = entries[0].name
        if _MOODLE.match(name) or _GRADESCOPE.match(name):
            return root
        root = entries[0]


def _collect(root: Path) -> list[Submission]:
    groups: dict[str, list[tuple[Path, _Identity]]] = {}
    for entry in sorted(root.iterdir()):
        if _ignored(entry):
            continue
        identity = _identify(entry.name, entry.is_dir())
        if not identity.student_id:     # a name made only of symbols: a stable made-up id
            digest = hashlib.sha1(entry.name.encode("utf-8", "surrogateescape")).hexdigest()
            identity = replace(identity, student_id=f"unnamed-{digest[:8]}")
        groups.setdefault(identity.student_id.casefold(), []).append((entry, identity))
    submissions = [_submission(root, entries) for entries in groups.values()]
    return sorted(submissions, key=lambda submission: submission.student_id)


def _submission(root: Path, entries: list[tuple[Path, _Identity]]) -> Submission:
    identity = entries[0][1]
    people = ((Person(identity.name, canvas_id=identity.student_id),) if identity.lms == "canvas"
              else (Person(identity.name),) if identity.lms == "moodle" else ())
    base: dict[str, Any] = dict(student_id=identity.student_id, name=identity.name,
                                late=any(other.late for _, other in entries),
                                lms=identity.lms, people=people)
    sources = ", ".join(_relative(entry, root) for entry, _ in entries)
    if len(entries) > 1 and not all(other.grouped for _, other in entries):
        return Submission(**base, path=None, source=sources,
                          problem=f"duplicate student id: {sources} "
                                  "(rename all but one and run again)")
    if entries[0][0].is_dir():
        return _from_folder(root, entries[0][0], base)
    candidates = [(entry, other.file_name or entry.name) for entry, other in entries
                  if entry.name.endswith(".py")]
    if not candidates:
        return Submission(**base, path=None, source=sources,
                          problem=f"not a .py file: {sources}")
    return _choose(root, candidates, base, sources)


def submission_in_folder(folder: Path, student_id: str) -> Submission:
    """The submission in one student's folder: its only .py file, else its mm_player.py.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> submission_in_folder(folder, "alice").problem
    'empty folder'
    """
    return _from_folder(Path(folder).parent, Path(folder), dict(student_id=student_id))


def _from_folder(root: Path, folder: Path, base: dict[str, Any]) -> Submission:
    relative = _relative(folder, root)
    files = list(_files_in(folder))
    if not files:
        return Submission(**base, path=None, source=relative, problem="empty folder")
    candidates = [(path, path.name) for path in files if path.name.endswith(".py")]
    if not candidates:
        found = ", ".join(sorted(path.name for path in files)[:5])
        return Submission(**base, path=None, source=relative,
                          problem=f"no .py file in the folder (found: {found})")
    return _choose(root, candidates, base, relative)


def _files_in(folder: Path) -> Iterator[Path]:
    for top, folders, files in os.walk(folder):     # does not follow links to folders
        folders[:] = sorted(name for name in folders
                            if not name.startswith(".") and name not in IGNORED_NAMES)
        for name in sorted(files):
            if not name.startswith(".") and name not in IGNORED_NAMES:
                yield Path(top) / name


def _choose(root: Path, candidates: list[tuple[Path, str]], base: dict[str, Any],
            sources: str) -> Submission:
    if len(candidates) > 1:
        named = [path for path, name in candidates
                 if _CANVAS_COPY.sub("", name) == SUBMISSION_FILE]
        if len(named) != 1:
            names = ", ".join(_relative(path, root) for path, _ in candidates[:5])
            return Submission(**base, path=None, source=sources,
                              problem=f"several .py files and not exactly one "
                                      f"named {SUBMISSION_FILE}: {names}")
        candidates = [(named[0], SUBMISSION_FILE)]
    path = candidates[0][0]
    return Submission(**base, path=path, source=_relative(path, root),
                      problem=_unreadable(path))


def _unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be graded as Python source, or None."""
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return f"file larger than {MAX_SOURCE_BYTES // 1024 // 1024} MB"
        data = path.read_bytes()
    except OSError as problem:
        return f"cannot read the file: {problem.strerror or problem}"
    if b"\x00" in data:
        return "binary file, not Python source"
    return None


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
