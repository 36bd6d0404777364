"""``python -m student``: play against your mm_move, or run the public checks.

    python -m student                    play in the terminal: you are X, your mm_move is O
    python -m student -x student.mm_player:move_wrapper -o human    your player starts
    python -m student gui                the same game in a window (the course's run_gui)
    python -m student check              the public checks on student/mm_player.py
    python -m student check --file ~/hw/mm_player.py
    python -m student check --no-speed   the public checks only, not the speed checks
    python -m student check student/mc_player.py    the Monte Carlo player's checks
    python -m student duel               your minimax against your Monte Carlo player
    python -m student submit             hand it in to the course's page (student/submit.py)

Play takes the same options as ``python -m provided`` (``python -m student --help``).
``check`` exits with 0 when every check passed, 1 otherwise, 2 on bad options.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Sequence, TextIO

from provided import console
from provided.board import EMPTY, NAMES
from student.checks import (CHECKS, TIMEOUT, Limits, NotWrittenError, Reply, SubmissionError,
                            Verdict, call_mm_move, judge, run_check)
from student.output import CheckOutput, paused_note
from student.players import MC_PLAYER, STUDENT_PLAYER, not_written_message, ntrials_of
from student.recognise import MINIMAX, MONTECARLO, assignment_of
from student.runner import LoadFailure, read_and_compile
from student.speed import (NO_ANSWER, STUCK, TOO_SLOW, Calibration, SpeedProgress, Yardstick,
                           YardstickError, judge_speed, summary, yardstick_sentence)
from student.tiers import FACTOR, TIERS, Tier
from student.yardstick import pick_cpu

TEMPLATE = Path(__file__).resolve().with_name("mm_player.py")
MC_TEMPLATE = TEMPLATE.with_name("mc_player.py")

PLAY = console.ConsoleConfig(
    prog="python -m student",
    playerx=console.HUMAN,
    playero=STUDENT_PLAYER,
    names={STUDENT_PLAYER: "your mm_move", MC_PLAYER: "your mc_move"},
    examples=(
        "  %(prog)s                 you (X) against your mm_move (O)\n"
        f"  %(prog)s -x {STUDENT_PLAYER} -o human\n"
        "                                    your mm_move moves first\n"
        f"  %(prog)s -x random -o {STUDENT_PLAYER}\n"
        "                                    a random player against your mm_move\n"
        "  %(prog)s --reverse       the reverse game\n"
        "  %(prog)s gui             the same, in a window (see: %(prog)s gui --help)\n"
        "  %(prog)s check           the public checks (see: %(prog)s check --help)\n"
        "  %(prog)s duel            your minimax against your Monte Carlo player\n"
        "                                    (see: %(prog)s duel --help)\n"
        "  %(prog)s submit          hand in student/mm_player.py to the course's page\n"
        "                                    (see: %(prog)s submit --help)\n"),
    description=(
        "Play Tic-Tac-Toe in the terminal against your own mm_move (student/mm_player.py).\n"
        "To run the public checks instead: python -m student check "
        "(see python -m student check --help).\n"
        "To hand it in: python -m student submit (see python -m student submit --help)."),
)

GUI = dataclasses.replace(PLAY, prog="python -m student gui")  # the window's own help


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``check`` (when the first argument is "check") or a game; return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["check"]:
            return check_main(argv[1:])
        if argv[:1] == ["gui"]:
            return _play(argv[1:], window=True)
        if argv[:1] == ["duel"]:
            from student.duel import duel_main
            return duel_main(argv[1:])
        if argv[:1] == ["submit"]:
            from student.submit import submit_main
            return submit_main(argv[1:])
        return _play(argv)
    except BrokenPipeError:  # the reader stopped early (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _play(argv: list[str], window: bool = False) -> int:
    """A game against the student's player, in the terminal or (``window``) in a window."""
    config = GUI if window else PLAY
    if window:
        from provided.gui.command import gui_main, gui_parser  # tkinter only for the window
    parser = gui_parser(config) if window else console.build_parser(config)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a bad option (2), already explained
        return exc.code if isinstance(exc.code, int) else 2
    for spec in dict.fromkeys((args.playerx, args.playero)):
        message = not_written_message(spec)
        if message:
            print(message, file=sys.stderr)
            return 1
    if MC_PLAYER in (args.playerx, args.playero) and not _given(argv, "--trials"):
        trials = ntrials_of(MC_PLAYER)   # the course's NTRIALS, as play_game(mc_move, NTRIALS)
        argv = [*argv, "--trials", str(trials)] if trials else argv
    if window:
        return gui_main(argv, config)
    return console.main(argv, config)


def _given(argv: Sequence[str], option: str) -> bool:
    """Whether ``option`` is on the command line (``--trials 5`` or ``--trials=5``)."""
    return any(arg == option or arg.startswith(option + "=") for arg in argv)


def check_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m student check",
        description=(
            "Run the public checks: a dozen positions, each asked of your mm_move in a\n"
            "separate process. Any optimal move is accepted. Each failure shows a call\n"
            "you can paste into Python to reproduce it. Then judge its speed as the\n"
            "grader does, on this machine: the grader's yardstick (what a plain minimax\n"
            "costs on a board written like the course's) is timed here, and mm_move is\n"
            "asked the positions that decide the grader's time limits, each with its\n"
            "limit.\n\n"
            "examples:\n"
            "  %(prog)s\n"
            "  %(prog)s ~/hw/mm_player.py   (or --file ~/hw/mm_player.py)\n"
            "  %(prog)s --no-speed          the public checks only\n"
            "  %(prog)s student/mc_player.py\n"
            "                              the Monte Carlo player's checks (a file\n"
            "                              that defines mc_move or mc_trial), then\n"
            "                              mc_move's speed with the grader's limits"),
        epilog=(
            "exit status: 0 all checks passed and mm_move (or mc_move) is within the\n"
            "grader's time limits; 1 some failed, it is too slow, or it could not be\n"
            "checked; 2 bad options. The grader asks many more positions: passing\n"
            "these does not guarantee full marks."),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=None, metavar="PATH",
                        help="the file that defines mm_move (default: student/mm_player.py; "
                             "with --assignment montecarlo, student/mc_player.py)")
    parser.add_argument("path", type=Path, nargs="?", metavar="PATH",
                        help="the same as --file PATH")
    parser.add_argument("--assignment", choices=(MINIMAX, MONTECARLO), default=None,
                        help="which assignment the file is for (default: recognised from "
                             "the functions it defines: mm_move is the minimax, mc_move or "
                             "mc_trial the Monte Carlo player)")
    parser.add_argument("--no-speed", dest="speed", action="store_false",
                        help="run the public checks only, not the speed checks")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                        help="stop a call that has not answered after this many seconds of "
                             "wall-clock time, even if it is not computing (sleeping, "
                             "waiting for input); CPU time limits are the grader's "
                             "(default: 10)")
    return parser


def check_main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
               stderr: TextIO | None = None) -> int:
    """Run every public check on ``--file``, then judge its speed as the grader does; print
    the verdicts on ``stdout`` (what is being timed goes to ``stderr``) and return the exit
    status."""
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    parser = check_parser()
    args = parser.parse_args(argv)
    if args.path is not None:
        if args.file is not None:
            parser.error(f"two files: {args.path} and --file {args.file}; give one")
        args.file = args.path
    if args.file is None:
        args.file = MC_TEMPLATE if args.assignment == MONTECARLO else TEMPLATE
    path = args.file.expanduser().resolve()
    if not path.is_file():
        parser.error(f"there is no file {args.file}")
    if args.timeout <= 0:
        parser.error("argument --timeout: must be more than 0 seconds")
    if (args.assignment or assignment_of(path)) == MONTECARLO:
        from student.mc_check import check_montecarlo
        return check_montecarlo(path, args.timeout, stdout, _shown_path(path), args.speed,
                                stderr)
    shown = _shown_path(path)
    then = ", then its speed as the grader judges it" if args.speed else ""
    print(f"Checking mm_move in {shown}: {len(CHECKS)} checks{then}.", file=stdout)
    run = _CheckRun(path, args.timeout, stdout, pick_cpu(), SpeedProgress(stderr))
    try:
        try:   # once, before any check: a file the grader cannot run gets one message
            read_and_compile(path)
        except LoadFailure as exc:
            raise SubmissionError(str(exc)) from None
        with Yardstick(run.cpu) as yardstick:
            run.calibrate(yardstick)
            run.checks()
            if args.speed and run.speed_wanted():
                run.speed(yardstick)
    except NotWrittenError:
        # One line for the whole run: the template fails every check the same way.
        print(f"mm_move in {shown} is not written yet (it raises NotImplementedError): "
              "fill in its body, then run `python -m student check` again.", file=stdout)
        run.cannot_check()
    except SubmissionError as exc:
        print(f"Cannot check mm_move: {exc}", file=stdout)
        run.cannot_check()
    except KeyboardInterrupt:
        run.progress.clear()
        print("\nStopped (Ctrl-C).", file=stdout)
        return console.EXIT_INTERRUPTED
    else:
        if run.failed:
            print(_how_to_reproduce(path), file=stdout)
    return run.finish(args.speed)


class _CheckRun(CheckOutput):
    """One run of ``python -m student check``: the public checks, then speed."""

    def __init__(self, path: Path, timeout: float, stdout: TextIO, cpu: int | None,
                 progress: SpeedProgress) -> None:
        super().__init__(stdout)
        self.path = path
        self.timeout = timeout
        self.progress = progress
        self.calibration: Calibration | None = None
        self.cpu = cpu   # the one CPU of the yardstick and every call, as in the grader
        self.stuck = ""            # the check on which mm_move did not return
        self.speed_said = "not judged"
        self.speed_ok = False
        self.speed_printed = 0     # lines mm_move printed during the speed checks

    def limits(self, cpu: float | None) -> Limits:
        """A call's limits: ``cpu`` seconds of CPU time, and a wall-clock backstop."""
        wall = self.timeout + (4 * cpu if cpu else 0.0)
        return Limits(cpu, wall, self.cpu)

    def calibrate(self, yardstick: Yardstick) -> None:
        self.progress("the grader's yardstick here", step=False)
        try:
            self.calibration = yardstick.calibrate()
        except YardstickError as exc:
            self.progress.clear()
            self.say(f"note: the grader's yardstick could not be timed here ({exc}): the "
                     f"checks run with a {self.timeout:g} s limit, and speed is not judged.")
            return
        self.progress.clear()
        calibration = self.calibration
        self.say(f"{yardstick_sentence(calibration)} A call may take "
                 f"{FACTOR:g} times its time on the hardest position with as many empty "
                 f"squares; on small positions, {calibration.small_limit:.2f} s.")

    def checks(self) -> None:
        """The public checks; stop at the first call that does not return."""
        games_said = imports_said = False
        for index, check in enumerate(CHECKS):
            empties = sum(row.count(EMPTY) for row in check.grid)
            cpu = (self.calibration.stuck_limit(check.dim, check.reverse, empties)
                   if self.calibration else None)
            reply = run_check(check, self.path, self.limits(cpu))
            if reply.import_calls and not games_said:
                self.say(paused_note(reply.import_calls))
                games_said = True
            if reply.import_printed_lines and not imports_said:   # the same at every import
                self.show_printed("note: your file", reply.import_printed,
                                  reply.import_printed_lines, " when it was imported", "")
                imports_said = True
            verdict = judge(check, reply)
            self.tally(check.name, verdict, _failure)
            if reply.printed_lines:
                self.show_printed("mm_move", reply.printed, reply.printed_lines)
            if verdict.passed:
                continue
            if reply.kind == TIMEOUT:   # stuck: the others would most likely be too
                self.stuck = check.name
                rest = len(CHECKS) - index - 1
                others = f"the {rest} other checks and " if rest else ""
                self.say(f"  not run: {others}the speed checks, because mm_move did not "
                         f"return on \"{check.name}\": fix that first")
                return

    def cannot_check(self) -> None:
        """The file cannot be checked at all: every check fails, speed is not judged."""
        self.failed = len(CHECKS) - self.passed
        self.speed_said = "not judged"

    def speed_wanted(self) -> bool:
        if self.stuck:
            self.speed_said = "not judged (mm_move did not return on a check)"
            return False
        return self.calibration is not None

    def speed(self, yardstick: Yardstick) -> None:
        calibration = self.calibration
        assert calibration is not None

        def ask(tier: Tier, cpu: float) -> Reply:
            reply = call_mm_move(self.path, tier.dim, tier.reverse, tier.grid, tier.player,
                                 self.limits(cpu))
            self.speed_printed += reply.printed_lines
            return reply

        self.say(f"Speed, as the grader judges it: {len(TIERS)} positions, the hardest of "
                 "each size, mode and number of empty squares that decides a limit.")
        try:
            results = judge_speed(ask, yardstick, calibration, progress=self.progress)
        except YardstickError as exc:
            self.progress.clear()
            self.say(f"  not judged: {exc}")
            return
        self.progress.clear()
        for line in summary(results):
            self.say(f"  {line}")
        if self.speed_printed:
            self.say(f"  mm_move printed {self.speed_printed:,} lines during the speed checks "
                     "(not shown); printing takes time, and the grader times it too")
        statuses = {measured.status for measured in results}
        if STUCK in statuses:
            self.speed_said = "not judged (mm_move did not return on a position)"
        elif TOO_SLOW in statuses:
            self.speed_said = "too slow for the grader"
        elif statuses == {NO_ANSWER}:
            self.speed_said = "not judged (mm_move gave no answer)"
        elif NO_ANSWER in statuses:
            self.speed_said = "within the grader's limits where mm_move answered"
        else:
            self.speed_said = "within the grader's limits"
            self.speed_ok = True

    def finish(self, speed: bool) -> int:
        for note in self.notes:
            self.say(f"note: {note} (the grader accepts it too, and says so)")
        not_run = len(CHECKS) - self.passed - self.failed
        tally = f"{self.passed} passed, {len(CHECKS) - self.passed - not_run} failed"
        if not_run:
            tally += f", {not_run} not run"
        if speed:
            tally += f"; speed: {self.speed_said}"
        self.say(tally)
        return 0 if self.passed == len(CHECKS) and (self.speed_ok or not speed) else 1


def _failure(verdict: Verdict, repeated: bool = False) -> str:
    """A failed check: the call to paste, expected and received, why, and the board.

    ``repeated``: the details (a traceback, usually) were already shown for an earlier check.
    """
    check = verdict.check
    pad = "        "
    lines = [f"  FAIL  {check.name}",
             pad + check.call(),
             f"{pad}expected: {check.expected()}",
             f"{pad}received: {verdict.received or '(no answer)'}",
             f"{pad}problem:  {verdict.problem}"]
    if verdict.details and repeated:
        lines.append(f"{pad}(the same details as above)")
    elif verdict.details:
        lines += [pad + line for line in verdict.details.splitlines()]
    lines.append(f"{pad}why: {verdict.why or check.why}")
    mode = ", reverse game" if check.reverse else ""
    lines.append(f"{pad}the board ({NAMES[check.player]} to move{mode}):")
    lines += [pad + "  " + line for line in console.draw_board(check.board()).splitlines()]
    return "\n".join(lines)


def _how_to_reproduce(path: Path) -> str:
    if path == TEMPLATE:
        imports = "from provided import *; from student.mm_player import mm_move"
    else:
        imports = f"from provided import *; from {path.stem} import mm_move"
        imports += f"   (in Python started in {path.parent})"
    return f"To reproduce a failure, paste its call into Python after: {imports}"


def _shown_path(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    raise SystemExit(main())
