"""The house as docs/maintainers/architecture.md draws it, read from the code's imports (every
import, a function's own included): the rooms stand on floors and import only downwards, so
no two import each other, even through others; the course model is below the LMS; and no
module is over 600 lines. Nothing is imported or run: the files are parsed."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# From the ground up: a room may import the rooms before it, never one after it.
FLOORS = ("provided", "grader.judge", "grader.timing", "grader.sandbox", "grader.assignments",
          "grader.suite", "grader.classroom", "grader.service")
LONGEST = 600


def _modules() -> dict[str, Path]:
    found = {}
    for package in ("provided", "student", "grader"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "submissions" in path.parts:        # known answers: students' files
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The project's modules that ``name`` imports, wherever in it the import stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:       # a submodule, else a name of the module itself
                whole = f"{base}.{alias.name}"
                named.add(whole if whole in MODULES else base)
    return {module for module in named if module in MODULES}


IMPORTS = {name: _imports(name, path) for name, path in MODULES.items()}


def _room(module: str, rooms: tuple[str, ...]) -> str | None:
    return next((room for room in rooms if module == room or module.startswith(room + ".")),
                None)


def test_the_reader_sees_the_imports_it_must():
    assert "grader.judge.solver" in IMPORTS["grader.assignments.minimax.session"] or \
        "grader.judge.solver" in IMPORTS["grader.assignments.minimax.client"]
    assert "grader.service.lti" in IMPORTS["grader.service.app"]


def test_each_room_imports_only_the_rooms_below_it():
    upward = sorted((module, imported) for module, imported_set in IMPORTS.items()
                    for imported in imported_set
                    if (mine := _room(module, FLOORS)) and (theirs := _room(imported, FLOORS))
                    and FLOORS.index(theirs) > FLOORS.index(mine))
    assert upward == [], upward


def test_no_module_imports_itself_back_through_others():
    # Depth-first search for a cycle among the modules (an __init__ that hands on a module's
    # names counts: it is a module that imports that module).
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for imported in sorted(IMPORTS[module]):
            if imported == module:
                continue
            if state.get(imported) == 1:
                cycles.append(path[path.index(imported):] + [imported])
            elif imported not in state:
                visit(imported, path + [imported])
        state[module] = 2

    for module in sorted(IMPORTS):
        if module not in state:
            visit(module, [module])
    # A package's __init__ importing its own modules is how a package hands them on; a
    # module importing its package's __init__ back is the circle.
    real = [cycle for cycle in cycles
            if not all(a.startswith(b + ".") or b.startswith(a + ".")
                       for a, b in zip(cycle, cycle[1:]))]
    assert real == [], real[:5]


def test_the_course_model_is_below_the_lms_and_the_pages():
    below = [(module, imported) for module, imported_set in IMPORTS.items()
             if module.startswith("grader.service.course")
             for imported in imported_set
             if imported.startswith(("grader.service.lti", "grader.service.pages",
                                     "grader.service.app", "grader.service.queue"))]
    assert below == []


def test_no_module_is_over_600_lines():
    long = {name: count for name, path in MODULES.items()
            if (count := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST}
    assert long == {}
