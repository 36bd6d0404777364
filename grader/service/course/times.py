"""Times as the course's database keeps them (UTC, ISO 8601, sortable as text) and as people
read them (in the course's time zone).

>>> format_time(parse_time("2026-01-02T04:04:05+01:00"))
'2026-01-02T03:04:05.000000Z'
>>> show_time("2026-01-02T03:04:05.123456Z", "Europe/Paris")
'2026-01-02 04:04:05 CET'
"""

from __future__ import annotations

from datetime import datetime, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def now() -> datetime:
    """The time now, aware, in UTC."""
    return datetime.now(timezone.utc)


def utc_now() -> str:
    """The time now as the database keeps it (ISO 8601, UTC, microseconds, sortable as text).

    >>> len(utc_now()), utc_now().endswith("Z")
    (27, True)
    """
    return format_time(datetime.now(timezone.utc))


def format_time(moment: datetime) -> str:
    """``moment`` as the database keeps times.

    >>> format_time(datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    '2026-01-02T03:04:05.000000Z'
    """
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str, zone: tzinfo | None = None) -> datetime:
    """A time as the database keeps it, or any ISO 8601 time; one without a zone is read in
    ``zone`` (default UTC).

    >>> parse_time("2026-01-02T03:04:05.000000Z").hour
    3
    >>> parse_time("2026-07-01T12:00", ZoneInfo("Europe/Paris")).utcoffset().seconds // 3600
    2
    """
    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=zone or timezone.utc)


def course_zone(name: str | None) -> tzinfo:
    """The time zone called ``name`` (an IANA name such as ``Europe/Paris``); "" or None: the
    server's own. ValueError with what to write when the name is unknown.

    >>> course_zone("UTC").utcoffset(None)
    datetime.timedelta(0)
    """
    if not name:
        return datetime.now().astimezone().tzinfo or timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}: give an IANA name such as "
                         "Europe/Paris, America/New_York or UTC") from None


def show_time(moment: datetime | str | None, zone: tzinfo | str | None = timezone.utc) -> str:
    """A time for people, to the second, in ``zone`` (a tzinfo or its name), with the zone's
    abbreviation.

    >>> show_time("2026-01-02T03:04:05.123456Z")
    '2026-01-02 03:04:05 UTC'
    """
    if moment is None or moment == "":
        return ""
    if isinstance(moment, str):
        moment = parse_time(moment)
    if isinstance(zone, str) or zone is None:
        zone = course_zone(zone)
    local = moment.astimezone(zone)
    return local.strftime("%Y-%m-%d %H:%M:%S ") + (local.tzname() or local.strftime("%z"))
