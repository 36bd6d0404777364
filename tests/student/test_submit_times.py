"""``python3 -m student submit`` shows the server's times as a person reads them, in the
student's own time zone ("Tue 1 Dec 23:59 (your time)"): it printed the raw ISO time the
API gives, in UTC ("2026-12-01T22:59:30.512345Z")."""

from __future__ import annotations

import hashlib
import io
import time
from datetime import datetime

import pytest

from student import submit


@pytest.fixture
def paris(monkeypatch):
    """This computer's zone is Paris (UTC+1 in December) for the test, and back after."""
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_server_time_reads_in_the_students_zone(paris):
    assert submit.local_time("2026-12-01T22:59:30.512345Z", datetime(2026, 11, 30)) == \
        "Tue 1 Dec 23:59 (your time)"
    assert submit.local_time("2026-12-01T23:30:00Z", datetime(2026, 11, 30)) == \
        "Wed 2 Dec 00:30 (your time)"                 # already the next day in Paris
    assert submit.local_time("2025-07-01T10:00:00+00:00", datetime(2026, 1, 5)) == \
        "Tue 1 Jul 2025 12:00 (your time)"           # summer time, and another year
    assert submit.local_time("not a time") == "not a time"


def test_submit_prints_when_it_was_received_in_local_time(paris, monkeypatch, tmp_path):
    player = tmp_path / "mm_player.py"
    player.write_text("def mm_move(board, player):\n    return 0, (-1, -1)\n")
    digest = hashlib.sha256(player.read_bytes()).hexdigest()
    received = submit.Received(7, "queued", "2026-12-01T22:59:30.512345Z", 51, digest, 1,
                               number=4)
    monkeypatch.setattr(submit, "hand_in", lambda link, path, assignment=None: received)
    monkeypatch.setattr(submit, "page_limit", lambda link: None)     # a page that says none
    monkeypatch.setattr(submit, "wait_until_graded", lambda *args: {
        "status": "done", "report": "Score: 100 / 100", "score_text": "Score: 100 / 100"})
    monkeypatch.setattr(submit, "datetime", _FixedNow)
    out, err = io.StringIO(), io.StringIO()
    status = submit.submit_main(["--link", "http://127.0.0.1:9/s/token", "--file", str(player),
                                 "--config", str(tmp_path / "link.json")], stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    # The student's fourth hand-in, as the page calls it (its id in the course is 7).
    assert "Received: hand-in 4 at Tue 1 Dec 23:59 (your time), 51 bytes" in out.getvalue()
    assert "2026-12-01T22:59" not in out.getvalue()


class _FixedNow(datetime):
    """``datetime`` whose now() is in 2026, so that the year is not shown."""

    @classmethod
    def now(cls, tz=None):
        return datetime(2026, 11, 30, 12, 0, tzinfo=tz)
