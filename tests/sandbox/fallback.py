"""Whether the sandbox's fallback (no bubblewrap) runs here, for the tests that use it.

As root on a kernel without Landlock, the fallback keeps no capability and refuses to run
a student's code unless file permissions keep the grader's folder out of its reach; in a
checkout open to every user it refuses, and the tests of the fallback are skipped with its
reason (``tests/sandbox/test_confinement.py`` tests that refusal itself).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

import grader
from grader.sandbox import SandboxError
from grader.sandbox.layers import fallback_rights, landlock_problem


def fallback_problem() -> str | None:
    """Why the fallback refuses to start here, or None if it runs."""
    if os.geteuid() != 0 or landlock_problem() is None:
        return None
    box = Path(tempfile.mkdtemp(prefix="ttt-probe-"))
    try:
        box.chmod(0o755)
        fallback_rights(box, (Path(grader.__file__).resolve().parent,))
    except SandboxError as exc:
        return f"the fallback refuses to run here: {exc}"
    finally:
        shutil.rmtree(box, ignore_errors=True)
    return None


FALLBACK_PROBLEM = fallback_problem()
FALLBACK = pytest.mark.skipif(FALLBACK_PROBLEM is not None, reason=str(FALLBACK_PROBLEM))
