"""The course's own modules, as old files import them: one description for every place.

Submissions written for the course start with ``import poc_ttt_gui``, ``import
poc_ttt_provided as provided``, ``import codeskulptor`` (``codeskulptor.set_timeout(60)``),
may build a ``simplegui`` frame and test themselves with ``poc_simpletest``; students who
worked on their own machine imported the same modules under other paths: ``import
SimpleGUICS2Pygame.codeskulptor as codeskulptor``, ``import
SimpleGUICS2Pygame.simpleguics2pygame as simplegui``, ``from poc.tic_tac_toe import
poc_ttt_provided as provided``. Here every such name means one module of ours:

- ``poc_ttt_provided``: this package, ``provided`` itself (the same object);
- ``poc_ttt_gui``: ``run_gui``, a real window (``provided.gui``), or nothing at all where
  a caller says so (the grader's sandbox; a game paused while a file is imported);
- ``codeskulptor``: ``set_timeout`` does nothing (no time limit is CodeSkulptor's here);
- ``poc_simpletest``: the course's ``TestSuite`` (``provided.simpletest``), which counts
  and prints as it did;
- ``simplegui`` and ``simpleguics2pygame``: every part a harmless no-op;
- any other module a file imports as ``provided`` (``import tictactoe_board as provided``: a
  student's own copy of the course's board module, under its own name) where no real module
  of that name exists: ``provided`` itself (:func:`provided_aliases`).

:func:`install` makes them importable (a finder placed after every real one, so an
installed module of the same name wins); :func:`paused_games` runs code with ``play_game``
and ``run_gui`` recording their calls instead of playing. The grader's worker, ``python -m
student`` and its checks, console play, and the modules under the course's names beside
``student/mm_player.py`` and at the handout's top level (for ``python3 mm_player.py``) all
use this.

>>> install("from poc.tic_tac_toe import poc_ttt_provided as provided")
>>> from poc.tic_tac_toe import poc_ttt_provided
>>> import provided as real
>>> poc_ttt_provided is real
True
>>> import SimpleGUICS2Pygame.codeskulptor as codeskulptor
>>> codeskulptor.set_timeout(60)
>>> import poc_simpletest
>>> poc_simpletest.TestSuite().report_results()
Ran 0 tests. 0 failures.
>>> install("import tictactoe_board as provided")
>>> import tictactoe_board
>>> tictactoe_board is real
True
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import sys
import types

import provided
import provided.simpletest

# Every process that runs student code imports this module first (the grader's worker
# starts for every grade and after every crash): nothing here is imported for annotations
# alone, ``ast`` only when a file's import paths are read, and the finder below needs no
# base class (the import system asks only for its three methods).
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

# The module names of the course, and the package of the desktop port (SimpleGUICS2Pygame).
COURSE_NAMES = ("poc_ttt_provided", "poc_ttt_gui", "codeskulptor", "simplegui",
                "poc_simpletest")
PORT_PACKAGE = "SimpleGUICS2Pygame"
_PORT_NAMES = {"codeskulptor": "codeskulptor", "simpleguics2pygame": "simplegui",
               "simplegui_lib": "simplegui", "simplegui_lib_fps": "simplegui",
               "simplegui_lib_keys": "simplegui", "simplegui_lib_loader": "simplegui",
               "simplegui_lib_draw": "simplegui"}


# -- the modules ---------------------------------------------------------------------------

class _Stub:
    """Callable, subscriptable, with any public attribute; every use returns another stub."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __call__(self, *args: Any, **kwargs: Any) -> "_Stub":
        return _Stub(self._name + "()")

    def __getattr__(self, name: str) -> "_Stub":
        if name.startswith("_"):
            raise AttributeError(name)
        return _Stub(self._name + "." + name)

    def __getitem__(self, key: Any) -> "_Stub":
        return _Stub(f"{self._name}[{key!r}]")

    def __repr__(self) -> str:
        return f"<simplegui stub {self._name}>"


def _new_module(name: str, doc: str, **names: Any) -> types.ModuleType:
    module = types.ModuleType(name, doc)
    module.__dict__.update(names)
    return module


def _run_gui(board_size: int, ai_player: int, ai_function: Callable, ntrials: int,
             reverse: bool = False) -> None:
    """The course's ``run_gui``: a window where a person plays against ``ai_function``.

    Where no window can open (no tkinter, no display), one sentence on stderr says what to
    install or to use console play instead, and the file goes on: no traceback."""
    if _GUI_OFF:
        return None
    from provided import gui  # tkinter only when a window is really wanted
    try:
        return gui.run_gui(board_size, ai_player, ai_function, ntrials, reverse)
    except gui.GuiUnavailable as problem:
        print(f"run_gui: {problem}", file=sys.stderr)
        return None


def _set_timeout(seconds: float) -> None:
    """Do nothing: CodeSkulptor's run-time limit does not apply here."""


_GUI_OFF: list[bool] = []   # non-empty: run_gui does nothing (see gui_off)

MODULES: dict[str, types.ModuleType] = {
    "poc_ttt_provided": provided,
    "poc_ttt_gui": _new_module(
        "poc_ttt_gui", "The course's front end: run_gui opens a window (provided.gui).",
        run_gui=_run_gui),
    "codeskulptor": _new_module(
        "codeskulptor", "CodeSkulptor's module: set_timeout does nothing here.",
        set_timeout=_set_timeout),
    "simplegui": _new_module(
        "simplegui", "CodeSkulptor's simplegui: frames, timers, images, sounds and keys "
        "exist and do nothing, so a file that builds an interface still imports.",
        **{name: _Stub(name) for name in ("create_frame", "create_timer",
                                          "create_invisible_canvas", "load_image",
                                          "load_sound", "KEY_MAP")}),
    "poc_simpletest": provided.simpletest,
}


def course_module(fullname: str) -> types.ModuleType | None:
    """The module of ours a course import means, under whatever path it is imported.

    >>> course_module("poc.tic_tac_toe.poc_ttt_gui").run_gui.__name__
    '_run_gui'
    >>> course_module("SimpleGUICS2Pygame.simpleguics2pygame") is MODULES["simplegui"]
    True
    >>> course_module("numpy") is None
    True
    """
    parts = fullname.split(".")
    if parts[0] == PORT_PACKAGE and len(parts) == 2 and parts[1] in _PORT_NAMES:
        return MODULES[_PORT_NAMES[parts[1]]]
    return MODULES.get(parts[-1])


# -- importing them ------------------------------------------------------------------------------

class _CourseFinder:
    """Finds the course's names, and the packages a file's own import paths go through."""

    def __init__(self) -> None:
        self.packages: set[str] = {PORT_PACKAGE}
        self.aliases: set[str] = set()   # modules a file imports as provided

    def find_spec(self, fullname: str, path: Any = None,
                  target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname in self.packages:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        if fullname in self.aliases:
            return importlib.machinery.ModuleSpec(fullname, self)
        if "." in fullname and fullname.rpartition(".")[0] not in self.packages:
            return None
        if course_module(fullname) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = provided if spec.name in self.aliases else course_module(spec.name)
        if module is not None and spec.name not in self.packages:
            return module
        package = types.ModuleType(spec.name, "A path the course's modules were imported by.")
        package.__path__ = []
        return package

    def exec_module(self, module: types.ModuleType) -> None:
        pass  # nothing to run: the module is one of ours, already whole


_FINDER = _CourseFinder()


def install(source: str | None = None) -> None:
    """Make the course's modules importable in this process (again: no harm).

    With ``source`` (a file's text), the paths of its course imports too
    (:func:`import_paths`): ``from poc.tic_tac_toe import poc_ttt_provided`` needs ``poc``
    and ``poc.tic_tac_toe``; ``import tictactoe_board as provided`` needs
    ``tictactoe_board``, which is ``provided``. A name a real module already has is left
    to it.
    """
    if source is not None:
        aliases = provided_aliases(source)
        _FINDER.aliases.update(aliases)
        _FINDER.packages.update(import_paths(source) - aliases)
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)


def import_paths(source: str) -> set[str]:
    """The module paths ``source``'s course imports need besides the course's own names (it
    is not run): the packages they go through, and the modules it imports as ``provided``
    (:func:`provided_aliases`), with theirs. What a file may import where the grader runs it,
    beyond the standard library and the course's modules.

    >>> sorted(import_paths("from poc.tic_tac_toe import poc_ttt_provided as provided"))
    ['poc', 'poc.tic_tac_toe']
    >>> sorted(import_paths("from my_course import board as provided"))
    ['my_course', 'my_course.board']
    >>> import_paths("import numpy.linalg")
    set()
    """
    aliases = provided_aliases(source)
    paths = set(aliases)
    for target, _ in _imports(source, (*COURSE_NAMES, PORT_PACKAGE, "provided")):
        if "." in target and (course_module(target) is not None or target in aliases):
            parts = target.split(".")
            paths.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return paths


def provided_aliases(source: str) -> set[str]:
    """The modules ``source`` imports under the name ``provided`` that are none of the
    course's (it is not run): a student's own copy of the course's board module, imported
    by its own name. Where no real module has that name, it is ``provided`` itself.

    >>> sorted(provided_aliases("import tictactoe_board as provided\\nimport math"))
    ['tictactoe_board']
    >>> sorted(provided_aliases("from my_course import board as provided"))
    ['my_course.board']
    >>> provided_aliases("import poc_ttt_provided as provided\\nimport provided.board as provided")
    set()
    """
    return {target for target, name in _imports(source, ("provided",))
            if name == "provided" and target.split(".")[0] != "provided"
            and course_module(target) is None}


def _imports(source: str, words: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """Every module path ``source`` imports, with the name it binds it to (``as``; None
    where it binds another name), read without running it; nothing when the text names
    none of ``words`` (most files: nothing to parse) or does not parse."""
    if source.isascii() and not any(word in source for word in words):
        return []   # Python reads other letters as their plain forms: only ASCII is sure
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    targets: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets += [(alias.name, alias.asname) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            targets += [(f"{node.module}.{alias.name}", alias.asname) for alias in node.names]
            targets.append((node.module, None))
    return targets


# -- games at import time ----------------------------------------------------------------------

@contextlib.contextmanager
def paused_games(calls: list[str]) -> Iterator[None]:
    """Run the block with ``play_game`` and ``run_gui`` recording their names in ``calls``
    instead of playing: old files call them at their top level, and importing such a
    file must not play a game (in a grader, a check, or before console play).

    >>> calls = []
    >>> with paused_games(calls):
    ...     provided.play_game(None, 1)
    ...     MODULES["poc_ttt_gui"].run_gui(3, 2, None, 1)
    >>> calls
    ['play_game', 'run_gui']
    """
    import provided.game

    def recorder(name: str) -> Callable[..., None]:
        def pause(*args: Any, **kwargs: Any) -> None:
            calls.append(name)
        return pause

    gui = MODULES["poc_ttt_gui"]
    saved = [(module, attr, getattr(module, attr))
             for module, attr in ((provided, "play_game"), (provided.game, "play_game"),
                                  (gui, "run_gui"))]
    for module, attr, _ in saved:
        setattr(module, attr, recorder(attr))
    try:
        yield
    finally:
        for module, attr, value in saved:
            setattr(module, attr, value)


def gui_off() -> None:
    """From now on, in this process, ``run_gui`` does nothing (the grader's sandbox)."""
    if not _GUI_OFF:
        _GUI_OFF.append(True)
