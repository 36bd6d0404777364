"""What ``python -m student check`` prints besides the verdicts, for either assignment:
what the student's code printed (labelled, capped) and the games it starts when imported.

>>> import io
>>> output = CheckOutput(io.StringIO())
>>> output.show_printed("mc_move", ["hello"], 1)
>>> print(output.stdout.getvalue(), end="")
        mc_move printed 1 line:
        | hello
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, TextIO

PRINTED_PER_CALL = 5   # lines of what a function printed shown under a check
PRINTED_IN_ALL = 30    # and in the whole run: after that, only how many lines
PAD = "        "      # under a check's line


class CheckOutput:
    """Writes a check run's lines on ``stdout``, and keeps count of the printed lines shown."""

    def __init__(self, stdout: TextIO) -> None:
        self.stdout = stdout
        self.printed_shown = 0     # lines of printed output shown so far
        self.passed = 0
        self.failed = 0
        self.notes: dict[str, None] = {}   # an ordered set: each said once, at the end
        self.shown_details: set[str] = set()   # a failure's details, each shown once

    def say(self, text: str) -> None:
        print(text, file=self.stdout)

    def tally(self, name: str, verdict: Any, failure: Callable[..., str]) -> None:
        """Count one check's verdict and say it: "ok" and the check's ``name``, or
        ``failure(verdict, repeated=...)``, ``repeated`` when its details (a traceback,
        usually) were shown for an earlier check. Its notes are kept for the end."""
        self.notes.update(dict.fromkeys(verdict.notes))
        if verdict.passed:
            self.passed += 1
            self.say(f"  ok    {name}")
        else:
            self.failed += 1
            self.say(failure(verdict, repeated=verdict.details in self.shown_details))
            self.shown_details.add(verdict.details)

    def show_printed(self, who: str, lines: Sequence[str], count: int, when: str = "",
                     indent: str = PAD) -> None:
        """Show the first of ``lines`` (``count`` in all) that ``who`` printed, labelled,
        while the run has room for them; else say plainly how many lines were hidden."""
        heading = f"{indent}{who} printed {count} {'line' if count == 1 else 'lines'}{when}"
        room = min(PRINTED_PER_CALL, PRINTED_IN_ALL - self.printed_shown)
        if room <= 0:
            self.say(f"{heading} (not shown: a check shows the first {PRINTED_IN_ALL} "
                     "printed lines of its run)")
            return
        shown = lines[:room]
        self.say(f"{heading}:")
        self.say("\n".join(f"{PAD}| {line}" for line in shown))
        if count > len(shown):
            self.say(f"{PAD}| ... and {count - len(shown)} more (not shown)")
        self.printed_shown += len(shown)


def paused_note(calls: Sequence[str], file_name: str = "mm_player.py") -> str:
    """What to say about games a file plays when imported (they were not played)."""
    names = " and ".join(f"{name}(...)" for name in dict.fromkeys(calls))
    return (f"note: your file calls {names} when it is imported; the checks skip that call, "
            f"and so does the grader (running the file itself, python {file_name}, still "
            "plays).")
