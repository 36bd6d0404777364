"""``python3 -m student submit`` against the real server (``grader serve``), as a student runs it.

Each test runs the command in a subprocess, with the kept link in a temporary file
(``--config``) so that the handout's own ``student/.ttt-submit.json`` is never touched.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "tests" / "submissions" / "grader"
FAST = SUBMISSIONS / "correct_pruned.py"       # correct, graded in a few seconds
ROSTER = "id,name,email\nada,Ada Lovelace,ada@example.org\nalan,Alan Turing,alan@example.org\n"
QUICK_BUG = SUBMISSIONS / "bug_crash.py"      # raises in every call: graded in seconds
SUBMIT_SECONDS = 280


def submit(*options: str, config: Path) -> subprocess.CompletedProcess:
    """``python3 -m student submit --config CONFIG OPTIONS``, from the project's folder."""
    return subprocess.run([sys.executable, "-m", "student", "submit", "--config", str(config),
                           *options], cwd=ROOT, capture_output=True, text=True,
                          timeout=SUBMIT_SECONDS)


def start(serve, tmp_path: Path, *options: str):
    """The server of the README (the ``serve`` fixture of conftest.py) with a roster of two."""
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    return serve(tmp_path / "course", "--roster", str(roster), *options)


def link(server, student_id: str) -> str:
    return f"{server.url}/s/{server.token(student_id)}"


def test_no_link_yet_exits_2_and_says_how_to_get_one(tmp_path: Path) -> None:
    done = submit(config=tmp_path / "none.json")
    assert done.returncode == 2, done.stderr
    assert "No submission link yet" in done.stderr
    assert "python3 -m student submit --link http://HOST:PORT/s/TOKEN" in done.stderr
    assert not (tmp_path / "none.json").exists()


def test_a_link_that_is_not_one_exits_2(tmp_path: Path) -> None:
    done = submit("--link", "http://127.0.0.1:1/submissions/3", config=tmp_path / "c.json")
    assert done.returncode == 2
    assert "is not a submission link" in done.stderr


@pytest.mark.grades(2)
def test_a_correct_file_gets_its_report_and_100_then_the_kept_link_hands_in_a_bug(
        serve, tmp_path: Path) -> None:
    server = start(serve, tmp_path)
    config = tmp_path / "submit.json"

    done = submit("--link", link(server, "ada"), "--file", str(FAST), config=config)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "Received: hand-in 1 " in done.stdout        # as the page calls it
    assert f"{FAST.stat().st_size} bytes" in done.stdout
    assert "[ok] time" in done.stdout                  # the report, as grade prints it
    assert "Score: 100 / 100." in done.stdout
    assert f"{server.url}/submissions/" in done.stdout
    # The link is kept for the next time, readable by its owner only.
    assert json.loads(config.read_text()) == {"link": link(server, "ada")}
    assert stat.S_IMODE(config.stat().st_mode) == 0o600

    again = submit("--file", str(QUICK_BUG), config=config)     # no --link: the kept one

    assert again.returncode == 0, again.stdout + again.stderr   # graded, whatever the score
    assert "mm_move(TTTBoard(" in again.stdout                  # a failure with its call
    assert "Score: 100 / 100" not in again.stdout
    history = server.client("ada").get("/api/submissions").json()["submissions"]
    assert len(history) == 2


@pytest.mark.grades(1)
def test_refusals_print_the_servers_message_and_exit_1(serve, tmp_path: Path) -> None:
    server = start(serve, tmp_path, "--max-size", "2000", "--per-hour", "1")
    big = tmp_path / "mm_player.py"
    big.write_text("# padding\n" * 300)       # 3,000 bytes: over the 2,000 limit

    too_large = submit("--link", link(server, "ada"), "--file", str(big),
                       config=tmp_path / "ada.json")

    assert too_large.returncode == 1
    answer = server.client("ada").post("/api/submissions", files={"file": (
        "mm_player.py", big.read_bytes())})
    assert answer.status_code == 413 and "the limit is 2.0 KiB" in answer.json()["error"]
    # Not even sent: the page's limit (GET /api/limits) is checked first.
    assert "mm_player.py is too large (2.9 KiB; the page's limit is 2.0 KiB), so it was " \
           "not sent" in too_large.stderr
    assert (tmp_path / "ada.json").exists()       # the server knew the link: it is kept

    first = submit("--link", link(server, "alan"), "--file", str(QUICK_BUG),
                   config=tmp_path / "alan.json")
    assert first.returncode == 0, first.stdout + first.stderr
    rate_limited = submit("--file", str(QUICK_BUG), config=tmp_path / "alan.json")

    assert rate_limited.returncode == 1
    assert "The server refused it: " in rate_limited.stderr
    # When, once: the server's message says it (issue 34: it was said twice).
    assert "you can submit again at " in rate_limited.stderr
    assert "Try again in " not in rate_limited.stderr
    assert " 0 min)" not in rate_limited.stderr          # "in 1 h", not "in 1 h 0 min"

    forged = submit("--link", f"{server.url}/s/not-a-real-token", config=tmp_path / "f.json")

    assert forged.returncode == 1
    assert "Ask your instructor for a new link" in forged.stderr
    assert not (tmp_path / "f.json").exists()          # a refused link is not kept


@pytest.mark.grades(1)
def test_a_late_hand_in_prints_the_final_score_and_the_graders(serve, tmp_path: Path) -> None:
    # Issue 34: "Score: 100 / 100 (late)" where the page said the final score was 90.
    server = start(serve, tmp_path, "--deadline", "2020-01-01T00:00:00+00:00",
                   "--late-deadline", "2100-01-01T00:00:00+00:00", "--late-penalty",
                   "10%/day,max=10%")

    done = submit("--link", link(server, "ada"), "--file", str(FAST),
                  config=tmp_path / "ada.json")

    assert done.returncode == 0, done.stdout + done.stderr
    final = "Final score: 90 / 100 (the grader's 100, late penalty -10)"
    assert done.stdout.count(final) == 2           # the report's heading, and the last line
    assert "Score: 100 / 100" not in done.stdout    # never the grader's as if it were final
    assert f"{final}. The page: {server.url}/submissions/" in done.stdout
