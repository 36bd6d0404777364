"""grader.sandbox.helpers: which files beside a submission are graded with it, and the
sandbox that copies them (never one that would shadow the course's modules).

Choosing reads files only: no sandbox starts. One test starts a sandbox, on each path
(bubblewrap and the fallback), to import a helper that imports another.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from grader.sandbox import Sandbox, SandboxError
from grader.sandbox.disk import make_box
from grader.sandbox.helpers import MAX_BYTES, MAX_FILES, Helpers, helpers_beside
from test_sandbox import FAST, MODES, write


@pytest.fixture(params=MODES)
def use_bwrap(request: pytest.FixtureRequest) -> bool:
    return request.param


def folder_of(tmp_path: Path, files: dict[str, str]) -> Path:
    """A student's folder holding ``files``; the path of its mc_player.py."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    return tmp_path / "mc_player.py"


def test_the_modules_it_imports_from_beside_it_are_kept_and_nothing_else(tmp_path):
    """Kept: what its imports reach, through another helper too, by any way of importing
    a name written out. Not kept, and not named: files it does not import (another
    student's, a script), a subfolder's, a name that is not a module's."""
    submission = folder_of(tmp_path, {
        "mc_player.py": """
            import strategy
            from board_tools import empty_squares
            def mc_move(board, player, trials):
                return __import__("late").move()
            """,
        "strategy.py": "import scoring\n",
        "scoring.py": "import mc_player\n",        # back to the submission: not a helper
        "board_tools.py": "", "late.py": "",
        "bob.py": "def mc_move(board, player, trials): pass\n",
        "nested/strategy2.py": "", "my-notes.py": "",
    })
    chosen = helpers_beside(submission)
    assert chosen.names == ("board_tools.py", "late.py", "scoring.py", "strategy.py")
    assert chosen.notes == ()
    assert dict(chosen.files)["strategy.py"] == b"import scoring\n"


def test_a_file_an_import_would_not_find_is_left_out_and_the_note_says_why(tmp_path):
    """A standard library name and the sandbox's own module names: the import finds those,
    never the student's file (a note each, with what to do); a link is not followed (it
    could name any file of the grader's)."""
    submission = folder_of(tmp_path, {
        "mc_player.py": "import random, encode, tools\nimport secret\n",
        "random.py": "", "encode.py": "", "tools.py": "",
    })
    (tmp_path / "secret.py").symlink_to("/etc/passwd")
    chosen = helpers_beside(submission)
    assert chosen.names == ("tools.py",)
    assert chosen.notes == (
        "random.py beside the file was not graded with it: its name is the standard "
        "library's random module, which an import finds first; rename it",
        "encode.py beside the file was not graded with it: its name is the sandbox's own "
        "encode module, which an import finds first; rename it",
        "secret.py beside the file was not graded with it: it is a link, not a file: hand "
        "in the file itself")


def test_a_helper_cannot_stand_in_for_the_course_modules(tmp_path):
    """provided, the course's old names and a module the file imports as provided are the
    course's own wherever the grader runs: a student's file of that name is never copied
    (the handout's own stand-ins sit beside every template: no note for them)."""
    submission = folder_of(tmp_path, {
        "mc_player.py": """
            import provided
            import poc_ttt_provided
            import poc_ttt_gui, simplegui, codeskulptor
            import tictactoe_board as provided
            import tools
            """,
        "provided.py": "PLAYERX = 99\n", "poc_ttt_provided.py": "PLAYERX = 99\n",
        "poc_ttt_gui.py": "", "simplegui.py": "", "codeskulptor.py": "",
        "tictactoe_board.py": "PLAYERX = 99\n", "tools.py": "import provided\n",
    })
    chosen = helpers_beside(submission)
    assert chosen == Helpers(((("tools.py", b"import provided\n")),))
    for name in ("provided.py", "poc_ttt_provided.py", "simplegui.py", "tictactoe_board.py"):
        with pytest.raises(SandboxError, match="the course gives its own"):
            make_box("mc_player.py", (tmp_path / "mc_player.py").read_bytes(), None,
                     ((name, b"PLAYERX = 99\n"),))
    with pytest.raises(SandboxError, match="not the file name of a module"):
        Sandbox(submission, FAST, use_bwrap=False,
                helpers=(("../escape.py", b""),)).start()


def test_past_the_bounds_none_is_copied_and_the_note_says_so(tmp_path):
    """At most MAX_FILES files of MAX_BYTES in all: up to them every one is copied; one
    more file, or one more byte, and none is, with a note that names them."""
    names = [f"part{index:02d}" for index in range(MAX_FILES + 1)]
    files = {f"{name}.py": "" for name in names}
    last = folder_of(tmp_path / "many", {**files, "mc_player.py": f"import {', '.join(names)}\n"})
    right = folder_of(tmp_path / "twenty",
                      {**files, "mc_player.py": f"import {', '.join(names[:-1])}\n"})
    assert len(helpers_beside(right).files) == MAX_FILES
    many = helpers_beside(last)
    assert many.files == () and len(many.notes) == 1
    assert "part20.py) are more than the grader copies with a file (20 files, 1 MiB in " \
           "all), so none was graded with it" in many.notes[0]
    big = folder_of(tmp_path / "big", {"mc_player.py": "import a, b\n",
                                       "a.py": "#" * (MAX_BYTES // 2),
                                       "b.py": "#" * (MAX_BYTES // 2)})
    assert len(helpers_beside(big).files) == 2
    (tmp_path / "big" / "b.py").write_text("#" * (MAX_BYTES // 2 + 1))
    assert helpers_beside(big).files == ()


def test_a_helper_is_imported_from_the_sandbox_on_either_path(tmp_path, use_bwrap):
    """Copied beside the submission, a helper (and the helper it imports) is what its
    import finds, under bubblewrap and on the fallback alike; provided stays the course's.
    An exception raised in a helper shows its lines as the submission's are shown, the same
    on both paths (never the sandbox's folder)."""
    folder = tmp_path / "alice"
    folder.mkdir()
    write(folder, "import helper\ndef mc_move(board, player, trials):\n"
                  "    return helper.answer()\ndef mc_trial(board, player):\n"
                  "    helper.boom()\n", "mc_player.py")
    write(folder, "import deeper\nimport provided\n"
                  "def answer():\n    return deeper.VALUE, provided.PLAYERX\n"
                  "def boom():\n    return deeper.MISSING\n", "helper.py")
    write(folder, "VALUE = 'from beside it'\n", "deeper.py")
    chosen = helpers_beside(folder / "mc_player.py")
    with Sandbox(folder / "mc_player.py", FAST, use_bwrap=use_bwrap, require=("mc_move",),
                 helpers=chosen.files) as box:
        reply = box.invoke("mc_move", [{"value": None}] * 3, cpu_limit=2.0, seed=1)
        failed = box.invoke("mc_trial", [{"value": None}] * 2, cpu_limit=2.0, seed=1)
    assert (reply.status, reply.answer) == ("ok", ("from beside it", 2)), reply
    assert failed.error == (
        "AttributeError: module 'deeper' has no attribute 'MISSING'\n"
        "Traceback (last lines in mc_player.py and helper.py):\n"
        '  File "mc_player.py", line 5, in mc_trial\n    helper.boom()\n'
        '  File "helper.py", line 6, in boom\n    return deeper.MISSING'), failed.error
