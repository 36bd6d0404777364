"""The command line does not change a course's dates while a server serves its folder: a
second ``serve --data same --late-deadline X`` used to store the date, then fail with
"Address already in use", and the running page ignored the date until a restart. Now it
changes nothing and says how; after the server stops (even killed), the same command works.
"""

from __future__ import annotations

from pathlib import Path

from service_helpers import add_students, open_store, start_server
from test_serve_command import run_serve

LATE = "2026-12-05T23:59:00+00:00"


def _settings(data: Path) -> dict[str, str]:
    store = open_store(data)
    try:
        return dict(store.settings())
    finally:
        store.close()


def test_the_dates_are_refused_while_a_server_serves_the_folder(tmp_path: Path):
    data = tmp_path / "course"
    add_students(data, [("ada", "Ada", "")])
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student_id,deadline,late_deadline\nada,2026-12-08T23:59,\n",
                          encoding="utf-8")
    server = start_server(data, "--deadline", "2026-12-01T23:59:00+00:00")
    try:
        before = _settings(data)
        refused = run_serve(data, "--late-deadline", LATE)    # the port it serves on
        assert refused.returncode != 0
        assert "a server is serving" in refused.stderr
        assert "nothing was changed" in refused.stderr and "--late-deadline" in refused.stderr
        # The dates change on the running course: the message names the page and the API.
        assert "Course dates" in refused.stderr and "PUT /api/course" in refused.stderr
        assert "Address already in use" not in refused.stderr
        assert _settings(data) == before and "late_deadline" not in before
        # The students' own deadlines too: the page and the API change those while it serves.
        refused = run_serve(data, "--deadlines", str(extensions))
        assert refused.returncode != 0 and "Roster and links" in refused.stderr
        store = open_store(data)
        try:
            assert store.database.query("SELECT * FROM student_deadlines") == []
        finally:
            store.close()
        # Printing the links changes nothing: it still works.
        links = run_serve(data, "--links")
        assert links.returncode == 0 and "ada" in links.stdout
    finally:
        server.stop(kill=True)          # a crash: the kernel lets go of the lock
    again = start_server(data, "--late-deadline", LATE)
    try:
        assert _settings(data)["late_deadline"].startswith("2026-12-05T23:59")
    finally:
        again.stop()
