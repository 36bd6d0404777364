"""grader.classroom.handout: the student handout zip holds only what students may see, and
``python -m student check`` runs from it alone, in a fresh virtual environment.

The handout here holds the course's two assignments and the example of an instructor's own
(docs/examples/ttt-winner, installed with real pip first, as the guide says): the archive
has no hidden check, no known answer and not the hidden positions; running the public path
in this project loads none of them either; and unpacked and installed in a new virtual
environment (one for the whole file), the check runs each assignment's public checks.
"""

from __future__ import annotations

import configparser
import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.assignments import available
from grader.classroom import handout
from grader.classroom.handout import FOLDER, HandoutError
from provided.course import COURSE_NAMES
from test_batch import GRADER  # `python -m grader`, as the batch tests run it

HERE = Path(__file__).resolve().parents[1]   # tests/
PROJECT = HERE.parent
MC_CORRECT = PROJECT / "grader" / "assignments" / "montecarlo" / "submissions" / "correct_clone.py"
HIDDEN_NAMES = ("test_rubric.py", "test_montecarlo.py", "test_winner.py", "test_style.py",
                "positions.py", "expected.json", "/submissions/")


def _own_assignment_module():
    """tests/test_own_assignment.py, which installs the example with real pip."""
    spec = importlib.util.spec_from_file_location("own_assignment",
                                                  HERE / "test_own_assignment.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example assignment, installed with pip where the grader finds it."""
    return _own_assignment_module().install_example(tmp_path_factory.mktemp("own"))


@pytest.fixture(scope="module")
def handout_zip(tmp_path_factory: pytest.TempPathFactory, site: Path) -> Path:
    out = tmp_path_factory.mktemp("handout") / "handout.zip"
    done = subprocess.run([*GRADER, "handout", str(out), "--assignment", "minimax",
                           "--assignment", "montecarlo", "--assignment", "winner"],
                          capture_output=True, text=True, cwd=PROJECT,
                          env=dict(os.environ, PYTHONPATH=str(site)))
    assert done.returncode == 0, done.stderr
    return out


def test_the_handout_has_no_hidden_check_nor_known_answer(handout_zip: Path, site: Path) -> None:
    with zipfile.ZipFile(handout_zip) as bundle:
        names = bundle.namelist()
        setup = bundle.read(f"{FOLDER}/setup.cfg").decode()
        template = bundle.read(f"{FOLDER}/student/mm_player.py").decode()
        contents = {name: bundle.read(name) for name in names}

    top = {name.split("/")[1] for name in names}
    course = {"poc_ttt_provided.py", "poc_ttt_gui.py", "codeskulptor.py", "simplegui.py",
              "poc_simpletest.py", "SimpleGUICS2Pygame"}   # the course's modules, old names
    assert top == ({"README.md", "setup.cfg", "pyproject.toml", "provided", "student",
                    "grader", "ttt_winner"} | course)
    # The same beside the template, so that `python3 mm_player.py` finds them there too.
    beside = {name.split("/")[2] for name in names if name.startswith(f"{FOLDER}/student/")}
    assert course | {"mm_player.py", "mc_player.py", "winner.py"} <= beside
    assert all(name.startswith(f"{FOLDER}/") for name in names)
    for name in names:
        assert not any(word in name for word in HIDDEN_NAMES), name
        assert "__pycache__" not in name and not name.endswith(".pyc"), name
    # No hidden check and no known answer, whatever its name: not their text either.
    secrets = [path for assignment in available() for path in assignment.suite
               if path not in assignment.public_checks]
    for assignment in available():
        if assignment.known_answers is not None:
            secrets += sorted(Path(assignment.known_answers).glob("*.*"))
    secrets.append(PROJECT / "grader" / "judge" / "positions.py")
    own = site / "ttt_winner"     # the example's, as installed for this handout
    secrets += [own / "test_winner.py", *sorted((own / "submissions").glob("*.*"))]
    assert {path.name for path in secrets} >= {"test_rubric.py", "test_montecarlo.py",
                                               "test_winner.py", "correct_pruned.py",
                                               "correct_clone.py", "buggy.py"}
    shipped = set(contents.values())
    for path in secrets:
        assert path.read_bytes() not in shipped, path
    # What the public checks run on is there: the assignments' public checks and the
    # grader's engine, sandbox and judge.
    for name in ("grader/assignments/minimax/test_public.py", "grader/suite/public.py",
                 "grader/assignments/montecarlo/test_public.py", "grader/suite/engine.py",
                 "grader/sandbox/inside/worker.py", "ttt_winner/test_public.py",
                 "ttt_winner/default.cfg"):
        assert f"{FOLDER}/{name}" in names, name
    assert "raise NotImplementedError" in template
    parser = configparser.ConfigParser()
    parser.read_string(setup)
    packages = [p.strip() for p in parser["options"]["packages"].split(",")]
    assert {"provided", "student", "SimpleGUICS2Pygame", "grader.sandbox.inside",
            "ttt_winner"} <= set(packages)
    requires = parser["options"]["install_requires"].split()
    assert requires == ["pytest>=8.4", "pytest-timeout"]
    assert parser["options.entry_points"]["grader.assignments"].split() == [
        "winner", "=", "ttt_winner:assignment"]
    assert parser["metadata"]["version"] == handout.project_version()
    installed = [m.strip() for m in parser["options"]["py_modules"].split(",")]
    assert installed == list(COURSE_NAMES)   # poc_simpletest too: importable once installed


def test_the_public_path_loads_no_hidden_module() -> None:
    """What ships is decided by what the public path imports: run as a student runs it (a
    check of each course assignment), the grader's modules it loads are all in the
    handout, and none is a hidden one."""
    files = {name for name, _ in handout.handout_files()}
    trace = ("import atexit, sys\n"
             "from student.check import check_main\n"
             "atexit.register(lambda: print('\\n'.join(sorted(\n"
             "    m.__file__ for m in list(sys.modules.values())\n"
             "    if (getattr(m, '__file__', None) or '').find('/grader/') >= 0))))\n"
             f"check_main([{str(MC_CORRECT)!r}, '--no-speed'])\n"
             "check_main(['tests/submissions/grader/correct_plain.py', '--no-speed'])\n")
    done = subprocess.run([sys.executable, "-c", trace], cwd=PROJECT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    loaded = [line for line in done.stdout.splitlines() if line.startswith(str(PROJECT))]
    assert len(loaded) > 30
    for path in loaded:
        name = Path(path).relative_to(PROJECT).as_posix()
        assert f"{FOLDER}/{name}" in files, name
        assert not any(word in name for word in HIDDEN_NAMES), name
    assert str(PROJECT / "grader" / "judge" / "positions.py") not in loaded


def test_a_handout_that_would_ship_a_hidden_check_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(handout, "GRADER", (*handout.GRADER, "grader/suite/test_rubric.py"))
    with pytest.raises(HandoutError, match="grader/suite/test_rubric.py is a hidden check of "
                                           "minimax: the handout must not give it away"):
        list(handout.handout_files())
    monkeypatch.setattr(handout, "GRADER", (*handout.GRADER[:-1], "grader/judge/"))
    with pytest.raises(HandoutError, match="positions.py is the hidden positions' generator"):
        list(handout.handout_files())


def test_the_readme_says_how_to_hand_in_and_to_check_each_assignment(handout_zip: Path) -> None:
    with zipfile.ZipFile(handout_zip) as bundle:
        readme = bundle.read(f"{FOLDER}/README.md").decode()
    assert "python3 -m student submit --link http://HOST:PORT/s/TOKEN" in readme
    assert "    python3 -m student submit  " in readme      # and the times after
    assert readme.count("## Handing it in") <= 1
    assert "python3 -m student check student/mc_player.py" in readme
    assert "## Who won? (Tic-Tac-Toe)" in readme
    assert "python3 -m student check student/winner.py" in readme


@pytest.mark.long
def test_student_check_runs_from_the_handout_alone_in_a_fresh_virtual_environment(
        handout_zip: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(handout_zip) as bundle:
        bundle.extractall(tmp_path)
    folder = tmp_path / FOLDER
    # A real fresh environment: no access to this project or anything installed here.
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True)
    python = tmp_path / "venv" / "bin" / "python"
    # The README's first command, as written (pip fetches setuptools and pytest).
    install = subprocess.run([str(python), "-m", "pip", "install", "-q",
                              "--disable-pip-version-check", "-e", "."],
                             cwd=folder, capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stdout + install.stderr

    def check(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(python), "-m", "student", "check", *args], cwd=folder,
                              capture_output=True, text=True, timeout=300)

    template = check()
    assert template.returncode == 1, template.stdout + template.stderr
    assert "Not written yet (it raises NotImplementedError): mm_move." in template.stdout
    (folder / "mine.py").write_bytes(MC_CORRECT.read_bytes())
    montecarlo = check("mine.py", "--no-speed")
    assert montecarlo.returncode == 0, montecarlo.stdout + montecarlo.stderr
    assert "(Monte Carlo Tic-Tac-Toe, the montecarlo assignment)" in montecarlo.stdout
    (folder / "student" / "winner.py").write_text(
        (PROJECT / "docs" / "examples" / "ttt-winner" / "ttt_winner" / "submissions"
         / "buggy.py").read_text())
    winner = check("--assignment", "winner")
    assert winner.returncode == 1, winner.stdout + winner.stderr
    assert "  FAIL  the diagonal from the top right wins\n" in winner.stdout
    assert "        problem:  wrong winner\n" in winner.stdout
    # Installed, so it works from anywhere; there are no hidden checks to import, and the
    # grader part cannot grade.
    elsewhere = subprocess.run(
        [str(python), "-c", "import student.check, provided, poc_simpletest, ttt_winner\n"
         "from grader.suite.engine import GradeOptions, grade\n"
         "from grader.suite.config import Config\n"
         "from pathlib import Path\n"
         "print(grade(Path('x.py'), GradeOptions(config=Config.load())).grader_error)\n"
         "import grader.judge.positions"],
        cwd=tmp_path, capture_output=True, text=True)
    assert "it cannot be graded" in elsewhere.stdout, elsewhere.stderr
    assert "No module named 'grader.judge.positions'" in elsewhere.stderr
    assert (tmp_path / "venv" / "bin" / "ttt-student").exists()
