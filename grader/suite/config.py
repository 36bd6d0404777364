"""The grader's configuration: the rubric's weights and the time policy, from an INI file.

Start from a copy of ``grader/default.cfg``.

>>> sum(Config.load().weights.values())
100.0
"""

from __future__ import annotations

import configparser
from dataclasses import dataclass
from pathlib import Path

from grader.timing.policy import TimePolicy, TimingError

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "default.cfg"


class ConfigError(ValueError):
    """The grader's configuration file is missing or wrong."""


@dataclass(frozen=True)
class Config:
    """The rubric's weights and the time policy, read from an INI file."""

    weights: dict[str, float]
    policy: TimePolicy = TimePolicy()
    examples: int = 3

    @classmethod
    def load(cls, path: Path | None = None) -> "Config":
        """Read ``path`` (default: grader/default.cfg).

        >>> sum(Config.load().weights.values())
        100.0
        """
        parser = configparser.ConfigParser()
        path = path or DEFAULT_CONFIG
        defaults = TimePolicy()
        try:
            with open(path, encoding="utf-8") as file:
                parser.read_file(file)
            weights = {name: parser.getfloat("rubric", name) for name in parser["rubric"]}
            policy = TimePolicy(
                factor=parser.getfloat("time", "factor", fallback=defaults.factor),
                small=parser.getfloat("time", "small", fallback=defaults.small),
                budget=parser.getfloat("time", "budget", fallback=defaults.budget))
            examples = parser.getint("grader", "examples", fallback=3)
        except (OSError, configparser.Error, ValueError, KeyError, TimingError) as problem:
            raise ConfigError(f"cannot read the configuration {path}: {problem}") from None
        return cls(weights, policy, examples)
