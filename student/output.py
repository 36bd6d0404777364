"""What ``python -m student check`` prints besides the verdicts: what the student's code
printed (labelled, capped), the games it starts when imported, and (``duel`` too) what is
being done now.

>>> import io
>>> output = CheckOutput(io.StringIO())
>>> output.show_printed("your code", ["hello"], 1)
>>> print(output.stdout.getvalue(), end="")
        your code printed 1 line:
        | hello
"""

from __future__ import annotations

from typing import Sequence, TextIO

PRINTED_PER_CALL = 5   # lines of what a check's calls printed shown under it
PRINTED_IN_ALL = 30    # and in the whole run: after that, only how many lines
PAD = "        "      # under a check's line


class CheckOutput:
    """Writes a check run's lines on ``stdout``, and keeps count of what it said."""

    def __init__(self, stdout: TextIO) -> None:
        self.stdout = stdout
        self.printed_shown = 0     # lines of printed output shown so far
        self.passed = 0
        self.failed = 0
        self.notes: dict[str, None] = {}   # an ordered set: each said once, at the end
        self.shown_details: set[str] = set()   # a failure's details, each shown once

    def say(self, text: str) -> None:
        print(text, file=self.stdout, flush=True)

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
    """What to say about games a file plays when imported (they were not played).

    >>> paused_note(["run_gui"])[:54]
    'note: your file calls run_gui(...) when it is imported'
    """
    names = " and ".join(f"{name}(...)" for name in dict.fromkeys(calls))
    return (f"note: your file calls {names} when it is imported; the checks skip that call, "
            f"and so does the grader (running the file itself, python {file_name}, still "
            "plays).")


class Progress:
    """What a command is doing now, on ``stream`` (stderr): its results stay on stdout.

    In a terminal, one line rewritten in place and cleared when the work is done; else (a
    log, CI, a test) a line per step, prefixed with the command's name (a text that is no
    step, ``step=False``, is for a terminal only).

    >>> import io
    >>> log = io.StringIO()
    >>> progress = Progress(log)
    >>> progress("timing the speed of mm_player.py")
    >>> progress("still timing", step=False)
    >>> progress.clear()
    >>> log.getvalue()
    'check: timing the speed of mm_player.py\\n'
    """

    def __init__(self, stream: TextIO, prefix: str = "check") -> None:
        self.stream = stream
        self.prefix = prefix
        try:
            self.live = stream.isatty()
        except (AttributeError, ValueError):   # a closed or unusual stream: plain lines
            self.live = False
        self.shown = False   # a line in place is on the terminal now

    def __call__(self, text: str, step: bool = True) -> None:
        if self.live:
            # \r then "erase to the end of the line": the shorter line leaves nothing behind.
            self.stream.write(f"\r\x1b[K  {text} ...")
            self.shown = True
        elif step:
            self.stream.write(f"{self.prefix}: {text}\n")
        else:
            return
        self.stream.flush()

    def clear(self) -> None:
        """Erase the line in place, before the results are printed."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
