"""The grader's configuration: the rubric's weights and the time policy, from an INI file.

``grader/default.cfg`` holds every default; an instructor's file holds only what it changes
(a ``[rubric]`` with one line changes that item's points, the others keep theirs). Every
section, key and value is checked, and a mistake is refused with a message that names it
and says what is allowed: a typo must never grade a class at 0.

>>> config = Config.load()
>>> sum(config.weights.values()), config.policy.factor
(100.0, 5.0)

Each result records what it was graded under (:class:`GradedUnder`: the effective
configuration and the grader's version, with a short fingerprint), so that a class graded
in two runs is never mixed without a sign.
"""

from __future__ import annotations

import ast
import configparser
import functools
import hashlib
import importlib.metadata
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

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
DISTRIBUTION = "ttt-minimax"
# The grader's own source, and the board module students run against: a change to either
# may change a grade, so it changes the grader's version (see grader_version). The front
# ends that only gather and show results (a class's books, the web service) change no
# grade: an improved summary page must not ask for a class to be graded again.
PACKAGES = Path(__file__).resolve().parents[2]
GRADER_SOURCES = (("grader", (".py", ".cfg", ".ini")), ("provided", (".py",)))
FRONT_ENDS = ("grader/classroom/", "grader/service/")


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
    assignment: str = "minimax"     # whose rubric this is (grader.assignments)

    @classmethod
    def load(cls, path: Path | None = None, checks: Iterable[Path] = (),
             assignment: str = "minimax") -> "Config":
        """The assignment's defaults, with ``path`` on top; rubric items may also come
        from ``checks`` (the extra test files of ``--checks``). Raises ConfigError on any
        mistake (an unknown assignment too).

        >>> Config.load().weights["game play"]
        20.0
        >>> list(Config.load(assignment="montecarlo").weights)[:2]
        ['mc_trial', 'mc_update_scores']
        """
        from grader.assignments import AssignmentError, get
        try:
            chosen = get(assignment)
        except AssignmentError as problem:
            raise ConfigError(str(problem)) from None
        items = rubric_items(chosen.suite)
        extra = rubric_items(checks)
        default = chosen.default_config
        parser = _read(default)
        where = default
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
        return cls(weights, policy, int(examples), tuple(warnings), chosen.name)


def _read(path: Path) -> configparser.ConfigParser:
    # "scores = 30   # a comment" as the README writes it: a comment, not part of the value.
    parser = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=("#", ";"))
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
            info = file.stat()
        except OSError:
            continue  # pytest will say what is wrong with it
        for name in _file_rubric_items(str(file), info.st_size, info.st_mtime_ns):
            if name not in names:
                names.append(name)
    return names


@functools.lru_cache(maxsize=256)
def _file_rubric_items(path: str, size: int, mtime_ns: int) -> tuple[str, ...]:
    """The rubric items one test file names, in order; kept per (size, modification time),
    so a process that grades many times (a warm grader) parses each file once."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return ()  # pytest will say what is wrong with it
    names: list[str] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "rubric" and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and node.args[0].value not in names):
            names.append(node.args[0].value)
    return tuple(names)


# ---------------------------------------------------------------- what a result was graded under


@functools.lru_cache(maxsize=None)
def grader_version() -> str:
    """The package's version and a hash of the grader's own source (``grader/`` but its
    front ends, and the ``provided`` board it grades with), so that a changed grader is
    noticed even when nobody changed the version number.

    >>> grader_version().startswith(importlib.metadata.version(DISTRIBUTION) + "+")
    True
    """
    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = "0"
    digest = hashlib.sha256()
    for package, suffixes in GRADER_SOURCES:
        root = PACKAGES / package
        for path in sorted(root.rglob("*")):
            relative = path.relative_to(PACKAGES).as_posix()
            if (path.is_file() and path.suffix in suffixes and "__pycache__" not in relative
                    and not relative.startswith(FRONT_ENDS)
                    and not any(part.startswith(".") for part in path.relative_to(root).parts)):
                digest.update(relative.encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{version}+{digest.hexdigest()[:8]}"


def _checks_digest(checks: Iterable[Path]) -> tuple[tuple[str, str], ...]:
    """Each ``--checks`` file's (or folder's) name and a hash of its content: not its
    path, so that a copy elsewhere (a Dask worker, Gradescope) counts as the same."""
    digests = []
    for index, check in enumerate(map(Path, checks)):
        digest = hashlib.sha256()
        files = ([check] if not check.is_dir() else
                 [path for path in sorted(check.rglob("*")) if path.is_file()
                  and "__pycache__" not in path.parts and path.suffix != ".pyc"
                  and not any(p.startswith(".") for p in path.relative_to(check).parts)])
        for path in files:
            relative = path.relative_to(check).as_posix() if check.is_dir() else ""
            try:
                digest.update(relative.encode() + b"\0" + path.read_bytes() + b"\0")
            except OSError:
                digest.update(b"unreadable")
        digests.append((f"{index}/{check.name}", digest.hexdigest()[:8]))
    return tuple(digests)


@dataclass(frozen=True)
class GradedUnder:
    """What one result was graded under: the effective configuration (not the file's
    text: a comment changes nothing), the options that change a score or what the
    student reads, and the grader's version. ``fingerprint`` is a short hash of all of
    it except ``name`` (the configuration file's name, for people).

    >>> one = GradedUnder.of(Config.load())
    >>> len(one.fingerprint), one.max_score, one == GradedUnder.of(Config.load())
    (8, 100.0, True)
    >>> GradedUnder.of(Config.load(), exhaustive=True).fingerprint != one.fingerprint
    True
    """

    name: str
    grader: str
    rubric: tuple[tuple[str, float], ...]
    time: tuple[tuple[str, float], ...]
    examples: int = 3
    exhaustive: bool = False
    visibility: str = "full"
    leaderboard: bool = False
    checks: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, config: Config, name: str = "default", exhaustive: bool = False,
           visibility: str = "full", leaderboard: bool = False,
           checks: Iterable[Path] = ()) -> "GradedUnder":
        """What a run with ``config`` and these options grades under, here and now."""
        policy = config.policy
        return cls(name, grader_version(),
                   tuple((item, float(points)) for item, points in config.weights.items()),
                   tuple((key, float(getattr(policy, key))) for key in TIME_KEYS),
                   config.examples, exhaustive, visibility, leaderboard,
                   _checks_digest(checks))

    @property
    def fingerprint(self) -> str:
        facts = asdict(self)
        del facts["name"]
        text = json.dumps(facts, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:8]

    @property
    def max_score(self) -> float:
        return round(sum(points for _, points in self.rubric), 2)

    def to_json(self) -> dict[str, Any]:
        """As results.json's ``extra_data["configuration"]`` holds it."""
        return {"fingerprint": self.fingerprint, "name": self.name, "grader": self.grader,
                "max_score": self.max_score, "rubric": dict(self.rubric),
                "time": dict(self.time), "examples": self.examples,
                "exhaustive": self.exhaustive, "visibility": self.visibility,
                "leaderboard": self.leaderboard, "checks": dict(self.checks)}

    def describe(self) -> str:
        """One line for people: the file, the points, what is not the default.

        >>> GradedUnder.of(Config.load()).describe()[:37]
        'default configuration, 100 points, gr'
        """
        return describe(self.to_json())

    def differences(self, recorded: dict[str, Any] | None) -> list[str]:
        """What differs between this and a result's recorded ``configuration``.

        >>> default = GradedUnder.of(Config.load())
        >>> default.differences({**default.to_json(), "rubric": {"scores": 15.0}})[:1]
        ['rubric: finished boards 10 (was not there)']
        """
        if not isinstance(recorded, dict):
            return ["not recorded (graded by an earlier version of the grader)"]
        mine = self.to_json()
        found = []
        for key in ("rubric", "time", "checks"):
            old = recorded.get(key) if isinstance(recorded.get(key), dict) else {}
            for name, value in mine[key].items():
                if old.get(name) != value:
                    was = f"was {_value(old[name])}" if name in old else "was not there"
                    found.append(f"{key}: {name} {_value(value)} ({was})")
            found += [f"{key}: {name} (was {_value(value)}, now not there)"
                      for name, value in old.items() if name not in mine[key]]
        for key in ("examples", "exhaustive", "visibility", "leaderboard", "grader"):
            if recorded.get(key) != mine[key]:
                found.append(f"{key}: {_value(mine[key])} (was {_value(recorded.get(key))})")
        return found


def describe(recorded: dict[str, Any] | None) -> str:
    """A result's recorded ``configuration`` in one line (see ``GradedUnder.to_json``).

    >>> describe(None)
    'not recorded (graded by an earlier version of the grader)'
    """
    if not isinstance(recorded, dict):
        return "not recorded (graded by an earlier version of the grader)"
    name = recorded.get("name") or "default"
    parts = [f"{name} configuration" if name == "default" else str(name)]
    if isinstance(recorded.get("max_score"), (int, float)):
        parts.append(f"{recorded['max_score']:g} points")
    parts += [flag for flag in ("exhaustive", "leaderboard") if recorded.get(flag)]
    if recorded.get("visibility") not in (None, "full"):
        parts.append(f"visibility {recorded['visibility']}")
    if recorded.get("checks"):
        parts.append(f"{len(recorded['checks'])} --checks")
    parts.append(f"grader {recorded.get('grader', '?')}")
    return ", ".join(parts)


def _value(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
