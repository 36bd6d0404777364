"""``python -m grader grade``: one submission graded, its report printed and its files
written. The command line's floor for one grade: ``grader.cli`` composes it with the other
commands, and the warm grader (``grader.classroom.warm``) runs it in each forked grade, so a
warm grade is the process ``python -m grader grade`` would be without importing the class,
service or handout commands.

    python -m grader grade submission.py --json results.json
    main(["grade", "submission.py", "--quiet"])       # the same, from Python: its exit status

Exit status: 0 when a report was produced (whatever the score), 2 for usage errors, 1 when
the grader itself failed, 130 when interrupted (the report of what was finished is still
written).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from grader.assignments import AssignmentError, choose, problems
from grader.assignments.registry import DEFAULT as DEFAULT_ASSIGNMENT
from grader.sandbox.helpers import helpers_beside
from grader.suite import config as config_file
from grader.suite import engine, report, results_json, table, writers

EXIT_OK, EXIT_GRADER_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def register(commands: Any) -> argparse.ArgumentParser:
    """Add ``grade`` to the subcommands of ``python -m grader``; its parser."""
    grade = commands.add_parser(
        "grade", help="grade one submission file",
        description="Grade one submission and print its report. Exit status 0 whenever a "
                    "report was produced, 1 if the grader itself failed, 2 for usage errors.")
    grade.add_argument("submission", type=Path, help="the student's .py file")
    add_grading_options(grade)
    grade.add_argument("--json", type=Path, metavar="PATH",
                       help="also write Gradescope's results.json format to PATH")
    grade.add_argument("--csv", type=Path, metavar="PATH",
                       help="also write a one-row gradebook CSV to PATH")
    grade.add_argument("--student-id", metavar="ID",
                       help="the student's id, for the report's header and the CSV row "
                            "(default: the file name without .py); every student is "
                            "asked the same positions")
    grade.add_argument("--student-name", metavar="NAME", default="",
                       help="the student's name, shown beside the id in the report's header "
                            "and in results.json; it changes nothing else")
    grade.add_argument("--with-helpers", action="store_true",
                       help="also copy into the sandbox the .py files beside the submission "
                            "that it imports (its own helper modules; at most 20 files, "
                            "1 MiB): for a student's own folder, never a folder of "
                            "several students' files")
    grade.add_argument("--quiet", action="store_true", help="print only the score line")
    grade.set_defaults(func=grade_command)
    return grade


def add_grading_options(parser: argparse.ArgumentParser) -> None:
    """The options every grading command shares (grade, batch, gradescope)."""
    parser.add_argument("--exhaustive", action="store_true",
                        help="ask every reachable 3x3 position in both modes, not one per "
                             "class of the board's 8 symmetries (about 2.4 times the "
                             "student's CPU time, for the same verdicts on correct code)")
    parser.add_argument("--visibility", choices=["full", "categories"], default="full",
                        help="full: every failure with its call, board and why (default); "
                             "categories: only how many failures of each kind, for the time "
                             "before the deadline")
    parser.add_argument("--config", type=Path, metavar="PATH",
                        help="a configuration file (rubric weights, time limits); "
                             "start from a copy of grader/default.cfg")
    parser.add_argument("--leaderboard", action="store_true",
                        help="results.json: put a correct submission's CPU time on the empty "
                             "3x3 board on Gradescope's leaderboard")
    parser.add_argument("--checks", type=Path, nargs="+", default=[], metavar="PATH",
                        help="more pytest files or folders with extra rubric items")
    parser.add_argument("--assignment", metavar="NAME",
                        help="the assignment to grade as: minimax or montecarlo (or one "
                             "installed through the grader.assignments entry points); "
                             "default: the one whose functions the file defines")


def options_from(args: argparse.Namespace, student_id: str,
                 submission: Path | None = None) -> engine.GradeOptions:
    """The grade's options: the assignment (``--assignment``, else recognised from the
    functions ``submission`` defines), its configuration, and how it was chosen."""
    source = _source_of(submission) if submission is not None else ""
    try:
        assignment, how = choose(args.assignment, source)
    except AssignmentError as problem:
        raise config_file.ConfigError(str(problem)) from None
    config = config_file.Config.load(args.config, args.checks, assignment.name)
    # An installed assignment that failed to load costs no student anything; the staff
    # running the grader are told which and why.
    for warning in (*problems(), *config.warnings):
        print(f"python -m grader: warning: {warning}", file=sys.stderr)
    note = "" if assignment.name == DEFAULT_ASSIGNMENT and "recognised" in how \
        else f"{assignment.title} ({assignment.name}), {how}"
    return engine.GradeOptions(student_id=student_id,
                               exhaustive=args.exhaustive, config=config,
                               checks=tuple(args.checks), assignment_note=note)


def _source_of(path: Path) -> str:
    """The file's text for recognising its assignment (never run); empty if unreadable."""
    try:
        return path.read_bytes()[:1 << 20].decode("utf-8", "replace")
    except OSError:
        return ""


def grade_command(args: argparse.Namespace) -> int:
    problem = _usage_problem(args.submission)
    if problem:  # the instructor's typo is not a student's grade
        print(f"python -m grader grade: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    student_id = args.student_id or args.submission.stem
    options = options_from(args, student_id, args.submission)
    if args.with_helpers:
        options = replace(options, helpers=helpers_beside(args.submission))
    result = engine.grade(args.submission, options)
    # The name is a label for the report and results.json only: it never reaches the
    # engine, so it cannot change a score.
    name = args.student_name
    text = report.text_report(result, args.visibility, options.config.examples, name)
    # Files first: a reader that stops early (| head) must not cost the results.
    if args.json:
        graded_under = config_file.GradedUnder.of(
            options.config, args.config.name if args.config else "default",
            exhaustive=args.exhaustive, visibility=args.visibility,
            leaderboard=args.leaderboard, checks=args.checks)
        writers.write_json_atomic(args.json, results_json.gradescope_results(
            result, args.visibility, options.config.examples, leaderboard=args.leaderboard,
            graded_under=graded_under.to_json(), student_name=name))
    if args.csv:
        table.write_csv(args.csv, [result])
    print(f"{result.score:g} / {result.max_score:g}  {student_id}" if args.quiet else text)
    if not args.quiet:
        print(report.isolation_line(result), file=sys.stderr)   # the instructor's, not the report's
    if result.grader_error is not None:
        return EXIT_INTERRUPTED if result.grader_error == engine.INTERRUPTED else EXIT_GRADER_FAILED
    return EXIT_OK


def _usage_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a submission to grade, or None (its content is the grade's)."""
    if path.is_dir():
        inside = sorted(p.name for p in path.glob("*.py"))[:5]
        hint = f" (it holds {', '.join(inside)})" if inside else " (it holds no .py file)"
        return (f"{path} is a folder: give the .py file to grade{hint}, or grade a whole "
                "class with: python -m grader batch " + str(path))
    if not path.exists():
        return f"there is no file {path}"
    return None


def _terminate(signum: int, frame: object) -> None:
    # SIGTERM ends the run like Ctrl-C: the sandbox is closed, the report written.
    raise KeyboardInterrupt




def run(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a command's ``func``, as every ``python -m grader`` command ends: a bad
    configuration is a usage error, Ctrl-C and SIGTERM end it with what was finished, a
    reader that stopped early is no error, and the grader's own bug says so plainly."""
    signal.signal(signal.SIGTERM, _terminate)
    try:
        return func(args)
    except config_file.ConfigError as problem:
        print(f"python -m grader: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("python -m grader: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader stopped early (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception:  # the grader's own bug: say so plainly, with the traceback
        traceback.print_exc()
        print("python -m grader: the grader itself failed (above); please report it",
              file=sys.stderr)
        return EXIT_GRADER_FAILED


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m grader grade ...`` (``argv`` starts with "grade"; default sys.argv[1:])."""
    parser = argparse.ArgumentParser(prog="python -m grader")
    register(parser.add_subparsers(dest="command", metavar="COMMAND", required=True))
    args = parser.parse_args(argv)
    return run(args.func, args)
