"""grader.classroom.gradescope: the autograder zip, and run_autograder for real in a fake /autograder."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.classroom import gradescope
from grader.classroom.gradescope import BuildError, build_autograder, failure_results
from grader.classroom.batch import GradingOptions
from test_batch import GRADER  # `python -m grader`, as the batch tests run it

HERE = Path(__file__).resolve().parents[1]   # tests/
CONSTANT = HERE / "submissions" / "batch" / "constant.py"
DEFAULT_CFG = HERE.parent / "grader" / "default.cfg"
MARKER = "# the instructor's own configuration"

# Gradescope's autograder specifications: the values its results.json accepts.
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
OUTPUT_FORMATS = {"text", "html", "simple_format", "md", "ansi"}
STATUSES = {"passed", "failed"}


def check_gradescope_schema(data: dict) -> None:
    """Fail unless ``data`` is a results.json that Gradescope's specification accepts."""
    json.dumps(data, allow_nan=False)                      # plain JSON, no NaN
    assert isinstance(data, dict)
    number = (int, float)
    assert isinstance(data.get("tests"), list) and data["tests"], "tests: a non-empty list"
    assert "score" in data or all("score" in test for test in data["tests"])
    if "score" in data:
        assert isinstance(data["score"], number) and not isinstance(data["score"], bool)
    optional = {"execution_time": number, "output": str, "extra_data": dict,
                "output_format": str, "test_output_format": str, "test_name_format": str,
                "visibility": str, "stdout_visibility": str, "leaderboard": list}
    for key, kind in optional.items():
        if key in data:
            assert isinstance(data[key], kind), key
    for key in ("visibility", "stdout_visibility"):
        if key in data:
            assert data[key] in VISIBILITIES, key
    for key in ("output_format", "test_output_format", "test_name_format"):
        if key in data:
            assert data[key] in OUTPUT_FORMATS, key
    assert set(data) <= {"score", "tests", *optional}, set(data) - {"score", "tests", *optional}
    for test in data["tests"]:
        assert isinstance(test, dict)
        assert isinstance(test.get("name"), str) and test["name"]
        for key in ("score", "max_score"):
            if key in test:
                assert isinstance(test[key], number) and not isinstance(test[key], bool)
        if "status" in test:
            assert test["status"] in STATUSES
        if "visibility" in test:
            assert test["visibility"] in VISIBILITIES
        if "output" in test:
            assert isinstance(test["output"], str)
        if "output_format" in test:
            assert test["output_format"] in OUTPUT_FORMATS
        allowed = {"score", "max_score", "status", "name", "name_format", "number", "output",
                   "output_format", "tags", "visibility", "extra_data"}
        assert set(test) <= allowed, set(test) - allowed
    if all("score" in test for test in data["tests"]):
        assert abs(sum(test["score"] for test in data["tests"]) - data["score"]) < 0.011


@pytest.fixture
def instructor_config(tmp_path: Path) -> Path:
    config = tmp_path / "course.cfg"
    config.write_text(MARKER + "\n" + DEFAULT_CFG.read_text())
    return config


@pytest.fixture
def autograder_zip(tmp_path: Path, instructor_config: Path) -> Path:
    out = tmp_path / "autograder.zip"
    build_autograder(out, GradingOptions(visibility="categories", config=instructor_config))
    return out


def fake_autograder(tmp_path: Path, autograder_zip: Path, **metadata_extra: object) -> Path:
    """A /autograder tree: source/ (the zip, unpacked), submission/, results/, and
    submission_metadata.json (with ``metadata_extra`` on top)."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(autograder_zip) as bundle:
        bundle.extractall(root / "source")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    metadata = {"id": 123456, "users": [{"email": "ada@example.com", "id": 4242,
                                         "name": "Ada Lovelace"}], **metadata_extra}
    (root / "submission_metadata.json").write_text(json.dumps(metadata))
    return root


def run_autograder(root: Path) -> tuple[subprocess.CompletedProcess, dict]:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    env.pop("TTT_GRADER_SECRET", None)
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env,
                          capture_output=True, text=True, timeout=300, cwd=root)
    results = root / "results" / "results.json"
    assert results.exists(), done.stdout + done.stderr
    return done, json.loads(results.read_text())


# ---------------------------------------------------------------- the zip


def test_the_zip_holds_the_project_and_the_configuration_but_no_tests(autograder_zip: Path) -> None:
    with zipfile.ZipFile(autograder_zip) as bundle:
        infos = {info.filename: info for info in bundle.infolist()}
        names = set(infos)
        settings = json.loads(bundle.read("autograder.json"))
        config = bundle.read("grader_config.cfg").decode()

    for required in ("setup.sh", "run_autograder", "setup.cfg", "pyproject.toml", "README.md",
                     "grader/__main__.py", "grader/suite/engine.py", "grader/sandbox/box.py",
                     "grader/sandbox/inside/worker.py", "grader/default.cfg",
                     "grader/suite/test_rubric.py",
                     "grader/classroom/templates/gradescope_run_autograder", "provided/board.py",
                     "student/mm_player.py"):
        assert required in names, required
    assert "provided/course.py" in names
    for name in names:
        assert not name.startswith(("tests/", "/", "..")), name
        assert "__pycache__" not in name and not name.endswith(".pyc"), name
        assert not name.startswith(("results", "out/", "build/")), name
    for script in ("setup.sh", "run_autograder"):
        assert (infos[script].external_attr >> 16) & stat.S_IXUSR, script
    assert MARKER in config
    assert settings["grade_args"] == ["--visibility", "categories",
                                      "--config", "grader_config.cfg"]


def test_the_scripts_are_valid_bash_and_setup_can_skip_the_install(
        tmp_path: Path, autograder_zip: Path) -> None:
    root = fake_autograder(tmp_path, autograder_zip)
    for script in ("setup.sh", "run_autograder"):
        check = subprocess.run(["bash", "-n", str(root / "source" / script)],
                               capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
    done = subprocess.run(["bash", str(root / "source" / "setup.sh")], capture_output=True,
                          text=True, env={**os.environ, "AUTOGRADER_SKIP_INSTALL": "1"})
    assert done.returncode == 0, done.stderr
    assert "nothing installed" in done.stdout
    assert stat.S_IMODE((root / "source" / "grader_config.cfg").stat().st_mode) == 0o600


def test_a_broken_configuration_is_refused(tmp_path: Path) -> None:
    broken = tmp_path / "broken.cfg"
    broken.write_text("[rubric]\nscores = many\n")
    with pytest.raises(BuildError, match="broken.cfg"):
        build_autograder(tmp_path / "a.zip", GradingOptions(config=broken))
    done = subprocess.run([*GRADER, "gradescope", "build", str(tmp_path / "b.zip"),
                           "--config", str(broken)], capture_output=True, text=True)
    assert done.returncode == 2 and "broken.cfg" in done.stderr
    assert not (tmp_path / "b.zip").exists()


# ---------------------------------------------------------------- run_autograder, for real


def test_run_autograder_grades_the_submission(tmp_path: Path, autograder_zip: Path) -> None:
    # Submitted 26 hours after the due date (Gradescope's own format, with offsets).
    root = fake_autograder(tmp_path, autograder_zip,
                           created_at="2026-10-02T01:30:00.000000-07:00",
                           assignment={"due_date": "2026-09-30T23:30:00.000000-07:00",
                                       "late_due_date": None})
    (root / "submission" / "mm_player.py").write_bytes(CONSTANT.read_bytes())
    (root / "submission" / "README.txt").write_text("my notes")

    done, data = run_autograder(root)

    assert done.returncode == 0, done.stderr
    check_gradescope_schema(data)
    assert 0 < data["score"] < 100
    assert [test["name"] for test in data["tests"]][:3] == ["finished boards", "scores", "moves"]
    extra = data["extra_data"]
    assert extra["student_id"] == "4242"                  # from submission_metadata.json
    assert extra["visibility"] == "categories"            # baked in at build time
    assert "Score:" in done.stdout                        # the report, for the instructor
    assert extra["late"] is True
    assert data["output"].startswith("Submitted after the due date: 2026-10-02T01:30-07:00, "
                                     "26.0 hours after 2026-09-30T23:30-07:00.")
    # Categories now, the failures in full after the deadline, in tests worth nothing.
    now = [t for t in data["tests"] if t["visibility"] == "visible"]
    later = [t for t in data["tests"] if t["visibility"] == "after_due_date"]
    assert later and all(t["max_score"] == 0 for t in later)
    assert {t["name"] for t in later} == {f"{t['name']}: the failures in full"
                                          for t in now if t["status"] == "failed"}
    assert "mm_move(TTTBoard(" not in json.dumps(now)
    assert all("mm_move(TTTBoard(" in t["output"] or "TTTBoard(" in t["output"]
               for t in later)
    # Every student is asked the same positions: the same file graded outside Gradescope,
    # under another id, gets the same score.
    local = subprocess.run([*GRADER, "grade", str(CONSTANT), "--student-id", "someone",
                            "--json", str(tmp_path / "plain.json"), "--quiet"],
                           capture_output=True, text=True, cwd=HERE.parent)
    assert local.returncode == 0, local.stderr
    assert json.loads((tmp_path / "plain.json").read_text())["score"] == data["score"]


def test_a_submission_without_a_py_file_scores_0_with_a_message(
        tmp_path: Path, autograder_zip: Path) -> None:
    root = fake_autograder(tmp_path, autograder_zip)
    (root / "submission" / "mm_player.txt").write_text("def mm_move(board, player): ...")

    done, data = run_autograder(root)

    assert done.returncode == 0
    check_gradescope_schema(data)
    assert data["score"] == 0
    assert "no .py file" in data["output"] and "mm_player.txt" in data["output"]
    assert all(test["score"] == 0 and test["status"] == "failed" for test in data["tests"])
    assert sum(test["max_score"] for test in data["tests"]) == 100


def test_an_empty_file_scores_0_with_a_message(tmp_path: Path, autograder_zip: Path) -> None:
    root = fake_autograder(tmp_path, autograder_zip)
    (root / "submission" / "mm_player.py").write_text("")

    done, data = run_autograder(root)

    assert done.returncode == 0
    check_gradescope_schema(data)
    assert data["score"] == 0
    assert "empty" in data["output"].lower()


def test_an_empty_submission_folder(tmp_path: Path, autograder_zip: Path) -> None:
    root = fake_autograder(tmp_path, autograder_zip)
    done, data = run_autograder(root)
    check_gradescope_schema(data)
    assert data["score"] == 0 and "empty" in data["output"]


def test_lateness_comes_from_the_metadata(tmp_path: Path) -> None:
    assert gradescope.lateness(tmp_path) == ""                       # no metadata
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"created_at": "2026-09-30T22:00:00+00:00",
                                    "assignment": {"due_date": "2026-09-30T23:00:00+00:00"}}))
    assert gradescope.lateness(tmp_path) == ""                       # on time
    metadata.write_text(json.dumps({"created_at": "2026-10-01T00:30:00+00:00",
                                    "assignment": {"due_date": "2026-09-30T23:00:00+00:00"}}))
    assert "1.5 hours after" in gradescope.lateness(tmp_path)
    metadata.write_text(json.dumps({"created_at": "soon", "assignment": {}}))
    assert gradescope.lateness(tmp_path) == ""                       # unreadable: not late


def test_the_build_warns_about_what_it_cannot_carry(tmp_path: Path) -> None:
    old = tmp_path / "old.cfg"
    old.write_text("[grader]\nsecret = hush\n")
    done = subprocess.run([*GRADER, "gradescope", "build", str(tmp_path / "a.zip"),
                           "--config", str(old)], capture_output=True, text=True,
                          env={**os.environ, "TTT_GRADER_SECRET": "hush"})
    assert done.returncode == 0, done.stderr
    assert "TTT_GRADER_SECRET is set but not carried" in done.stderr
    assert "[grader] secret" in done.stderr and "ignored" in done.stderr
    assert (tmp_path / "a.zip").exists()


def test_the_build_says_the_rubrics_total_and_that_gradescope_must_match(
        tmp_path: Path) -> None:
    style = tmp_path / "style.cfg"
    style.write_text("[rubric]\nstyle = 25\n")
    done = subprocess.run([*GRADER, "gradescope", "build", str(tmp_path / "a.zip"),
                           "--config", str(style)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert ("the rubric totals 125 points, not 100: give the assignment 125 points on "
            "Gradescope") in done.stdout
    assert "must match" in done.stdout
    default = subprocess.run([*GRADER, "gradescope", "build", str(tmp_path / "b.zip")],
                             capture_output=True, text=True)
    assert default.returncode == 0, default.stderr
    assert "the rubric totals 100 points" in default.stdout and "not 100" not in default.stdout


def test_failure_results_follow_the_schema() -> None:
    data = failure_results("The autograder itself failed.", DEFAULT_CFG, "exit status 1")
    check_gradescope_schema(data)
    assert [test["max_score"] for test in data["tests"]] == [10, 15, 20, 10, 10, 5, 20, 10]


def test_the_student_id_comes_from_the_metadata(tmp_path: Path) -> None:
    assert gradescope.student_id_from_metadata(tmp_path) == "student"
    (tmp_path / "submission_metadata.json").write_text('{"users": [{"id": 7, "email": "x"}]}')
    assert gradescope.student_id_from_metadata(tmp_path) == "7"
    (tmp_path / "submission_metadata.json").write_text('{"users": []}')
    assert gradescope.student_id_from_metadata(tmp_path) == "student"


def _pip_install(source: Path, target: Path) -> None:
    """A normal (not editable) install of ``source`` into ``target``, as setup.sh does it
    (pip builds it in isolation: setuptools comes from the package registry)."""
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                           "--no-compile", "--target", str(target),
                           str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.long
def test_the_build_works_from_a_normal_install_and_its_zip_installs(tmp_path: Path) -> None:
    """`pip install .` leaves no setup.cfg beside the packages; the zip must still install."""
    project = HERE.parent
    source = tmp_path / "checkout"
    for name in ("provided", "student", "grader"):
        shutil.copytree(project / name, source / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("setup.cfg", "pyproject.toml", "README.md"):
        shutil.copy(project / name, source / name)
    installed = tmp_path / "site"
    _pip_install(source, installed)
    assert not (installed / "setup.cfg").exists()

    # Run that install alone: -S keeps out the editable install of this checkout (its
    # finder is set up by a .pth file); PYTHONPATH gives the dependencies, installed first.
    dependencies = [p for p in sys.path if p.endswith("site-packages")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(installed), *dependencies])}
    out = tmp_path / "autograder.zip"
    done = subprocess.run([sys.executable, "-S", "-c",
                           "import grader, sys; print(grader.__file__); "
                           "from grader.cli import main; sys.exit(main(sys.argv[1:]))",
                           "gradescope", "build", str(out)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(installed / "grader")), done.stdout  # not the checkout

    with zipfile.ZipFile(out) as bundle:
        names = set(bundle.namelist())
        setup = bundle.read("setup.cfg").decode()
        bundle.extractall(tmp_path / "source")
    assert {"setup.cfg", "pyproject.toml", "README.md", "grader/default.cfg",
            "grader/suite/pytest.ini", "grader/classroom/templates/gradescope_setup.sh",
            "grader/sandbox/inside/worker.py", "provided/course.py"} <= names
    requirements = {re.split(r"[<>=!~ ]", line.strip())[0] for line in setup.splitlines()
                    if line.startswith("    ")}
    assert {"pytest", "pytest-timeout", "tqdm", "pylint"} <= requirements
    assert "    pytest>=8.4\n" in setup   # the lower bound travels with it

    # What setup.sh does on Gradescope: install the zip's source, data files included.
    on_gradescope = tmp_path / "gradescope-site"
    _pip_install(tmp_path / "source", on_gradescope)
    for data in ("grader/default.cfg", "grader/suite/pytest.ini",
                 "grader/classroom/templates/gradescope_run_autograder",
                 "provided/course.py", "student/mm_player.py"):
        assert (on_gradescope / data).is_file(), data


def test_a_montecarlo_zip_grades_as_the_montecarlo_assignment(tmp_path: Path) -> None:
    """The assignment chosen at build time is baked in: a Monte Carlo file is graded by the
    Monte Carlo suite, found by the functions it defines beside its helper files (it scored
    0: the autograder looked for mm_player.py), with the module it imports from beside it
    (it scored 0 again: ModuleNotFoundError), and a minimax file handed in to it is told
    what it lacks; nothing to grade is said in the Monte Carlo's words and rubric."""
    out = tmp_path / "mc.zip"
    build_autograder(out, GradingOptions(assignment="montecarlo"))
    root = fake_autograder(tmp_path, out)
    split = HERE / "submissions" / "helpers"     # correct_clone.py in two files
    for name in ("mc_player.py", "mc_trials.py"):
        shutil.copy(split / name, root / "submission" / name)
    (root / "submission" / "helpers.py").write_text("def count_empty(board):\n    return 0\n")
    done, data = run_autograder(root)
    assert done.returncode == 0, done.stderr
    check_gradescope_schema(data)
    assert data["score"] == 100
    assert data["extra_data"]["helpers"] == ["mc_trials.py"]
    assert "Graded with: mc_trials.py" in done.stdout
    assert [test["name"] for test in data["tests"]][:2] == ["mc_trial", "mc_update_scores"]
    assert "(--assignment montecarlo)" in done.stdout
    (root / "submission" / "mc_player.py").write_bytes(CONSTANT.read_bytes())   # a minimax file
    done, data = run_autograder(root)
    assert data["score"] == 0
    assert "mc_trial(board, player)" in json.dumps(data)
    for path in (root / "submission").iterdir():
        path.unlink()
    done, data = run_autograder(root)
    check_gradescope_schema(data)
    assert data["score"] == 0 and "upload your mc_player.py" in data["output"]
    assert [test["name"] for test in data["tests"]][:2] == ["mc_trial", "mc_update_scores"]


def test_a_build_checks_every_option_before_it_writes_anything(tmp_path: Path) -> None:
    """`build --assignment monte-carlo` wrote the zip, said "upload it to Gradescope" and
    exited 2: every run of that zip failed. A bad option now writes nothing (an earlier zip
    at that path stays as it was), and a zip is never left half written."""
    out = tmp_path / "x.zip"
    done = subprocess.run([*GRADER, "gradescope", "build", str(out), "--assignment",
                           "monte-carlo"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "there is no assignment 'monte-carlo'; the assignments are: minimax" in done.stderr
    assert "upload it" not in done.stdout and not out.exists()
    out.write_bytes(b"an earlier zip")
    for bad in (["--timeout", "0"], ["--checks", str(tmp_path / "missing.py")],
                ["--assignment", "montecarlo", "--config", str(DEFAULT_CFG)]):
        done = subprocess.run([*GRADER, "gradescope", "build", str(out), *bad],
                              capture_output=True, text=True)
        assert done.returncode == 2 and "error:" in done.stderr, bad
        assert out.read_bytes() == b"an earlier zip", bad
    (tmp_path / "folder.zip").mkdir()          # cannot be replaced by a file
    with pytest.raises(OSError):
        build_autograder(tmp_path / "folder.zip")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["folder.zip", "x.zip"]
