"""Gradescope: build the autograder zip, and run it inside Gradescope's container.

    python -m grader gradescope build autograder.zip --config course.cfg
    python -m grader gradescope run --root /autograder      # what run_autograder does

The zip follows Gradescope's autograder specifications: ``setup.sh`` and
``run_autograder`` at its root, next to this project's source (``provided``,
``student``, ``grader``, ``setup.cfg``, ``pyproject.toml``, ``README.md``;
never ``tests`` or results), the instructor's configuration
as ``grader_config.cfg``, extra checks under ``extra_checks/``, and
``autograder.json``: the grading options chosen at build time.

``build`` checks every option (the assignment, the configuration, the checks, the
timeout) before it writes anything, and writes the zip whole or not at all.

``run`` finds the student's file in ``ROOT/submission``: the one that defines the
assignment's functions (the zip's ``--assignment``, else any assignment's; its other
files are its helpers), or the only ``.py`` file; among several, the one named as the
assignment's template (``mm_player.py``, ``mc_player.py``). It grades it with ``python -m
grader grade ... --with-helpers --json`` (the modules beside it that it imports are graded
with it: ``grader.sandbox.helpers``) and writes ``ROOT/results/results.json``. When there is nothing
to grade (no ``.py`` file, several that cannot be told apart, a binary file) or the grader
itself fails, it still writes a results.json: score 0 and a message that says why.
"""

from __future__ import annotations

import argparse
import configparser
import importlib.metadata
import json
import os
import sys
import tempfile
import time
import zipfile
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from grader.suite import writers
from grader.classroom.discover import submission_in_folder
from grader.classroom.meant import template_names
from grader.classroom.run import GRADER_HOME, GradingOptions, run_grade

TEMPLATES = Path(__file__).resolve().parent / "templates"
DEFAULT_ROOT = Path("/autograder")
SETTINGS = "autograder.json"
CONFIG_NAME = "grader_config.cfg"
PROJECT_PACKAGES = ("provided", "student", "grader")
DISTRIBUTION = "ttt-minimax"
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache", "build", "dist"}
SKIPPED_SUFFIXES = (".pyc", ".pyo", ".egg-info")
DEFAULT_TIMEOUT = 540.0     # wall seconds: under Gradescope's default limit of 10 minutes
EXIT_OK, EXIT_USAGE = 0, 2

_EXECUTABLE = 0o100755 << 16
_READ_WRITE = 0o100644 << 16
_PRIVATE = 0o100600 << 16


class BuildError(Exception):
    """The autograder zip cannot be built (a missing file, a bad configuration)."""


# ---------------------------------------------------------------- build


def project_files(home: Path = GRADER_HOME) -> Iterator[tuple[Path, str]]:
    """The project's files that go into an autograder: (path, name in the zip).

    >>> names = [name for _, name in project_files()]
    >>> "grader/suite/engine.py" in names and "provided/course.py" in names
    True
    >>> any(name.startswith("tests/") for name in names)
    False
    """
    home = Path(home)
    for package in PROJECT_PACKAGES:
        folder = home / package
        if not folder.is_dir():
            raise BuildError(f"the project's {package}/ is missing from {home}")
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(home)
            if path.is_file() and not _skipped(relative):
                yield path, relative.as_posix()


def packaging_files(home: Path = GRADER_HOME) -> list[tuple[str, bytes]]:
    """What installs the zip's source on Gradescope: setup.cfg, pyproject.toml, a README.

    Written here, the same whether the project is a checkout, an editable install or a
    normal one (which leaves no setup.cfg beside the packages); the dependencies are the
    installed distribution's (or, without one, the checkout's setup.cfg's).

    >>> names = [name for name, _ in packaging_files()]
    >>> names
    ['setup.cfg', 'pyproject.toml', 'README.md']
    """
    try:
        distribution = importlib.metadata.distribution(DISTRIBUTION)
        version = distribution.version
        requires = [r for r in distribution.requires or () if "extra ==" not in r]
    except importlib.metadata.PackageNotFoundError:
        parser = configparser.ConfigParser()
        if not parser.read(Path(home) / "setup.cfg", encoding="utf-8"):
            raise BuildError(f"cannot tell what the grader needs: {DISTRIBUTION} is not "
                             f"installed and {home} has no setup.cfg; install the project "
                             "(python3 -m pip install -e .) and build again") from None
        version = parser.get("metadata", "version", fallback="0")
        requires = parser.get("options", "install_requires", fallback="").split()
    setup = (TEMPLATES / "autograder_setup.cfg").read_text(encoding="utf-8").format(
        version=version, requires="\n".join(f"    {r}" for r in requires))
    readme = (f"# {DISTRIBUTION} {version}\n\nThe Tic-Tac-Toe minimax grader, as Gradescope "
              "installs it (setup.sh) and runs it (run_autograder).\n")
    return [("setup.cfg", setup.encode()),
            ("pyproject.toml", (TEMPLATES / "pyproject.toml").read_bytes()),
            ("README.md", readme.encode())]


def _skipped(relative: Path) -> bool:
    return any(part in SKIPPED_PARTS or part.startswith(".") or part.endswith(SKIPPED_SUFFIXES)
               for part in relative.parts)


def build_autograder(out: Path, options: GradingOptions = GradingOptions(),
                     home: Path = GRADER_HOME, timeout: float = DEFAULT_TIMEOUT) -> list[str]:
    """Write the autograder zip to ``out``; return the names in it.

    ``options`` are baked in: the configuration file is
    copied in as ``grader_config.cfg``, the extra checks under ``extra_checks/``.
    A grading run longer than ``timeout`` wall seconds is stopped and scores 0
    with a message (better than Gradescope's own timeout, which shows nothing).

    >>> import tempfile
    >>> names = build_autograder(Path(tempfile.mkdtemp()) / "autograder.zip")
    >>> names[:3]
    ['setup.sh', 'run_autograder', 'autograder.json']
    """
    check_options(options, timeout)
    entries: list[tuple[str, bytes, int]] = [
        ("setup.sh", (TEMPLATES / "gradescope_setup.sh").read_bytes(), _EXECUTABLE),
        ("run_autograder", (TEMPLATES / "gradescope_run_autograder").read_bytes(), _EXECUTABLE),
    ]
    baked = replace(options, config=None, checks=())
    extra: list[tuple[str, bytes, int]] = []
    if options.config is not None:
        extra.append((CONFIG_NAME, Path(options.config).read_bytes(), _PRIVATE))
        baked = replace(baked, config=Path(CONFIG_NAME))
    checks = []
    for index, check in enumerate(options.checks):
        check = Path(check)
        base = f"extra_checks/{index}/{check.name}"
        if check.is_dir():
            extra += [(f"{base}/{path.relative_to(check).as_posix()}", path.read_bytes(),
                       _READ_WRITE)
                      for path in sorted(check.rglob("*"))
                      if path.is_file() and not _skipped(path.relative_to(check))]
        elif check.is_file():
            extra.append((base, check.read_bytes(), _READ_WRITE))
        else:
            raise BuildError(f"no such check file or folder: {check}")
        checks.append(Path(base))
    baked = replace(baked, checks=tuple(checks))
    settings = {"grade_args": baked.argv(), "timeout": timeout,
                "built": time.strftime("%Y-%m-%d %H:%M:%S")}
    entries.append((SETTINGS, (json.dumps(settings, indent=2) + "\n").encode(), _READ_WRITE))
    entries += [(name, data, _READ_WRITE) for name, data in packaging_files(home)]
    entries += [(name, path.read_bytes(), _READ_WRITE) for path, name in project_files(home)]
    entries += extra
    _write_zip(Path(out), entries)
    return [name for name, _, _ in entries]


def check_options(options: GradingOptions, timeout: float = DEFAULT_TIMEOUT) -> tuple[str, ...]:
    """Refuse what every run of the zip would fail on: an assignment there is not, a
    configuration or check the grader would refuse, a timeout that is no time; return the
    configuration's warnings. BuildError says which and what to do.

    >>> check_options(GradingOptions(assignment="monte-carlo"))
    Traceback (most recent call last):
    ...
    grader.classroom.gradescope.BuildError: --assignment monte-carlo: there is no assignment 'monte-carlo'; the assignments are: minimax, montecarlo
    """
    from grader.assignments import AssignmentError, get
    from grader.suite.config import Config, ConfigError
    if options.assignment is not None:
        try:
            get(options.assignment)
        except AssignmentError as problem:
            raise BuildError(f"--assignment {options.assignment}: {problem}") from None
    if not timeout > 0 or timeout == float("inf"):
        raise BuildError(f"--timeout {timeout:g}: give the wall seconds a grading run may "
                         f"take, more than 0 (default {DEFAULT_TIMEOUT:g})")
    if options.config is not None and not Path(options.config).is_file():
        raise BuildError(f"no configuration file {options.config}")
    for check in options.checks:
        if not Path(check).exists():
            raise BuildError(f"no such check file or folder: {check}")
    try:
        return Config.load(options.config, options.checks, options.assignment_name).warnings
    except ConfigError as problem:
        raise BuildError(str(problem)) from None


def rubric_total(options: GradingOptions) -> float:
    """The points the rubric of ``options`` totals: the assignment's points on Gradescope
    must be the same, or Gradescope shows a score out of the wrong total.

    >>> rubric_total(GradingOptions())
    100.0
    """
    from grader.suite.config import Config
    return round(sum(Config.load(options.config, options.checks,
                                 options.assignment_name).weights.values()), 2)


def points_lines(total: float) -> list[str]:
    """What ``build`` says about the assignment's points on Gradescope.

    >>> points_lines(125.0)[0]
    'the rubric totals 125 points, not 100: give the assignment 125 points on Gradescope'
    """
    if total == 100:
        return ["the rubric totals 100 points: give the assignment 100 points on Gradescope"]
    return [f"the rubric totals {total:g} points, not 100: give the assignment {total:g} "
            "points on Gradescope",
            "  (its autograder points): the two must match, or every score is shown out "
            "of the wrong total"]


def build_warnings(options: GradingOptions, environ: Mapping[str, str] = os.environ
                   ) -> list[str]:
    """What the instructor set that the zip does not carry, each said in one sentence.

    >>> build_warnings(GradingOptions(), {"TTT_GRADER_SECRET": "s3cret"})[0][:45]
    'TTT_GRADER_SECRET is set but not carried: eve'
    """
    warnings = list(check_options(options))
    if environ.get("TTT_GRADER_SECRET"):
        warnings.append("TTT_GRADER_SECRET is set but not carried: every student is asked "
                        "the same positions, so the grader has no secret any more "
                        "(unset it to silence this)")
    return warnings


def _write_zip(out: Path, entries: list[tuple[str, bytes, int]]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp",
                                         delete=False)
    try:
        with handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as bundle:
            for name, data, mode in entries:
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = mode
                info.compress_type = zipfile.ZIP_DEFLATED
                bundle.writestr(info, data)
        os.chmod(handle.name, 0o600)      # the autograder is the instructor's alone
        os.replace(handle.name, out)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------- run (inside Gradescope)


def student_id_from_metadata(root: Path) -> str:
    """The Gradescope user id of the (first) submitter, from submission_metadata.json.

    It names the student in the report and the logs (every student is asked the same
    positions). Without metadata: ``"student"``.

    >>> student_id_from_metadata(Path("/no/such/folder"))
    'student'
    """
    try:
        data = json.loads((Path(root) / "submission_metadata.json").read_text(encoding="utf-8"))
        user = data["users"][0]
        return str(user.get("id") or user.get("email") or "student")
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return "student"


def run_autograder(root: Path = DEFAULT_ROOT, source: Path | None = None) -> dict[str, Any]:
    """Grade ``root/submission`` into ``root/results/results.json``; return that data.

    Always writes a results.json, even when there is nothing to grade or the
    grader fails (score 0, and the output says why).
    """
    root = Path(root)
    source = Path(source) if source is not None else root / "source"
    results = root / "results" / "results.json"
    options, timeout = _baked_options(source)
    student_id = student_id_from_metadata(root)
    submission = submission_in_folder(root / "submission", student_id, options.assignment)
    if submission.told and options.assignment is None:   # its functions alone do not say
        options = replace(options, assignment=submission.assignment)
    rubric = options.assignment or submission.assignment or "minimax"   # of a 0's results
    data: dict[str, Any] | None
    if submission.problem is not None or submission.path is None:
        data = failure_results("Nothing was graded: "
                               f"{_problem_text(submission.problem, options.assignment)}.",
                               options.config, assignment=rubric)
    else:
        with tempfile.TemporaryDirectory(prefix="ttt-gradescope-") as scratch:
            attempt = run_grade(submission.path, student_id, options, Path(scratch), timeout,
                                helpers=True)   # the student's own upload: its modules too
        data = _load(attempt.results)
        if attempt.timed_out:
            data = failure_results(
                f"Grading took longer than {timeout:g} seconds and was stopped. Look for an "
                "endless loop, or a search that does much more work than it needs.",
                options.config, assignment=rubric)
        elif data is None or not attempt.complete:
            data = failure_results(
                "The autograder itself failed on this submission; this is not your fault. "
                "Please tell your instructor.", options.config,
                f"exit status {attempt.returncode}; {attempt.errors[-2000:]}", rubric)
        print(attempt.report)                 # Gradescope shows it to the instructor
        if attempt.errors:
            print(attempt.errors, file=sys.stderr)
    assert data is not None
    late = lateness(root)
    if late:
        extra = data.setdefault("extra_data", {})
        extra["late"] = True
        data["output"] = f"{late}\n\n" + str(data.get("output", ""))
    writers.write_json_atomic(results, data)
    return data


def lateness(root: Path) -> str:
    """"Submitted after the due date (...)" when submission_metadata.json says so, or "".

    >>> lateness(Path("/no/such/folder"))
    ''
    """
    try:
        data = json.loads((Path(root) / "submission_metadata.json").read_text(encoding="utf-8"))
        submitted = datetime.fromisoformat(str(data["created_at"]))
        due = datetime.fromisoformat(str(data["assignment"]["due_date"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ""
    if submitted <= due:
        return ""
    hours = (submitted - due).total_seconds() / 3600
    return (f"Submitted after the due date: {submitted.isoformat(timespec='minutes')}, "
            f"{hours:.1f} hours after {due.isoformat(timespec='minutes')}.")


def _baked_options(source: Path) -> tuple[GradingOptions, float]:
    try:
        settings = json.loads((source / SETTINGS).read_text(encoding="utf-8"))
        argv = [str(arg) for arg in settings.get("grade_args", [])]
        timeout = float(settings.get("timeout", DEFAULT_TIMEOUT))
    except (OSError, ValueError, AttributeError, TypeError):
        argv, timeout = [], DEFAULT_TIMEOUT
    parser = argparse.ArgumentParser(add_help=False)
    _add_options(parser)
    args, _ = parser.parse_known_args(argv)
    options = GradingOptions(exhaustive=args.exhaustive, visibility=args.visibility,
                             leaderboard=args.leaderboard, assignment=args.assignment)
    if args.config:
        options = replace(options, config=(source / args.config).resolve())
    checks = tuple((source / check).resolve() for check in args.checks)
    return replace(options, checks=checks), timeout


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--exhaustive", action="store_true")
    parser.add_argument("--leaderboard", action="store_true")
    parser.add_argument("--visibility", default="full")
    parser.add_argument("--config")
    parser.add_argument("--checks", nargs="+", default=[])
    parser.add_argument("--assignment")


def _problem_text(problem: str | None, assignment: str | None = None) -> str:
    """Why nothing was graded, in the student's words: which file to upload (the
    assignment's template's name; any assignment's, for a zip built without one).

    >>> _problem_text("empty folder", "montecarlo")
    'the submission is empty: upload your mc_player.py'
    """
    names = template_names()
    upload = " or ".join(name for name, owner in names.items()
                         if owner == assignment or assignment is None) or "your .py file"
    texts = {
        "empty folder": f"the submission is empty: upload your {upload}",
        None: "no submission",
    }
    if problem in texts:
        return texts[problem]
    if problem and problem.startswith("no .py file"):
        return f"there is no .py file in your submission ({problem}); upload {upload}"
    return str(problem)


def failure_results(message: str, config: Path | None = None,
                    instructor_note: str = "", assignment: str = "minimax") -> dict[str, Any]:
    """A results.json worth 0 that tells the student why: one test per rubric item (of
    ``assignment``'s rubric under ``config``).

    >>> data = failure_results("Nothing was graded: no .py file.")
    >>> data["score"], data["tests"][0]["status"], data["tests"][0]["output"][:18]
    (0.0, 'failed', 'Nothing was graded')
    """
    try:
        from grader.suite.config import Config
        weights = Config.load(config, assignment=assignment).weights
    except Exception:       # even a broken configuration must not stop this report
        weights = {"submission": 0.0}
    tests = [{"name": name, "score": 0.0, "max_score": float(points), "status": "failed",
              "output": message, "output_format": "text", "visibility": "visible"}
             for name, points in weights.items() if points]   # 0 points: the item is off
    return {"score": 0.0, "execution_time": 0, "output": message, "output_format": "text",
            "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {"load_error": message, "note": instructor_note}}


def _load(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) and "tests" in data else None


# ---------------------------------------------------------------- command line

BUILD_EPILOG = """\
The zip holds setup.sh and run_autograder (at its root, as Gradescope wants), the
project's source (provided/, student/, grader/, setup.cfg, pyproject.toml,
README.md; never tests/), your --config as grader_config.cfg, your --checks, and
the grading options in autograder.json.
Upload it under Configure Autograder, base image Ubuntu 22.04 or newer, and give
the assignment as many points as the rubric totals (100 by default; build
prints the total).

examples:
  python -m grader gradescope build autograder.zip --config course.cfg
  python -m grader gradescope build autograder.zip --config course.cfg --visibility categories
"""

RUN_EPILOG = """\
This is what run_autograder does inside Gradescope. To try it on your machine:
  mkdir -p ~/ag/submission && cp mm_player.py ~/ag/submission/
  unzip autograder.zip -d ~/ag/source
  AUTOGRADER_ROOT=~/ag AUTOGRADER_PYTHON=python3 bash ~/ag/source/run_autograder
  cat ~/ag/results/results.json
"""


def register(commands: argparse._SubParsersAction,
             add_grading_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``gradescope build`` and ``gradescope run`` to ``python -m grader``."""
    parser = commands.add_parser(
        "gradescope", help="build a Gradescope autograder zip (or run one)",
        description="Gradescope: `build` writes the autograder zip to upload; `run` is what "
                    "the zip's run_autograder does for each submission.")
    _add_subcommands(parser, add_grading_options)


def _add_subcommands(parser: argparse.ArgumentParser,
                     add_grading_options: Callable[[argparse.ArgumentParser], None]) -> None:
    actions = parser.add_subparsers(dest="gradescope_command", metavar="ACTION", required=True)
    build = actions.add_parser(
        "build", help="write the autograder zip", epilog=BUILD_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write the autograder zip to upload to Gradescope.")
    build.add_argument("out", type=Path, metavar="OUT.zip", help="the zip to write")
    build.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                       help="stop a grading run after this many wall seconds and give the "
                            "student a clear message (default: %(default)g, under "
                            "Gradescope's default limit of 10 minutes)")
    add_grading_options(build)
    build.set_defaults(func=build_command)
    run = actions.add_parser(
        "run", help="grade ROOT/submission into ROOT/results/results.json", epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Grade the submission in ROOT/submission with the options the zip was\n"
                    "built with, into ROOT/results/results.json. Always writes a results.json\n"
                    "(score 0 and the reason when nothing can be graded).")
    run.add_argument("--root", type=Path,
                     default=Path(os.environ.get("AUTOGRADER_ROOT", DEFAULT_ROOT)),
                     help="Gradescope's folder (default: $AUTOGRADER_ROOT or /autograder)")
    run.add_argument("--source", type=Path, default=None,
                     help="where the zip was unpacked (default: ROOT/source)")
    run.set_defaults(func=run_command)


def build_command(args: argparse.Namespace) -> int:
    """``python -m grader gradescope build OUT.zip``: every option checked before anything
    is written; the zip written whole or not at all."""
    options = GradingOptions.from_args(args)
    try:
        warnings = build_warnings(options)
        total = rubric_total(options)
        names = build_autograder(args.out, options, timeout=args.timeout)
    except (BuildError, OSError) as problem:
        print(f"python -m grader gradescope build: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    for warning in warnings:
        print(f"python -m grader gradescope build: warning: {warning}", file=sys.stderr)
    configured = " (with your configuration)" if CONFIG_NAME in names else ""
    print(f"wrote {args.out}: {len(names)} files{configured}; keep it private: it is the grader")
    print("upload it to Gradescope: Configure Autograder > Zip file upload")
    for line in points_lines(total):
        print(line)
    return EXIT_OK


def run_command(args: argparse.Namespace) -> int:
    """``python -m grader gradescope run``: always exits 0 once results.json is written."""
    data = run_autograder(args.root, args.source)
    print(f"results.json: score {data.get('score')}", file=sys.stderr)
    return EXIT_OK
