"""The optional rubric item ``style``: pylint with the course's configuration.

A few fixture submissions (tests/submissions/style) are graded once, as an instructor runs
the grader (``python -m grader grade FILE --config F --json R``), with style on (10 points)
and with the default rubric (style off); the other tests call ``grader.suite.style`` directly.
A fake ``pylint`` (a package on PYTHONPATH that fails, or hangs) shows what happens when
pylint is run, and proves when it is not.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path

import pytest

from grader.judge.results import GradeResult, ItemResult
from grader.suite import style
from grader.suite.config import Config
from grader.suite.report import text_report
from grader.suite.results_json import gradescope_results

HERE = Path(__file__).resolve().parents[1]   # tests/
PROJECT = HERE.parent
SUBMISSIONS = HERE / "submissions" / "style"
CORRECT = HERE / "submissions" / "grader" / "correct_plain.py"
STYLE_ON = "[rubric]\n# style on, game play lowered: still 100\nstyle = 10\ngame play = 10\n"
# What the messy fixture must be told: the line, the message id and symbol, and what to do.
MESSY_DEDUCTIONS = [
    "line 1: C0114 missing-module-docstring: Missing module docstring",
    "line 2: W0611 unused-import: Unused import math",
    "line 7: C0116 missing-function-docstring: Missing function or method docstring",
    'line 11: C0103 invalid-name: Variable name "bestScore" doesn\'t conform to snake_case '
    "naming style (also line 18)",
    'line 11: C0103 invalid-name: Variable name "bestMove" doesn\'t conform to snake_case '
    "naming style (also line 18)",
    'line 13: C0103 invalid-name: Variable name "trialBoard" doesn\'t conform to snake_case '
    "naming style",
    "line 15: W0612 unused-variable: Unused variable 'move'",
    "line 16: C0301 line-too-long: Line too long (91/90)",
]


def fake_pylint(folder: Path, main: str) -> Path:
    """A package ``pylint`` in ``folder`` whose ``python -m pylint`` runs ``main``."""
    package = folder / "pylint"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(main)
    return folder


def failing_pylint(folder: Path, marker: Path) -> Path:
    """A pylint that leaves ``marker`` behind, says "boom" and exits 1 (a fatal error)."""
    return fake_pylint(folder, f"import pathlib, sys\npathlib.Path({str(marker)!r}).touch()\n"
                               "sys.exit('boom: pylint crashed')\n")


def grade(submission: Path, out: Path, config: str | None = None,
          env: dict[str, str] | None = None) -> tuple[int, str, dict | None]:
    """``python -m grader grade``: its exit status, its output and its results.json."""
    args = [sys.executable, "-m", "grader", "grade", str(submission), "--json", str(out)]
    if config is not None:
        config_path = out.with_suffix(".cfg")
        config_path.write_text(config)
        args += ["--config", str(config_path)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})
    results = json.loads(out.read_text()) if out.exists() else None
    return done.returncode, done.stdout + done.stderr, results


# Any test may be the first to use `graded`: four grades, two of them at a time.
pytestmark = pytest.mark.grades(4, jobs=2)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """name -> (exit status, output, results.json) of each grading run, two at a time."""
    out = tmp_path_factory.mktemp("style")
    marker = out / "pylint-was-run"
    fake = failing_pylint(out / "fake", marker)
    runs = {
        "clean": (SUBMISSIONS / "clean.py", STYLE_ON, None),
        "messy": (SUBMISSIONS / "messy.py", STYLE_ON, None),
        # The default rubric, with a pylint that fails if it is run at all.
        "default": (SUBMISSIONS / "messy.py", None, {"PYTHONPATH": str(fake)}),
        # Style on, and that pylint: the grader says what went wrong, and exits 1.
        "broken": (CORRECT, STYLE_ON, {"PYTHONPATH": str(fake)}),
    }

    def run(name):
        path, config, env = runs[name]
        return name, grade(path, out / f"{name}.json", config, env)

    with ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(pool.map(run, ["default", "clean", "messy"]))
    done["run by default"] = marker.exists()
    done["broken"] = run("broken")[1]
    done["run when on"] = marker.exists()
    return done


def style_test(results: dict) -> dict:
    """The style item's test in results.json."""
    return next(test for test in results["tests"] if test["name"] == "style")


# ---------------------------------------------------------------- graded end to end

@pytest.mark.long
def test_a_clean_course_style_solution_loses_nothing(graded):
    status, output, results = graded["clean"]
    assert status == 0, output
    assert results["score"] == 100, output
    item_test = style_test(results)
    assert (item_test["score"], item_test["max_score"]) == (10, 10)
    assert "[ok] style (10.0 / 10.0)" in output


@pytest.mark.long
def test_a_messy_solution_gets_deductions_with_lines_symbols_and_what_to_do(graded):
    status, output, results = graded["messy"]
    assert status == 0, output
    # The code is right: only style is lost, 1/10 of it per deduction (8 of them).
    item_test = style_test(results)
    assert (item_test["score"], item_test["max_score"]) == (2, 10)
    assert results["score"] == 92
    assert "[-8.0 pts] style: 8 deductions" in output
    for line in MESSY_DEDUCTIONS:
        assert line in output                        # the report: every deduction
        assert line in item_test["output"]          # results.json: the student's test
    assert "why: rename it best_score: the course names variables in snake_case" in output
    assert "why: delete it, or rename it _move if it must be there" in output
    assert "costs 1/10 of this item's points" in output      # the rule, stated
    # The template's own lines and names cost nothing: provided, SCORES, trials.
    assert "poc_ttt_provided" not in item_test["output"]
    assert "trials" not in item_test["output"]
    item = next(item for item in results["extra_data"]["items"] if item["name"] == "style")
    assert [failure["call"] for failure in item["failures"]] == MESSY_DEDUCTIONS
    assert item["categories"]["invalid-name"] == 3


@pytest.mark.long
def test_the_default_rubric_has_no_style_item_and_runs_no_pylint(graded):
    status, output, results = graded["default"]
    assert status == 0, output
    assert not graded["run by default"], "pylint was run with the default rubric (style = 0)"
    assert results["score"] == 100 and results["extra_data"]["max_score"] == 100
    assert "style" not in [test["name"] for test in results["tests"]]
    assert "style" not in [item["name"] for item in results["extra_data"]["items"]]
    assert "] style" not in output and "--- style" not in output and "pylint" not in output


@pytest.mark.long
def test_a_pylint_that_fails_is_a_grader_error_not_a_deduction(graded):
    status, output, results = graded["broken"]
    assert graded["run when on"]                     # it was run, with style on
    assert status == 1, output
    assert "GRADER ERROR" in output
    assert "pylint failed on the submission (exit status 1): boom: pylint crashed" in output
    item_test = style_test(results)
    assert item_test["score"] == 0
    assert "not checked, the grader failed on this item" in item_test["output"]


# ---------------------------------------------------------------- the configuration

def test_the_pylintrc_ships_with_the_package_and_is_found_from_an_install(tmp_path):
    """setup.cfg's package data puts it in the built package; importlib.resources finds it
    there, far from the source tree."""
    source = tmp_path / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in ("grader", "provided", "student"):
        shutil.copytree(PROJECT / name, source / name, ignore=ignore)
    for name in ("setup.cfg", "pyproject.toml", "README.md"):
        shutil.copy(PROJECT / name, source / name)
    built = tmp_path / "built"
    done = subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()",
                           "-q", "build_py", "--build-lib", str(built)],
                          cwd=source, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (built / "grader" / "suite" / "style_pylintrc.ini").is_file()
    probe = ("import json, sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path\n"
             "from grader.suite import style\n"
             "with style.pylintrc() as rcfile:\n"
             "    result = style.check_style(Path(sys.argv[2]))\n"
             "    print(json.dumps([str(rcfile), style.__file__, result.fraction]))\n")
    done = subprocess.run([sys.executable, "-c", probe, str(built),
                           str(SUBMISSIONS / "messy.py")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rcfile, module, fraction = json.loads(done.stdout)
    assert Path(rcfile) == built / "grader" / "suite" / "style_pylintrc.ini"
    assert Path(module).is_relative_to(built)
    assert fraction == 0.2


def test_the_course_checks_are_a_short_explicit_list():
    checks = style.course_checks()
    assert {"missing-module-docstring", "missing-function-docstring", "invalid-name",
            "line-too-long", "unused-import", "unused-variable", "too-many-branches"} <= set(checks)
    # Not what the course's template itself does: move_wrapper's unused `trials`.
    assert "unused-argument" not in checks
    assert len(checks) < 20
    text = (resources.files("grader.suite") / style.RCFILE).read_text()
    assert re.search(r"^disable=all$", text, re.MULTILINE)
    assert set(style.ADVICE) == set(checks)          # every check says what to do


def test_the_default_rubric_has_style_off_and_a_configuration_turns_it_on(tmp_path):
    weights = Config.load().weights
    assert weights.get("style", 0) == 0 and sum(weights.values()) == 100
    assert "style = 10" in (PROJECT / "grader" / "default.cfg").read_text()   # how, said
    config = tmp_path / "style.cfg"
    config.write_text(STYLE_ON)
    weights = Config.load(config).weights
    assert weights["style"] == 10 and sum(weights.values()) == 100


# ---------------------------------------------------------------- style.check_style

def test_the_handouts_own_lines_cost_nothing(tmp_path):
    """student/mm_player.py, with mm_move written: its imports (some unused), its long
    docstring and assert lines, move_wrapper's unused trials: no deduction."""
    template = (PROJECT / "student" / "mm_player.py").read_text()
    body = ("    winner = board.check_win()\n"
            "    if winner is not None:\n"
            "        return SCORES[winner], (-1, -1)\n"
            "    best = None\n"
            "    for row, col in board.get_empty_squares():\n"
            "        child = board.clone()\n"
            "        child.move(row, col, player)\n"
            "        score = mm_move(child, switch_player(player))[0]\n"
            "        if best is None or score * SCORES[player] > best[0] * SCORES[player]:\n"
            "            best = score, (row, col)\n"
            "    return best\n")
    filled, count = re.subn(r"    raise NotImplementedError\((?:.|\n)*?\)\n", body, template,
                            count=1)
    assert count == 1, "the handout's mm_move no longer raises NotImplementedError(...)"
    path = tmp_path / "mm_player.py"
    path.write_text(filled)
    assert style.check_style(path).issues == ()


def test_the_scoring_rule_is_a_tenth_per_deduction_down_to_nothing():
    issue = style.StyleIssue(1, "C0114", "missing-module-docstring", "Missing module docstring")
    assert [style.StyleResult((issue,) * n).fraction for n in (0, 1, 3, 10, 14)] == \
        [1.0, 0.9, 0.7, 0.0, 0.0]


def test_pylint_comments_in_the_submission_are_not_obeyed(tmp_path):
    path = tmp_path / "sneaky.py"
    path.write_text('"""A module."""\n# pylint: disable=all\nbadName = [1]\nbadName.append(2)\n')
    issues = style.check_style(path).issues
    assert [(issue.line, issue.symbol) for issue in issues] == [(3, "invalid-name")]


def test_pylint_never_runs_the_submission_nor_its_folder(tmp_path):
    """A file that writes when imported, named like a module pylint uses, beside modules of
    the same names as pylint's own: pylint reads the file and nothing else runs."""
    marker = tmp_path / "ran"
    folder = tmp_path / "class"
    folder.mkdir()
    payload = f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n"
    path = folder / "tokenize.py"
    path.write_text('"""A module."""\n' + payload)
    for name in ("astroid.py", "pylint.py", "json.py", "pylint_plugin.py", "sitecustomize.py"):
        (folder / name).write_text(payload)
    (folder / "pylintrc").write_text("[MAIN]\nload-plugins=pylint_plugin\n")
    (folder / ".pylintrc").write_text("[MAIN]\nload-plugins=pylint_plugin\n")
    style.check_style(path)
    assert not marker.exists()


def test_a_failing_pylint_is_a_style_error_that_says_why(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    monkeypatch.setenv("PYTHONPATH", str(failing_pylint(tmp_path / "fake", marker)))
    with pytest.raises(style.StyleError, match=r"pylint failed on the submission "
                                               r"\(exit status 1\): boom: pylint crashed"):
        style.check_style(SUBMISSIONS / "clean.py")
    assert marker.exists()


def test_a_pylint_that_hangs_is_stopped(tmp_path, monkeypatch):
    fake = fake_pylint(tmp_path / "fake", "import time\ntime.sleep(60)\n")
    monkeypatch.setenv("PYTHONPATH", str(fake))
    with pytest.raises(style.StyleError, match=r"pylint took more than 0.5 s .* and was stopped"):
        style.check_style(SUBMISSIONS / "clean.py", timeout=0.5)


def test_a_message_the_course_does_not_check_is_a_style_error(tmp_path, monkeypatch):
    message = {"line": 1, "message-id": "E0015", "symbol": "unrecognized-option",
               "message": "Unrecognized option found: frobnicate", "obj": ""}
    fake = fake_pylint(tmp_path / "fake", f"print({json.dumps([message])!r})\n")
    monkeypatch.setenv("PYTHONPATH", str(fake))
    with pytest.raises(style.StyleError, match="E0015 unrecognized-option .* none of the "
                                               "course's checks"):
        style.check_style(SUBMISSIONS / "clean.py")


def test_a_missing_file_is_a_style_error(tmp_path):
    with pytest.raises(style.StyleError, match="cannot read the submission"):
        style.check_style(tmp_path / "nothing.py")


# ---------------------------------------------------------------- the reports

def test_deductions_are_shown_in_full_even_before_the_deadline():
    issues = tuple(style.StyleIssue(line, "C0116", "missing-function-docstring",
                                    "Missing function or method docstring")
                   for line in range(1, 6))
    item = ItemResult("style", 10.0, passed=5, total=10,
                      failures=tuple(issue.failure() for issue in issues),
                      notes=(style.rule(),))
    result = GradeResult("s.py", "s", items=(item,))
    for visibility in ("full", "categories"):
        text = text_report(result, visibility, examples=3)
        assert "[-5.0 pts] style: 5 deductions" in text
        for line in range(1, 6):          # all of them, whatever `examples` says
            assert f"line {line}: C0116 missing-function-docstring" in text
        assert "why: add a docstring under the def line" in text
        assert "shown after the deadline" not in text
        output = gradescope_results(result, visibility)["tests"][0]["output"]
        assert "line 5: C0116 missing-function-docstring" in output
