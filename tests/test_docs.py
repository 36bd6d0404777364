"""The documentation holds together: the site in docs/ builds with ``mkdocs build --strict``
(a broken link, a missing page or a page left out of the navigation fails), every relative
link and image in README.md names a file of the repository, and ``.ci/run`` runs the
README's test command.

The build is skipped, with the reason, where MkDocs or Material for MkDocs is not installed
(``pip install -e '.[test]'`` installs both).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# [text](target) and ![alt](target), the target up to a space or the closing parenthesis.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def readme_links(text: str) -> list[str]:
    """The relative targets of README's links and images (no scheme, no bare anchor).

    >>> readme_links("[a](docs/a.md) ![b](docs/b.png) [c](https://x.org) [d](#top)")
    ['docs/a.md', 'docs/b.png']
    """
    targets = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("#"):
            continue
        targets.append(target)
    return targets


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    for module, package in (("mkdocs", "mkdocs"), ("material", "mkdocs-material")):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{package} is not installed (pip install -e '.[test]' installs it)")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                          "--config-file", str(ROOT / "mkdocs.yml"),
                          "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    site = tmp_path / "site"
    for page in ("index.html", "students/index.html", "instructors/time-limits/index.html",
                 "deploy/backups/index.html", "maintainers/benchmarks/index.html",
                 "instructors/lms/index.html", "images/student-report.png",
                 "images/instructor-class.png"):
        assert (site / page).is_file(), page
    # The deployment guide shows the tested files themselves, not copies of them.
    caddy = (site / "deploy" / "caddy" / "index.html").read_text(encoding="utf-8")
    assert "reverse_proxy" in caddy and "grader.example.org" in caddy
    # The guide to an assignment of one's own shows the example package that
    # tests/test_own_assignment.py installs and grades.
    guide = (site / "maintainers" / "assignments" / "index.html").read_text(encoding="utf-8")
    assert "ttt_winner:assignment" in guide and "test_diagonals" in guide


def test_every_relative_link_in_the_readme_resolves() -> None:
    targets = readme_links(README.read_text(encoding="utf-8"))
    assert targets, "README.md links nowhere"
    missing = []
    for target in targets:
        path = (ROOT / unquote(target.split("#", 1)[0])).resolve()
        if not path.exists() or ROOT not in path.parents:
            missing.append(target)
    assert missing == [], f"README.md links to what is not in the repository: {missing}"


def test_the_readme_is_short() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 160


def test_ci_runs_the_readme_test_command() -> None:
    command = "python3 -m pip install -e '.[test]' && python3 -m pytest"
    assert f"    {command}\n" in README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert command.replace("pip install -e", "pip install -q -e") in ci
