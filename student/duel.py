"""``python -m student duel``: two players, many games, both sides: who plays better?

    python -m student duel                      your minimax against your Monte Carlo player
    python -m student duel -b random --games 40 your minimax against a random player
    python -m student duel -a perfect --trials 500 --reverse

Players are named as the console names them (``student.mm_player:move_wrapper``,
``student.mc_player:mc_move``, ``perfect``, ``random``, ``FILE.py:FUNCTION``). The games
alternate who plays X. ``random`` is seeded before each game (``--seed``, default 1, plus
the game's number), so the same command plays the same games. The students' own code runs
in this process, as in console play: it is their code, on their machine.

>>> tally = Tally()
>>> tally.add(PLAYERX, PLAYERX); tally.add(PLAYERX, DRAW); tally.add(PLAYERO, PLAYERX)
>>> tally.as_x, tally.as_o
([1, 1, 0], [0, 0, 1])
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence, TextIO

from provided import console
from provided.board import DRAW, PLAYERO, PLAYERX, TTTBoard
from provided.game import IllegalMoveError
from student.output import Progress
from student.players import MC_PLAYER, STUDENT_PLAYER, not_written_message, ntrials_of

DEFAULT_GAMES = 20
DEFAULT_SEED = 1
DEFAULT_TRIALS = 100   # when the Monte Carlo file has no NTRIALS worth playing with
NAMES = {STUDENT_PLAYER: "your minimax", MC_PLAYER: "your Monte Carlo"}

SLOW_SIZE = 4   # from this size a plain minimax takes minutes a move, or far more
SLOW_NOTE = ("note: on a {size}x{size} board a plain minimax searches millions of positions "
             "for each of its first moves: minutes a move, or far more. Each game is said as it "
             "starts (stderr); Ctrl-C stops the duel and prints the games played. A quicker "
             "duel: --size 3, or -a perfect.")
THINK_ABOUT = (
    "To think about (the course's question): in which situations does Minimax or Monte "
    "Carlo make the better player? Try more or fewer --trials, --size 4 (where a plain "
    "minimax is too slow), --reverse, or -b random / -b perfect.")


@dataclass
class Tally:
    """One player's results: [wins, draws, losses] as X and as O, and its time to move."""

    as_x: list[int] = field(default_factory=lambda: [0, 0, 0])
    as_o: list[int] = field(default_factory=lambda: [0, 0, 0])
    seconds: float = 0.0
    moves: int = 0

    def add(self, side: int, winner: int) -> None:
        """Count one game that ``side`` played and ``winner`` won (or DRAW)."""
        column = 1 if winner == DRAW else (0 if winner == side else 2)
        (self.as_x if side == PLAYERX else self.as_o)[column] += 1

    def total(self) -> list[int]:
        return [x + o for x, o in zip(self.as_x, self.as_o)]


def duel_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m student duel",
        description="Play two players against each other for many games, each playing X in "
                    "half of them, and print their wins, draws and losses and their time per "
                    "move.",
        epilog=console.players_help("(not in a duel)") + "\n" + THINK_ABOUT,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-a", default=STUDENT_PLAYER, metavar="PLAYER",
                        help=f"the first player (default: {STUDENT_PLAYER})")
    parser.add_argument("-b", default=MC_PLAYER, metavar="PLAYER",
                        help=f"the second player (default: {MC_PLAYER})")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, metavar="N",
                        help=f"how many games in all (default: {DEFAULT_GAMES})")
    parser.add_argument("-n", "--size", type=int, default=3, metavar="N",
                        help="side of the board (default: 3)")
    parser.add_argument("--reverse", action="store_true",
                        help="the reverse game: whoever completes a line loses")
    parser.add_argument("--trials", type=int, default=None, metavar="N",
                        help="the trials passed to the players (default: the NTRIALS of "
                             f"your mc_player.py, or {DEFAULT_TRIALS} if it is 1 or less)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="N",
                        help=f"random's seed: the same seed plays the same games "
                             f"(default: {DEFAULT_SEED})")
    return parser


def duel_main(argv: Sequence[str] | None = None, stdout: TextIO | None = None,
              stderr: TextIO | None = None) -> int:
    """Parse the options, play the games, print the table; return the exit status (0 the
    games were played, 1 a player failed or is not written, 2 bad options). Which game is
    played (and, in a terminal, which move) is said on ``stderr`` as it goes."""
    stdout = sys.stdout if stdout is None else stdout
    progress = Progress(sys.stderr if stderr is None else stderr, "duel")
    parser = duel_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    if args.games < 1 or args.size < 1 or (args.trials is not None and args.trials < 0):
        parser.print_usage(sys.stderr)
        print("python -m student duel: error: --games and --size must be at least 1, "
              "--trials at least 0", file=sys.stderr)
        return 2
    if console.HUMAN in (args.a, args.b):
        print("python -m student duel: error: a duel is between two machine players; "
              "play a person with python -m student", file=sys.stderr)
        return 2
    trials = args.trials if args.trials is not None else _default_trials(args.a, args.b)
    console.find_modules_here()
    rng = random.Random(args.seed)   # the console's random player
    players = {}
    for key, spec in (("a", args.a), ("b", args.b)):
        message = not_written_message(spec)
        if message:
            print(message, file=sys.stderr)
            return 1
        try:
            players[key] = console.make_player(spec, rng, NAMES.get(spec))
        except console.PlayerSpecError as exc:
            print(f"python -m student duel: error: argument -{key}: {exc}", file=sys.stderr)
            return 2
    mode = ", reverse game" if args.reverse else ""
    print(f"Duel on {args.size}x{args.size}{mode}: A = {_label(args.a)}, B = {_label(args.b)}; "
          f"{args.games} games, A plays X in the odd ones; {trials} trials; seed {args.seed}.",
          file=stdout)
    if args.size >= SLOW_SIZE and any(_minimax(spec) for spec in (args.a, args.b)):
        print(SLOW_NOTE.format(size=args.size), file=progress.stream)
    tallies = {"a": Tally(), "b": Tally()}
    for game in range(args.games):
        sides = ("a", "b") if game % 2 == 0 else ("b", "a")
        random.seed(args.seed * 1_000_003 + game)   # the students' own random
        said = f"game {game + 1} of {args.games} ({sides[0].upper()} plays X)"
        progress(said)
        try:
            winner = _play(TTTBoard(args.size, args.reverse),
                           {PLAYERX: players[sides[0]], PLAYERO: players[sides[1]]},
                           {PLAYERX: tallies[sides[0]], PLAYERO: tallies[sides[1]]}, trials,
                           lambda moves: progress(f"{said}, move {moves + 1}", step=False))
        except (console.MoveFunctionError, IllegalMoveError) as exc:
            progress.clear()
            print(f"Duel stopped in game {game + 1}: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            progress.clear()
            print(f"\nDuel stopped (Ctrl-C) after {game} games.", file=stdout)
            break
        tallies[sides[0]].add(PLAYERX, winner)
        tallies[sides[1]].add(PLAYERO, winner)
    progress.clear()
    for line in table(tallies["a"], tallies["b"]):
        print(line, file=stdout)
    print(THINK_ABOUT, file=stdout)
    return 0


def _minimax(spec: str) -> bool:
    """Whether a player spec is a minimax of the student's (its move_wrapper).

    >>> _minimax(STUDENT_PLAYER), _minimax("~/hw/mm_player.py:move_wrapper"), _minimax("perfect")
    (True, True, False)
    """
    return spec == STUDENT_PLAYER or spec.endswith(":move_wrapper")


def _play(board: TTTBoard, players: dict[int, console.Player], tallies: dict[int, Tally],
          trials: int, moving: Callable[[int], None] = lambda moves: None) -> int:
    """One game, without printing it; each move timed into its player's tally, and
    ``moving(moves so far)`` told before it."""
    played = [0]   # moves of this game so far

    def timed(side: int) -> console.Player:
        player, tally = players[side], tallies[side]

        def move(board: TTTBoard, who: int, trials: int) -> tuple[int, int]:
            moving(played[0])
            played[0] += 1
            start = time.perf_counter()
            try:
                return player.move_function(board, who, trials)  # type: ignore[misc]
            finally:
                tally.seconds += time.perf_counter() - start
                tally.moves += 1
        return console.Player(player.name, move)

    result = console.play(board, {PLAYERX: timed(PLAYERX), PLAYERO: timed(PLAYERO)},
                          trials=trials, stdout=io.StringIO())
    return result.winner


def table(a: Tally, b: Tally) -> list[str]:
    """The results, one line per player.

    >>> print("\\n".join(table(Tally([1, 0, 0], [0, 1, 0], 0.5, 5), Tally([0, 0, 1], [0, 1, 0]))))
    player  wins  draws  losses   as X (w-d-l)   as O (w-d-l)   time per move
    A          1      1       0          1-0-0          0-1-0        100.0 ms
    B          0      1       1          0-0-1          0-1-0               -
    """
    lines = ["player  wins  draws  losses   as X (w-d-l)   as O (w-d-l)   time per move"]
    for name, tally in (("A", a), ("B", b)):
        wins, draws, losses = tally.total()
        per_move = f"{1000 * tally.seconds / tally.moves:.1f} ms" if tally.moves else "-"
        lines.append(f"{name:<6} {wins:>5} {draws:>6} {losses:>7} "
                     f"{'-'.join(map(str, tally.as_x)):>14} "
                     f"{'-'.join(map(str, tally.as_o)):>14} {per_move:>15}")
    return lines


def _default_trials(*specs: str) -> int:
    """The NTRIALS of the first Monte Carlo file among the players, if more than 1."""
    for spec in specs:
        found = ntrials_of(spec)
        if found is not None and found > 1:
            return found
    return DEFAULT_TRIALS


def _label(spec: str) -> str:
    return f"{NAMES[spec]} ({spec})" if spec in NAMES else spec
