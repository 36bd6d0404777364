"""grader.sandbox.cpu: the CPU a sandbox runs on, and the grader's thread beside it."""

from __future__ import annotations

import os
import threading

import pytest

from grader.sandbox.cpu import beside, pick_cpu

affinity = pytest.mark.skipif(not hasattr(os, "sched_getaffinity")
                              or len(os.sched_getaffinity(0)) < 2,
                              reason="needs CPU affinity and two CPUs")


def test_a_slot_picks_its_cpu_round_robin() -> None:
    assert [pick_cpu({2, 5}, {"TTT_GRADER_CPU": str(slot)}) for slot in range(4)] == \
        [2, 5, 2, 5]
    assert pick_cpu({7}, {"TTT_GRADER_CPU": "1"}) is None


@affinity
def test_beside_pins_the_calling_thread_and_puts_it_back() -> None:
    before = os.sched_getaffinity(0)
    cpu = max(before)
    seen_elsewhere = []
    pinned = threading.Event()

    def look() -> None:
        pinned.wait(10)
        seen_elsewhere.append(os.sched_getaffinity(0))

    other = threading.Thread(target=look)   # a thread that was running already
    other.start()
    with beside(cpu):
        assert os.sched_getaffinity(0) == {cpu}
        pinned.set()
        other.join()    # it keeps the process's CPUs: only the calling thread moved
    assert os.sched_getaffinity(0) == before
    assert seen_elsewhere == [before]


@affinity
def test_beside_puts_it_back_after_an_exception() -> None:
    before = os.sched_getaffinity(0)
    with pytest.raises(KeyboardInterrupt):
        with beside(min(before)):
            raise KeyboardInterrupt
    assert os.sched_getaffinity(0) == before


def test_beside_no_cpu_or_one_not_allowed_changes_nothing() -> None:
    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    for cpu in (None, 10_000):    # no CPU chosen; a CPU this process may not use
        with beside(cpu):
            if before is not None:
                assert os.sched_getaffinity(0) == before
