"""The outbox's retry schedule (grader.service.lti.outbox): a grade that waits for an LMS
that is down reaches it within a minute of its return, however long it was down (the
semester drill, tests/benchmarks/bench_semester.py, shows the delivery after ten minutes
down), and is still not given up on for hours."""

from __future__ import annotations

from grader.service.lti import outbox


def test_a_waiting_grade_is_tried_again_within_a_minute_and_for_hours() -> None:
    delays = [outbox.delay(attempts) for attempts in range(1, outbox.MAX_ATTEMPTS + 1)]
    # The sender asks a platform that is down again once its rest (the last failure's
    # delay) is over: it finds the platform back at most that long after its return.
    assert max(delays) <= outbox.MAX_DELAY < 60
    assert delays[0] == outbox.BASE_DELAY
    assert sum(delays) >= 6 * 3600               # about seven hours before "failed"
