"""Finding a class's submissions, whose each one is (the naming rules of the LMSes) and
which assignment each is for (the functions its file defines: ``grader.classroom.meant``).

A folder or an unpacked zip holds one entry per student: ``alice.py``, a folder, or the
names Moodle, Canvas and Gradescope give their downloads (``HELP_EPILOG`` in
``grader.classroom.command`` says which); among one student's files, the one graded is
the one that defines an assignment's functions (one per assignment; the others are its
helpers); a Gradescope export's ``submission_metadata.yml``
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

from grader.assignments.registry import DEFAULT as DEFAULT_ASSIGNMENT
from grader.classroom.meant import (DEF_LINES, FUNCTIONS, Recognised, decide, in_order,
                                    plain_name, recognise_file, template_names)
from grader.classroom.people import (METADATA_FILE, MetadataError, Person,
                                     read_gradescope_metadata, time_text)
from grader.classroom.unpack import SubmissionsError, extract_zip

MAX_SOURCE_BYTES = 5 * 1024 * 1024        # a .py file larger than this is not graded
IGNORED_NAMES = {"__MACOSX", "__pycache__", "submission_metadata.yml", "Thumbs.db",
                 "desktop.ini"}

_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_[A-Za-z]+(?:_(?P<rest>.*))?$")
_CANVAS = re.compile(r"^(?P<name>[^_]+?)(?P<late>_LATE)?_(?P<id>\d+)_(?P<att>\d+)_(?P<rest>.+)$")
_GRADESCOPE = re.compile(r"^submission_(?P<id>\d+)$")
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
    assignment: str = ""          # the assignment it is graded as ("": not told yet, or none)
    told: bool = False            # `grade` is told it (--assignment): its functions do not say
    own_folder: bool = False      # its file is in the student's own folder: graded with the
                                  # modules beside it that it imports (grade --with-helpers)

    @property
    def key(self) -> tuple[str, str]:
        """What the batch keeps it by: a student has one submission per assignment."""
        return self.assignment or DEFAULT_ASSIGNMENT, self.student_id


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


def find_submissions(source: Path, work: Path, assignment: str | None = None
                     ) -> tuple[list[Submission], list[str]]:
    """Every submission in ``source`` (a folder, or a zip unpacked into ``work``), by id,
    each with the assignment it is graded as (``assignment``: the instructor's
    ``--assignment``; else each file's own, see :func:`assign`).

    Returns the submissions sorted by student id (a student whose files are for two
    assignments has one submission for each), and warnings about the zip
    (entries skipped as unsafe) and about a Gradescope export's metadata (unreadable: the
    rows keep Gradescope's submission ids). Problems of single submissions (an empty
    folder, two submissions with one id, a binary file, ...) are not errors:
    they come back as submissions with a ``problem``.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "alice.py").write_text("def mm_move(board, player): pass\\n")
    >>> (folder / "bob").mkdir()
    >>> found, warnings = find_submissions(folder, folder / ".work")
    >>> [(s.student_id, s.assignment, s.problem) for s in found]
    [('alice', 'minimax', None), ('bob', 'minimax', 'empty folder')]
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
    submissions = _collect(root, assignment)
    if (root / METADATA_FILE).is_file():
        submissions, more = _with_metadata(submissions, root / METADATA_FILE)
        warnings += more
    return assign(submissions, assignment), warnings


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


def _collect(root: Path, given: str | None) -> list[Submission]:
    groups: dict[str, list[tuple[Path, _Identity]]] = {}
    for entry in sorted(root.iterdir()):
        if _ignored(entry):
            continue
        identity = _identify(entry.name, entry.is_dir())
        if not identity.student_id:     # a name made only of symbols: a stable made-up id
            digest = hashlib.sha1(entry.name.encode("utf-8", "surrogateescape")).hexdigest()
            identity = replace(identity, student_id=f"unnamed-{digest[:8]}")
        groups.setdefault(identity.student_id.casefold(), []).append((entry, identity))
    submissions = [found for entries in groups.values()
                   for found in _submissions(root, entries, given)]
    return sorted(submissions, key=lambda submission: submission.student_id)


def _submissions(root: Path, entries: list[tuple[Path, _Identity]],
                 given: str | None) -> list[Submission]:
    identity = entries[0][1]
    people = ((Person(identity.name, canvas_id=identity.student_id),) if identity.lms == "canvas"
              else (Person(identity.name),) if identity.lms == "moodle" else ())
    base: dict[str, Any] = dict(student_id=identity.student_id, name=identity.name,
                                late=any(other.late for _, other in entries),
                                lms=identity.lms, people=people)
    sources = ", ".join(_relative(entry, root) for entry, _ in entries)
    if len(entries) > 1 and not all(other.grouped for _, other in entries):
        return [Submission(**base, path=None, source=sources,
                           problem=f"duplicate student id: {sources} "
                                   "(rename all but one and run again)")]
    if entries[0][0].is_dir():
        return _from_folder(root, entries[0][0], base, given)
    candidates = [(entry, other.file_name or entry.name) for entry, other in entries
                  if entry.name.endswith(".py")]
    if not candidates:
        return [Submission(**base, path=None, source=sources,
                           problem=f"not a .py file: {sources}")]
    return _choose(root, candidates, base, sources, given)


def submission_in_folder(folder: Path, student_id: str,
                         assignment: str | None = None) -> Submission:
    """The submission in one student's folder: the file that defines the assignment's
    functions (``assignment``'s, else any assignment's), or the only .py file; among
    several, the one named as the assignment's template (``mm_player.py``). Files for two
    assignments, without ``assignment`` to choose: a problem.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> submission_in_folder(folder, "alice").problem
    'empty folder'
    """
    found = _from_folder(Path(folder).parent, Path(folder), dict(student_id=student_id),
                         assignment)
    if len(found) == 1:
        return found[0]
    files = ", ".join(f"{submission.source} ({submission.assignment})" for submission in found)
    return Submission(student_id, None, source=Path(folder).name,
                      problem=f"files for several assignments: {files}; hand in one "
                              "assignment's file")


def _from_folder(root: Path, folder: Path, base: dict[str, Any],
                 given: str | None) -> list[Submission]:
    relative = _relative(folder, root)
    base = dict(base, own_folder=True)
    files = list(_files_in(folder))
    if not files:
        return [Submission(**base, path=None, source=relative, problem="empty folder")]
    candidates = [(path, path.name) for path in files if path.name.endswith(".py")]
    if not candidates:
        found = ", ".join(sorted(path.name for path in files)[:5])
        return [Submission(**base, path=None, source=relative,
                           problem=f"no .py file in the folder (found: {found})")]
    return _choose(root, candidates, base, relative, given)


def _files_in(folder: Path) -> Iterator[Path]:
    for top, folders, files in os.walk(folder):     # does not follow links to folders
        folders[:] = sorted(name for name in folders
                            if not name.startswith(".") and name not in IGNORED_NAMES)
        for name in sorted(files):
            if not name.startswith(".") and name not in IGNORED_NAMES:
                yield Path(top) / name


_File = tuple[Path, str, Recognised]     # a candidate: its path, its own name, its assignment


def _choose(root: Path, candidates: list[tuple[Path, str]], base: dict[str, Any],
            sources: str, given: str | None) -> list[Submission]:
    """The file of each assignment among one student's ``candidates`` (the other files are
    their helpers): ``given``'s (else a file of another assignment's, which is refused,
    else one that defines no assignment's functions); without ``given``, one per
    assignment whose functions a file defines, else the one file that defines none."""
    found = [(path, name, recognise_file(path, name)) for path, name in candidates]
    groups: dict[str, list[_File]] = {}
    for file in found:
        groups.setdefault(file[2].assignment, []).append(file)
    named = in_order(list(groups))
    if given:
        order = [given] + [name for name in named if name != given] + [""]
        first = next(name for name in order if name in groups)
        return [_pick(root, groups[first], base, sources, first)]
    if not named:
        return [_pick(root, groups[""], base, sources, "")]
    return [_pick(root, groups[name], base, sources, name) for name in named]


def _pick(root: Path, files: list[_File], base: dict[str, Any], sources: str,
          assignment: str) -> Submission:
    """The one file of ``files`` (all for ``assignment``; "": for none): the only one, else
    the one named as the assignment's template (as any assignment's, for none)."""
    if len(files) > 1:
        templates = [name for name, owner in template_names().items()
                     if owner == assignment or not assignment]
        named = [file for file in files if plain_name(file[1]) in templates]
        if len(named) != 1:
            names = ", ".join(_relative(path, root) for path, _, _ in files[:5])
            which = (f"define the {assignment} assignment's functions" if assignment
                     else "and none defines an assignment's functions")
            return Submission(**base, path=None, source=sources, assignment=assignment,
                              problem=f"several .py files {which} and not exactly one "
                                      f"named {' or '.join(templates)}: {names}")
        files = named
    path, _, seen = files[0]
    return Submission(**base, path=path, source=_relative(path, root),
                      problem=_unreadable(path), assignment=seen.assignment, told=seen.told)


def assign(submissions: list[Submission], given: str | None = None) -> list[Submission]:
    """Each submission with the assignment it is graded as (``given``: ``--assignment``),
    by the rules of ``grader.classroom.meant.decide``: a file the class cannot tell the
    assignment of, or whose student meant another one than ``given``, is not graded (its
    ``problem`` says why). A submission that was assigned already stays as it is.

    >>> assign([Submission("ann", None, problem="empty folder", assignment="montecarlo"),
    ...         Submission("bob", None, problem="empty folder")])[1].assignment
    'montecarlo'
    """
    seen = [_recognised(submission) for submission in submissions]
    in_class = in_order([found.assignment for found in seen])
    assigned = []
    for submission, found in zip(submissions, seen):
        if submission.problem is not None:
            only = in_class[0] if len(in_class) == 1 else ""
            assigned.append(replace(submission,
                                    assignment=given or submission.assignment or only))
            continue
        decision = decide(found, given, in_class)
        assigned.append(replace(submission, assignment=decision.assignment,
                                told=decision.told, problem=decision.problem))
    return assigned


def _recognised(submission: Submission) -> Recognised:
    """The assignment a submission's file is for, as discovered or read now."""
    if submission.assignment:
        return Recognised(submission.assignment, DEF_LINES if submission.told else FUNCTIONS)
    if submission.problem is None and submission.path is not None:
        return recognise_file(submission.path)
    return Recognised()


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
