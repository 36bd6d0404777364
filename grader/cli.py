"""``python -m grader``: what instructors run.

    python -m grader grade submission.py --json results.json
    python -m grader batch submissions/ --out grades
    python -m grader gradescope build autograder.zip
    python -m grader handout handout.zip
    python -m grader                  # help, then a demonstration on the student template

Exit status: 0 when a report was produced (whatever the score), 2 for usage
errors, 1 when the grader itself failed, 130 when interrupted (the report of
what was finished is still written).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from grader.classroom import command, gradescope, handout
from grader.service import command as service_command
from grader.suite import command as grade_command
from grader.suite.command import add_grading_options  # noqa: F401 - the options' one home

TEMPLATE = Path(__file__).resolve().parent.parent / "student" / "mm_player.py"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m grader",
        description="Grade Tic-Tac-Toe minimax submissions (mm_move / move_wrapper) against "
                    "an exact solver, in a sandbox, with fair time limits.",
        epilog="With no command: this help, then a demonstration report on the student "
               "template. Start with: python -m grader grade path/to/mm_player.py")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    grade_command.register(commands)
    for module in (command, gradescope, handout, service_command):
        module.register(commands, grade_command.add_grading_options)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        print(f"\nA demonstration: grading the student template {TEMPLATE}\n")
        args = parser.parse_args(["grade", str(TEMPLATE), "--student-id", "template"])
    return grade_command.run(args.func, args)
