"""The grader's configuration: the rubric's weights and the time policy, from an INI file.

``grader/default.cfg`` holds every default; an instructor's file holds only what it changes
(a ``[rubric]`` with one line changes that item's points, the others keep theirs). Every
section, key and value is checked, and a mistake is refused with a message that names it
and says what is allowed: a typo must never grade a class at 0.

>>> config = Config.load()
>>> sum(config.weights.values()), config.policy.factor
(100.0, 5.0)
"""

from __future__ import annotations

import ast
import configparser
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from grader.timing.policy import TimePolicy, TimingError

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "default.cfg"
SUITE = Path(__file__).resolve().parent   # this folder: the hidden tests
TIME_KEYS = ("factor", "small", "budget")
GRADER_KEYS = ("examples",)
# Keys of earlier versions: what became of them.
RETIRED = {
    ("grader", "secret"): "every student is now asked the same positions, so there is no "
                          "secret any more: this line is ignored (delete it)",
    ("time", "floor"): "it is now `small` (reference searches of the empty board a call on a "
                       "small position may take)",
    ("time", "budget searches"): "it is now `budget`",
}
IGNORED = {("grader", "secret")}   # retired keys that are only warned about, not refused


class ConfigError(ValueError):
    """The configuration cannot be used; the message names the file, the key and the fix."""


@dataclass(frozen=True)
class Config:
    """The rubric's weights, the time policy, how many examples a report shows, and the
    warnings reading the file gave (things it ignored)."""

    weights: dict[str, float]
    policy: TimePolicy = TimePolicy()
    examples: int = 3
    warnings: tuple[str, ...] = field(default=())

    @classmethod
    def load(cls, path: Path | None = None, checks: Iterable[Path] = ()) -> "Config":
        """The defaults, with ``path`` on top; rubric items may also come from ``checks``
        (the extra test files of ``--checks``). Raises ConfigError on any mistake.

        >>> Config.load().weights["game play"]
        20.0
        """
        items = rubric_items([SUITE / "test_rubric.py"])
        extra = rubric_items(checks)
        parser = _read(DEFAULT_CONFIG)
        where = DEFAULT_CONFIG
        warnings: list[str] = []
        if path is not None:
            where = Path(path)
            mine = _read(where)
            warnings += _check(mine, where, items + extra)
            for section in mine.sections():
                for key, value in mine[section].items():
                    if (section, key) not in IGNORED:
                        parser[section][key] = value
        weights = {name: _points(parser, name, where) for name in parser["rubric"]}
        missing = [name for name in extra if name not in weights]
        if missing:
            raise ConfigError(
                f"{where}: the rubric item {missing[0]!r} of --checks has no points: add "
                f"`{missing[0]} = 10` (or any number of points) to [rubric]")
        try:
            policy = TimePolicy(**{key: _number(parser, "time", key, where)
                                   for key in TIME_KEYS})
        except TimingError as problem:
            raise ConfigError(f"{where}: {problem}") from None
        examples = _number(parser, "grader", "examples", where)
        if examples != int(examples) or examples < 0:
            raise ConfigError(f"{where}: [grader] examples = {examples:g}: it must be a "
                              "whole number, 0 or more")
        return cls(weights, policy, int(examples), tuple(warnings))


def _read(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with open(path, encoding="utf-8") as file:
            parser.read_file(file)
    except FileNotFoundError:
        raise ConfigError(f"there is no configuration file {path}") from None
    except (OSError, UnicodeDecodeError) as problem:
        raise ConfigError(f"cannot read the configuration {path}: {problem}") from None
    except configparser.Error as problem:
        raise ConfigError(f"{path} is not an INI file like grader/default.cfg: "
                          f"{str(problem).splitlines()[0]}") from None
    return parser


def _check(parser: configparser.ConfigParser, path: Path, items: list[str]) -> list[str]:
    """Refuse unknown sections and keys (naming what is allowed); return the warnings."""
    allowed = {"rubric": items, "time": list(TIME_KEYS), "grader": list(GRADER_KEYS)}
    warnings = []
    for section in parser.sections():
        if section not in allowed:
            raise ConfigError(f"{path}: unknown section [{section}]; the sections are "
                              + ", ".join(f"[{name}]" for name in allowed))
        for key in parser[section]:
            if (section, key) in RETIRED:
                message = f"{path}: [{section}] {key}: {RETIRED[section, key]}"
                if (section, key) not in IGNORED:
                    raise ConfigError(message)
                warnings.append(message)
            elif key not in allowed[section]:
                what = "rubric item" if section == "rubric" else "key"
                extra = " (an item of your own needs its test file: --checks)" \
                    if section == "rubric" else ""
                raise ConfigError(f"{path}: [{section}] {key}: there is no {what} of that "
                                  f"name; the {what}s are: "
                                  + ", ".join(allowed[section]) + extra)
    return warnings


def _number(parser: configparser.ConfigParser, section: str, key: str, path: Path) -> float:
    text = parser.get(section, key, fallback=None)
    if text is None:
        raise ConfigError(f"{path}: [{section}] {key} is missing")
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{path}: [{section}] {key} = {text}: it must be a number") from None
    if not math.isfinite(value):
        raise ConfigError(f"{path}: [{section}] {key} = {text}: it must be a finite number")
    return value


def _points(parser: configparser.ConfigParser, name: str, path: Path) -> float:
    value = _number(parser, "rubric", name, path)
    if value < 0:
        raise ConfigError(f"{path}: [rubric] {name} = {value:g}: points must be 0 or more "
                          "(0 leaves the item out of the score)")
    return value


def rubric_items(paths: Iterable[Path]) -> list[str]:
    """The rubric items the test files at ``paths`` score, as their markers name them
    (``@pytest.mark.rubric("name")``), in order; folders are searched for test_*.py.

    >>> rubric_items([SUITE / "test_rubric.py"])[:3]
    ['finished boards', 'scores', 'moves']
    """
    files: list[Path] = []
    for path in map(Path, paths):
        files += sorted(path.rglob("test_*.py")) if path.is_dir() else [path]
    names: list[str] = []
    for file in files:
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue  # pytest will say what is wrong with it
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "rubric" and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    and node.args[0].value not in names):
                names.append(node.args[0].value)
    return names
