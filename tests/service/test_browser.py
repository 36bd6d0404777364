"""The submission page in a real browser: headless Chromium (Debian's ``chromium`` package)
driven by Playwright, against the real server started as the README says.

The story: the instructor opens their link on a new course, imports a roster of two and
downloads the links. Alan hands in first (so the queue is not empty: the server grades one
at a time). Ada signs in with her link, chooses a correct file, watches her place in the
queue and the rubric items as they finish, and reads 100; then pastes a buggy file and reads
a failure with the call to paste; she cannot open Alan's report, file or JSON (404). The
instructor sees both students and downloads the gradebook, which holds both.

Screenshots go to $TTT_SCREENSHOTS (default: the test's temporary folder), to be looked at.
Skipped, with the reason, where Playwright or Chromium is missing (``.ci/run`` installs
both; never ``playwright install``, which downloads a browser of its own).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from browser_helpers import GRADING_MS, new_page, watch_until_graded
from service_helpers import add_students

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed "
                               "(pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "tests" / "submissions" / "grader"
# A plain minimax: the style most students hand in, and slow enough to grade (about 9 s,
# its rubric items finishing over the last 4) that the live items can be watched while it
# runs (the page asks again every second then).
CORRECT = SUBMISSIONS / "correct_plain.py"
BUGGY = SUBMISSIONS / "bug_sign_error_o.py"     # scores from O's side with X's sign
FIRST_IN_QUEUE = SUBMISSIONS / "correct_pruned.py"   # graded in a few seconds: Ada waits
ROSTER = "id,name,email\nada,Ada Lovelace,ada@example.org\nalan,Alan Turing,alan@example.org\n"


def download(page, selector: str) -> str:
    """Click a link that downloads a CSV; its text (UTF-8 with or without a BOM)."""
    with page.expect_download() as info:
        page.click(selector)
    return Path(info.value.path()).read_text(encoding="utf-8-sig")


@pytest.mark.long
@pytest.mark.grades(3)
def test_a_student_and_the_instructor_in_a_browser(chromium, serve, tmp_path: Path,
                                                   shots: Path) -> None:
    server = serve(tmp_path / "course", "--jobs", "1")
    printed = "".join(server.stdout)
    instructor_link = re.search(r"(http://\S+/s/\S+)", printed).group(1)
    problems: list[str] = []

    # The instructor: a new course, a roster of two, their links.
    teacher = new_page(chromium, problems)
    teacher.goto(instructor_link)
    assert teacher.url.endswith("/instructor")
    assert "No student yet" in teacher.inner_text("main")
    teacher.click("text=Roster and links")
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    teacher.set_input_files("input[name=roster]", str(roster))
    teacher.click("button:has-text('Import')")
    assert "2 added" in teacher.inner_text("main")
    teacher.screenshot(path=str(shots / "1-instructor-roster.png"), full_page=True)
    links = {row["student_id"]: row["link"]
             for row in csv.DictReader(io.StringIO(download(teacher, "text=Download every sign-in link")))}
    assert {"ada", "alan", "instructor"} <= set(links)

    # Alan hands in first, through the JSON API, so that Ada waits in the queue.
    alan_token = links["alan"].rsplit("/", 1)[1]
    alan = server.client()
    answer = alan.post("/api/submissions", headers={"authorization": f"Bearer {alan_token}"},
                       files={"file": ("mm_player.py", FIRST_IN_QUEUE.read_bytes())})
    assert answer.status_code == 201, answer.text
    alan_id = answer.json()["id"]

    # Ada: her link, a correct file, the queue and the progress, then 100.
    ada = new_page(chromium, problems)
    ada.goto(links["ada"])
    assert "Hand in mm_player.py" in ada.inner_text("h1")
    assert "Ada Lovelace" in ada.inner_text("h1")
    assert "Nothing handed in yet" in ada.inner_text("main")
    ada.set_input_files("input[name=file]", str(CORRECT))
    ada.click("button:has-text('Hand in')")
    ada.wait_for_url(re.compile(r"/submissions/\d+$"))
    correct_url = ada.url
    received = ada.inner_text("section.received")
    assert received.startswith("Received ") and "SHA-256" in received, received
    ada.screenshot(path=str(shots / "2-student-queued.png"), full_page=True)
    statuses, items = watch_until_graded(ada)
    ada.screenshot(path=str(shots / "3-student-100.png"), full_page=True)
    assert any(status.startswith("queued: number 1 in the queue") for status in statuses), statuses
    assert any(status.startswith("running") for status in statuses), statuses
    assert items, "no rubric item was shown before the report"
    assert re.fullmatch(r".+: [\d.]+ / [\d.]+", items[0])
    assert ada.inner_text("section.report h2") == "Score: 100 / 100"

    # Ada pastes a buggy file: a failure, with the call to paste.
    ada.goto(server.url + "/")
    ada.fill("textarea[name=code]", BUGGY.read_text(encoding="utf-8"))
    ada.click("button:has-text('Hand in')")
    ada.wait_for_url(re.compile(r"/submissions/\d+$"))
    assert ada.url != correct_url
    watch_until_graded(ada)
    ada.set_viewport_size({"width": 1000, "height": 1400})
    ada.screenshot(path=str(shots / "4-student-failure.png"))
    ada.screenshot(path=str(shots / "4-student-failure-full.png"), full_page=True)
    score = ada.inner_text("section.report h2")
    assert score != "Score: 100 / 100" and score.endswith("/ 100"), score
    call = ada.locator("code.call").first.inner_text()
    assert call.startswith("mm_move(TTTBoard(") or call.startswith("move_wrapper(TTTBoard("), call
    assert ada.locator(".failure .verdict").first.inner_text().startswith("expected ")

    # Her history holds both; Alan's submission is not hers: 404 for the page, file and JSON.
    ada.goto(server.url + "/")
    assert ada.locator("table.history tbody tr").count() == 2
    ada.screenshot(path=str(shots / "5-student-history.png"), full_page=True)
    assert problems == [], problems      # no CSP violation, no script error so far
    for path in (f"/submissions/{alan_id}", f"/submissions/{alan_id}/file"):
        assert ada.goto(server.url + path).status == 404, path
    assert ada.request.get(f"{server.url}/api/submissions/{alan_id}").status == 404
    problems.clear()                     # the console reported those three 404s

    # The instructor: both students, and a gradebook that holds both.
    server.wait_done(server.client("alan"), alan_id, GRADING_MS / 1000)
    teacher.goto(server.url + "/instructor")
    teacher.screenshot(path=str(shots / "6-instructor-class.png"), full_page=True)
    rows = teacher.locator("table.class tbody tr")
    assert rows.count() == 2, teacher.inner_text("main")
    text = teacher.inner_text("table.class")
    assert "Ada Lovelace" in text and "Alan Turing" in text
    gradebook = list(csv.DictReader(io.StringIO(download(teacher, "text=Gradebook (latest)"))))
    by_id = {row["student_id"]: row for row in gradebook}
    assert {"ada", "alan"} <= set(by_id), gradebook
    assert float(by_id["alan"]["score"]) == 100
    assert float(by_id["ada"]["score"]) == float(score.split()[1])     # her latest: the bug

    assert problems == [], problems


PRUNED = SUBMISSIONS / "correct_pruned.py"      # correct, graded in a few seconds


@pytest.mark.long
@pytest.mark.grades(1)
def test_an_extension_and_an_adjustment_in_a_browser(chromium, serve, tmp_path: Path,
                                                     shots: Path) -> None:
    """The course's deadline has passed; the instructor gives Ada her own on her page; Ada
    hands in and reads "on time"; the instructor adjusts her score with a note, which she
    reads on her report. Alan, without an extension, is refused."""
    data = tmp_path / "course"
    add_students(data, [("ada", "Ada Lovelace", ""), ("alan", "Alan Turing", "")])
    server = serve(data, "--jobs", "1", "--deadline", "2026-01-01T12:00:00+00:00",
                   "--late-deadline", "2026-01-02T12:00:00+00:00", "--timezone", "UTC")
    problems: list[str] = []
    teacher = new_page(chromium, problems)
    teacher.goto(f"{server.url}/s/{server.instructor_token()}")
    teacher.goto(f"{server.url}/instructor/students/ada")
    teacher.fill("input[name=deadline]", "2099-12-08T23:59")
    teacher.click("button:has-text('Give them their own deadline')")
    assert "Their own deadline is set" in teacher.inner_text("main")
    assert "2099-12-08 23:59:00" in teacher.inner_text("section.own-deadline")

    alan = new_page(chromium, problems)
    alan.goto(f"{server.url}/s/{server.token('alan')}")
    assert "Submissions are closed" in alan.inner_text("main")

    ada = new_page(chromium, problems)
    ada.goto(f"{server.url}/s/{server.token('ada')}")
    assert "Your own deadline" in ada.inner_text("section.limits")
    ada.set_input_files("input[name=file]", str(PRUNED))
    ada.click("button:has-text('Hand in')")
    ada.wait_for_url(re.compile(r"/submissions/\d+$"))
    number = int(ada.url.rsplit("/", 1)[1])
    watch_until_graded(ada)
    ada.goto(server.url + "/")
    assert ada.locator("td.timeliness").first.inner_text() == "on time"
    ada.screenshot(path=str(shots / "7-student-extension.png"), full_page=True)

    teacher.goto(f"{server.url}/instructor/submissions/{number}")
    teacher.fill("input[name=points]", "-5")
    teacher.fill("input[name=note]", "Please keep the template's docstrings.")
    teacher.click("form.adjustment-form button")
    assert "Adjusted by -5" in teacher.inner_text("section.adjustment")

    ada.goto(f"{server.url}/submissions/{number}")
    report = ada.inner_text("section.report")
    assert "Please keep the template's docstrings." in report
    assert "95" in ada.inner_text("section.report h2")
    ada.screenshot(path=str(shots / "8-student-adjusted.png"), full_page=True)
    assert problems == [], problems
