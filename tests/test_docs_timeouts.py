"""The docs say what a timeout costs in each rubric item, and the grader agrees.

Issue 34: the students' docs said only the time item counts a timeout; a slow correct file
lost all 20 game-play points. A correct file too slow from 6 empty squares is graded here,
and each row of the students' table "What a timeout costs" is held to its results.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = (ROOT / "docs" / "students" / "report.md", ROOT / "docs" / "instructors" /
         "time-limits.md")
SLOW = ROOT / "tests" / "submissions" / "timing" / "double_recursion.py"


def cost_table(page: Path) -> dict[str, str]:
    """Item name: what a call with no answer costs there, from the page's table."""
    text = page.read_text(encoding="utf-8")
    section = text.split("## What a timeout costs", 1)[1].split("\n## ", 1)[0]
    table = {}
    for cells in re.findall(r"^\| (.+?) \| (.+?) \|$", section, re.MULTILINE):
        if cells[0] in ("Item", "---"):
            continue
        for name in cells[0].split(", "):
            table[name] = cells[1]
    return table


@pytest.mark.long
@pytest.mark.grades(1)
def test_each_item_loses_what_the_docs_say_a_timeout_costs(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(SLOW), "--json",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    items = {test["name"]: (test["score"], test["max_score"])
             for test in json.loads(out.read_text())["tests"]}
    assert items["game play"] == (0.0, 20.0)          # the student's "19 too slow"

    for page in PAGES:
        assert "only the time item" not in page.read_text(encoding="utf-8")
        table = cost_table(page)
        assert {"finished boards", "scores", "moves", "other sizes", "reverse games",
                "board untouched", "game play", "time", "style"} <= set(table), page
        for name, (score, best) in items.items():
            costs_nothing = table[name].startswith("nothing")
            # finished boards have no empty squares: never too slow, so never lose here.
            if name == "finished boards" or costs_nothing:
                assert score == best, (page, name)
            else:
                assert score < best, (page, name, table[name])
