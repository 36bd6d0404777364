"""How a run is spread over the CPUs, and test timeouts that follow the work a test does
and the machine it runs on.

Test files run on two pytest-xdist workers (``WORKERS``) where the machine has two CPUs or
more; ``-n 0`` runs them all in one process, ``-n 4`` on four.

pytest-timeout's ``timeout`` (setup.cfg: 300 s) stops a test that hangs. A test that grades
real submissions (in its own body or in the fixtures it is the first to use) says how many
with ``@pytest.mark.grades(N, jobs=J)``: N grades, J at a time. It may then take
``GRADE_SECONDS`` per round of J, and on a machine busier than it has cores (a shared
server: load 4 to 8 on 2 cores), every timeout is multiplied by the load per core. So a TA
checking an install on a busy server gets a green run, and a test that hangs is still
stopped. A ``@pytest.mark.timeout`` of the test's own wins; ``--timeout 0`` turns them all off.
"""

from __future__ import annotations

import math
import os

import pytest

# One grade's wall time, with room: the slowest fixture submission (an endless loop) takes
# about 40 s here on an idle machine, and section 7 of issue 15 bounds every grade by 150 s.
GRADE_SECONDS = 150.0


# Test files run on this many pytest-xdist workers (from the test extra) unless ``-n`` says
# otherwise (``-n 0``: all in this process). Much of a run waits (a grade's sleeping
# student, a server's poll, an import that times out), so two workers keep two CPUs busy;
# each file stays on one worker (``--dist loadfile``), so a module's fixtures are built once.
WORKERS = 2


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Two workers by default, where pytest-xdist is installed and distributing makes sense."""
    if (not config.pluginmanager.hasplugin("xdist")
            or "PYTEST_XDIST_WORKER" in os.environ or hasattr(config, "workerinput")  # a worker
            or config.getoption("numprocesses", None) is not None
            or config.getoption("usepdb", False) or config.getoption("collectonly", False)
            or (os.cpu_count() or 1) < 2):
        return
    config.option.numprocesses = WORKERS
    if config.getoption("dist", "no") == "no":
        config.option.dist = "loadfile"


def machine_factor() -> float:
    """How much busier than its cores the machine is now (1 when it is not).

    >>> machine_factor() >= 1
    True
    """
    try:
        load = os.getloadavg()[0]
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):    # not Linux
        return 1.0
    return max(1.0, load / max(1, cores))


def base_timeout(config: pytest.Config) -> float:
    """The timeout pytest-timeout applies to a test without a marker of its own (0: off),
    looked up as it does: --timeout, then PYTEST_TIMEOUT, then the ini file."""
    try:
        ini = config.getini("timeout")
    except ValueError:     # pytest-timeout is not installed: no timeouts to scale
        return 0.0
    for value in (config.getoption("timeout", None), os.environ.get("PYTEST_TIMEOUT"), ini):
        if value not in (None, ""):
            return float(value)
    return 0.0


def scaled_timeout(base: float, grades: int = 0, jobs: int = 1, factor: float = 1.0) -> float:
    """The timeout of a test that grades ``grades`` submissions ``jobs`` at a time.

    >>> scaled_timeout(300, grades=17, jobs=2), scaled_timeout(300, factor=2.5)
    (1350.0, 750.0)
    """
    rounds = math.ceil(grades / max(1, jobs))
    return max(base, GRADE_SECONDS * rounds) * factor


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    base = base_timeout(config)
    if not base:
        return
    factor = machine_factor()
    for item in items:
        if item.get_closest_marker("timeout") is not None:
            continue
        marker = item.get_closest_marker("grades")
        grades = int(marker.args[0]) if marker is not None and marker.args else 0
        jobs = int(marker.kwargs.get("jobs", 1)) if marker is not None else 1
        seconds = scaled_timeout(base, grades, jobs, factor)
        if seconds != base:
            item.add_marker(pytest.mark.timeout(seconds))


@pytest.fixture
def load_factor() -> float:
    """How much busier than its cores the machine is (1 when it is not): a test's bound on
    how long something takes, for containment not speed, is multiplied by it."""
    return machine_factor()
