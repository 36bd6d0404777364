"""The helper files graded with a submission: the modules beside it that it imports.

A student's file may import a module of their own written beside it (``import helpers``,
``from my_strategy import *``). Where the grader is asked to take them (``grade
--with-helpers``; a student's own folder in ``batch`` and in the Gradescope autograder;
``python -m student check``), :func:`helpers_beside` chooses them and the sandbox copies
them into its private folder beside the submission, where its imports find them. Their
code runs only in the sandbox, as the submission's does.

A helper is a ``NAME.py`` file in the submission's own folder (never a subfolder) that the
submission imports by that name, or that another helper imports. Not copied:

- the course's modules (``provided``, ``poc_ttt_provided``, ``poc_ttt_gui``,
  ``simplegui``, ``codeskulptor``, ``SimpleGUICS2Pygame``) and a module the file imports
  as ``provided``: the grader gives every file the course's own, as it always does;
- a file named as a module of the standard library or of the sandbox's own code: the
  import finds that module, never the file (a note says so, and to rename it);
- a link or anything but a plain file (a note says so).

At most ``MAX_FILES`` files of ``MAX_BYTES`` in all are copied; past that, none is, and a
note says why. The notes go to the report.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "mc_player.py").write_text("import random\\nfrom helpers import *\\n")
>>> _ = (folder / "helpers.py").write_text("import tools\\n")
>>> _ = (folder / "tools.py").write_text("X = 1\\n")
>>> _ = (folder / "random.py").write_text("")
>>> _ = (folder / "alice.py").write_text("")
>>> found = helpers_beside(folder / "mc_player.py")
>>> found.names
('helpers.py', 'tools.py')
>>> print(found.notes[0])
random.py beside the file was not graded with it: its name is the standard library's random module, which an import finds first; rename it
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.sandbox.layers import INSIDE
from grader.sandbox.submission import imports_of
from provided.course import PORT_PACKAGE, course_module, provided_aliases

MAX_FILES = 20              # helper files copied with one submission
MAX_BYTES = 1 << 20         # their bytes in all
MAX_SOURCE = 5 << 20        # of the submission's own text, read for its imports


@dataclass(frozen=True)
class Helpers:
    """The helper files to copy beside a submission, and what was not copied and why.

    >>> Helpers((("tools.py", b"X = 1\\n"),)).names
    ('tools.py',)
    """

    files: tuple[tuple[str, bytes], ...] = ()   # (file name, content), by name
    notes: tuple[str, ...] = ()                 # a sentence per file not copied

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.files)


def imported_names(source: str) -> list[str]:
    """The top-level names of the modules ``source`` imports, in order (it is not run;
    ``grader.sandbox.submission.imports_of``).

    >>> imported_names("import a.b, c\\nfrom d import e\\nfrom . import f\\n"
    ...                "m = importlib.import_module('g')\\n")
    ['a', 'c', 'd', 'g']
    """
    return list(dict.fromkeys(name.partition(".")[0] for name in imports_of(source)))


def the_course_gives(name: str, aliases: set[str] | frozenset[str] = frozenset()) -> bool:
    """Whether an import of ``name`` is the course's module wherever the grader runs a
    file: the course's own names, and ``aliases``, the modules the file imports as
    ``provided`` (``provided.course.provided_aliases``).

    >>> the_course_gives("poc_ttt_provided"), the_course_gives("helpers")
    (True, False)
    >>> the_course_gives("tictactoe_board", {"tictactoe_board"})
    True
    """
    return (name in ("provided", PORT_PACKAGE) or course_module(name) is not None
            or name in aliases)


def shadowed(name: str) -> str | None:
    """Why a file ``name.py`` beside a submission can never be what its import finds,
    or None.

    >>> shadowed("json")
    "the standard library's json module"
    >>> shadowed("encode"), shadowed("strategy")
    ("the sandbox's own encode module", None)
    """
    if name in sys.stdlib_module_names or name in sys.builtin_module_names:
        return f"the standard library's {name} module"
    if name in _sandbox_modules():
        return f"the sandbox's own {name} module"
    return None


def name_problem(file_name: str, submission: str, source: str) -> str | None:
    """Why a helper named ``file_name`` may not be copied beside the submission
    ``submission`` (its file name in the box) whose text is ``source``, or None: the rules
    :func:`helpers_beside` chooses by, which the sandbox holds again when it copies.

    >>> name_problem("poc_ttt_provided.py", "mc_player.py", "")
    'the course gives its own poc_ttt_provided'
    >>> name_problem("../x.py", "mc_player.py", ""), name_problem("tools.py", "a.py", "")
    ('not the file name of a module', None)
    """
    stem = file_name[:-3] if file_name.endswith(".py") else ""
    if not stem.isidentifier() or file_name == submission:
        return "not the file name of a module"
    if the_course_gives(stem, provided_aliases(source)):
        return f"the course gives its own {stem}"
    why = shadowed(stem)
    return f"an import finds {why} instead" if why else None


def _sandbox_modules() -> set[str]:
    """The modules the sandbox's worker runs on (grader/sandbox/inside/), loaded before
    the submission."""
    return {path.stem for path in INSIDE.glob("*.py")} | {"worker"}


def helpers_beside(submission: Path, source: str | None = None) -> Helpers:
    """The helper files of ``submission`` (its text: ``source``, else read), chosen as the
    module's docstring says: every file its imports reach, in its own folder."""
    submission = Path(submission)
    if source is None:
        try:
            with open(submission, "rb") as file:
                source = file.read(MAX_SOURCE).decode("utf-8", "replace")
        except OSError:
            return Helpers()
    folder = submission.parent
    aliases = provided_aliases(source)
    wanted = imported_names(source)
    seen = {submission.stem}
    files: dict[str, bytes] = {}
    notes: list[str] = []
    total = 0
    while wanted:
        name = wanted.pop(0)
        path = folder / f"{name}.py"
        if name in seen or not name.isidentifier() or not os.path.lexists(path):
            continue
        seen.add(name)
        if the_course_gives(name, aliases):
            continue      # the course's module: the grader gives its own, as always
        why = shadowed(name)
        data = _read(path, MAX_BYTES - total) if why is None else why
        if isinstance(data, str):
            notes.append(f"{path.name} beside the file was not graded with it: "
                         + (f"its name is {why}, which an import finds first; rename it"
                            if why else data))
            continue
        if len(files) == MAX_FILES or total + len(data) > MAX_BYTES:
            return Helpers(notes=(*notes, _too_many(files, path.name)))
        files[path.name] = data
        total += len(data)
        wanted += imported_names(data.decode("utf-8", "replace"))
    return Helpers(tuple(sorted(files.items())), tuple(notes))


def _read(path: Path, room: int) -> bytes | str:
    """The content of ``path`` (at most ``room + 1`` bytes: more is too much), or why it
    cannot be a helper. A link is not followed: it could name any file of the grader's."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as problem:
        if problem.errno == errno.ELOOP:
            return "it is a link, not a file: hand in the file itself"
        return f"it cannot be read ({problem.strerror or problem})"
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "it is not a plain file"
        return file.read(max(room, 0) + 1)


def _too_many(files: dict[str, bytes], last: str) -> str:
    names = ", ".join([*files, last])
    return (f"the files the submission imports from beside it ({names}) are more than the "
            f"grader copies with a file ({MAX_FILES} files, {MAX_BYTES >> 20} MiB in all), "
            "so none was graded with it: hand in only the modules your file imports")
