"""``python -m student``: play against your mm_move, or run the public checks.

    python -m student                    play in the terminal: you are X, your mm_move is O
    python -m student -x student.mm_player:move_wrapper -o human    your player starts
    python -m student gui                the same game in a window (the course's run_gui)
    python -m student check              the public checks on student/mm_player.py
    python -m student check ~/hw/mm_player.py
    python -m student check --no-speed   the public checks only, not the speed checks
    python -m student check student/mc_player.py    the Monte Carlo player's checks
    python -m student duel               your minimax against your Monte Carlo player
    python -m student submit             hand it in to the course's page (student/submit.py)

Play takes the same options as ``python -m provided`` (``python -m student --help``);
``check`` is ``student.check`` (the grader's public checks), ``duel`` ``student.duel``.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Sequence

from provided import console
from student.players import MC_PLAYER, STUDENT_PLAYER, not_written_message, ntrials_of

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
            from student.check import check_main   # the grader's public checks
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


if __name__ == "__main__":
    raise SystemExit(main())
