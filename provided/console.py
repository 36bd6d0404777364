"""Play Tic-Tac-Toe in a terminal: people, a random player, or any move function.

``python -m provided`` (or ``ttt-play``) runs :func:`main`; ``python -m student``
runs the same code with the student's own player as the default opponent. The
game loop, :func:`play`, takes its input and output streams as arguments, so a
test can script a whole game.

>>> import io
>>> first = Player("first", first_empty)
>>> result = play(TTTBoard(3), {PLAYERX: first, PLAYERO: first}, stdout=io.StringIO())
>>> result.winner == PLAYERX, result.moves[:3]
(True, ((0, 0), (0, 1), (0, 2)))

Exit status of :func:`main`: 0 the game ended (win or tie); 1 the game was
stopped (the input ended, or a move function failed or chose an illegal
square); 2 bad command-line options; 130 interrupted with Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import os
import random
import re
import sys
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping, Sequence, TextIO

from provided.board import EMPTY, PLAYERO, PLAYERX, STRMAP, TTTBoard, switch_player
from provided.game import IllegalMoveError, MoveFunction, check_legal, result_text
from provided import course
from provided.python2 import compile_problem, exception_hint, import_hint
from provided.perfect import TooLargeError, perfect_move

HUMAN = "human"
RANDOM = "random"
PERFECT = "perfect"

EXIT_FINISHED = 0
EXIT_STOPPED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
THINKING_AFTER = 0.5  # seconds a move function may think before the terminal says so

Move = tuple[int, int]


class PlayerSpecError(ValueError):
    """A player named on the command line cannot be used (bad spec, import failed, ...)."""


class EndOfInput(EOFError):
    """The person's input ended (Ctrl-D, or the end of a piped file) before the game did."""


class MoveFunctionError(RuntimeError):
    """A move function raised an exception; the original exception is ``__cause__``."""


@dataclass(frozen=True)
class Player:
    """One side of a game: a person at the terminal, or a move function.

    ``move_function`` is None for a person; otherwise it is called as
    ``move_function(board, player, trials)`` and returns ``(row, col)``.

    >>> Player(HUMAN).is_human, Player("first", first_empty).is_human
    (True, False)
    """

    name: str
    move_function: MoveFunction | None = None

    @property
    def is_human(self) -> bool:
        return self.move_function is None


@dataclass(frozen=True)
class GameResult:
    """How a finished game ended: the winner (PLAYERX, PLAYERO or DRAW), every move, X's first."""

    winner: int
    moves: tuple[Move, ...]
    board: TTTBoard


def players_help(human: str) -> str:
    """The PLAYER part of the help, with what ``human`` means in this front end.

    >>> players_help("you click the squares").splitlines()[1]
    '  human                  you click the squares'
    """
    return _PLAYERS_HELP.replace("{human}", human)


_PLAYERS_HELP = """\
PLAYER is one of:
  human                  {human}
  random                 a random empty square
  perfect                never loses: quickest win, longest loss (boards up to 4x4)
  MODULE:FUNCTION        a move function, called as FUNCTION(board, player, trials) and
  FILE.py:FUNCTION       returning (row, col); e.g. student.mm_player:move_wrapper
"""

_HUMAN_TYPES = "you type the moves: row and column, counted from 0 (e.g. 1 2)"

_EXAMPLES = """\
  %(prog)s                                     you (X) against a random player (O)
  %(prog)s -x random -o human                  the random player moves first
  %(prog)s -o student.mm_player:move_wrapper   you against a minimax player
  %(prog)s -o perfect                          you against a player that never loses
  %(prog)s -o ~/hw/mm_player.py:move_wrapper   the same, from a file anywhere
  %(prog)s -n 4 --reverse -x random -o random --seed 7
"""

_EXIT_HELP = """\
Minimax players are only practical on boards up to 3x3.
End a game with Ctrl-D (end of input) or Ctrl-C.
exit status: 0 the game ended; 1 it was stopped (end of input, or a move function
failed or chose an illegal square); 2 bad options; 130 Ctrl-C.
"""


@dataclass(frozen=True)
class ConsoleConfig:
    """What differs between the front ends that share :func:`main`.

    >>> ConsoleConfig().playero
    'random'
    """

    prog: str | None = None
    playerx: str = HUMAN
    playero: str = RANDOM
    description: str = "Play Tic-Tac-Toe in the terminal."
    examples: str = _EXAMPLES  # for --help; "%(prog)s" stands for the program's name
    # Short names shown instead of long player specs, e.g. "your mm_move".
    names: Mapping[str, str] = field(default_factory=dict)


def first_empty(board: TTTBoard, player: int, trials: int) -> Move:
    """A move function that always takes the first empty square (for tests and examples).

    >>> first_empty(TTTBoard(2, False, [[PLAYERX, EMPTY], [EMPTY, EMPTY]]), PLAYERO, 1)
    (0, 1)
    """
    return board.get_empty_squares()[0]


def random_player(rng: random.Random) -> MoveFunction:
    """A move function that picks a random empty square with ``rng``.

    >>> move = random_player(random.Random(7))
    >>> move(TTTBoard(1), PLAYERX, 1)
    (0, 0)
    """
    def random_move(board: TTTBoard, player: int, trials: int) -> Move:
        return rng.choice(board.get_empty_squares())
    return random_move


def load_move_function(spec: str) -> MoveFunction:
    """Import ``module:function`` or ``path/to/file.py:function`` and return the function.

    >>> load_move_function("provided.game:check_legal").__name__
    'check_legal'
    """
    # rpartition: a Windows path "C:\\x.py:f" has a colon of its own.
    where, colon, name = spec.rpartition(":")
    if not colon or not where or not name:
        raise PlayerSpecError(
            f"{spec!r} is not a player: use human, random, perfect, MODULE:FUNCTION or "
            "path/to/FILE.py:FUNCTION (for example student.mm_player:move_wrapper)")
    module = _import(where)
    function = getattr(module, name, None)
    if function is None:
        offered = sorted(n for n, v in vars(module).items()
                         if callable(v) and not n.startswith("_")
                         and getattr(v, "__module__", None) == module.__name__)
        hint = f" (it has: {', '.join(offered)})" if offered else ""
        raise PlayerSpecError(f"{where!r} has no function {name!r}{hint}")
    if not callable(function):
        raise PlayerSpecError(
            f"{spec!r} is not a function: it is a {type(function).__name__}")
    return function


def _import(where: str) -> object:
    """Import a module by dotted name, or a .py file by path.

    A file written for the course imports poc_ttt_provided, poc_ttt_gui, codeskulptor...
    (:mod:`provided.course` provides them) and may start a game when imported: that game
    is skipped, with a note on stderr, so the game asked for on the command line is played.
    """
    calls: list[str] = []
    try:
        if where.endswith(".py"):
            path = Path(where).expanduser()
            if not path.is_file():
                raise PlayerSpecError(f"there is no file {where!r}")
            course.install(_source(str(path)))
            # A name of its own, so the file cannot shadow an installed module.
            name = f"_ttt_player_{path.stem}"
            loader_spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(loader_spec)  # type: ignore[arg-type]
            sys.modules[name] = module  # dataclasses and pickling look modules up here
            with course.paused_games(calls):
                loader_spec.loader.exec_module(module)  # type: ignore[union-attr]
        else:
            found = importlib.util.find_spec(where) if where not in sys.modules else None
            course.install(_source(found.origin) if found and found.origin else None)
            with course.paused_games(calls):
                module = importlib.import_module(where)
        if calls:
            games = " and ".join(f"{call}(...)" for call in dict.fromkeys(calls))
            print(f"note: {where} calls {games} when it is imported; that game was skipped, "
                  "to play the one asked for here", file=sys.stderr)
        return module
    except PlayerSpecError:
        raise
    except SyntaxError as exc:  # the check's words: a Python 2 line gets its fix
        source = _source(exc.filename) if exc.filename else None
        raise PlayerSpecError(
            f"{where!r} does not compile:\n{compile_problem(exc, source or '')}") from None
    except ModuleNotFoundError as exc:
        if exc.name is not None and (where == exc.name or where.startswith(exc.name + ".")):
            raise PlayerSpecError(
                f"there is no module {where!r} (check the spelling, and run from the folder "
                "that contains it, or give a file: path/to/file.py:function)") from None
        hint = import_hint(f"ModuleNotFoundError: {exc}")
        raise PlayerSpecError(f"importing {where!r} failed: {exc}"
                              + (f"\n-> {hint}" if hint else "")) from None
    except (Exception, SystemExit) as exc:  # the module's own code failed while importing
        raise PlayerSpecError(
            f"importing {where!r} failed: {type(exc).__name__}: {exc}") from None


def _source(path: str) -> str | None:
    """The text of a Python file, or None (the import will say what is wrong with it)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def make_player(spec: str, rng: random.Random, name: str | None = None) -> Player:
    """Turn a command-line player (human, random, perfect, module:function) into a
    :class:`Player`.

    >>> make_player("random", random.Random(1)).name
    'random'
    >>> make_player("perfect", random.Random(1)).move_function(TTTBoard(3), PLAYERX, 1)
    (1, 1)
    """
    if spec == HUMAN:
        return Player(HUMAN)
    if spec == RANDOM:
        return Player(RANDOM, random_player(rng))
    if spec == PERFECT:
        return Player(PERFECT, perfect_move)
    return Player(name or spec, load_move_function(spec))


def draw_board(board: TTTBoard) -> str:
    """The board drawn with its row and column numbers (no final newline).

    >>> print(draw_board(TTTBoard(2, False, [[PLAYERX, EMPTY], [EMPTY, PLAYERO]])))
        0   1
    0   X |
       ---+---
    1     | O
    """
    dim = board.get_dim()
    lines = ["    " + "".join(f"{col:<4}" for col in range(dim))]
    for row in range(dim):
        cells = " | ".join(STRMAP[board.square(row, col)] for col in range(dim))
        lines.append(f"{row:<3} {cells}")
        if row != dim - 1:
            lines.append("   " + "+".join(["---"] * dim))
    return "\n".join(line.rstrip() for line in lines)


# "1 2", "1,2", "(1, 2)", "[1, 2]"
_SQUARE = re.compile(r"[(\[]?\s*([+-]?\d+)\s*(?:,\s*|\s+)([+-]?\d+)\s*[)\]]?")


def parse_square(text: str, board: TTTBoard) -> Move:
    """Read a person's move; raise ValueError with a short message if it cannot be played.

    >>> parse_square("(1, 2)", TTTBoard(3))
    (1, 2)
    >>> parse_square("3 0", TTTBoard(3))
    Traceback (most recent call last):
    ...
    ValueError: (3, 0) is off the board: rows and columns go from 0 to 2
    """
    found = _SQUARE.fullmatch(text.strip())
    if not found:
        shown = text.strip()
        start = f"{shown!r} is not a square: " if shown else ""
        raise ValueError(start + "type a row and a column, for example 1 2")
    row, col = int(found[1]), int(found[2])
    dim = board.get_dim()
    if not (0 <= row < dim and 0 <= col < dim):
        raise ValueError(
            f"({row}, {col}) is off the board: rows and columns go from 0 to {dim - 1}")
    taken = board.square(row, col)
    if taken != EMPTY:
        raise ValueError(f"({row}, {col}) is taken by {STRMAP[taken]}: choose an empty square")
    return row, col


def _ask(board: TTTBoard, player: int, stdin: TextIO, stdout: TextIO) -> Move:
    """Prompt until the person types a square they may play; raise EndOfInput at the end."""
    # With piped input nothing echoes the typed line; write it so the transcript reads well.
    echo = not stdin.isatty()
    while True:
        stdout.write(f"{STRMAP[player]}, your move (row col): ")
        stdout.flush()
        line = stdin.readline()
        if not line:
            stdout.write("\n")
            raise EndOfInput(f"the input ended before the game did ({STRMAP[player]} to move)")
        if echo:
            stdout.write(line if line.endswith("\n") else line + "\n")
        try:
            return parse_square(line, board)
        except ValueError as exc:
            stdout.write(f"  {exc}\n")


def _machine_move(board: TTTBoard, player: int, side: Player, trials: int) -> Move:
    """Ask a move function for its move and check it; raise if it fails or cheats."""
    mark = STRMAP[player]
    try:
        # A clone: a move function that scribbles on its board must not change the game.
        answer = side.move_function(board.clone(), player, trials)  # type: ignore[misc]
    except Exception as exc:  # the player's own error: stop the game, keep the evidence
        raise MoveFunctionError(
            f"{mark} ({side.name}) raised {type(exc).__name__}: {exc}") from exc
    try:
        return check_legal(board, player, answer)
    except IllegalMoveError as exc:
        raise IllegalMoveError(
            f"{mark} ({side.name}) returned an illegal move.\n{exc}") from None


def player_to_move(board: TTTBoard) -> int:
    """X if both have as many marks (X moves first), else O.

    >>> player_to_move(TTTBoard(2, False, [[PLAYERX, EMPTY], [EMPTY, EMPTY]])) == PLAYERO
    True
    """
    dim = board.get_dim()
    marks = [board.square(r, c) for r in range(dim) for c in range(dim)]
    return PLAYERX if marks.count(PLAYERX) <= marks.count(PLAYERO) else PLAYERO


@contextlib.contextmanager
def _thinking_note(text: str, stdout: TextIO) -> Iterator[None]:
    """Say ``text`` if the block is still running THINKING_AFTER seconds on, for a person
    watching a terminal (not in a pipe or a file, whose output must not depend on speed)."""
    isatty = getattr(stdout, "isatty", None)
    if not (isatty and isatty()):
        yield
        return
    timer = threading.Timer(THINKING_AFTER, lambda: print(text, file=stdout, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def play(board: TTTBoard, players: Mapping[int, Player], *, trials: int = 1,
         stdin: TextIO | None = None, stdout: TextIO | None = None) -> GameResult:
    """Play ``board`` to the end, writing the board after every move and the result.

    ``players`` maps PLAYERX and PLAYERO to a :class:`Player`. Raises EndOfInput
    when a person's input ends, MoveFunctionError or IllegalMoveError when a move
    function fails; KeyboardInterrupt passes through. ``board`` is not changed.

    >>> import io
    >>> result = play(TTTBoard(1), {PLAYERX: Player(HUMAN)}, stdin=io.StringIO("0 0"),
    ...               stdout=io.StringIO())
    >>> result.winner == PLAYERX
    True
    """
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    board = board.clone()
    player = player_to_move(board)
    moves: list[Move] = []
    print(draw_board(board), file=stdout)
    while (winner := board.check_win()) is None:
        side = players[player]
        print(file=stdout)
        if side.is_human:
            move = _ask(board, player, stdin, stdout)
        else:
            with _thinking_note(f"{STRMAP[player]} ({side.name}) is thinking...", stdout):
                move = _machine_move(board, player, side, trials)
            print(f"{STRMAP[player]} ({side.name}) plays {move}", file=stdout)
        board.move(*move, player)
        moves.append(move)
        print(draw_board(board), file=stdout)
        player = switch_player(player)
    print(file=stdout)
    print(result_text(winner, switch_player(player)), file=stdout)
    return GameResult(winner, tuple(moves), board)


def run_game(board: TTTBoard, players: Mapping[int, Player], *, trials: int = 1,
             stdin: TextIO | None = None, stdout: TextIO | None = None,
             stderr: TextIO | None = None) -> int:
    """Play a game and turn how it ended into an exit status, explaining any stop on stderr.

    >>> import io
    >>> run_game(TTTBoard(1), {PLAYERX: Player(HUMAN)}, stdin=io.StringIO(""),
    ...          stdout=io.StringIO(), stderr=io.StringIO())
    1
    """
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    try:
        play(board, players, trials=trials, stdin=stdin, stdout=stdout)
    except EndOfInput as exc:
        stdout.flush()
        print(f"Game stopped: {exc}.", file=stderr)
        return EXIT_STOPPED
    except IllegalMoveError as exc:
        stdout.flush()
        print(f"Game stopped: {exc}", file=stderr)
        return EXIT_STOPPED
    except MoveFunctionError as exc:
        stdout.flush()
        cause = exc.__cause__
        if isinstance(cause, (NotImplementedError, TooLargeError)):
            # The unfilled template, or a board too large for the perfect player: the
            # message says what to do; a traceback would not help.
            print(f"Game stopped: {exc}", file=stderr)
        else:
            print(f"Game stopped: {exc}", file=stderr)
            # Only the move function's own frames: the console's are no use to its author.
            tb = cause.__traceback__.tb_next if cause and cause.__traceback__ else None
            if tb is None:  # the call itself failed: most likely the wrong parameters
                print("A move function is called as FUNCTION(board, player, trials) and "
                      "returns (row, col).", file=stderr)
            else:
                text = "".join(traceback.format_exception(type(cause), cause, tb)).rstrip()
                hint = exception_hint(cause, text)  # the check's words for Python 2 habits
                print("\n" + text + (f"\n{hint}" if hint else ""), file=stderr)
        return EXIT_STOPPED
    except KeyboardInterrupt:
        stdout.flush()
        print("\nGame stopped: interrupted (Ctrl-C).", file=stderr)
        return EXIT_INTERRUPTED
    return EXIT_FINISHED


def _whole_number(minimum: int):
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return convert


def build_parser(config: ConsoleConfig = ConsoleConfig()) -> argparse.ArgumentParser:
    """The command-line options shared by ``python -m provided`` and ``python -m student``.

    >>> build_parser().parse_args(["-n", "4", "--reverse"]).size
    4
    """
    parser = argparse.ArgumentParser(
        prog=config.prog, description=config.description,
        epilog=f"{players_help(_HUMAN_TYPES)}\nexamples:\n{config.examples}\n{_EXIT_HELP}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--size", type=_whole_number(1), default=3, metavar="N",
                        help="side of the board (default: 3)")
    parser.add_argument("--reverse", action="store_true",
                        help="play the reverse game: whoever completes a line loses")
    parser.add_argument("-x", "--playerx", default=config.playerx, metavar="PLAYER",
                        help=f"who plays X, who moves first (default: {config.playerx})")
    parser.add_argument("-o", "--playero", default=config.playero, metavar="PLAYER",
                        help=f"who plays O (default: {config.playero})")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="seed of the random player, to replay a game "
                             "(default: a new seed each game, shown at the start)")
    parser.add_argument("--trials", type=_whole_number(0), default=1, metavar="N",
                        help="the trials argument passed to move functions (default: 1; "
                             "minimax ignores it)")
    return parser


def main(argv: Sequence[str] | None = None, config: ConsoleConfig = ConsoleConfig(), *,
         stdin: TextIO | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """Parse the options, play one game, and return the exit status (see the module doc).

    >>> import io
    >>> main(["-n", "1", "-x", "random", "--seed", "1"], stdout=io.StringIO())
    0
    """
    stdout = sys.stdout if stdout is None else stdout
    parser = build_parser(config)
    args = parser.parse_args(argv)
    find_modules_here()
    seed = random.randrange(1_000_000) if args.seed is None else args.seed
    rng = random.Random(seed)
    players = {}
    for player, option, spec in ((PLAYERX, "-x/--playerx", args.playerx),
                                 (PLAYERO, "-o/--playero", args.playero)):
        try:
            players[player] = make_player(spec, rng, config.names.get(spec))
        except PlayerSpecError as exc:
            parser.error(f"argument {option}: {exc}")  # exits with status 2 and the usage
    board = TTTBoard(args.size, args.reverse)
    _introduce(board, players, args.reverse, seed, stdout)
    return run_game(board, players, trials=args.trials, stdin=stdin, stdout=stdout,
                    stderr=stderr)


def find_modules_here() -> None:
    """Like ``python -m``, find move functions' modules in the current folder (an
    installed script such as ttt-play does not)."""
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def _introduce(board: TTTBoard, players: Mapping[int, Player], reverse: bool, seed: int,
               stdout: TextIO) -> None:
    dim = board.get_dim()
    mode = " (reverse: whoever completes a line loses)" if reverse else ""
    print(f"Tic-Tac-Toe on a {dim}x{dim} board{mode}.", file=stdout)
    sides = []
    for player in (PLAYERX, PLAYERO):
        name = players[player].name
        if name == RANDOM:
            name += f" (seed {seed}: --seed {seed} replays it)"
        sides.append(f"{STRMAP[player]}: {name}")
    print(", ".join(sides) + ". X moves first.", file=stdout)
    if any(p.is_human for p in players.values()):
        print(f"Type a square as row and column, from 0 to {dim - 1} (for example 1 2). "
              "Ctrl-D or Ctrl-C stops the game.", file=stdout)
    print(file=stdout)
