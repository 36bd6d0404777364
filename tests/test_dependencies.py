"""Every third-party module the code imports is declared in setup.cfg.

A fresh install gets only what setup.cfg declares: a module the code imports but setup.cfg
does not name works on a machine that happens to have it and fails everywhere else (the LMS
side once imported joserfc and httpx undeclared, and ``grader serve`` did not start on a new
virtual environment). So the imports of ``provided``, ``student`` and ``grader`` are read
here, as text, and each third-party one is looked up:

- imported at a module's top level (outside a function, a ``try`` or ``if TYPE_CHECKING``):
  its distribution must be in ``install_requires``;
- imported lazily (inside a function or a ``try``, for an optional feature): in
  ``install_requires`` or in one of the ``extras_require``.
"""

from __future__ import annotations

import ast
import configparser
import re
import sys
from dataclasses import dataclass
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("provided", "student", "grader")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Import:
    module: str          # the top-level module name ("joserfc")
    path: Path
    line: int
    top_level: bool      # at a module's top level, unguarded

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def normalise(name: str) -> str:
    """A distribution's name as PEP 503 compares them.

    >>> normalise("PyYAML"), normalise("python_multipart")
    ('pyyaml', 'python-multipart')
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> tuple[set[str], set[str]]:
    """(install_requires, every extra's) as normalised distribution names."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")

    def names(text: str) -> set[str]:
        found = set()
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            match = NAME.match(line)
            if match:
                found.add(normalise(match.group(0)))
        return found

    required = names(config.get("options", "install_requires"))
    extras: set[str] = set()
    for _, text in config.items("options.extras_require"):
        extras |= names(text)
    return required, extras


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """The import is inside a function, a try, or an ``if TYPE_CHECKING`` block."""
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Try)):
            return True
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports(package: str) -> list[Import]:
    """The third-party imports of ``package`` (stdlib, our own packages and a folder's
    sibling modules, as the sandbox's stdlib-only worker imports them, left out; so are the
    assignments' known-answer submissions, students' files that import the course's
    modules)."""
    found = []
    local = set(PACKAGES) | {"__future__"}
    for path in sorted((ROOT / package).rglob("*.py")):
        if "submissions" in path.relative_to(ROOT).parts:
            continue  # an assignment's known-answer files: students' code, run only sandboxed
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        parents = {child: parent for parent in ast.walk(tree)
                   for child in ast.iter_child_nodes(parent)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top in sys.stdlib_module_names or top in local or \
                        (path.parent / f"{top}.py").exists():
                    continue
                found.append(Import(top, path, node.lineno, not _guarded(node, parents)))
    return found


def test_the_reader_finds_a_known_import() -> None:
    """The reader itself works: the LMS side's joserfc import is found, at top level."""
    found = [one for one in imports("grader") if one.module == "joserfc"]
    assert found and any(one.top_level for one in found)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_third_party_import_is_declared(package: str) -> None:
    required, extras = declared()
    distributions = packages_distributions()
    problems = []
    for one in imports(package):
        names = {normalise(name) for name in distributions.get(one.module, [])}
        if not names:
            problems.append(f"{one.where()}: {one.module} is not installed here, so no "
                            "distribution provides it: declare it in setup.cfg")
            continue
        allowed = required if one.top_level else required | extras
        if not names & allowed:
            where = "install_requires" if one.top_level else "install_requires or an extra"
            problems.append(f"{one.where()}: {one.module} (from {', '.join(sorted(names))}) "
                            f"is imported but not declared in setup.cfg's {where}")
    assert not problems, "\n".join(problems)
