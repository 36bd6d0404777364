"""``python -m student check``: an assignment's public checks, as the grader runs them.

    python -m student check                       student/mm_player.py
    python -m student check ~/hw/mc_player.py     (or --file PATH)
    python -m student check --assignment montecarlo
    python -m student check --no-speed            the public checks only

The file's assignment is recognised as ``python -m grader grade`` recognises it
(``grader.assignments.choose``: the one named with ``--assignment``, else the one whose
functions the file defines). Its public checks run in the grader's sandbox, with the
grader's engine, judge and words (``grader.suite.public``), then its speed checks;
this module only reads the options and prints, in the students' format:

    Checking student/mm_player.py (Mini-max Tic-Tac-Toe): 12 checks, then its speed ...
      ok    finished board: X has won
      FAIL  O must block
            mm_move(TTTBoard(3, False, [[...]]), PLAYERO)
            expected: score 0
            ...
    11 passed, 1 failed; speed: within the grader's limits

Exit status: 0 when every check passed and the speed is within the grader's limits (or
was not asked), 1 otherwise, 2 on bad options, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any, Sequence, TextIO

from student.output import PAD, CheckOutput, Progress, paused_note

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "mm_player.py"    # checked when no file is named
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def check_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m student check",
        description=(
            "Run an assignment's public checks on your file, as the grader runs them: in\n"
            "its sandbox, judged by its own code, in its words. Each failure shows a call\n"
            "you can paste into Python to reproduce it. Then judge the file's speed as\n"
            "the grader does, on this machine, against the grader's yardstick timed here.\n"
            "The assignment is the one whose functions the file defines (mm_move: the\n"
            "minimax; mc_trial, mc_move...: the Monte Carlo player), as the grader says.\n\n"
            "examples:\n"
            "  %(prog)s\n"
            "  %(prog)s ~/hw/mm_player.py   (or --file ~/hw/mm_player.py)\n"
            "  %(prog)s --no-speed          the public checks only\n"
            "  %(prog)s student/mc_player.py\n"
            "  %(prog)s --assignment montecarlo   (student/mc_player.py)"),
        epilog=(
            "exit status: 0 all checks passed and the speed is within the grader's limits;\n"
            "1 some failed, it is too slow, or it could not be checked; 2 bad options.\n"
            "The grader asks many more questions: passing these does not guarantee full\n"
            "marks, but every check here is one the grader makes, in the same words."),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=None, metavar="PATH",
                        help="the file to check (default: student/mm_player.py; with "
                             "--assignment, that assignment's template)")
    parser.add_argument("path", type=Path, nargs="?", metavar="PATH",
                        help="the same as --file PATH")
    parser.add_argument("--assignment", metavar="NAME", default=None,
                        help="the assignment the file is for: minimax, montecarlo, or one "
                             "your course installed (default: the one whose functions the "
                             "file defines, as the grader recognises it)")
    parser.add_argument("--no-speed", dest="speed", action="store_false",
                        help="run the public checks only, not the speed checks")
    return parser


def check_main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
               stderr: TextIO | None = None) -> int:
    """Run the public checks of the file's assignment, then its speed checks; print the
    verdicts on ``stdout`` (what is being timed on ``stderr``); return the exit status."""
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    parser = check_parser()
    args = parser.parse_args(argv)
    if args.path is not None:
        if args.file is not None:
            parser.error(f"two files: {args.path} and --file {args.file}; give one")
        args.file = args.path
    from grader.assignments import AssignmentError, choose, get, problems
    if args.file is None:
        try:
            args.file = TEMPLATE if args.assignment is None else _template(get(args.assignment))
        except AssignmentError as problem:
            parser.error(str(problem))
        if args.file is None:
            parser.error(f"the assignment {args.assignment} has no template: name the file "
                         "to check")
    path = args.file.expanduser()
    if not path.exists():
        parser.error(f"there is no file {args.file}")
    try:
        assignment, how = choose(args.assignment, _source(path))
    except AssignmentError as problem:
        parser.error(str(problem))
    for warning in problems():     # an installed assignment that failed to load
        print(f"python -m student check: warning: {warning}", file=stderr)
    if not assignment.public_checks:
        print(f"The assignment {assignment.title} ({assignment.name}) has no public checks: "
              "ask your instructor how to check your work.", file=stdout)
        return EXIT_FAILED
    run = CheckRun(path.resolve(), _shown(path), assignment, how, args.speed, stdout,
                   Progress(stderr), _command(args))
    try:
        return run.run()
    except KeyboardInterrupt:
        run.progress.clear()
        print("\nStopped (Ctrl-C).", file=stdout)
        return EXIT_INTERRUPTED


class CheckRun(CheckOutput):
    """One run of ``python -m student check``: the public checks, then speed, printed as
    they end (the checks of one name, a position judged in two rubric items, as one)."""

    def __init__(self, path: Path, shown: str, assignment: Any, how: str, speed: bool,
                 stdout: TextIO, progress: Progress, command: str) -> None:
        super().__init__(stdout)
        self.path, self.shown, self.assignment, self.how = path, shown, assignment, how
        self.speed_wanted = speed and assignment.student_speed is not None
        self.progress = progress
        self.command = command
        self.group: list[Any] = []          # the parts of the check being printed
        self.not_run = 0
        self.skipped = 0                    # checks not run after a call was stuck
        self.not_written: dict[str, None] = {}   # functions still raising NotImplementedError
        self.failures: list[Any] = []       # every failure shown, for the paste lines
        self.stopped = ""
        self.speed_said = "not judged"
        self.speed_ok = False

    def run(self) -> int:
        from grader.suite.public import run_checks, run_speed
        from grader.suite.engine import INTERRUPTED
        # A call of the function whose speed is judged last (the assignment's last: mm_move,
        # mc_move) that only ran out of time does not stop the checks: the speed part says.
        timed = self.assignment.functions[-1] if self.speed_wanted else ""
        # The modules beside the file that it imports go with it, as in a batch of the
        # students' folders and on Gradescope: the same verdicts.
        checks = run_checks(self.path, self.assignment, on_check=self.on_check,
                            on_start=self.on_start, timed=timed, helpers=True)
        self.flush()
        result = checks.result
        if result.grader_error == INTERRUPTED:
            raise KeyboardInterrupt
        if checks.load_error is not None:
            self.header(None, result.helpers)
            self.say(f"Cannot check {self.shown}: {checks.load_error}")
            if self.path.suffix != ".py":
                self.say(f"-> {self.path.name} is not a Python file: check (and hand in) the "
                         ".py file in which you wrote your functions")
            if result.load_output:
                self.show_printed("note: your file", result.load_output.splitlines(),
                                  len(result.load_output.splitlines()), " when it was imported",
                                  "")
            return self.finish(result)
        if result.grader_error is not None:
            self.say(f"The grader itself failed while checking (not your fault; please tell "
                     f"your instructor): {result.grader_error}")
        self.stopped = checks.stopped
        if self.stopped:
            self.say(f"  not run: the {self.skipped} other checks"
                     + (" and the speed checks" if self.speed_wanted else "")
                     + f", because {self.stopped}: fix that first")
        if self.speed_wanted and self.speed_possible():
            self.progress(f"timing the speed of {self.shown}, as the grader judges it")
            speed = run_speed(self.path, self.assignment, helpers=True)
            self.progress.clear()
            if speed is not None:
                if speed.result.grader_error == INTERRUPTED:
                    raise KeyboardInterrupt
                self.show_speed(speed)
        return self.finish(result)

    # -- as the checks end ------------------------------------------------------------------

    def header(self, count: int | None, helpers: tuple[str, ...] = ()) -> None:
        what = f"{count} checks" if count is not None else "its public checks"
        then = ", then its speed as the grader judges it" if self.speed_wanted else ""
        self.say(f"Checking {self.shown} ({self.assignment.title}, the {self.assignment.name} "
                 f"assignment): {what}{then}.")
        if helpers:
            self.say(f"With its helper modules beside it: {', '.join(helpers)} (hand them "
                     "in with it).")
        if "recognised" not in self.how:
            self.say(f"note: checked as the {self.assignment.name} assignment: {self.how}.")

    def on_start(self, count: int, sandbox: Any) -> None:
        self.header(count, tuple(name for name, _ in sandbox.helpers))
        if sandbox.import_calls:
            self.say(paused_note(sandbox.import_calls, self.path.name))
        output = sandbox.load_output
        if output:
            lines = output.splitlines()
            self.show_printed("note: your file", lines, len(lines), " when it was imported", "")

    def on_check(self, check: Any) -> None:
        if self.group and self.group[0].name != check.name:
            self.flush()
        self.group.append(check)

    def flush(self) -> None:
        """Say the check whose parts are gathered: ok, FAIL with its failure, or nothing
        (not run, not written: said once at the end)."""
        parts, self.group = self.group, []
        if not parts:
            return
        name = parts[0].name
        failures = [failure for part in parts for failure in part.failures]
        self.notes.update(dict.fromkeys(note for part in parts for note in part.notes))
        if all(part.skipped for part in parts):
            self.not_run += 1
            self.skipped += 1
            return
        if any(part.not_written for part in parts):
            self.not_run += 1
            self.not_written.update(dict.fromkeys(_unwritten(f, self.assignment)
                                                  for f in failures))
            return
        errors = [part.error for part in parts if part.error]
        if not failures and not errors:
            self.passed += 1
            self.say(f"  ok    {name}")
        else:
            self.failed += 1
            self.say(f"  FAIL  {name}")
            if failures:
                self.failures.append(failures[0])
                repeated = failures[0].why in self.shown_details
                self.say(failure_block(failures[0], repeated))
                self.shown_details.add(failures[0].why)
                for other in failures[1:]:
                    self.say(f"{PAD}also: {other.category}: expected {other.expected}, "
                             f"received {other.received}")
            for error in errors:
                self.say(f"{PAD}the grader itself failed on this check (not your fault; "
                         f"please tell your instructor): {error}")
        printed = "".join(part.printed for part in parts)
        if printed:
            lines = printed.splitlines()
            self.show_printed("your code", lines, len(lines))

    # -- speed -------------------------------------------------------------------------------

    def speed_possible(self) -> bool:
        """Whether speed can be judged: every function written, no call stuck."""
        if self.stopped:
            self.speed_said = f"not judged ({self.stopped.partition(' on ')[0]} on a check)"
        elif self.not_written:
            names = ", ".join(self.not_written)
            self.speed_said = f"not judged ({names} not written yet)"
        return not self.stopped and not self.not_written

    def show_speed(self, speed: Any) -> None:
        if speed.load_error is not None:
            self.say(f"Speed: not judged: {speed.load_error}")
            return
        notes = [note for check in speed.checks for note in check.notes]
        if notes:
            self.say(notes[0])
            for note in notes[1:]:
                self.say(f"  {note}")
        printed = sum(len(check.printed.splitlines()) for check in speed.checks)
        if printed:
            self.say(f"  your code printed {printed:,} lines during the speed checks (not "
                     "shown); printing takes time, and the grader times it too")
        passed = sum(check.passed for check in speed.checks)
        failures = [f for check in speed.checks for f in check.failures]
        if any(check.error for check in speed.checks) or not (passed or failures):
            self.speed_said = "not judged"
        elif any(f.judged for f in failures):
            self.speed_said = "too slow for the grader"
        elif failures and not passed:
            self.speed_said = "not judged (no answer)"
        elif failures:
            self.speed_said = "within the grader's limits where it answered"
        else:
            self.speed_said = "within the grader's limits"
            self.speed_ok = True

    # -- the end -----------------------------------------------------------------------------

    def finish(self, result: Any) -> int:
        if self.not_written:
            names = ", ".join(self.not_written)
            they, their = (("they raise", "their bodies") if len(self.not_written) > 1
                           else ("it raises", "its body"))
            self.say(f"Not written yet ({they} NotImplementedError): {names}. Fill in "
                     f"{their} in {self.shown}, then run `{self.command}` again.")
        if self.failures:
            self.say(paste_intro(result, self.failures, self.assignment))
        for note in (*self.notes, *(f"{text}." for text in result.helper_notes)):
            self.say(f"note: {note}")
        tally = f"{self.passed} passed, {self.failed} failed"
        if self.not_run:
            tally += f", {self.not_run} not run"
        if result.load_error is not None and not (self.passed or self.failed):
            tally = "not checked"
        if self.speed_wanted:
            tally += f"; speed: {self.speed_said}"
        self.say(tally)
        clean = (result.load_error is None and self.failed == 0 and self.not_run == 0
                 and self.passed > 0)
        return EXIT_OK if clean and (self.speed_ok or not self.speed_wanted) else EXIT_FAILED


def failure_block(failure: Any, repeated: bool = False) -> str:
    """A failure in the students' format: the call to paste, expected and received, the
    problem and why (the grader's words), the board before and after the call.

    >>> from grader.judge.results import Failure
    >>> print(failure_block(Failure("wrong score", "mm_move(b, PLAYERX)", "score 0", "(1, (2, 2))",
    ...                             "a draw", "board")))
            mm_move(b, PLAYERX)
            expected: score 0
            received: (1, (2, 2))
            problem:  wrong score
            why: a draw
            board:
              board
    """
    lines = [PAD + failure.call,
             f"{PAD}expected: {failure.expected}",
             f"{PAD}received: {failure.received}",
             f"{PAD}problem:  {failure.category}"
             + ("" if failure.judged else " (no answer: this check could not be judged)")]
    why = failure.why.strip().splitlines() or [""]
    if repeated and len(why) > 1:
        lines.append(f"{PAD}why: {why[0]} (the details as above)")
    else:
        lines.append(f"{PAD}why: {why[0]}")
        lines += [f"{PAD}     {line}" for line in why[1:]]
    if failure.board:
        lines.append(f"{PAD}board before the call:" if failure.board_after else f"{PAD}board:")
        lines += [f"{PAD}  {line}" for line in failure.board.splitlines()]
    if failure.board_after:
        lines.append(f"{PAD}board after the call:")
        lines += [f"{PAD}  {line}" for line in failure.board_after.splitlines()]
    if failure.moves:
        lines.append(f"{PAD}moves: " + ", ".join(failure.moves))
    return "\n".join(lines)


def paste_intro(result: Any, failures: list[Any], assignment: Any) -> str:
    """How to reproduce a failure: the grader's paste lines (its report's), for the
    functions the failures' calls name."""
    from grader.suite.report import paste_lines
    calls = [failure.call for failure in failures]
    functions = [name for name in (*assignment.functions, "move_wrapper")
                 if any(f"{name}(" in call for call in calls)] or list(assignment.functions)
    lines = paste_lines(result, functions)
    if any("random.seed(" in call for call in calls):
        lines.insert(0, "import random")
    folder = Path(result.submission).parent
    return ("To reproduce a failure: start python3 in " + str(folder) + " and paste these "
            "lines, then the failure's call:\n" + "\n".join(f"    {line}" for line in lines))


def _unwritten(failure: Any, assignment: Any) -> str:
    """The function a NotImplementedError says is not written yet (the template's words),
    else the first of the assignment's functions the call names.

    >>> from grader.judge.results import Failure
    >>> from grader.assignments import get
    >>> _unwritten(Failure("exception", "game: play_game(move_wrapper, 1, False)", "",
    ...     "NotImplementedError: mm_move is not written yet: open it"), get("minimax"))
    'mm_move'
    """
    said = re.match(r"NotImplementedError: (\w+) is not written yet", failure.received)
    if said:
        return said.group(1)
    names = (*assignment.functions, "move_wrapper")
    found = [(match.start(), name) for name in names
             for match in [re.search(rf"\b{name}\b", failure.call)] if match]
    return min(found)[1] if found else "a function"


def _template(assignment: Any) -> Path | None:
    """The assignment's template where students look for it: beside this package (the
    handout puts every template there), else where the assignment keeps it."""
    if assignment.template is None:
        return None
    beside = HERE / Path(assignment.template).name
    return beside if beside.is_file() else Path(assignment.template)


def _source(path: Path) -> str:
    """The file's text for recognising its assignment (never run); empty if unreadable."""
    try:
        return path.read_bytes()[:1 << 20].decode("utf-8", "replace")
    except OSError:
        return ""


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _command(args: argparse.Namespace) -> str:
    """The command to run again, as the student typed its file."""
    if args.file == TEMPLATE and args.assignment is None:
        return "python -m student check"
    return f"python -m student check {_shown(args.file)}"
