"""``python -m student``: play against your mm_move, or run the public checks.

    python -m student                    play in the terminal: you are X, your mm_move is O
    python -m student -x student.mm_player:move_wrapper -o human    your player starts
    python -m student gui                the same game in a window (the course's run_gui)
    python -m student check              the public checks on student/mm_player.py
    python -m student check --file ~/hw/mm_player.py --timeout 20
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
from provided.board import NAMES, PLAYERX, TTTBoard
from student.checks import CHECKS, NotWrittenError, SubmissionError, Verdict, judge, run_check

TEMPLATE = Path(__file__).resolve().with_name("mm_player.py")
STUDENT_PLAYER = "student.mm_player:move_wrapper"

PLAY = console.ConsoleConfig(
    prog="python -m student",
    playerx=console.HUMAN,
    playero=STUDENT_PLAYER,
    names={STUDENT_PLAYER: "your mm_move"},
    examples=(
        "  %(prog)s                 you (X) against your mm_move (O)\n"
        f"  %(prog)s -x {STUDENT_PLAYER} -o human\n"
        "                                    your mm_move moves first\n"
        f"  %(prog)s -x random -o {STUDENT_PLAYER}\n"
        "                                    a random player against your mm_move\n"
        "  %(prog)s --reverse       the reverse game\n"
        "  %(prog)s gui             the same, in a window (see: %(prog)s gui --help)\n"
        "  %(prog)s check           the public checks (see: %(prog)s check --help)\n"),
    description=(
        "Play Tic-Tac-Toe in the terminal against your own mm_move (student/mm_player.py).\n"
        "To run the public checks instead: python -m student check "
        "(see python -m student check --help)."),
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
    if STUDENT_PLAYER in (args.playerx, args.playero):
        message = _not_written_message()
        if message:
            print(message, file=sys.stderr)
            return 1
    if window:
        return gui_main(argv, config)
    return console.main(argv, config)


def _not_written_message() -> str | None:
    """Say what to do if student.mm_player is still the unfilled template, before a game starts."""
    try:  # as the console imports it: course imports work, games started at import are skipped
        mm_move = console.load_move_function("student.mm_player:mm_move")
    except console.PlayerSpecError:  # the console reports import problems itself
        return None
    finished = TTTBoard(1, False, [[PLAYERX]])  # a finished board: any mm_move answers at once
    try:
        mm_move(finished, PLAYERX)
    except NotImplementedError as exc:
        return f"Your player is not ready: {exc}"
    except Exception:  # other bugs show up in the game, with their traceback
        return None
    return None


def check_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m student check",
        description=(
            "Run the public checks: a dozen positions, each asked of your mm_move in a\n"
            "separate process with a time limit. Any optimal move is accepted. Each\n"
            "failure shows a call you can paste into Python to reproduce it.\n\n"
            "examples:\n"
            "  %(prog)s\n"
            "  %(prog)s --file ~/hw/mm_player.py --timeout 30"),
        epilog=(
            "exit status: 0 all checks passed; 1 some failed, or mm_move could not be\n"
            "checked; 2 bad options. The grader asks many more positions: passing these\n"
            "does not guarantee full marks."),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=TEMPLATE, metavar="PATH",
                        help="the file that defines mm_move (default: student/mm_player.py)")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                        help="time limit of each check, in seconds (default: 10)")
    return parser


def check_main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None) -> int:
    """Run every public check on ``--file`` and print the verdicts; return the exit status."""
    stdout = sys.stdout if stdout is None else stdout
    parser = check_parser()
    args = parser.parse_args(argv)
    path = args.file.expanduser().resolve()
    if not path.is_file():
        parser.error(f"argument --file: there is no file {args.file}")
    if args.timeout <= 0:
        parser.error("argument --timeout: must be more than 0 seconds")
    shown = _shown_path(path)
    print(f"Checking mm_move in {shown}: {len(CHECKS)} checks, {args.timeout:g} s each.",
          file=stdout)
    passed = 0
    shown_details: set[str] = set()
    notes: dict[str, None] = {}   # an ordered set: each said once, at the end
    games_said = False
    try:
        for check in CHECKS:
            reply = run_check(check, path, args.timeout)
            if reply.import_calls and not games_said:
                print(_paused_note(reply.import_calls), file=stdout)
                games_said = True
            verdict = judge(check, reply)
            notes.update(dict.fromkeys(verdict.notes))
            if verdict.passed:
                passed += 1
                print(f"  ok    {check.name}", file=stdout)
            else:
                print(_failure(verdict, repeated=verdict.details in shown_details), file=stdout)
                shown_details.add(verdict.details)
    except NotWrittenError:
        # One line for the whole run: the template fails every check the same way.
        print(f"mm_move in {shown} is not written yet (it raises NotImplementedError): "
              "fill in its body, then run `python -m student check` again.", file=stdout)
    except SubmissionError as exc:
        print(f"Cannot check mm_move: {exc}", file=stdout)
    except KeyboardInterrupt:
        print("\nStopped (Ctrl-C).", file=stdout)
        return console.EXIT_INTERRUPTED
    else:
        if passed < len(CHECKS):
            print(_how_to_reproduce(path), file=stdout)
    for note in notes:
        print(f"note: {note} (the grader accepts it too, and says so)", file=stdout)
    failed = len(CHECKS) - passed
    print(f"{passed} passed, {failed} failed", file=stdout)
    return 0 if failed == 0 else 1


def _paused_note(calls: Sequence[str]) -> str:
    """What to say about games a file plays when imported (they were not played)."""
    names = " and ".join(f"{name}(...)" for name in dict.fromkeys(calls))
    return (f"note: your file calls {names} when it is imported; the checks skip that call, "
            "and so does the grader (running the file itself, python mm_player.py, still "
            "plays).")


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
    lines.append(f"{pad}why: {check.why}")
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
