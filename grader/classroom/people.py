"""Who a submission belongs to: the people an export names, and Gradescope's metadata.

Canvas and Moodle put a student's name and id in each file's name (``discover`` reads
those); a Gradescope export names its folders ``submission_NNN`` and says whose each one is
in ``submission_metadata.yml`` at its root: every submitter (a group submission has
several) with their name, SID and email, and when it was submitted. That file is YAML
written by Ruby, so its keys are symbols (``:submitters:``); both spellings are read.

>>> text = '''
... submission_101:
...   :submitters:
...   - :name: Ada Lovelace
...     :sid: '1001'
...     :email: ada@example.edu
...   :created_at: 2026-03-01 10:00:00.000000000 +00:00
... '''
>>> metadata = parse_gradescope_metadata(text)
>>> metadata.submissions["101"].people[0].name
'Ada Lovelace'
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

METADATA_FILE = "submission_metadata.yml"
MAX_METADATA_BYTES = 50 * 1024 * 1024


class MetadataError(ValueError):
    """Gradescope's metadata cannot be read; the message says what and what happens instead."""


@dataclass(frozen=True)
class Person:
    """One student a submission belongs to, as far as the export and the roster tell.

    >>> Person("Ada Lovelace", sid="1001").sid
    '1001'
    """

    name: str = ""
    sid: str = ""          # the school's student id (Gradescope's SID, the roster's id)
    email: str = ""
    canvas_id: str = ""    # Canvas's user id (Canvas's file names, its gradebook export)
    login_id: str = ""     # Canvas's SIS Login ID (from its gradebook export)
    section: str = ""


@dataclass(frozen=True)
class HandedIn:
    """One Gradescope submission as its metadata tells it."""

    people: tuple[Person, ...]
    submitted_at: dt.datetime | None = None
    due: dt.datetime | None = None       # the assignment's due date, when given

    @property
    def late(self) -> bool:
        """Submitted after the due date (False when either is unknown)."""
        if self.submitted_at is None or self.due is None:
            return False
        return _comparable(self.submitted_at) > _comparable(self.due)


@dataclass(frozen=True)
class GradescopeMetadata:
    """A Gradescope export's ``submission_metadata.yml``: its submissions, by the number of
    their ``submission_NNN`` folder, and what could not be read (warnings)."""

    submissions: dict[str, HandedIn] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def read_gradescope_metadata(path: Path) -> GradescopeMetadata:
    """The metadata in ``path``; raises MetadataError when it cannot be read at all."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_METADATA_BYTES:
            raise MetadataError(f"{path.name} is larger than "
                                f"{MAX_METADATA_BYTES // 1024 // 1024} MB")
        data = path.read_bytes()
    except OSError as problem:
        raise MetadataError(f"cannot read {path.name}: {problem.strerror or problem}") \
            from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MetadataError(f"{path.name} is not UTF-8 text") from None
    return parse_gradescope_metadata(text, path.name)


def parse_gradescope_metadata(text: str, source: str = METADATA_FILE) -> GradescopeMetadata:
    """The metadata in ``text`` (see the module's docstring).

    A file that is not YAML, or not a mapping of ``submission_NNN`` keys, raises
    MetadataError; an entry that does not make sense is left out with a warning.

    >>> parse_gradescope_metadata("submission_7: {submitters: [{name: Bo}]}"
    ...                           ).submissions["7"].people
    (Person(name='Bo', sid='', email='', canvas_id='', login_id='', section=''),)
    >>> try:
    ...     parse_gradescope_metadata("[1, 2", "m.yml")
    ... except MetadataError as problem:
    ...     print(str(problem).split(":")[0])
    m.yml is not valid YAML (line 1)
    """
    data = _load_yaml(text, source)
    if not isinstance(data, dict):
        raise MetadataError(f"{source} is not a mapping of submission_NNN entries "
                            f"(it holds a {type(data).__name__})")
    data = _plain(data)
    default_due = _due_of(data)
    submissions: dict[str, HandedIn] = {}
    warnings: list[str] = []
    for key, entry in data.items():
        key = str(key)
        if not key.startswith("submission_"):
            continue                       # the assignment's own details, if any
        number = key.removeprefix("submission_")
        if not isinstance(entry, dict):
            warnings.append(f"{source}: {key} is not a mapping; left out")
            continue
        people = tuple(_person(submitter) for submitter in _list(entry.get("submitters"))
                       if isinstance(submitter, dict))
        if not people:
            warnings.append(f"{source}: {key} names no submitter")
        submitted = _time(entry.get("created_at"))
        submissions[number] = HandedIn(people, submitted, _due_of(entry) or default_due)
    if not submissions:
        raise MetadataError(f"{source} has no submission_NNN entry")
    return GradescopeMetadata(submissions, tuple(warnings))


def _load_yaml(text: str, source: str) -> Any:
    try:
        import yaml
    except ImportError:
        raise MetadataError("PyYAML is not installed (pip install pyyaml)") from None

    class _Loader(yaml.SafeLoader):
        """Safe, but Ruby's tags (``!ruby/object:...``) read as plain values, not refused."""

    def _untagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_scalar(node)

    _Loader.add_multi_constructor("!", _untagged)
    try:
        return yaml.load(text, Loader=_Loader)   # noqa: S506 -- a SafeLoader subclass
    except yaml.YAMLError as problem:
        mark = getattr(problem, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise MetadataError(f"{source} is not valid YAML{where}: "
                            f"{getattr(problem, 'problem', None) or problem}") from None


def _plain(value: Any) -> Any:
    """Ruby's symbol keys (``:name``) as plain ones (``name``), all the way down."""
    if isinstance(value, dict):
        return {(key[1:] if isinstance(key, str) and key.startswith(":") else key): _plain(item)
                for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    return [value] if isinstance(value, dict) else []


def _text(value: Any) -> str:
    if value is None or isinstance(value, (dict, list)):
        return ""
    return " ".join(str(value).split())[:200]


def _person(submitter: dict[str, Any]) -> Person:
    return Person(_text(submitter.get("name")), _text(submitter.get("sid")),
                  _text(submitter.get("email")))


def _due_of(entry: dict[str, Any]) -> dt.datetime | None:
    """The due date an entry (or the file's top level) gives, directly or under
    ``assignment`` (as the autograder's submission_metadata.json does)."""
    assignment = entry.get("assignment")
    for holder in (entry, assignment if isinstance(assignment, dict) else {}):
        due = _time(holder.get("due_date"))
        if due is not None:
            return due
    return None


def _time(value: Any) -> dt.datetime | None:
    """A time as YAML read it (a datetime) or as text (ISO 8601, Ruby's ``to_s``)."""
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, dict):            # Ruby's TimeWithZone, read untagged
        return _time(value.get("utc") or value.get("time"))
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace(" UTC", " +00:00")
    text = text[:-1] + "+00:00" if text.endswith("Z") else text
    parts = text.split()
    if len(parts) == 3:                     # "2026-03-01 10:00:00.123456789 -08:00"
        text = f"{parts[0]}T{parts[1]}{parts[2]}"
    if "." in text:                         # fromisoformat takes at most 6 digits
        head, _, tail = text.partition(".")
        digits = len(tail) - len(tail.lstrip("0123456789"))
        text = f"{head}.{tail[:min(digits, 6)].ljust(6, '0')}{tail[digits:]}"
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None


def _comparable(moment: dt.datetime) -> dt.datetime:
    """An aware time as it is; a naive one taken as UTC (YAML reads Z times as naive UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)


def time_text(moment: dt.datetime | None) -> str:
    """A submission time for the gradebook: ISO 8601 to the second, with its UTC offset.

    >>> time_text(dt.datetime(2026, 3, 1, 10, 0, 5, 123456))
    '2026-03-01T10:00:05+00:00'
    """
    if moment is None:
        return ""
    return _comparable(moment).replace(microsecond=0).isoformat()
