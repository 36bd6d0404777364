"""Grading processes that end with the process that started them: Linux's
``PR_SET_PDEATHSIG``, so that a batch or a server killed outright (even with SIGKILL) leaves
no grade running as an orphan. Elsewhere it does nothing.

    subprocess.Popen(argv, preexec_fn=functools.partial(die_with, os.getpid()))
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Callable


def _load_prctl() -> Callable[[int, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()      # loaded once: a child between fork and exec imports nothing
PR_SET_PDEATHSIG = 1


def die_with(parent: int) -> None:  # pragma: no cover - in the child, before exec
    """In a child: get SIGTERM when ``parent`` (its parent's pid) ends; exit at once if it
    ended already.

    >>> die_with(os.getppid()) is None
    True
    """
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:     # it ended before the line above
            os._exit(1)
