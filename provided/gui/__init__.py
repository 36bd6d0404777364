"""The course's graphical front end, ``run_gui``: play against a move function in a window.

The machine plays ``ai_player`` with ``ai_function(board, player, ntrials) -> (row, col)``;
you click squares for the other side. X moves first::

    from provided import PLAYERO
    from provided.gui import run_gui
    from student.mm_player import move_wrapper

    run_gui(3, PLAYERO, move_wrapper, 1, False)   # you are X; returns when the window closes

or from a terminal, with the options of console play (``python -m provided --help``;
the command line is :mod:`provided.gui.command`)::

    python -m provided.gui -o student.mm_player:move_wrapper
    python -m provided.gui -n 4 --reverse -x random -o human

The machine thinks in a worker thread, so the window stays responsive ("thinking..." is
shown, and clicks meanwhile are refused with a note). A move function that raises or
answers an illegal square stops that game with the error shown in the window; "New game"
starts again. Without tkinter, or without a display, :func:`run_gui` raises
:class:`GuiUnavailable`, whose message says what to install (or to play in the terminal
with ``python -m student``).

The rules and the texts live in :class:`GuiGame` (:mod:`provided.gui.game`), which does not
import tkinter (the tests play whole games with it, without a display); the window only
draws it and forwards clicks:

>>> game = GuiGame(3, PLAYERO, ai_name="first_empty")
>>> game.status_text()
'Your turn (X): click a square.'
>>> game.click(1, 1)
True
>>> game.play_machine(lambda board, player, trials: board.get_empty_squares()[0], 1)
True
>>> game.board.square(0, 0) == PLAYERO, game.title()
(True, 'Tic-Tac-Toe 3x3: your turn')
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
import threading
import traceback
from dataclasses import dataclass
from typing import Any

from provided.board import EMPTY, PLAYERO, PLAYERX, TTTBoard
from provided.game import MoveFunction
from provided.gui.game import GuiGame

__all__ = ["run_gui", "GuiGame", "GuiUnavailable", "Layout", "layout"]

Move = tuple[int, int]

CONSOLE_HINT = "play in the terminal instead with python -m student"


class GuiUnavailable(RuntimeError):
    """No window can be opened here: tkinter is missing or there is no display.

    The message is one sentence saying what to install, or to play in the terminal.
    """


# -- where things are on the canvas -----------------------------------------------------

CELL_MAX = 100      # pixels per square, at most
BOARD_MAX = 600     # the board's side in pixels, at most (smaller squares on big boards)
CELL_MIN = 8
MARGIN = 28         # around the board (room for the row and column numbers)
MIN_WIDTH = 380     # so the texts under a small board still fit


@dataclass(frozen=True)
class Layout:
    """Where the board is drawn on the canvas, which sits at the window's top-left corner.

    >>> lay = layout(3)
    >>> lay.cell, lay.left, lay.top, lay.width, lay.height
    (100, 40, 28, 380, 356)
    >>> lay.center(1, 2), lay.square_at(*lay.center(1, 2)), lay.square_at(5, 5)
    ((290, 178), (1, 2), None)
    """

    dim: int
    cell: int
    left: int
    top: int
    width: int
    height: int

    def center(self, row: int, col: int) -> tuple[int, int]:
        """The canvas coordinates of the center of square (row, col)."""
        return (self.left + col * self.cell + self.cell // 2,
                self.top + row * self.cell + self.cell // 2)

    def square_at(self, x: float, y: float) -> Move | None:
        """The square under canvas point (x, y), or None off the board."""
        col = int((x - self.left) // self.cell)
        row = int((y - self.top) // self.cell)
        if 0 <= row < self.dim and 0 <= col < self.dim:
            return row, col
        return None


def layout(dim: int) -> Layout:
    """The canvas layout for a ``dim`` x ``dim`` board: 100 px squares, up to 600 px a side.

    >>> layout(10).cell, layout(1).width
    (60, 380)
    """
    cell = max(CELL_MIN, min(CELL_MAX, BOARD_MAX // dim))
    side = cell * dim
    width = max(side + 2 * MARGIN, MIN_WIDTH)
    return Layout(dim, cell, (width - side) // 2, MARGIN, width, side + 2 * MARGIN)


# -- the window -------------------------------------------------------------------------

POLL_MS = 30        # how often the window looks for the machine's answer

COLORS = {"background": "#f4f4f0", "board": "#ffffff", "border": "#b8b8b8",
          "grid": "#303030", "X": "#1d5fbf", "O": "#d0342c", "last": "#fff2b8",
          "hover": "#e8f0ff", "line": "#2e8b57", "label": "#8a8a8a",
          "status": "#202020", "error": "#b00020", "message": "#8a4b00"}


def _load_tkinter() -> Any:
    """Import tkinter, or raise GuiUnavailable saying how to get it."""
    try:
        return importlib.import_module("tkinter")
    except ImportError:
        raise GuiUnavailable(
            f"Cannot open a window because this Python ({sys.executable}) has no tkinter: "
            "install it (Debian/Ubuntu: sudo apt install python3-tk; Fedora: sudo dnf install "
            "python3-tkinter; macOS: use Python from the python.org installer; a Python built "
            f"with pyenv: install tk-dev, then rebuild it), or {CONSOLE_HINT}.") from None


def _open_root(tk: Any) -> Any:
    """Create the Tk root window, or raise GuiUnavailable when there is no display."""
    hint = ("run it from a graphical desktop session, or under a virtual screen with xvfb-run "
            f"(sudo apt install xvfb), or {CONSOLE_HINT}")
    if sys.platform not in ("win32", "darwin") and not os.environ.get("DISPLAY"):
        raise GuiUnavailable(f"Cannot open a window because there is no display "
                             f"($DISPLAY is not set): {hint}.")
    try:
        return tk.Tk()
    except tk.TclError as exc:
        reason = str(exc).strip().rstrip(".") or "Tk could not start"
        raise GuiUnavailable(f"Cannot open a window ({reason}): {hint}.") from None


def _think(ai_function: MoveFunction, board: TTTBoard, player: int, ntrials: int,
           box: list) -> None:
    """The worker thread: call the move function, leave its answer (or error) in ``box``.

    It touches no Tk object: only the main thread may.
    """
    try:
        box.append(("move", ai_function(board, player, ntrials)))
    except BaseException as exc:  # noqa: B036 -- even SystemExit: report it, not lose it
        box.append(("error", exc))


class _Window:
    """Draws a :class:`GuiGame` and forwards the person's clicks to it."""

    def __init__(self, tk: Any, root: Any, game: GuiGame, ai_function: MoveFunction,
                 ntrials: int) -> None:
        self.tk, self.root, self.game = tk, root, game
        self.ai_function, self.ntrials = ai_function, ntrials
        self.lay = layout(game.dim)
        self.hover: Move | None = None
        lay = self.lay
        root.configure(background=COLORS["background"])
        root.resizable(False, False)
        # The canvas first, at the window's top-left corner: Layout's coordinates are the
        # window's (the Xvfb test clicks there).
        self.canvas = tk.Canvas(root, width=lay.width, height=lay.height, borderwidth=0,
                                highlightthickness=0, background=COLORS["background"],
                                cursor="hand2")
        self.canvas.pack(side="top")
        wrap = lay.width - 24
        self.status = tk.Label(root, font=("Helvetica", 15, "bold"), wraplength=wrap,
                               justify="center", background=COLORS["background"])
        self.status.pack(side="top", padx=12, pady=(0, 2))
        self.note = tk.Label(root, font=("Helvetica", 11), wraplength=wrap, justify="center",
                             foreground=COLORS["message"], background=COLORS["background"])
        self.note.pack(side="top", padx=12)
        self.info = tk.Label(root, font=("Helvetica", 10), wraplength=wrap, justify="center",
                             foreground="#555555", background=COLORS["background"])
        self.info.pack(side="top", padx=12, pady=(2, 4))
        self.button = tk.Button(root, text="New game", font=("Helvetica", 12),
                                command=self.new_game, padx=14)
        self.button.pack(side="top", pady=(2, 12))
        self.canvas.bind("<Button-1>", self.on_click)
        self.canvas.bind("<Motion>", self.on_motion)
        self.canvas.bind("<Leave>", self.on_leave)
        root.bind("<Control-n>", lambda event: self.new_game())
        root.bind("<Control-q>", lambda event: self.close())
        root.bind("<Control-w>", lambda event: self.close())
        root.protocol("WM_DELETE_WINDOW", self.close)
        self.refresh()
        self.ask_machine()

    # -- events ---------------------------------------------------------------------------

    def on_click(self, event: Any) -> None:
        square = self.lay.square_at(event.x, event.y)
        if square is None:
            return
        self.game.click(*square)
        self.refresh()
        self.ask_machine()

    def on_motion(self, event: Any) -> None:
        square = self.lay.square_at(event.x, event.y)
        if square != self.hover:
            self.hover = square
            self.draw_board()

    def on_leave(self, event: Any) -> None:
        if self.hover is not None:
            self.hover = None
            self.draw_board()

    def new_game(self) -> None:
        self.game.new_game()
        self.refresh()
        self.ask_machine()

    def close(self) -> None:
        self.root.destroy()

    # -- the machine ----------------------------------------------------------------------

    def ask_machine(self) -> None:
        """If it is the machine's turn, start its move function in a worker thread."""
        if not self.game.machine_turn():
            return
        ticket, board = self.game.start_thinking()
        box: list = []
        worker = threading.Thread(
            target=_think, args=(self.ai_function, board, self.game.ai_player, self.ntrials, box),
            name="ttt-machine-move", daemon=True)  # a closed window must not wait for it
        worker.start()
        self.refresh()
        self.root.after(POLL_MS, self.poll, ticket, box)

    def poll(self, ticket: int, box: list) -> None:
        """Look for the worker's answer; apply it, or look again soon."""
        if ticket != self.game.ticket:
            return  # a new game started meanwhile: this answer is for nobody
        if not box:
            self.root.after(POLL_MS, self.poll, ticket, box)
            return
        kind, value = box[0]
        if kind == "move":
            self.game.machine_move(value, ticket)
        else:
            self.game.machine_failed(value, ticket)
            if not isinstance(value, NotImplementedError):  # the template says what to do
                traceback.print_exception(type(value), value, value.__traceback__,
                                          file=sys.stderr)
        self.refresh()
        self.ask_machine()

    # -- drawing --------------------------------------------------------------------------

    def refresh(self) -> None:
        game = self.game
        self.root.title(game.title())
        color = (COLORS["error"] if game.error else
                 COLORS["line"] if game.winner is not None else COLORS["status"])
        self.status.configure(text=game.status_text(), foreground=color)
        self.note.configure(text=game.message)
        self.info.configure(text=game.info_text())
        self.canvas.configure(cursor="hand2" if game.to_move == game.human and not game.over
                              else "watch" if game.thinking else "arrow")
        self.draw_board()

    def draw_board(self) -> None:
        canvas, lay, game = self.canvas, self.lay, self.game
        canvas.delete("all")
        cell, dim = lay.cell, lay.dim
        left, top = lay.left, lay.top
        right, bottom = left + cell * dim, top + cell * dim
        canvas.create_rectangle(left, top, right, bottom, fill=COLORS["board"],
                                outline=COLORS["border"], width=1)
        playable = game.to_move == game.human and not game.over
        for square, fill in ((game.last_move, COLORS["last"]),
                             (self.hover if playable else None, COLORS["hover"])):
            if square is not None and (fill == COLORS["last"]
                                       or game.board.square(*square) == EMPTY):
                r, c = square
                canvas.create_rectangle(left + c * cell, top + r * cell, left + (c + 1) * cell,
                                        top + (r + 1) * cell, fill=fill, width=0)
        grid = max(2, cell // 25)
        for i in range(1, dim):
            canvas.create_line(left + i * cell, top, left + i * cell, bottom,
                               fill=COLORS["grid"], width=grid)
            canvas.create_line(left, top + i * cell, right, top + i * cell,
                               fill=COLORS["grid"], width=grid)
        if cell >= 24:  # the row and column numbers, as move functions count them
            font = ("Helvetica", 10)
            for i in range(dim):
                x, y = lay.center(i, i)
                canvas.create_text(x, top - MARGIN // 2, text=str(i), fill=COLORS["label"],
                                   font=font)
                canvas.create_text(left - MARGIN // 2, y, text=str(i), fill=COLORS["label"],
                                   font=font)
        pen = max(2, cell // 9)
        inset = cell * 0.22
        for row in range(dim):
            for col in range(dim):
                mark = game.board.square(row, col)
                x0, y0 = left + col * cell + inset, top + row * cell + inset
                x1, y1 = left + (col + 1) * cell - inset, top + (row + 1) * cell - inset
                if mark == PLAYERX:
                    for coords in ((x0, y0, x1, y1), (x0, y1, x1, y0)):
                        canvas.create_line(*coords, fill=COLORS["X"], width=pen,
                                           capstyle="round")
                elif mark == PLAYERO:
                    canvas.create_oval(x0, y0, x1, y1, outline=COLORS["O"], width=pen)
        line = game.winning_line()
        if line:
            (x0, y0), (x1, y1) = lay.center(*line[0]), lay.center(*line[-1])
            if len(line) == 1:  # 1x1: strike the single square
                x0, x1 = x0 - cell // 3, x1 + cell // 3
            canvas.create_line(x0, y0, x1, y1, fill=COLORS["line"], width=max(3, cell // 14),
                               capstyle="round")


def run_gui(board_size: int, ai_player: int, ai_function: MoveFunction, ntrials: int,
            reverse: bool = False) -> None:
    """Open a window where a person plays against ``ai_function``; return when it is closed.

    The course's signature: a ``board_size`` x ``board_size`` board (any size >= 1), the
    machine plays ``ai_player`` (PLAYERX or PLAYERO) with
    ``ai_function(board, player, ntrials) -> (row, col)``, the person clicks for the other
    side, X moves first; ``reverse``: whoever completes a line loses. Raises
    :class:`GuiUnavailable` when tkinter is missing or there is no display (its message
    says what to install), ValueError or TypeError for bad arguments.
    """
    name = getattr(ai_function, "__name__", None)
    _run(board_size, ai_player, ai_function, ntrials, reverse,
         name if isinstance(name, str) and name.isidentifier() else "the machine")


def _run(board_size: int, ai_player: int, ai_function: MoveFunction, ntrials: int,
         reverse: bool, ai_name: str) -> None:
    if not callable(ai_function):
        raise TypeError(f"ai_function must be a move function f(board, player, trials) -> "
                        f"(row, col), got {ai_function!r}")
    game = GuiGame(board_size, ai_player, reverse, ai_name)  # checks the other arguments
    tk = _load_tkinter()
    try:
        _show(tk, game, ai_function, ntrials)
    finally:
        # Free the window's objects here, in the main thread: Tcl aborts the process if its
        # interpreter is deleted from another thread (a worker still thinking could run the
        # garbage collector).
        gc.collect()
    return None


def _show(tk: Any, game: GuiGame, ai_function: MoveFunction, ntrials: int) -> None:
    """Open the window and run it until it is closed."""
    root = _open_root(tk)
    try:
        _Window(tk, root, game, ai_function, ntrials)
        root.mainloop()
    finally:
        try:
            root.destroy()
        except tk.TclError:
            pass  # already destroyed: the window was closed
