"""The student handout: the zip students get, and nothing of the grader.

    python -m grader handout handout.zip

The zip holds one folder, ``ttt-minimax/``, with the course's board module
(``provided/``), the student package (``student/``: the template
``mm_player.py`` whose ``mm_move`` raises NotImplementedError, the Monte Carlo
template ``mc_player.py`` whose four functions do, ``python -m
student`` and its public checks, and the course's modules beside the templates,
so that ``python3 mm_player.py`` runs a file written for the course), the
course's own modules under their old names at the top too
(``poc_ttt_provided.py``, ``poc_ttt_gui.py``, ``codeskulptor.py``,
``simplegui.py``, ``poc_simpletest.py``, ``SimpleGUICS2Pygame/``: each stands
for the one ``provided.course`` describes, so files written for the course run
as they are, and an install makes them importable anywhere), a README for
students (from ``templates/handout_README.md``, with how to hand in) and a
``setup.cfg`` / ``pyproject.toml`` that install all that, with no dependency.
No hidden positions, no solver, no tests: building fails with
:class:`HandoutError` if a handout module imports ``grader``.
"""

from __future__ import annotations

import argparse
import ast
import configparser
import os
import re
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path
from typing import Callable, Iterator

from grader.classroom.run import GRADER_HOME
from provided.course import COURSE_NAMES, PORT_PACKAGE

TEMPLATES = Path(__file__).resolve().parent / "templates"
FOLDER = "ttt-minimax"
PACKAGES = ("provided", "student")
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache"}
SKIPPED_SUFFIXES = (".pyc", ".pyo")
FORBIDDEN_IMPORTS = ("grader", "tests")
EXIT_OK, EXIT_USAGE = 0, 2


class HandoutError(Exception):
    """The handout cannot be built, or would give away part of the grader."""


def handout_files(home: Path = GRADER_HOME) -> Iterator[tuple[str, bytes]]:
    """(name in the zip, content) of every handout file.

    >>> names = [name for name, _ in handout_files()]
    >>> "ttt-minimax/student/mm_player.py" in names
    True
    >>> any("/grader/" in name or "/tests/" in name for name in names)
    False
    """
    home = Path(home)
    yield f"{FOLDER}/README.md", handout_readme().encode()
    yield f"{FOLDER}/setup.cfg", handout_setup(home).encode()
    yield f"{FOLDER}/pyproject.toml", (TEMPLATES / "pyproject.toml").read_bytes()
    for name in COURSE_NAMES:
        yield f"{FOLDER}/{name}.py", _COURSE_ALIAS.format(name=name).encode()
    yield f"{FOLDER}/{PORT_PACKAGE}/__init__.py", _PORT_PACKAGE.encode()
    for package in PACKAGES:
        folder = home / package
        if not (folder / "__init__.py").is_file():
            raise HandoutError(f"the package {package}/ is missing from {home}")
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(home)
            if not path.is_file() or _skipped(relative):
                continue
            data = path.read_bytes()
            if path.suffix == ".py":
                _check_imports(relative.as_posix(), data)
            yield f"{FOLDER}/{relative.as_posix()}", data


# How to hand in, said where the README template does not say it yet.
SUBMIT_SECTION = """
## Handing it in

If your course has a submission page, hand in from this folder:

    python3 -m student submit --link http://HOST:PORT/s/TOKEN   # the first time
    python3 -m student submit                                   # every time after

The link is the personal one your instructor sent you; it is kept (in
`student/.ttt-submit.json`, readable by you only) for the next times. It hands
in `student/mm_player.py` (`--file PATH` for another file), waits while it is
graded, and prints the report and your score. `python3 -m student submit
--help` says more.
"""


def handout_readme() -> str:
    """The students' README: the template, and how to hand in if the template does not say.

    >>> "python3 -m student submit --link" in handout_readme()
    True
    """
    text = (TEMPLATES / "handout_README.md").read_text(encoding="utf-8")
    if "python3 -m student submit" not in text:
        text = text.rstrip("\n") + "\n" + SUBMIT_SECTION
    return text


def handout_setup(home: Path = GRADER_HOME) -> str:
    """The handout's setup.cfg: the template, with the project's version and every course
    module under its old name (``provided.course.COURSE_NAMES``, the one list of them).

    >>> "poc_simpletest" in handout_setup()
    True
    """
    text = (TEMPLATES / "handout_setup.cfg").read_text(encoding="utf-8")
    text = text.replace("{version}", project_version(home))
    text, found = re.subn(r"^py_modules *=.*$", "py_modules = " + ", ".join(COURSE_NAMES),
                          text, flags=re.MULTILINE)
    if found != 1:
        raise HandoutError(f"{TEMPLATES / 'handout_setup.cfg'} must have one py_modules line "
                           f"(it has {found}): the course's modules are installed from it")
    return text


# A course module's old name, standing for the one provided.course describes.
_COURSE_ALIAS = '''"""The course's module {name}, for files written for the course: see provided/course.py."""
import sys

from provided import course

course.install()
sys.modules[__name__] = course.course_module(__name__)
'''
_PORT_PACKAGE = '''"""The desktop port of CodeSkulptor, as far as files written for the course use it:
its codeskulptor and simpleguics2pygame modules (see provided/course.py)."""
from provided import course

course.install()
'''


def _skipped(relative: Path) -> bool:
    return any(part in SKIPPED_PARTS or part.startswith(".") for part in relative.parts) \
        or relative.name.endswith(SKIPPED_SUFFIXES)


def _check_imports(name: str, source: bytes) -> None:
    """Refuse a handout module that imports the grader (or the project's tests)."""
    try:
        tree = ast.parse(source, filename=name)
    except SyntaxError as problem:
        raise HandoutError(f"{name} does not parse: {problem}") from None
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        for module in modules:
            if module.split(".")[0] in FORBIDDEN_IMPORTS:
                raise HandoutError(f"{name}, line {node.lineno}, imports {module}: the "
                                   "handout must not need the grader")


def project_version(home: Path = GRADER_HOME) -> str:
    """The version in the project's setup.cfg (``0`` when there is none).

    >>> project_version() != ""
    True
    """
    parser = configparser.ConfigParser()
    parser.read(Path(home) / "setup.cfg", encoding="utf-8")
    return parser.get("metadata", "version", fallback="0")


def build_handout(out: Path, home: Path = GRADER_HOME) -> list[str]:
    """Write the handout zip to ``out`` (atomically); return the names in it.

    >>> import tempfile
    >>> names = build_handout(Path(tempfile.mkdtemp()) / "handout.zip")
    >>> names[0]
    'ttt-minimax/README.md'
    """
    files = list(handout_files(home))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp",
                                         delete=False)
    try:
        with handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as bundle:
            for name, data in files:
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = 0o100644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                bundle.writestr(info, data)
        os.chmod(handle.name, 0o644)
        os.replace(handle.name, out)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return [name for name, _ in files]


# ---------------------------------------------------------------- command line

EPILOG = f"""\
The zip holds one folder, {FOLDER}/: provided/ (the board), student/ (the templates
mm_player.py and mc_player.py, python -m student, its public checks, duel and submit),
the course's modules under their old names (at the top, and in student/ beside the
templates):
{textwrap.fill(", ".join([*(f"{name}.py" for name in COURSE_NAMES), f"{PORT_PACKAGE}/"]),
                80, initial_indent="  ", subsequent_indent="  ")}
README.md (for students), setup.cfg and pyproject.toml (installing all that, no
dependency).
Nothing of the grader. Students start with:
  python3 -m pip install -e . && python3 -m student check

example:
  python -m grader handout handout.zip
"""


def register(commands: argparse._SubParsersAction,
             add_grading_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``handout`` to ``python -m grader`` (it takes no grading options)."""
    parser = commands.add_parser(
        "handout", help="write the student handout zip", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write what students get: the board module, the template and the public\n"
                    "checks, with a README; nothing of the grader.")
    parser.add_argument("out", type=Path, metavar="OUT.zip", help="the zip to write")
    parser.set_defaults(func=handout_command)


def handout_command(args: argparse.Namespace) -> int:
    """``python -m grader handout OUT.zip``."""
    try:
        names = build_handout(args.out)
    except (HandoutError, OSError) as problem:
        print(f"python -m grader handout: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {args.out}: {len(names)} files in {FOLDER}/")
    return EXIT_OK
