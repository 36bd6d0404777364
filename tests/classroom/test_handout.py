"""grader.classroom.handout: the student handout zip, installed in a fresh virtual environment."""

from __future__ import annotations

import configparser
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.classroom import handout
from grader.classroom.handout import FOLDER, HandoutError, build_handout
from provided.course import COURSE_NAMES
from test_batch import GRADER  # `python -m grader`, as the batch tests run it

HERE = Path(__file__).resolve().parents[1]   # tests/
PROJECT = HERE.parent


@pytest.fixture(scope="module")
def handout_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("handout") / "handout.zip"
    done = subprocess.run([*GRADER, "handout", str(out)], capture_output=True, text=True,
                          cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    return out


def test_the_handout_has_nothing_of_the_grader(handout_zip: Path) -> None:
    with zipfile.ZipFile(handout_zip) as bundle:
        names = bundle.namelist()
        setup = bundle.read(f"{FOLDER}/setup.cfg").decode()
        template = bundle.read(f"{FOLDER}/student/mm_player.py").decode()
        sources = {name: bundle.read(name) for name in names if name.endswith(".py")}

    top = {name.split("/")[1] for name in names}
    course = {"poc_ttt_provided.py", "poc_ttt_gui.py", "codeskulptor.py", "simplegui.py",
              "poc_simpletest.py", "SimpleGUICS2Pygame"}   # the course's modules, old names
    assert top == {"README.md", "setup.cfg", "pyproject.toml", "provided", "student"} | course
    # The same beside the template, so that `python3 mm_player.py` finds them there too.
    beside = {name.split("/")[2] for name in names if name.startswith(f"{FOLDER}/student/")}
    assert course <= beside
    assert all(name.startswith(f"{FOLDER}/") for name in names)
    for name in names:
        lowered = name.lower()
        for word in ("grader", "tests/", "solver", "positions", "default.cfg", "secret",
                     "suite", "__pycache__", ".pyc"):
            assert word not in lowered, name
    for name, source in sources.items():
        assert b"import grader" not in source and b"from grader" not in source, name
    assert "raise NotImplementedError" in template
    parser = configparser.ConfigParser()
    parser.read_string(setup)
    assert [p.strip() for p in parser["options"]["packages"].split(",")] == [
        "provided", "student", "SimpleGUICS2Pygame"]
    assert "install_requires" not in parser["options"]
    assert parser["metadata"]["version"] == handout.project_version()
    installed = [m.strip() for m in parser["options"]["py_modules"].split(",")]
    assert installed == list(COURSE_NAMES)   # poc_simpletest too: importable once installed


def test_the_readme_says_how_to_hand_in(handout_zip: Path) -> None:
    with zipfile.ZipFile(handout_zip) as bundle:
        readme = bundle.read(f"{FOLDER}/README.md").decode()
    assert "python3 -m student submit --link http://HOST:PORT/s/TOKEN" in readme
    assert "    python3 -m student submit  " in readme      # and the times after
    assert readme.count("## Handing it in") <= 1


def test_a_handout_module_that_imports_the_grader_is_refused(tmp_path: Path) -> None:
    for package in ("provided", "student"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "student" / "checks.py").write_text("from grader.judge.solver import Solver\n")
    with pytest.raises(HandoutError, match="student/checks.py, line 1, imports grader.judge.solver"):
        build_handout(tmp_path / "handout.zip", home=tmp_path)
    assert not (tmp_path / "handout.zip").exists()


def test_the_readme_commands_work_in_a_fresh_virtual_environment(
        handout_zip: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(handout_zip) as bundle:
        bundle.extractall(tmp_path)
    folder = tmp_path / FOLDER
    # A real fresh environment: no access to this project or anything installed here.
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True)
    python = tmp_path / "venv" / "bin" / "python"
    # The README's first command, as written (pip fetches setuptools for the build).
    install = subprocess.run([str(python), "-m", "pip", "install", "-q",
                              "--disable-pip-version-check", "-e", "."],
                             cwd=folder, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr

    check = subprocess.run([str(python), "-m", "student", "check"], cwd=folder,
                           capture_output=True, text=True, timeout=120)

    assert check.returncode == 1, check.stdout + check.stderr
    assert "is not written yet" in check.stdout
    # Installed, so it works from anywhere; and there is no grader to import.
    elsewhere = subprocess.run(
        [str(python), "-c", "import student.checks, provided, poc_simpletest; import grader"],
        cwd=tmp_path, capture_output=True, text=True)
    assert "No module named 'grader'" in elsewhere.stderr
    assert (tmp_path / "venv" / "bin" / "ttt-student").exists()
