"""The sandbox's own failure: not the student's (a submission's failures are LoadError and
the Reply of each call)."""


class SandboxError(RuntimeError):
    """The sandbox itself failed (bubblewrap or Python could not start, or it was closed)."""
