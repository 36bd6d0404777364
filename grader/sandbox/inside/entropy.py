"""Inside the sandbox: every source of randomness a submission may use follows one seed.

The grader seeds ``random`` before each check (``reseed``), so a random player makes the
same moves on every run, on any machine. A file may also draw randomness otherwise:
``random.seed()`` with no argument (which reads the system's entropy), a fresh
``random.Random()``, ``random.SystemRandom``, ``os.urandom``, ``secrets``, ``uuid.uuid4``.
:func:`install` makes each of those draw from a generator that ``reseed`` resets too, so
they are random in the same way for every run. What cannot be replayed stays as it is: a
seed made from the clock (``random.seed(time.time())``) or from ``id()``.

Standard library only, imported by the worker before the submission's folder is on the path;
``random`` itself is imported only when ``install`` runs (the reference worker never needs it).
"""

_state = {}


def install():
    """Route the standard library's sources of entropy through one seeded generator."""
    import os
    import random
    if _state:
        return
    original_seed = random.Random.seed
    source = random.Random(0)      # ours: the entropy the others draw from
    _state["source"] = source
    _state["random"] = random

    def seed(self, a=None, version=2):
        if a is None:
            a = source.getrandbits(64)
        original_seed(self, a, version)

    def urandom(size):
        return source.getrandbits(8 * size).to_bytes(size, "little") if size else b""

    class SystemRandom(random.Random):
        """random.SystemRandom, drawing from the grader's seeded generator."""

        def __init__(self, x=None):
            super().__init__(source.getrandbits(64) if x is None else x)

        def seed(self, *args, **kwargs):
            return None   # as SystemRandom: seeding it does nothing

    random.Random.seed = seed
    random.seed = random._inst.seed   # the module's function is a method bound at import
    random.SystemRandom = SystemRandom
    random._urandom = urandom
    os.urandom = urandom


def reseed(value):
    """Seed ``random`` and every source ``install`` routed, for one check."""
    _state["source"].seed(value)
    _state["random"].seed(value)
