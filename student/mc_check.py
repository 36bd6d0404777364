"""``python -m student check`` on a Monte Carlo file: run ``student.mc_checks`` and print.

Each check's line says ok or FAIL; a failure shows lines to paste into Python, what was
expected and received, the problem, why, and the board. A function that still raises
NotImplementedError (the unfilled template) is named once, its checks not run. Then (unless
``--no-speed``) mc_move's time as the grader judges it (``student.mc_speed``). The exit
status is 0 when every check passed and mc_move is within the grader's time limits (or speed
was not asked), else 1.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from provided import console
from provided.board import STRMAP
from provided.montecarlo import limit_rule
from student.checks import TIMEOUT, LoadError, Limits, NotWrittenError, Reply
from student.mc_checks import (CPU_LIMIT, FUNCTIONS, MC_CHECKS, McVerdict, constants_of,
                               judge_mc, run_mc_check)
from student.mc_speed import (WITHIN, SpeedCall, ask_in_child, summary, time_mc_move,
                              verdict)
from student.output import PAD, CheckOutput, paused_note
from student.runner import LoadFailure, read_and_compile
from student.speed import SpeedProgress, Yardstick, YardstickError, yardstick_sentence
from student.yardstick import pick_cpu


def check_montecarlo(path: Path, timeout: float, stdout: TextIO, shown: str,
                     speed: bool = True, stderr: TextIO | None = None) -> int:
    """Run every Monte Carlo check on ``path`` (``shown``: its name for the student), then
    (``speed``) time mc_move as the grader would; print the verdicts on ``stdout`` (what is
    being timed on ``stderr``, None: sys.stderr); return the exit status."""
    run = _McRun(path, shown, timeout, stdout)
    then = ", then mc_move's speed as the grader judges it" if speed else ""
    run.say(f"Checking the Monte Carlo player in {shown} (the montecarlo assignment): "
            f"{len(MC_CHECKS)} checks of {', '.join(FUNCTIONS)}{then}.")
    try:   # once, before any check: a file the grader cannot run gets one message
        read_and_compile(path)
    except LoadFailure as exc:
        run.say(f"Cannot check the Monte Carlo player: {exc}")
        return run.finish(speed)
    run.say("Before each call, random is seeded with the check's own number "
            "(random.seed(N), shown in the lines to paste), so every run of the checks gives "
            "the same verdicts.")
    progress = SpeedProgress(sys.stderr if stderr is None else stderr)
    try:
        run.checks()
        if speed and run.speed_wanted():
            run.speed(progress)
    except KeyboardInterrupt:
        progress.clear()
        run.say("\nStopped (Ctrl-C).")
        return console.EXIT_INTERRUPTED
    return run.finish(speed)


class _McRun(CheckOutput):
    """One run of the Monte Carlo checks."""

    def __init__(self, path: Path, shown: str, timeout: float, stdout: TextIO) -> None:
        super().__init__(stdout)
        self.path = path
        self.shown = shown
        self.timeout = timeout
        self.limits = Limits(CPU_LIMIT, timeout + 4 * CPU_LIMIT)
        self.stopped = ""      # why the checks stopped before the end (then no speed)
        self.speed_said = "not judged"
        self.speed_ok = False
        self.not_written: dict[str, str] = {}   # function: its NotImplementedError's message

    def checks(self) -> None:
        games_said = imports_said = constants_said = False
        for index, check in enumerate(MC_CHECKS):
            if check.function in self.not_written:
                continue
            try:
                reply = run_mc_check(check, self.path, self.limits)
            except NotWrittenError as exc:
                self.not_written[check.function] = str(exc)
                continue
            except LoadError as exc:
                self.say(f"Cannot check the Monte Carlo player: {exc}")
                self.stopped = "the file could not be loaded"
                return
            if reply.import_calls and not games_said:
                self.say(paused_note(reply.import_calls, "mc_player.py"))
                games_said = True
            if reply.import_printed_lines and not imports_said:
                self.show_printed("note: your file", reply.import_printed,
                                  reply.import_printed_lines, " when it was imported", "")
                imports_said = True
            constants = constants_of(reply)
            if constants and not constants_said:
                self.say("Your constants: " + ", ".join(
                    f"{name} = {value if value is not None else '(not defined)'}"
                    for name, value in constants.items()) + ".")
                constants_said = True
            verdict = judge_mc(check, reply)
            self.tally(check.name, verdict, _failure)
            if reply.printed_lines:
                self.show_printed(check.function, reply.printed, reply.printed_lines)
            if not verdict.passed and reply.kind == TIMEOUT:
                self._stop(check.name, check.function, len(MC_CHECKS) - index - 1,
                           slow=check.function == "mc_move" and not reply.waited)
                return

    def _stop(self, name: str, function: str, rest: int, slow: bool) -> None:
        """The checks stop at a call that did not return. An mc_move that computed until
        its limit may be only slow (its trials add up): the speed part, still run, says
        whether the grader would stop it too."""
        if slow:
            stopped = f"mc_move did not return on \"{name}\""
            first = f"not run: the {rest} other checks, because {stopped}" if rest else stopped
            self.say(f"  {first}; the speed part below says whether it is only slow")
            return
        others = f"the {rest} other checks and " if rest else ""
        self.say(f"  not run: {others}the speed checks, because {function} did not return "
                 f"on \"{name}\": fix that first")
        self.stopped = f"{function} did not return on a check"

    def speed_wanted(self) -> bool:
        """Whether mc_move can be timed: it is written and no call was stuck."""
        if self.stopped:
            self.speed_said = f"not judged ({self.stopped})"
        elif "mc_move" in self.not_written:
            self.speed_said = "not judged (mc_move is not written yet)"
        return not self.speed_said.startswith("not judged (")

    def speed(self, progress: SpeedProgress) -> None:
        """Time the grader's yardstick here, then mc_move on the boards of
        ``student.mc_speed.SPEED_CALLS``, each with the grader's limit here."""
        cpu = pick_cpu()   # the one CPU of the yardstick and the calls, as in the grader
        progress("the grader's yardstick here", step=False)
        try:
            with Yardstick(cpu) as yardstick:
                calibration = yardstick.calibrate()
        except YardstickError as exc:
            progress.clear()
            self.say(f"note: the grader's yardstick could not be timed here ({exc}): speed "
                     "is not judged.")
            return
        progress.clear()
        self.say(f"Speed of mc_move, as the grader judges it. {yardstick_sentence(calibration)}"
                 f" Its limits: {limit_rule()}")
        ask = ask_in_child(self.path, self.timeout, cpu)
        printed = 0

        def counted(call: SpeedCall, cpu_limit: float) -> Reply:   # printed lines counted
            nonlocal printed
            reply = ask(call, cpu_limit)
            printed += reply.printed_lines
            return reply

        results = time_mc_move(counted, calibration, progress)
        progress.clear()
        for line in summary(results):
            self.say(f"  {line}")
        if printed:
            self.say(f"  mc_move printed {printed:,} lines during the speed checks (not "
                     "shown); printing takes time, and the grader times it too")
        self.speed_said = verdict(results)
        self.speed_ok = all(timed.status == WITHIN for timed in results)

    def finish(self, speed: bool = True) -> int:
        if self.not_written:
            self.say(_not_written_lines(self.not_written, self.shown))
        if self.failed:
            self.say(_how_to_reproduce(self.path))
        for note in self.notes:
            self.say(f"note: {note}")
        not_run = len(MC_CHECKS) - self.passed - self.failed
        tally = f"{self.passed} passed, {self.failed} failed"
        if not_run:
            tally += f", {not_run} not run"
        if speed:
            tally += f"; speed: {self.speed_said}"
        self.say(tally)
        return 0 if self.passed == len(MC_CHECKS) and (self.speed_ok or not speed) else 1


def _not_written_lines(not_written: dict[str, str], shown: str) -> str:
    """Which functions to fill in; a message of its own where one says more (mc_move
    raising the NotImplementedError of an mc_trial not written yet)."""
    names = ", ".join(not_written)
    lines = [f"Not written yet (they raise NotImplementedError): {names}. Fill in their "
             f"bodies in {shown}, then run `python -m student check {shown}` again."]
    for name, message in not_written.items():
        if not message.startswith(f"{name} is not written yet"):
            lines.append(f"  {name}: raised NotImplementedError: {message}")
    return "\n".join(lines)


def _failure(verdict: McVerdict, repeated: bool = False) -> str:
    """A failed check: the lines to paste, expected and received, why, and the board."""
    check = verdict.check
    lines = [f"  FAIL  {check.name}",
             PAD + check.call()]
    if verdict.expected:
        lines.append(f"{PAD}expected: {verdict.expected}")
    lines += [f"{PAD}received: {verdict.received or '(no answer)'}",
              f"{PAD}problem:  {verdict.problem}"]
    if verdict.details and repeated:
        lines.append(f"{PAD}(the same details as above)")
    elif verdict.details:
        lines += [PAD + line for line in verdict.details.splitlines()]
    lines.append(f"{PAD}why: {verdict.why or check.why}")
    mode = ", reverse game" if check.reverse else ""
    if check.function == "mc_update_scores":
        who = f" ({STRMAP[check.player]} is the machine player{mode})"
    elif check.player:
        who = f" ({STRMAP[check.player]} to move{mode})"
    else:
        who = f" ({mode[2:]})" if mode else ""
    lines.append(f"{PAD}the board{who}:")
    lines += [PAD + "  " + line for line in console.draw_board(check.board()).splitlines()]
    return "\n".join(lines)


def _how_to_reproduce(path: Path) -> str:
    return (f"To reproduce a failure, paste its line into Python started in {path.parent} "
            f"after: from {path.stem} import *; from provided import *; import random")
