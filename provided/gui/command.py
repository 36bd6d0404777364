"""The window's command line: ``python -m provided.gui`` and ``python -m student gui``.

Console play's options (``-n``, ``--reverse``, ``-x``, ``-o``, ``--seed``, ``--trials``);
exactly one side is ``human``, who clicks in the window (:func:`provided.gui.run_gui`).

>>> gui_main(["-x", "human", "-o", "human"])   # a usage error (on stderr): one side clicks
2
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Sequence

from provided.board import PLAYERO, PLAYERX, switch_player
from provided.console import (HUMAN, ConsoleConfig, PlayerSpecError, build_parser,
                              find_modules_here, make_player, players_help)
from provided.gui import GuiUnavailable, _run

EXIT_CLOSED = 0
EXIT_UNAVAILABLE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

_EPILOG = players_help("you click the squares") + """\
Exactly one side is human: you play it in the window, against the other.

examples:
  %(prog)s -o student.mm_player:move_wrapper
      you (X) against a minimax player
  %(prog)s -x student.mm_player:move_wrapper -o human
      the minimax player moves first
  %(prog)s -n 4 --reverse -o random
      a reverse 4x4 game against a random player

exit status: 0 the window was closed; 1 no window can be opened here (the message
says what to install); 2 bad options.
"""


def gui_parser(config: ConsoleConfig = ConsoleConfig()) -> argparse.ArgumentParser:
    """Console play's options (:func:`provided.console.build_parser`), with the window's help.

    >>> "you click the squares" in gui_parser().format_help()
    True
    """
    parser = build_parser(config)
    parser.description = ("Play Tic-Tac-Toe in a window: you click the squares of one side, "
                          "a move function plays the other.")
    parser.epilog = _EPILOG
    return parser


def gui_main(argv: Sequence[str] | None = None, config: ConsoleConfig = ConsoleConfig()) -> int:
    """Parse console play's options, open the window, and return an exit status.

    The options are :func:`provided.console.build_parser`'s (``-n``, ``--reverse``,
    ``-x``, ``-o``, ``--seed``, ``--trials``); exactly one player must be ``human``.
    Returns 0 when the window was closed, 1 when no window can be opened (the reason on
    stderr), 2 for bad options (usage on stderr), 130 on Ctrl-C.
    """
    parser = gui_parser(config)
    try:
        args = parser.parse_args(argv)
        humans = [p for p, spec in ((PLAYERX, args.playerx), (PLAYERO, args.playero))
                  if spec == HUMAN]
        if len(humans) != 1:
            both = "both X and O are" if humans else "neither X nor O is"
            parser.error(f"the window needs one human player (who clicks) and one machine "
                         f"player, but {both} human: set -x or -o (console play takes any "
                         "mix of players)")
        ai_player = switch_player(humans[0])
        spec = args.playerx if ai_player == PLAYERX else args.playero
        find_modules_here()
        rng = random.Random(args.seed)
        try:
            machine = make_player(spec, rng, config.names.get(spec))
        except PlayerSpecError as exc:
            option = "-x/--playerx" if ai_player == PLAYERX else "-o/--playero"
            parser.error(f"argument {option}: {exc}")
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        _run(args.size, ai_player, machine.move_function,  # type: ignore[arg-type]
             args.trials, args.reverse, machine.name)
    except GuiUnavailable as exc:
        print(exc, file=sys.stderr)
        return EXIT_UNAVAILABLE
    except KeyboardInterrupt:
        print("\nstopped: interrupted (Ctrl-C).", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_CLOSED
