"""The child side of the Monte Carlo checks: one of the four functions, called in JSON.

    python -m student.mc_runner PATH < {"function": "mc_trial", "dim": 3, "reverse": false,
                                        "grid": [[1, 1, 1], ...], "player": 2,
                                        "seeds": [1001], "cpu_limit": 5.0, "cpu": null}

imports PATH as ``student.runner`` does (the course's modules, games at import paused,
what it prints kept apart), then for each seed: builds a fresh board from ``grid`` (and
a fresh copy of ``scores``), calls ``random.seed(seed)``, and calls the function with the
course's arguments:

    mc_trial(board, player)            mc_update_scores(scores, board, player)
    get_best_move(board, scores)       mc_move(board, player, trials)

It writes one JSON line: ``{"kind": "answer", "runs": [{"answer": "None", "grid_after":
[[...]], "scores_after": [[...]], "move": [0, 2]}, ...], "constants": {"SCORE_CURRENT":
1.0, ...}, "cpu_seconds": ...}``; ``{"kind": "missing"}`` when the file does not define the
function; the other kinds as ``student.runner`` (``student.checks``). The calls of all the
seeds share ``cpu_limit`` seconds of CPU time.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable, NoReturn

from provided.answers import plain, show
from provided.board import TTTBoard
from student.runner import _cpu_limit, _cpu_time, _own_frames, call_loaded, serve

# The course's signatures: what each function is called with, in words.
SIGNATURES = {
    "mc_trial": "mc_trial(board, player)",
    "mc_update_scores": "mc_update_scores(scores, board, player)",
    "get_best_move": "get_best_move(board, scores)",
    "mc_move": "mc_move(board, player, trials)",
}
CONSTANTS = ("NTRIALS", "SCORE_CURRENT", "SCORE_OTHER")


def main() -> None:
    serve(call_function)


def call_function(path: Path, request: dict[str, Any],
                  out_of_time: Callable[..., NoReturn] | None = None) -> dict[str, Any]:
    """Load ``path`` and call ``request["function"]`` once per seed (see the module's doc).

    Returns a JSON-ready dict; every failure of the student's code is reported, not raised.
    """
    name = request["function"]

    def call(module: Any, stopped: Callable[..., NoReturn] | None) -> dict[str, Any]:
        function = getattr(module, name, None)
        constants = {constant: _number(getattr(module, constant, None))
                     for constant in CONSTANTS}
        if not callable(function):
            return {"kind": "missing", "constants": constants,
                    "message": f"your file defines no function {SIGNATURES[name]}"}
        result = _runs(path, function, request, stopped)
        result["constants"] = constants
        return result

    return call_loaded(path, lambda module: module, call, out_of_time)


def _runs(path: Path, function: Callable[..., Any], request: dict[str, Any],
          out_of_time: Callable[..., NoReturn] | None) -> dict[str, Any]:
    """Call ``function`` once per seed, each time on a fresh board and scores."""
    runs = []
    start = _cpu_time()
    try:
        with _cpu_limit(request.get("cpu_limit"), out_of_time, start):
            for seed in request["seeds"]:
                board = TTTBoard(request["dim"], request["reverse"], request["grid"])
                scores = [list(row) for row in request.get("scores") or ()]
                random.seed(seed)
                answer = function(*_arguments(request, board, scores))
                runs.append(_describe(answer, board, scores))
    except NotImplementedError as exc:
        return {"kind": "not_written", "message": str(exc)}
    except (Exception, SystemExit) as exc:
        return {"kind": "error", "message": _own_frames(exc, path),
                "cpu_seconds": _cpu_time() - start}
    return {"kind": "answer", "runs": runs, "cpu_seconds": _cpu_time() - start}


def _arguments(request: dict[str, Any], board: TTTBoard, scores: list) -> tuple:
    name, player = request["function"], request.get("player")
    if name == "mc_trial":
        return board, player
    if name == "mc_update_scores":
        return scores, board, player
    if name == "get_best_move":
        return board, scores
    return board, player, request["trials"]


def _describe(answer: Any, board: TTTBoard, scores: list) -> dict[str, Any]:
    """The answer as a student reads it, the move if it is one, the board and scores after."""
    seen = plain(answer)
    run: dict[str, Any] = {"answer": show(seen)}
    if (isinstance(seen, (tuple, list)) and len(seen) == 2
            and all(type(value) is int for value in seen)):
        run["move"] = list(seen)
        if isinstance(seen, list):
            run["note"] = "returned a list [row, col]; the course asks for a tuple (row, col)"
    dim = board.get_dim()
    run["grid_after"] = [[board.square(row, col) for col in range(dim)] for row in range(dim)]
    run["scores_after"] = [[_number(value) for value in row] if isinstance(row, list)
                           else repr(row) for row in scores]
    return run


def _number(value: Any) -> float | int | str | None:
    """A number as JSON carries it; anything else as its repr (None: not defined)."""
    if value is None:
        return None
    if type(value) in (int, float):
        return value
    return repr(value)


if __name__ == "__main__":
    main()
