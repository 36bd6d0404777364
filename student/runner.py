"""The child side of ``python -m student check``: one call of ``mm_move``, answered in JSON.

    python -m student.runner PATH < {"dim": 1, "reverse": false, "grid": [[1]], "player": 2}

imports PATH, calls its ``mm_move`` on that board, and writes one JSON line to
stdout: ``{"kind": "answer", "answer": "(1, (0, 0))", "score": 1, "move": [0, 0]}``
(see ``student.checks`` for the kinds). Anything the student's code prints goes
to stderr, so it cannot garble the answer.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from provided.board import TTTBoard

# Modules of the course's old online environment, with what to do instead.
_COURSE_MODULES = {
    "poc_ttt_gui": "delete the line `import poc_ttt_gui` (and any poc_ttt_gui.run_gui(...) call)",
    "poc_ttt_provided": "write `import provided` instead of `import poc_ttt_provided as provided`",
    "codeskulptor": "delete the lines `import codeskulptor` and `codeskulptor.set_timeout(...)`",
    "simplegui": "delete the line `import simplegui`",
}


def main() -> None:
    result_fd = os.dup(1)
    os.dup2(2, 1)  # from here on, prints (even from C code) go to stderr
    position = json.load(sys.stdin)
    result = call_mm_move(Path(sys.argv[1]), position)
    sys.stdout.flush()
    os.write(result_fd, (json.dumps(result) + "\n").encode())


def call_mm_move(path: Path, position: dict[str, Any]) -> dict[str, Any]:
    """Load ``path``, call its mm_move on ``position``, and describe what happened.

    Returns a JSON-ready dict; every failure of the student's code is reported, not raised.
    """
    try:
        mm_move = _load(path)
    except _LoadFailure as exc:
        return {"kind": "load_error", "message": str(exc)}
    board = TTTBoard(position["dim"], position["reverse"], position["grid"])
    before = repr(board)
    try:
        answer = mm_move(board, position["player"])
    except NotImplementedError as exc:
        return {"kind": "not_written", "message": str(exc)}
    except (Exception, SystemExit) as exc:
        return {"kind": "error", "message": _own_frames(exc, path)}
    after = _safe_repr(board)
    result: dict[str, Any] = {"kind": "answer", "answer": _safe_repr(answer)}
    if after != before:
        result["board_after"] = after
    if _well_shaped(answer):
        result["score"] = answer[0]
        result["move"] = list(answer[1])
    return result


class _LoadFailure(Exception):
    pass


def _load(path: Path) -> Any:
    """Import the student's file under a name of its own; return its mm_move."""
    if not path.is_file():
        raise _LoadFailure(f"there is no file {path}")
    sys.path.insert(0, str(path.parent))  # so the file can import its neighbours
    spec = importlib.util.spec_from_file_location("mm_player_under_check", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = module  # type: ignore[union-attr]
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except SyntaxError as exc:
        text = "".join(traceback.format_exception_only(type(exc), exc)).rstrip()
        raise _LoadFailure(f"{path} does not compile:\n{text}") from None
    except ModuleNotFoundError as exc:
        hint = _COURSE_MODULES.get(exc.name or "")
        raise _LoadFailure(f"{path} could not be imported: {exc}"
                           + (f": {hint}" if hint else "")) from None
    except (Exception, SystemExit) as exc:
        raise _LoadFailure(f"{path} failed while being imported:\n"
                           + _own_frames(exc, path)) from None
    mm_move = getattr(module, "mm_move", None)
    if not callable(mm_move):
        raise _LoadFailure(f"{path} defines no function mm_move(board, player)")
    return mm_move


def _own_frames(exc: BaseException, path: Path) -> str:
    """The traceback, keeping only the frames of the student's file (and what it called)."""
    tb = exc.__traceback__
    # Skip this module's and importlib's frames until the student's own code starts.
    while tb is not None and Path(tb.tb_frame.f_code.co_filename) != path:
        tb = tb.tb_next
    lines = traceback.format_exception(type(exc), exc, tb)
    text = "".join(lines).rstrip()
    if len(text) > 3000:  # a RecursionError's traceback runs to thousands of lines
        text = "...\n" + text[-3000:]
    return text


def _safe_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # a broken __repr__ in the student's objects
        text = f"<unprintable {type(value).__name__}: {exc}>"
    return text if len(text) <= 300 else text[:300] + "..."


def _well_shaped(answer: Any) -> bool:
    """True for (int, (int, int)): tuples and plain ints, as the course's grader compared."""
    return (type(answer) is tuple and len(answer) == 2 and type(answer[0]) is int
            and type(answer[1]) is tuple and len(answer[1]) == 2
            and all(type(v) is int for v in answer[1]))


if __name__ == "__main__":
    main()
