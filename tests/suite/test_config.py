"""grader.suite.config: an instructor's configuration is checked, never silently misread.

A typo in a rubric once graded a whole class at 0 with exit status 0; each mistake
below must be refused with a message that names the key and what is allowed.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from grader.suite import config as config_module
from grader.suite.config import Config, ConfigError, GradedUnder, rubric_items
from test_grader import SUBMISSIONS, run_grader

DEFAULT_ITEMS = ["finished boards", "scores", "moves", "other sizes", "reverse games",
                 "board untouched", "game play", "time"]


def config_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "course.cfg"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, words", [
    ("[rubric]\nscorez = 15\n", ["[rubric] scorez", "there is no rubric item", "scores",
                                 "game play"]),
    ("[rubrics]\nscores = 15\n", ["unknown section [rubrics]", "[rubric], [time], [grader]"]),
    ("[time]\nfactr = 4\n", ["[time] factr", "factor, small, budget"]),
    ("[time]\nfactor = -1\n", ["factor"]),
    ("[time]\nfactor = 0\n", ["factor"]),
    ("[time]\nbudget = 0\n", ["budget"]),
    ("[time]\nbudget = nan\n", ["budget", "finite"]),
    ("[rubric]\nscores = many\n", ["[rubric] scores = many", "a number"]),
    ("[rubric]\nscores = -5\n", ["[rubric] scores = -5", "0 or more"]),
    ("[grader]\nexamples = 2.5\n", ["examples", "whole number"]),
    ("[time]\nfloor = 0.1\n", ["[time] floor", "now `small`"]),
    ("rubric = 5\n", ["not an INI file"]),
])
def test_each_mistake_is_refused_naming_the_key_and_what_is_allowed(tmp_path, text, words):
    with pytest.raises(ConfigError) as info:
        Config.load(config_file(tmp_path, text))
    message = str(info.value)
    assert "course.cfg" in message
    for word in words:
        assert word in message, (word, message)


def test_a_partial_rubric_changes_only_its_items(tmp_path):
    config = Config.load(config_file(tmp_path, "[rubric]\nscores = 30\n"))
    assert list(config.weights) == DEFAULT_ITEMS + ["style"]   # style: 0 points, off
    assert config.weights["style"] == 0
    assert config.weights["scores"] == 30 and config.weights["moves"] == 20
    assert sum(config.weights.values()) == 115


def test_a_file_with_only_the_old_secret_is_accepted_with_a_warning(tmp_path):
    config = Config.load(config_file(tmp_path, "[grader]\nsecret = hush\n"))
    assert config.weights == Config.load().weights
    assert len(config.warnings) == 1 and "same positions" in config.warnings[0]


def test_an_item_of_ones_own_needs_its_points(tmp_path):
    checks = tmp_path / "test_mine.py"
    checks.write_text('import pytest\n\n@pytest.mark.rubric("docs")\ndef test_docs(): pass\n')
    assert rubric_items([checks]) == ["docs"]
    with pytest.raises(ConfigError, match="'docs' of --checks has no points"):
        Config.load(None, [checks])
    config = Config.load(config_file(tmp_path, "[rubric]\ndocs = 5\n"), [checks])
    assert config.weights["docs"] == 5
    with pytest.raises(ConfigError, match="there is no rubric item"):
        Config.load(config_file(tmp_path, "[rubric]\ndocs = 5\n"))   # without --checks


def test_the_grader_refuses_a_typo_before_grading(tmp_path):
    path = config_file(tmp_path, "[rubric]\nscorez = 15\n")
    done = run_grader("grade", str(SUBMISSIONS / "correct_pruned.py"), "--config", str(path),
                      "--json", str(tmp_path / "r.json"))
    assert done.returncode == 2
    assert "scorez" in done.stderr and "Score:" not in done.stdout
    assert not (tmp_path / "r.json").exists()


def test_a_partial_configuration_grades_with_the_defaults_for_the_rest(tmp_path):
    path = config_file(tmp_path, "[rubric]\nscores = 30\n")
    done = run_grader("grade", str(SUBMISSIONS / "correct_memoised.py"), "--config", str(path),
                      "--json", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "r.json").read_text())
    assert results["score"] == 115
    assert [t["name"] for t in results["tests"]] == DEFAULT_ITEMS


@pytest.mark.long
def test_the_number_of_examples_is_the_same_in_the_report_and_in_results_json(tmp_path):
    path = config_file(tmp_path, "[grader]\nexamples = 0\n")
    done = run_grader("grade", str(SUBMISSIONS / "bug_sign_error_o.py"), "--config", str(path),
                      "--json", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "r.json").read_text())
    outputs = [test["output"] for test in results["tests"] if test["status"] == "failed"]
    assert outputs and "mm_move(TTTBoard(" not in done.stdout
    assert all("mm_move(TTTBoard(" not in output for output in outputs)
    assert any("more like this" in output for output in outputs)


def test_an_item_no_test_scores_is_a_grader_error_exit_1(tmp_path):
    checks = tmp_path / "test_mine.py"
    checks.write_text('import pytest\n\n@pytest.mark.rubric("docs")\n'
                      'def test_docs():\n    pytest.skip("not written")\n')
    done = run_grader("grade", str(SUBMISSIONS / "correct_memoised.py"), "--checks",
                      str(checks), "--config", str(config_file(tmp_path, "[rubric]\ndocs = 5\n")),
                      "--json", str(tmp_path / "r.json"))
    assert done.returncode == 1
    assert "no test in the suite scores this item" in done.stdout
    tests = json.loads((tmp_path / "r.json").read_text())["tests"]
    assert tests[-1]["name"] == "docs" and tests[-1]["score"] == 0


# ---------------------------------------------------------------- what a result was graded under


def test_the_fingerprint_follows_what_changes_a_grade_not_how_the_file_is_written(tmp_path):
    default = GradedUnder.of(Config.load())
    same = config_file(tmp_path, "# our course\n[rubric]\nscores = 15   # as before\n")
    assert GradedUnder.of(Config.load(same), "course.cfg").fingerprint == default.fingerprint

    style = Config.load(config_file(tmp_path, "[rubric]\nstyle = 25\n"))
    changed = {
        "rubric": GradedUnder.of(style, "course.cfg"),
        "time": GradedUnder.of(Config.load(config_file(tmp_path, "[time]\nfactor = 4\n"))),
        "examples": GradedUnder.of(Config.load(config_file(tmp_path,
                                                           "[grader]\nexamples = 1\n"))),
        "exhaustive": GradedUnder.of(Config.load(), exhaustive=True),
        "visibility": GradedUnder.of(Config.load(), visibility="categories"),
        "grader": dataclasses.replace(default, grader="0.0.9+0badc0de"),
    }
    for what, under in changed.items():
        assert under.fingerprint != default.fingerprint, what
        assert any(line.startswith(what) for line in under.differences(default.to_json())), what
    assert changed["rubric"].max_score == 125
    assert changed["rubric"].differences(default.to_json()) == ["rubric: style 25 (was 0)"]
    assert "course.cfg, 125 points" in changed["rubric"].describe()
    assert default.differences(None) == [
        "not recorded (graded by an earlier version of the grader)"]


def test_extra_checks_count_by_content_not_by_where_they_are(tmp_path):
    def under(path):
        return GradedUnder.of(Config.load(), checks=[path]).fingerprint

    text = 'import pytest\n\n@pytest.mark.rubric("docs")\ndef test_docs(): pass\n'
    here, there = tmp_path / "a" / "test_mine.py", tmp_path / "b" / "test_mine.py"
    for path in (here, there):
        path.parent.mkdir()
        path.write_text(text)
    assert under(here) == under(there) != GradedUnder.of(Config.load()).fingerprint
    there.write_text(text + "# and one more check\n")
    assert under(here) != under(there)


def test_a_changed_grader_source_changes_the_grader_version(tmp_path, monkeypatch):
    for package in ("grader", "provided"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "module.py").write_text("X = 1\n")
    monkeypatch.setattr(config_module, "PACKAGES", tmp_path)
    version = config_module.grader_version.__wrapped__
    before = version()
    (tmp_path / "grader" / "__pycache__").mkdir()
    (tmp_path / "grader" / "__pycache__" / "module.cpython-312.pyc").write_bytes(b"\0")
    assert version() == before                       # a cache is not the source
    (tmp_path / "grader" / "classroom").mkdir()                # a front end: no grade
    (tmp_path / "grader" / "classroom" / "summary.py").write_text("TITLE = 'new'\n")
    assert version() == before
    (tmp_path / "provided" / "module.py").write_text("X = 2\n")
    assert version() != before and version().split("+")[0] == before.split("+")[0]


def test_each_result_records_what_it_was_graded_under(tmp_path):
    path = config_file(tmp_path, "[rubric]\nstyle = 25\n")
    empty = tmp_path / "empty.py"
    empty.write_text("")
    done = run_grader("grade", str(empty), "--config", str(path), "--visibility",
                      "categories", "--json", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    recorded = json.loads((tmp_path / "r.json").read_text())["extra_data"]["configuration"]
    expected = GradedUnder.of(Config.load(path), "course.cfg", visibility="categories")
    assert recorded == expected.to_json()
    assert recorded["max_score"] == 125 and recorded["name"] == "course.cfg"
    assert recorded["grader"] == config_module.grader_version()
