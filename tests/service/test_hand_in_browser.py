"""The page's forms of a course of both assignments in headless Chromium: the home page asks
which assignment first (each named with its file), each form takes only its assignment's
file (a file for the other one is refused, saying what it lacks and what it looks like, and
nothing is stored), pasted code is kept under the file its assignment expects, and a
student may hand in the minimax while their Monte Carlo hand-in waits.

The course's application is served without its lifespan (nothing is graded): the filed rows
prove where each hand-in went. Skipped, with the reason, where Playwright or Chromium is
missing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_helpers import new_page
from service_helpers import serve_without_grading
from test_hand_in_door import MINIMAX, MONTECARLO, NEITHER, Course, course_data

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed "
                    "(pip install -e '.[test]')")


def hand_in(page, *, code: str = "", file: Path | None = None) -> None:
    """Paste ``code`` in, or choose ``file`` on, the page's form, and press its button."""
    if file is not None:
        page.set_input_files("form.handin input[name=file]", str(file))
    else:
        page.fill("form.handin textarea[name=code]", code)
    page.click("form.handin button[type=submit]")
    page.wait_for_load_state()


def test_each_form_takes_its_assignments_file_only(chromium, tmp_path: Path, shots: Path):
    """Before: the home page's one form was the minimax's: a Monte Carlo file handed in
    there was filed, and graded, as the minimax; a paste was "mm_player.py (pasted)"."""
    course = Course(tmp_path / "course")
    files = tmp_path / "files"
    files.mkdir()
    (files / "mc_player.py").write_bytes(MONTECARLO)
    (files / "mm_player.py").write_bytes(MINIMAX)
    problems: list[str] = []
    try:
        with serve_without_grading(course.app) as url:
            ada = new_page(chromium, problems)
            ada.goto(f"{url}/s/{course.store.student_token('ada')}")
            assert ada.inner_text("h1").startswith("Hand in: choose the assignment")
            assert ada.locator("form.handin").count() == 0
            choices = ada.locator("ul.choose-assignment a")
            assert [choices.nth(i).inner_text() for i in range(choices.count())] == [
                "Hand in mm_player.py for Mini-max Tic-Tac-Toe",
                "Hand in mc_player.py for Monte Carlo Tic-Tac-Toe"]
            ada.screenshot(path=str(shots / "student-choose-assignment.png"), full_page=True)

            # The Monte Carlo's form: a pasted minimax is refused and kept in the box.
            choices.nth(1).click()
            assert ada.inner_text("h1").startswith("Hand in mc_player.py")
            before = course_data(course.store)
            hand_in(ada, code=MINIMAX.decode())
            refusal = ada.inner_text("p.refusal")
            assert refusal.startswith("Not received: mc_player.py (pasted) was not handed in")
            assert "does not define mc_trial(board, player)" in refusal
            assert "It looks like a Mini-max Tic-Tac-Toe player (mm_player.py" in refusal
            assert "def mm_move" in ada.input_value("form.handin textarea[name=code]")
            ada.fill("form.handin textarea[name=code]", "")
            hand_in(ada, code=NEITHER.decode())                 # a file for neither
            refusal = ada.inner_text("p.refusal")
            assert "does not define mc_trial(board, player)" in refusal
            assert "hand in your mc_player.py" in refusal
            assert course_data(course.store) == before
            ada.fill("form.handin textarea[name=code]", "")
            hand_in(ada, code=MONTECARLO.decode())
            assert re.search(r"/submissions/\d+$", ada.url), ada.inner_text("main")[:500]

            # The minimax's form, while the Monte Carlo hand-in waits: its file refused,
            # the minimax taken.
            ada.goto(f"{url}/?assignment=minimax")
            assert ada.inner_text("h1").startswith("Hand in mm_player.py")
            before = course_data(course.store)
            hand_in(ada, file=files / "mc_player.py")
            refusal = ada.inner_text("p.refusal")
            assert "mc_player.py was not handed in: this file is not a hand-in for Mini-max " \
                   "Tic-Tac-Toe: it does not define mm_move(board, player)" in refusal
            assert "hand it in for Monte Carlo Tic-Tac-Toe (montecarlo) instead" in refusal
            assert course_data(course.store) == before
            hand_in(ada, file=files / "mm_player.py")
            assert re.search(r"/submissions/\d+$", ada.url), ada.inner_text("main")[:500]
        filed = [(row.assignment, row.filename) for row in course.store.history("ada")]
        assert filed == [("minimax", "mm_player.py"), ("montecarlo", "mc_player.py (pasted)")]
        refused = [one for one in problems if "status of 400" in one and "/submit" in one]
        assert len(refused) == 3 and len(problems) == 3, problems   # the refusals only
    finally:
        course.store.close()
