"""The worker's JSON: what json itself would write and read, with or without _json.

The worker reads requests and writes answers through _json (the C module json wraps), so
that it starts without importing re and enum; where _json is missing or answers otherwise,
it uses json. Either way the lines must be json's own. Run in a fresh interpreter as the
sandbox runs the worker (``-I -S``), since the worker imports its neighbours as top-level
modules.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

INSIDE = Path(__file__).resolve().parents[2] / "grader" / "sandbox" / "inside"

MESSAGES = [
    {"tok": "0123abcd", "status": "ok", "answer": {"t": "tuple", "v": [
        {"t": "int", "v": 10}, {"t": "tuple", "v": [{"t": "int", "v": -1}] * 2}]}},
    {"status": "error", "error": 'Traceback:\n  "quoted" \\ back\tslash \u00e9 \u2603 \x00',
     "cells": [1, 2, 3, 1], "cpu": 0.125, "big": 10 ** 30},
    {"floats": [0.1, -2.5e-300, 1e300, float("inf"), float("-inf")], "empty": {}, "none": [],
     "flags": [True, False, None]},
    {"op": "calls", "positions": [{"dim": 3, "cells": [1] * 9, "player": 2, "reverse": False}]},
]

PROGRAM = """
import json, sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "blocked":
    sys.modules["_json"] = None       # an interpreter without the C module
import worker
messages = json.loads(sys.stdin.read())
out = {"signal": worker.signal.__name__, "dumps": [], "loads": []}
for message in messages:
    out["dumps"].append(worker._dumps(message))
    out["loads"].append(worker._loads(json.dumps(message).encode() + b"\\n"))
print(json.dumps(out))
"""


@pytest.mark.parametrize("json_module", ["present", "blocked"])
def test_the_worker_writes_and_reads_what_json_does(json_module: str) -> None:
    done = subprocess.run([sys.executable, "-I", "-S", "-c", PROGRAM, str(INSIDE), json_module],
                          input=json.dumps(MESSAGES), capture_output=True, text=True,
                          timeout=60, check=True)
    out = json.loads(done.stdout)
    assert out["dumps"] == [json.dumps(message) for message in MESSAGES]
    assert json.dumps(out["loads"]) == json.dumps(MESSAGES)   # NaN-free: == on the text
    # With _json, the worker does not import signal (it imports enum) but _signal.
    assert out["signal"] == ("_signal" if json_module == "present" else "signal")
