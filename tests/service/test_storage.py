"""The course's database: tokens stored hashed, limits checked with the insert, the queue's
claims atomic, what a killed server left running queued again."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from grader.service.course import auth, schema
from grader.service.course.class_queries import regrade_submissions
from grader.service.course.storage import (MAX_ATTEMPTS, InFlight, Store, TooMany, format_time,
                                           parse_time)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "course.sqlite3", b"k" * 32)
    store.ensure_instructor()
    store.upsert_students([("alice", "Alice", "a@example.org"), ("bob", "Bob", "b@example.org")])
    yield store
    store.close()


def test_tokens_sign_in_and_only_their_hash_is_stored(store: Store, tmp_path: Path):
    links = {link.student_id: link.link for link in store.student_links("http://h")}
    tokens = {who: link.rsplit("/", 1)[1] for who, link in links.items()}
    assert set(tokens) == {"alice", "bob", "instructor"}
    assert all(len(token) >= 43 for token in tokens.values())      # 256 bits
    assert store.identify(tokens["alice"]).student == "alice"
    assert store.identify(tokens["instructor"]).is_instructor
    assert store.identify(tokens["alice"][:-1] + "x") is None
    store.close()
    raw = (tmp_path / "course.sqlite3").read_bytes()
    for token in tokens.values():
        assert token.encode() not in raw
        assert auth.hash_token(token).encode() in raw


def test_a_revoked_or_renewed_link_stops_working(store: Store):
    old = store.student_token("alice")
    store.set_revoked("alice")
    assert store.identify(old) is None
    new = store.renew_student_token("alice")
    assert new != old and store.identify(old) is None
    assert store.identify(new).student == "alice"


def test_a_student_named_instructor_is_refused(store: Store):
    with pytest.raises(ValueError, match="instructor"):
        store.upsert_students([("instructor", "X", "")])


def test_one_in_flight_and_per_hour_are_checked_with_the_insert(store: Store):
    first = store.add_submission("alice", "a.py", b"x = 1\n", late=False, config="default",
                                 one_in_flight=True, per_hour=2)
    with pytest.raises(InFlight) as refused:
        store.add_submission("alice", "a.py", b"x = 2\n", late=False, config="default",
                             one_in_flight=True, per_hour=2)
    assert refused.value.row.id == first.id
    store.claim_next("w")
    store.finish(first.id, score=1, max_score=1, results_json="{}", report_text="", seconds=1)
    store.add_submission("alice", "a.py", b"x = 3\n", late=False, config="default",
                         per_hour=2)
    with pytest.raises(TooMany) as limited:
        store.add_submission("alice", "a.py", b"x = 4\n", late=False, config="default",
                             per_hour=2)
    assert limited.value.oldest == first.received_at
    later = format_time(parse_time(first.received_at).replace(year=2100))
    store.add_submission("alice", "a.py", b"x = 5\n", late=False, config="default",
                         per_hour=2, received_at=later)
    assert [row.id for row in store.history("bob")] == []


def test_each_queued_submission_is_claimed_once(store: Store):
    numbers = [store.add_submission(student, "a.py", b"x\n", late=False, config="c").id
               for student in ("alice", "bob") * 10]
    claimed: list[int] = []

    def claim() -> None:
        while (row := store.claim_next(threading.current_thread().name)) is not None:
            claimed.append(row.id)

    threads = [threading.Thread(target=claim) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claimed) == numbers


def test_a_failed_run_is_retried_once_then_error_and_an_instructor_retry_queues_it(store: Store):
    number = store.add_submission("alice", "a.py", b"x\n", late=False, config="c").id
    for attempt in range(1, MAX_ATTEMPTS + 1):
        row = store.claim_next("w")
        assert (row.id, row.attempts) == (number, attempt)
        status = store.fail(number, "it hung")
    assert status == "error" and store.submission(number).status == "error"
    assert store.claim_next("w") is None
    assert store.retry(number) and store.submission(number).status == "queued"


def test_hand_ins_are_graded_before_the_instructors_regrades_and_are_not_held_by_them(
        store: Store):
    def grade_all() -> list[int]:
        order = []
        while (row := store.claim_next("w")) is not None:
            store.finish(row.id, score=100, max_score=100, results_json="{}", report_text="",
                         seconds=1)
            order.append(row.id)
        return order

    alice = store.add_submission("alice", "a.py", b"x\n", late=False, config="c").id
    bob = store.add_submission("bob", "b.py", b"x\n", late=False, config="c").id
    assert grade_all() == [alice, bob]
    assert regrade_submissions(store, [alice, bob]) == [alice, bob]
    # Alice hands in while her old file waits for its regrade: taken, and graded first.
    newer = store.add_submission("alice", "a.py", b"y\n", late=False, config="c",
                                 one_in_flight=True).id
    assert [row.id for row in store.queue()] == [newer, alice, bob]
    assert [store.queue_position(n) for n in (newer, alice, bob)] == [1, 2, 3]
    assert grade_all() == [newer, alice, bob]
    # A retry of a submission that ended in error is a first grade again, not a regrade.
    errored = store.add_submission("bob", "b.py", b"z\n", late=False, config="c").id
    for _ in range(MAX_ATTEMPTS):
        store.claim_next("w")
        store.fail(errored, "it hung")
    assert regrade_submissions(store, [alice]) == [alice]
    assert store.retry(errored)
    assert grade_all() == [errored, alice]


def test_a_store_from_before_regrades_queued_last_opens_and_keeps_its_rows(tmp_path: Path):
    path = tmp_path / "old.sqlite3"
    store = Store(path, b"k" * 32)
    store.upsert_students([("alice", "Alice", "")])
    number = store.add_submission("alice", "a.py", b"x\n", late=False, config="c").id
    store.close()
    old = sqlite3.connect(path)                      # as the first release left it
    for index in ("submissions_queue", "submissions_done"):
        old.execute(f"DROP INDEX {index}")
    old.execute("ALTER TABLE submissions DROP COLUMN regrade")
    for table in ("earlier_results", "result_facts", "student_deadlines", "adjustments",
                  "changes", "sessions"):
        old.execute(f"DROP TABLE {table}")
    old.execute("UPDATE settings SET value = '1' WHERE key = 'schema'")
    old.commit()
    old.close()
    again = Store(path, b"k" * 32)                   # migrated on open, rows kept
    assert again.settings()["schema"] == str(schema.VERSION)
    assert again.claim_next("w").id == number
    assert regrade_submissions(again, []) == []      # the later tables are there
    again.close()


def test_a_course_from_a_newer_release_is_refused_with_what_to_do(tmp_path: Path):
    path = tmp_path / "new.sqlite3"
    Store(path, b"k" * 32).close()
    newer = sqlite3.connect(path)
    newer.execute("UPDATE settings SET value = '999' WHERE key = 'schema'")
    newer.commit()
    newer.close()
    with pytest.raises(schema.SchemaError, match="upgrade the grader"):
        Store(path, b"k" * 32)


def test_the_database_file_is_the_instructors_alone(tmp_path: Path):
    store = Store(tmp_path / "course.sqlite3", b"k" * 32)
    store.upsert_students([("alice", "Alice", "")])
    store.close()
    modes = {path.name: path.stat().st_mode & 0o777 for path in tmp_path.iterdir()}
    assert modes["course.sqlite3"] == 0o600
    assert all(mode == 0o600 for name, mode in modes.items() if name.startswith("course"))


def test_after_a_crash_running_rows_are_queued_again_with_the_attempt_counted(store: Store,
                                                                              tmp_path: Path):
    number = store.add_submission("alice", "a.py", b"x\n", late=False, config="c").id
    store.claim_next("w")
    store.close()                        # the server dies with the row "running"
    again = Store(tmp_path / "course.sqlite3", b"k" * 32)
    assert again.recover() == 1
    row = again.submission(number)
    assert (row.status, row.attempts) == ("queued", 1)
    again.close()


def test_a_submission_is_committed_when_add_returns(store: Store, tmp_path: Path):
    row = store.add_submission("bob", "b.py", b"print(1)\n", late=True, config="c")
    other = sqlite3.connect(tmp_path / "course.sqlite3")     # another process's view
    found = other.execute("SELECT student, bytes, sha256, late FROM submissions WHERE id = ?",
                          (row.id,)).fetchone()
    other.close()
    assert found == ("bob", b"print(1)\n", row.sha256, 1)
    assert store.submission(row.id, student="alice") is None


def test_revoking_or_renewing_a_link_ends_the_sessions_it_opened(store: Store):
    from grader.service import sessions
    hashes = {who: auth.hash_token(store.student_token(who)) for who in ("alice", "bob")}
    instructor = store.get_setting("instructor_token_hash")
    opened = sessions.Sessions(store.database, b"k" * 32)
    for token_hash in (*hashes.values(), instructor):
        opened.start(token_hash)
    store.set_revoked("alice")
    store.renew_student_token("bob")
    store.renew_instructor_token()
    ended = {row["token_hash"]: row["ended_at"] is not None
             for row in store.database.query("SELECT * FROM sessions")}
    assert ended == {hashes["alice"]: True, hashes["bob"]: True, instructor: True}
    store.set_revoked("alice", False)                 # restored: its old sessions stay ended
    assert all(row["ended_at"] for row in store.database.query("SELECT * FROM sessions"))
