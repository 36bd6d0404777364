"""``python -m student check`` on a Monte Carlo file: run ``student.mc_checks`` and print.

Each check's line says ok or FAIL; a failure shows lines to paste into Python, what was
expected and received, the problem, why, and the board. A function that still raises
NotImplementedError (the unfilled template) is named once, its checks not run. The exit
status is 0 when every check passed, else 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from provided import console
from provided.board import STRMAP
from student.checks import TIMEOUT, LoadError, Limits, NotWrittenError
from student.mc_checks import (CPU_LIMIT, FUNCTIONS, MC_CHECKS, McVerdict, constants_of,
                               judge_mc, run_mc_check)
from student.output import PAD, CheckOutput, paused_note
from student.runner import LoadFailure, read_and_compile

def check_montecarlo(path: Path, timeout: float, stdout: TextIO, shown: str) -> int:
    """Run every Monte Carlo check on ``path`` (``shown``: its name for the student); print
    the verdicts on ``stdout``; return the exit status."""
    run = _McRun(path, shown, timeout, stdout)
    run.say(f"Checking the Monte Carlo player in {shown} (the montecarlo assignment): "
            f"{len(MC_CHECKS)} checks of {', '.join(FUNCTIONS)}.")
    try:   # once, before any check: a file the grader cannot run gets one message
        read_and_compile(path)
    except LoadFailure as exc:
        run.say(f"Cannot check the Monte Carlo player: {exc}")
        return run.finish()
    run.say("Before each call, random is seeded with the check's own number "
            "(random.seed(N), shown in the lines to paste), so every run of the checks gives "
            "the same verdicts.")
    try:
        run.checks()
    except KeyboardInterrupt:
        run.say("\nStopped (Ctrl-C).")
        return console.EXIT_INTERRUPTED
    return run.finish()


class _McRun(CheckOutput):
    """One run of the Monte Carlo checks."""

    def __init__(self, path: Path, shown: str, timeout: float, stdout: TextIO) -> None:
        super().__init__(stdout)
        self.path = path
        self.shown = shown
        self.limits = Limits(CPU_LIMIT, timeout + 4 * CPU_LIMIT)
        self.passed = self.failed = 0
        self.not_written: dict[str, str] = {}   # function: its NotImplementedError's message
        self.notes: dict[str, None] = {}        # an ordered set: each said once, at the end

    def checks(self) -> None:
        games_said = imports_said = constants_said = False
        shown_details: set[str] = set()
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
            self.notes.update(dict.fromkeys(verdict.notes))
            if verdict.passed:
                self.passed += 1
                self.say(f"  ok    {check.name}")
            else:
                self.failed += 1
                self.say(_failure(verdict, repeated=verdict.details in shown_details))
                shown_details.add(verdict.details)
            if reply.printed_lines:
                self.show_printed(check.function, reply.printed, reply.printed_lines)
            if not verdict.passed and reply.kind == TIMEOUT:
                rest = len(MC_CHECKS) - index - 1
                if rest:
                    self.say(f"  not run: the {rest} other checks, because {check.function} "
                             f"did not return on \"{check.name}\": fix that first")
                return

    def finish(self) -> int:
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
        self.say(tally)
        return 0 if self.passed == len(MC_CHECKS) else 1


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
