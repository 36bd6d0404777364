"""How long a call may take: the reference the limits are multiples of (``policy``), and
how a run paces its calls, tier by tier, within its budget (``pacing``). No I/O: the
sandbox times the reference and the calls (``grader.sandbox.clock``).
"""
