"""A course of two assignments in a real browser (headless Chromium through Playwright), the
server started as the docs say: ``python3 -m grader serve --data DIR --roster roster.csv
--assignment minimax --assignment montecarlo``.

The story: Ada signs in with her link and sees both assignments listed; she hands in a Monte
Carlo player on the Monte Carlo assignment and a minimax on the minimax, reads both reports
(100 / 100), and her list shows both grades. The instructor's Assignments page shows both and
closes the Monte Carlo one; the class page shows each assignment with its rubric, and the
Canvas and Moodle gradebooks have a column per assignment; Ada's page then says the Monte
Carlo is closed and offers no form.

Screenshots go to $TTT_SCREENSHOTS (default: the test's temporary folder), to be looked at.
Skipped, with the reason, where Playwright or Chromium is missing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from browser_helpers import new_page, watch_until_graded

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed "
                               "(pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[2]
MINIMAX_FILE = ROOT / "tests" / "submissions" / "grader" / "correct_pruned.py"
MONTECARLO_FILE = ROOT / "grader" / "assignments" / "montecarlo" / "submissions" / "correct_clone.py"
ROSTER = "id,name,email\nada,Ada Lovelace,ada@example.org\nalan,Alan Turing,alan@example.org\n"
MINIMAX_TITLE, MONTECARLO_TITLE = "Mini-max Tic-Tac-Toe", "Monte Carlo Tic-Tac-Toe"


def hand_in(page, title: str, file: Path) -> str:
    """From the student's home page: open the assignment ``title``, hand in ``file``, wait
    for its report; the report's text."""
    page.click(f"table.assignment-list a:has-text('{title}')")
    assert page.inner_text("h2.assignment-title") == title
    page.set_input_files("form.handin input[name=file]", str(file))
    page.click("form.handin button:has-text('Hand in')")
    page.wait_for_url(re.compile(r"/submissions/\d+$"))
    watch_until_graded(page)
    return page.inner_text("section.report")


def grades(page) -> dict[str, str]:
    """The student's list of assignments: each title's grade column."""
    rows = page.locator("table.assignment-list tbody tr")
    return {rows.nth(i).locator("td").nth(0).inner_text(): rows.nth(i).locator("td").nth(2)
            .inner_text() for i in range(rows.count())}


@pytest.mark.long
@pytest.mark.grades(2)
def test_a_student_hands_in_both_assignments_and_the_instructor_closes_one(
        chromium, serve, tmp_path: Path, shots: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    server = serve(tmp_path / "course", "--roster", str(roster), "--assignment", "minimax",
                   "--assignment", "montecarlo")
    instructor_link = re.search(r"(http://\S+/s/\S+)", "".join(server.stdout)).group(1)
    problems: list[str] = []

    ada = new_page(chromium, problems)
    ada.goto(f"{server.url}/s/{server.token('ada')}")
    assert grades(ada) == {MINIMAX_TITLE: "none yet", MONTECARLO_TITLE: "none yet"}

    carlo = hand_in(ada, MONTECARLO_TITLE, MONTECARLO_FILE)
    assert "mc_trial" in carlo and "mc_move" in carlo
    assert "100 / 100" in carlo
    ada.goto(f"{server.url}/")
    minimax = hand_in(ada, MINIMAX_TITLE, MINIMAX_FILE)
    assert "100 / 100" in minimax and "mc_move" not in minimax

    ada.goto(f"{server.url}/")
    assert grades(ada) == {MINIMAX_TITLE: "100 / 100", MONTECARLO_TITLE: "100 / 100"}
    ada.screenshot(path=str(shots / "student-two-assignments.png"), full_page=True)

    teacher = new_page(chromium, problems)
    teacher.goto(instructor_link)
    teacher.goto(f"{server.url}/instructor/assignments")
    listed = teacher.locator("table.assignments tr.assignment")
    assert [listed.nth(i).get_attribute("data-name") for i in range(listed.count())] == [
        "minimax", "montecarlo"]
    teacher.locator("tr.assignment[data-name=montecarlo] button:has-text('Close')").click()
    teacher.wait_for_load_state()
    assert teacher.locator("tr.assignment[data-name=montecarlo] td").nth(3).inner_text() == \
        "closed"
    assert teacher.locator("tr.assignment[data-name=minimax] td").nth(3).inner_text() == "open"
    teacher.screenshot(path=str(shots / "instructor-assignments.png"), full_page=True)

    # The class page per assignment, and the gradebooks with a column per assignment.
    teacher.goto(f"{server.url}/instructor?assignment=montecarlo")
    assert teacher.inner_text("h1") == f"The class: {MONTECARLO_TITLE}"
    assert "mc_trial" in teacher.inner_text("span.rubric")
    teacher.click(f"nav.assignments a:has-text('{MINIMAX_TITLE}')")
    assert teacher.inner_text("h1") == f"The class: {MINIMAX_TITLE}"
    assert "game play" in teacher.inner_text("span.rubric")
    teacher.screenshot(path=str(shots / "instructor-class-minimax.png"), full_page=True)
    canvas = teacher.request.get(f"{server.url}/api/gradebook.csv?format=canvas").text()
    header, *rows = canvas.lstrip("\ufeff").splitlines()
    assert header.split(",")[-2:] == [MINIMAX_TITLE, MONTECARLO_TITLE]
    ada_row = next(row for row in rows if "Ada Lovelace" in row)
    assert ada_row.split(",")[-2:] == ["100", "100"]
    moodle = teacher.request.get(f"{server.url}/api/gradebook.csv?format=moodle").text()
    assert MINIMAX_TITLE in moodle and MONTECARLO_TITLE in moodle and "ada@example.org" in moodle

    ada.goto(f"{server.url}/?assignment=montecarlo")
    assert "This assignment is closed" in ada.inner_text("main")
    assert ada.locator("form.handin").count() == 0
    assert grades(ada)[MONTECARLO_TITLE] == "100 / 100"       # its grade stays
    assert problems == []
