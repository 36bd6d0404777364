"""The answer channel: what the parent asks, what it accepts back, and how it reads it.

One JSON line per request and one per answer, on private pipes, each answer echoing its
request's fresh random token (a batch of calls is one request, answered by one line that
holds an answer per call, in order). An answer has exactly the fields the worker sends, and
the student's value comes back type-tagged (see the worker's encoder), so nothing the
student returns is ever unpickled, evaluated, or taken for what it imitates.

>>> decode({"t": "tuple", "v": [{"t": "int", "v": 0}, {"t": "bool", "v": True}]})
(0, True)
>>> decode({"t": "other", "type": "Liar", "repr": "<Liar>"})
<Liar> (a Liar)
"""

from __future__ import annotations

from dataclasses import dataclass

from provided.answers import CUT, Opaque
from grader.judge.position import Position
from provided.python2 import innermost_line, python2_hint

FUNCTIONS = ("mm_move", "move_wrapper")
ANSWER_FIELDS = {"tok", "status", "answer", "board", "error"}
MAX_ANSWER = 1 << 20            # bytes of one answer line; the worker's encoding stays far below
MAX_ERROR = 8000                # characters of an error text kept


class Broken(Exception):
    """The worker died, closed its pipe, or sent something that is not a valid answer."""

    def __init__(self, reason: str, ended: bool = False) -> None:
        super().__init__(reason)
        self.ended = ended  # the answer pipe reached its end: the process is probably exiting


def call_request(function: str, position: Position, trials: int) -> dict:
    return {"op": "call", "fn": function, "dim": position.dim, "cells": position.cells,
            "player": position.player, "reverse": position.reverse, "trials": trials}


def batch_request(function: str, positions: list[Position], trials: int) -> dict:
    """Several calls of ``function``, made one after the other and answered together."""
    return {"op": "calls", "fn": function, "trials": trials,
            "items": [[p.dim, p.cells, p.player, p.reverse] for p in positions]}


def replies_from_batch(message: dict, positions: list[Position], output: str, cpu: float,
                       active: float) -> list["Reply"]:
    """The Replies of a batch's answer line, one per position, checked as one answer each;
    Broken if it is not one. The batch was timed as a whole: each call is given an equal
    share of its CPU and active seconds (each used at most the whole), and the first call
    the output printed during the batch."""
    answers = message.get("answers")
    if message.get("status") != "calls" or set(message) != {"tok", "status", "answers"} \
            or type(answers) is not list or len(answers) != len(positions):
        raise Broken("sent a batch's answer of the wrong shape")
    share, active_share = cpu / len(positions), active / len(positions)
    replies = []
    for answer, position in zip(answers, positions):
        if type(answer) is not dict or "tok" in answer:
            raise Broken("sent a batch's answer of the wrong shape")
        replies.append(reply_from(answer, position, "" if replies else output, share,
                                  active_share))
    return replies


def reply_from(message: dict, position: Position, output: str, cpu: float,
               active: float) -> "Reply":
    """The Reply of one answer line, checked field by field; Broken if it is not one."""
    status = message.get("status")
    if status not in ("ok", "error"):
        raise Broken("sent an answer of an unknown kind")
    if not set(message) <= ANSWER_FIELDS:  # the worker never sends anything else
        raise Broken("sent an answer with fields the worker never sends")
    board = message.get("board")
    size = position.dim * position.dim
    if type(board) is list and len(board) == size and all(type(v) is int for v in board):
        board_after: tuple[int, ...] | None = tuple(board)
    elif board is None:
        board_after = None
    else:
        raise Broken("sent a bad board")
    if status == "ok":
        return Reply("ok", decode(message.get("answer")), cpu, board_after, output, "", active)
    error = text_of(message.get("error"))[:MAX_ERROR]
    hint = python2_hint(error.partition("\n")[0], innermost_line(error))
    if hint:
        error += f"\nThis looks like Python 2: {hint}"
    return Reply("error", None, cpu, board_after, output, error, active)


@dataclass(frozen=True)
class Reply:
    """What one call produced.

    ``status`` is "ok" (``answer`` holds the decoded value), "error" (the function raised;
    ``error`` says what and where), "timeout" or "crash" (the worker died or sent garbage;
    it is restarted before the next call). ``cpu_seconds`` is measured from outside the
    worker; ``active_seconds`` is the wall time minus the time it waited for a CPU.
    ``waited`` is true for a timeout that came from waiting (sleep, input, a lock) rather
    than computing: the machine's load cannot have caused it.
    """

    status: str
    answer: object
    cpu_seconds: float
    board_after: tuple[int, ...] | None
    output: str
    error: str
    active_seconds: float = 0.0
    waited: bool = False
    after: tuple = ()     # an invoke's arguments as the call left them (see reply_from_invoke)


def invoke_request(function: str, args: list[dict], seed: int) -> dict:
    """Call any function of the submission by name; ``args`` are tagged as the worker's
    ``invoke`` reads them: ``{"board": [dim, cells, reverse]}``, ``{"grid": rows}`` or
    ``{"value": v}``. The worker seeds ``random`` with ``seed`` first.

    >>> invoke_request("get_best_move", [{"grid": [[0.0]]}], 7)["op"]
    'invoke'
    """
    return {"op": "invoke", "fn": function, "args": args, "seed": seed}


def reply_from_invoke(message: dict, args: list[dict], output: str, cpu: float,
                      active: float) -> "Reply":
    """The Reply of an ``invoke`` answer: the decoded value, and in ``after`` what the call
    left in each argument (a board's cells as a tuple, a grid decoded, None); Broken if
    the answer is not one the worker sends."""
    status = message.get("status")
    if status not in ("ok", "error") or not set(message) <= {"tok", "status", "answer",
                                                               "after", "error"}:
        raise Broken("sent an answer of an unknown kind")
    raw = message.get("after")
    if raw is None:
        after: tuple = tuple(None for _ in args)
    elif type(raw) is list and len(raw) == len(args):
        states = []
        for arg, state in zip(args, raw):
            if "board" in arg and state is not None:
                size = arg["board"][0] ** 2
                if type(state) is not list or len(state) != size \
                        or not all(type(v) is int for v in state):
                    raise Broken("sent a bad board")
                states.append(tuple(state))
            elif "grid" in arg and state is not None:
                states.append(decode(state))
            else:
                states.append(None)
        after = tuple(states)
    else:
        raise Broken("sent an answer of the wrong shape")
    if status == "ok":
        return Reply("ok", decode(message.get("answer")), cpu, None, output, "", active,
                     after=after)
    error = text_of(message.get("error"))[:MAX_ERROR]
    hint = python2_hint(error.partition("\n")[0], innermost_line(error))
    if hint:
        error += f"\nThis looks like Python 2: {hint}"
    return Reply("error", None, cpu, None, output, error, active, after=after)


def reference_request(position: Position) -> dict:
    return {"op": "ref", "dim": position.dim, "cells": position.cells,
            "player": position.player, "reverse": position.reverse}


def decode(node: object, depth: int = 0) -> object:
    """Turn the worker's type-tagged JSON into a Python value; raise Broken on nonsense.

    >>> decode({"t": "tuple", "v": [{"t": "int", "v": 0}, {"t": "bool", "v": True}]})
    (0, True)
    >>> decode({"t": "other", "type": "Liar", "repr": "<Liar>"})
    <Liar> (a Liar)
    """
    if type(node) is not dict or depth > 20:
        raise Broken("sent a malformed answer")
    kind, value = node.get("t"), node.get("v")
    if kind == "none":
        return None
    if kind == "bool" and type(value) is bool:
        return value
    if kind == "int":
        if type(value) is int:
            return value
        if type(node.get("bits")) is int:
            return Opaque("int", f"<an int of {node['bits']} bits>")
    if kind == "float" and type(value) is str:
        try:
            return float(value)
        except ValueError:
            pass
    if kind == "str" and type(value) is str:
        if "more" in node:
            return Opaque("str", f"{value!r}... ({text_of(node['more'])} more characters)")
        return value
    if kind in ("tuple", "list") and type(value) is list:
        items = [decode(item, depth + 1) for item in value]
        if "more" in node:
            shown = ", ".join(map(repr, items[:8]))
            return Opaque(kind, f"[{shown}, ...] ({len(items) + int_of(node['more'])} items)")
        return tuple(items) if kind == "tuple" else items
    if kind == "other" and type(node.get("type")) is str and type(node.get("repr")) is str:
        base = decode(node["base"], depth + 1) if "base" in node else None
        return Opaque(node["type"], node["repr"], base)
    if kind == "cut":
        return Opaque(CUT, "<the rest of the answer, too large to show>")
    raise Broken("sent a malformed answer")


def text_of(value: object) -> str:
    return value if type(value) is str else ""


def int_of(value: object) -> int:
    return value if type(value) is int else 0
