"""The student handout: the zip students get, with an assignment's public checks and nothing
hidden.

    python -m grader handout handout.zip                      the course's two assignments
    python -m grader handout handout.zip --assignment winner  one (or more) of your own

The zip holds one folder, ``ttt-minimax/``, with the course's board module
(``provided/``), the student package (``student/``: the templates ``mm_player.py`` and
``mc_player.py`` whose functions raise NotImplementedError, ``python -m student`` and its
``check``, ``duel`` and ``submit``, and the course's modules beside the templates, so that
``python3 mm_player.py`` runs a file written for the course), the course's own modules
under their old names at the top too (``poc_ttt_provided.py``, ``poc_ttt_gui.py``,
``codeskulptor.py``, ``simplegui.py``, ``poc_simpletest.py``, ``SimpleGUICS2Pygame/``),
a README for students (from ``templates/handout_README.md``, with how to hand in) and a
``setup.cfg`` / ``pyproject.toml`` that install all that (and pytest, which the checks run
on).

``python -m student check`` runs each assignment's public checks with the grader's own
engine, sandbox and judge, so the handout ships that part of the grader (``GRADER``: what
the public path imports, as ``tests/classroom/test_handout.py`` traces it) and each
assignment's package but its hidden checks and known answers. An assignment of your own
ships as its package (with its entry point), and its template in ``student/``. Building
fails with :class:`HandoutError` if a hidden check, a known answer or the hidden
positions would be in the zip, or a shipped module imports one.
"""

from __future__ import annotations

import argparse
import ast
import configparser
import importlib
import importlib.metadata
import os
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path
from typing import Callable, Iterable, Iterator

from grader.classroom.run import GRADER_HOME
from provided.course import COURSE_NAMES, PORT_PACKAGE

TEMPLATES = Path(__file__).resolve().parent / "templates"
FOLDER = "ttt-minimax"
PACKAGES = ("provided", "student")
COURSE = ("minimax", "montecarlo")       # the assignments of a handout by default
# The grader's part of the handout: what ``python -m student check`` imports and reads (its
# engine, sandbox, judge and time policy; a folder: all of it), besides each assignment's
# package. Never the hidden positions, nor any suite's hidden tests.
GRADER = (
    "grader/__init__.py", "grader/default.cfg",
    "grader/assignments/__init__.py", "grader/assignments/assignment.py",
    "grader/assignments/calls.py", "grader/assignments/registry.py",
    "grader/judge/__init__.py", "grader/judge/checks.py", "grader/judge/play.py",
    "grader/judge/position.py", "grader/judge/results.py", "grader/judge/solver.py",
    "grader/sandbox/",
    "grader/suite/__init__.py", "grader/suite/causes.py",
    "grader/suite/config.py", "grader/suite/engine.py", "grader/suite/plugin.py",
    "grader/suite/public.py", "grader/suite/pytest.ini", "grader/suite/report.py",
    "grader/suite/scoring.py",
    "grader/timing/",
)
HIDDEN = ("grader/judge/positions.py",)   # the hidden positions' generator
REQUIRES = ("pytest>=8.4", "pytest-timeout")   # the engine the public checks run on
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache"}
SKIPPED_SUFFIXES = (".pyc", ".pyo")
FORBIDDEN_IMPORTS = ("tests",)
EXIT_OK, EXIT_USAGE = 0, 2


class HandoutError(Exception):
    """The handout cannot be built, or would give away a hidden check or answer."""


def handout_files(home: Path = GRADER_HOME,
                  assignments: Iterable[str] = COURSE) -> Iterator[tuple[str, bytes]]:
    """(name in the zip, content) of every handout file.

    >>> names = [name for name, _ in handout_files()]
    >>> "ttt-minimax/student/mm_player.py" in names
    True
    >>> any(name.endswith(("test_rubric.py", "test_montecarlo.py", "positions.py",
    ...                    "expected.json")) for name in names)
    False
    """
    home = Path(home)
    chosen = _assignments(assignments)
    yield f"{FOLDER}/README.md", handout_readme(chosen).encode()
    yield f"{FOLDER}/setup.cfg", handout_setup(home, chosen).encode()
    yield f"{FOLDER}/pyproject.toml", (TEMPLATES / "pyproject.toml").read_bytes()
    for name in COURSE_NAMES:
        yield f"{FOLDER}/{name}.py", _COURSE_ALIAS.format(name=name).encode()
    yield f"{FOLDER}/{PORT_PACKAGE}/__init__.py", _PORT_PACKAGE.encode()
    hidden = _hidden(home, chosen)
    for name, path in _sources(home, chosen, hidden):
        data = path.read_bytes()
        if path.suffix == ".py":
            _check_imports(name, data, hidden)
        yield f"{FOLDER}/{name}", data


def _sources(home: Path, chosen: list,
             hidden: dict[Path, str] | None = None) -> list[tuple[str, Path]]:
    """(name in the folder, path) of the packages' files: provided, student, the grader's
    public part, each assignment's package and template; HandoutError if one is hidden."""
    hidden = _hidden(home, chosen) if hidden is None else hidden
    sources: list[tuple[str, Path]] = []
    for package in PACKAGES:
        if not (home / package / "__init__.py").is_file():
            raise HandoutError(f"the package {package}/ is missing from {home}")
        sources += _tree(home, home / package)
    for entry in GRADER:
        path = home / entry
        if entry.endswith("/"):
            sources += _tree(home, path)
        elif path.is_file():
            sources.append((entry, path))
        else:
            raise HandoutError(f"{entry} is missing from {home}")
    for assignment in chosen:
        folder, base = _package(assignment)
        # Its package but what is hidden: its hidden checks and known answers stay home.
        sources += [(name, path) for name, path in _tree(base, folder)
                    if path.resolve() not in hidden]
        template = assignment.template
        if template is not None and not Path(template).resolve().is_relative_to(home):
            sources.append((f"student/{Path(template).name}", Path(template)))
    shipped: dict[str, Path] = {}
    for name, path in sources:
        if path.resolve() in hidden:
            raise HandoutError(f"{name} is {hidden[path.resolve()]}: the handout must not "
                               "give it away")
        shipped.setdefault(name, path)
    return list(shipped.items())


def _assignments(names: Iterable[str]) -> list:
    from grader.assignments import AssignmentError, get
    chosen = []
    for name in dict.fromkeys(names):
        try:
            chosen.append(get(name))
        except AssignmentError as problem:
            raise HandoutError(str(problem)) from None
    return chosen


def _package(assignment) -> tuple[Path, Path]:
    """The folder of the package that defines ``assignment`` (its ``prepare``'s module),
    and the folder its files' names are relative to (where its dotted name starts).

    >>> from grader.assignments import get
    >>> folder, base = _package(get("montecarlo"))
    >>> folder.relative_to(base).as_posix()
    'grader/assignments/montecarlo'
    """
    module = importlib.import_module(assignment.prepare.__module__)
    path = Path(module.__file__).resolve()
    parts = module.__name__.count(".") + 1
    base = path.parents[parts] if path.name == "__init__.py" else path.parents[parts - 1]
    return path.parent, base


def _hidden(home: Path, assignments: list) -> dict[Path, str]:
    """Every file the handout must not hold, and what it is: the hidden checks of each
    installed assignment (its suite but its public checks), its known answers, and the
    hidden positions."""
    from grader.assignments import available
    hidden = {(home / name).resolve(): "the hidden positions' generator" for name in HIDDEN}
    for assignment in {a.name: a for a in [*available(), *assignments]}.values():
        public = {Path(path).resolve() for path in assignment.public_checks}
        for path in assignment.suite:
            if Path(path).resolve() not in public:
                hidden[Path(path).resolve()] = f"a hidden check of {assignment.name}"
        if assignment.known_answers is not None and Path(assignment.known_answers).is_dir():
            for path in Path(assignment.known_answers).rglob("*"):
                hidden[path.resolve()] = f"a known answer of {assignment.name}"
    return hidden


def _tree(base: Path, folder: Path) -> list[tuple[str, Path]]:
    """Every file under ``folder``, named relative to ``base``, but caches."""
    if not folder.is_dir():
        raise HandoutError(f"the folder {folder} is missing")
    found = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(base)
        if path.is_file() and not _skipped(relative):
            found.append((relative.as_posix(), path))
    return found


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


def handout_readme(assignments: Iterable = ()) -> str:
    """The students' README: the template, how to hand in if the template does not say,
    and how to check each assignment of one's own (not the course's two).

    >>> "python3 -m student submit --link" in handout_readme()
    True
    """
    text = (TEMPLATES / "handout_README.md").read_text(encoding="utf-8")
    if "python3 -m student submit" not in text:
        text = text.rstrip("\n") + "\n" + SUBMIT_SECTION
    for assignment in assignments:
        if assignment.name in COURSE or assignment.template is None:
            continue
        name = Path(assignment.template).name
        text = text.rstrip("\n") + "\n" + OWN_SECTION.format(
            title=assignment.title, template=name, name=assignment.name)
    return text


OWN_SECTION = """
## {title}

Your template is `student/{template}`: fill it in, then

    python3 -m student check student/{template}   # its public checks (the {name} assignment)
"""


def handout_setup(home: Path = GRADER_HOME, assignments: Iterable = ()) -> str:
    """The handout's setup.cfg: the template, with the project's version, every course
    module under its old name (``provided.course.COURSE_NAMES``, the one list of them), the
    packages the zip holds, pytest (the public checks run on the grader's engine), and the
    entry point of each assignment of one's own.

    >>> setup = handout_setup()
    >>> "poc_simpletest" in setup, "grader.sandbox.inside" in setup, "pytest>=8.4" in setup
    (True, True, True)
    """
    chosen = list(assignments) or _assignments(COURSE)
    names = [name for name, _ in _sources(home, chosen)]
    packages = sorted({str(Path(name).parent).replace("/", ".") for name in names
                       if name.endswith("/__init__.py")}
                      | {"provided", "student", PORT_PACKAGE})
    data: dict[str, list[str]] = {}
    for name in names:
        if not name.endswith(".py"):
            folder = Path(name).parent
            while str(folder).replace("/", ".") not in packages and folder != Path("."):
                folder = folder.parent
            data.setdefault(str(folder).replace("/", "."), []).append(
                Path(name).relative_to(folder).as_posix())
    entries = [f"    {a.name} = {_entry_point(a)}" for a in chosen if a.name not in COURSE]
    text = (TEMPLATES / "handout_setup.cfg").read_text(encoding="utf-8")
    fields = {
        "{version}": project_version(home),
        "{py_modules}": ", ".join(COURSE_NAMES),
        "{packages}": ", ".join(packages),
        "{install_requires}": "".join(f"\n    {requirement}" for requirement in REQUIRES),
        "{package_data}": "".join(f"\n{package} = {', '.join(sorted(files))}"
                                  for package, files in sorted(data.items())),
        "{entry_points}": ("\ngrader.assignments =\n" + "\n".join(entries)) if entries else "",
    }
    for field, value in fields.items():
        if text.count(field) != 1:
            raise HandoutError(f"{TEMPLATES / 'handout_setup.cfg'} must hold {field} once")
        text = text.replace(field, value)
    return text


def _entry_point(assignment) -> str:
    """``module:object`` of the installed entry point that gives ``assignment``."""
    from grader.assignments.registry import GROUP
    for entry in importlib.metadata.entry_points(group=GROUP):
        try:
            value = entry.load()
        except Exception:  # noqa: BLE001 - registry.problems() says why
            continue
        if value is assignment or (callable(value) and getattr(value, "__name__", "") and
                                   entry.name == assignment.name):
            return entry.value
    raise HandoutError(f"the assignment {assignment.name} comes from no entry point of the "
                       f"group {GROUP}: install its package")


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


def _check_imports(name: str, source: bytes, hidden: dict[Path, str]) -> None:
    """Refuse a handout module that imports the project's tests, or, when it is imported,
    a hidden module (a lazy import, inside a function the public checks never call, is
    the grading path's own)."""
    try:
        tree = ast.parse(source, filename=name)
    except SyntaxError as problem:
        raise HandoutError(f"{name} does not parse: {problem}") from None
    secret = {_module_name(path): why for path, why in hidden.items() if path.suffix == ".py"}
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
                                   "handout must not need the project's tests")
            if module in secret and node in tree.body:
                raise HandoutError(f"{name}, line {node.lineno}, imports {module}, "
                                   f"{secret[module]}: the handout must not need it")


def _module_name(path: Path) -> str:
    """A module's dotted name from its path, as far as its packages go."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def project_version(home: Path = GRADER_HOME) -> str:
    """The version in the project's setup.cfg (``0`` when there is none).

    >>> project_version() != ""
    True
    """
    parser = configparser.ConfigParser()
    parser.read(Path(home) / "setup.cfg", encoding="utf-8")
    return parser.get("metadata", "version", fallback="0")


def build_handout(out: Path, home: Path = GRADER_HOME,
                  assignments: Iterable[str] = COURSE) -> list[str]:
    """Write the handout zip to ``out`` (atomically); return the names in it.

    >>> import tempfile
    >>> names = build_handout(Path(tempfile.mkdtemp()) / "handout.zip")
    >>> names[0]
    'ttt-minimax/README.md'
    """
    files = list(handout_files(home, assignments))
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
mm_player.py and mc_player.py, python -m student, check, duel and submit), the part of
the grader its public checks run on (its engine, sandbox and judge: no hidden check, no
known answer), the course's modules under their old names (at the top, and in student/
beside the templates):
{textwrap.fill(", ".join([*(f"{name}.py" for name in COURSE_NAMES), f"{PORT_PACKAGE}/"]),
                80, initial_indent="  ", subsequent_indent="  ")}
README.md (for students), setup.cfg and pyproject.toml (installing all that, and pytest).
With --assignment, each assignment named (one of your own: its package, without its
hidden checks and known answers, and its template in student/). Students start with:
  python3 -m pip install -e . && python3 -m student check

examples:
  python -m grader handout handout.zip
  python -m grader handout handout.zip --assignment minimax --assignment winner
"""


def register(commands: argparse._SubParsersAction,
             add_grading_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``handout`` to ``python -m grader`` (it takes no grading options)."""
    parser = commands.add_parser(
        "handout", help="write the student handout zip", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write what students get: the board module, the templates and the\n"
                    "public checks, with a README; no hidden check, no known answer.")
    parser.add_argument("out", type=Path, metavar="OUT.zip", help="the zip to write")
    parser.add_argument("--assignment", action="append", metavar="NAME",
                        help="an assignment to hand out (again for more; default: "
                             + " and ".join(COURSE) + ")")
    parser.set_defaults(func=handout_command)


def handout_command(args: argparse.Namespace) -> int:
    """``python -m grader handout OUT.zip [--assignment NAME ...]``."""
    try:
        names = build_handout(args.out, assignments=args.assignment or COURSE)
    except (HandoutError, OSError) as problem:
        print(f"python -m grader handout: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {args.out}: {len(names)} files in {FOLDER}/")
    return EXIT_OK
