"""The sandbox: the student's code in a process of its own; only answers come back.

One concern a module:

- ``box``: :class:`Sandbox`, the small API the grader uses (start, call, calibrate,
  reference_seconds, close);
- ``submission``: reading a submission and saying why it cannot run (with
  ``provided.python2``'s hints);
- ``cpu``: the one CPU a sandbox's workers (the student's and the reference's) run on;
- ``process``: the worker's process, its pipes, and killing it with all it started;
- ``family``: every process the worker starts, counted (a cgroup, or /proc) and ended
  when its call ends;
- ``protocol``: what travels on the pipes, and how an answer is read;
- ``clock``: a call's CPU time, read from /proc, and when it must stop;
- ``disk``: the box's folder, and the scratch folder's limit without bubblewrap;
- ``helpers``: the modules beside a submission that it imports, copied into its box;
- ``layers``, ``uids``, ``limits``: bubblewrap, Landlock (and what is refused without
  either), a uid of its own, rlimits;
- ``inside/``: the code that runs in the sandbox (standard library only).

    with Sandbox(Path("mm_player.py")) as box:
        reply = box.call("mm_move", Position.empty(3), cpu_limit=5.0)
"""

from grader.sandbox.box import Sandbox
from grader.sandbox.errors import SandboxError
from grader.sandbox.layers import bwrap_available
from grader.sandbox.limits import Limits
from grader.sandbox.protocol import Opaque, Reply
from provided.python2 import python2_fix
from grader.sandbox.submission import LoadError, read_submission
from grader.sandbox.uids import SANDBOX_UIDS

__all__ = ["Sandbox", "SandboxError", "Limits", "Reply", "Opaque", "LoadError",
           "read_submission", "python2_fix", "bwrap_available", "SANDBOX_UIDS"]
