"""What ``grader serve`` says when it cannot do what its options ask: the options that change
the course (its dates, its settings, its records), refused while a server serves the folder
and with ``--read-only``, each refusal saying how to change them instead.

    serving_refusal(args, serving_lock.Serving(Path("course"), "42"))   # nothing was changed
    read_only_refusal(args)      # "--read-only changes nothing: --roster given ..." or ""
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path  # noqa: F401 (the examples use it)

from grader.service.course import serving_lock

# The options that change the course's dates (which the page and the API change while it
# serves), its settings (read once, when a server starts) and its records: all refused while
# a server serves the folder.
DATE_OPTIONS = (("deadline", "--deadline"), ("late_deadline", "--late-deadline"),
                ("late_penalty", "--late-penalty"))
SETTING_OPTIONS = (("timezone", "--timezone"), ("per_hour", "--per-hour"),
                   ("max_size", "--max-size"), ("base_url", "--base-url"),
                   ("adopt_config", "--adopt-config"))
RECORD_OPTIONS = (("deadlines", "--deadlines"), ("roster", "--roster"), ("demo", "--demo"))
# What the refusal names as read when a server starts: the settings, and the configuration
# (which --adopt-config adopts: the command it gives must carry it). --config is not among
# the options that change the course: with --links it changes nothing.
STARTING_OPTIONS = (("config", "--config"),) + SETTING_OPTIONS
COURSE_API = "/api/course"
# What a read-only server refuses besides: what would write the course, or print and exit.
READ_ONLY_REFUSED = (("assignments", "--assignment"), ("links", "--links"),
                     ("renew_instructor", "--renew-instructor"),
                     ("lti_platform", "--lti-platform"), ("config", "--config"),
                     ("base_url", "--base-url"), ("scheduler", "--scheduler"))


def given(args: argparse.Namespace, options: tuple[tuple[str, str], ...]) -> list[str]:
    """The command-line flags among ``options`` that ``args`` gives."""
    return [flag for name, flag in options if getattr(args, name, None) not in (None, False)]


def changes_the_course(args: argparse.Namespace) -> bool:
    return bool(given(args, DATE_OPTIONS) or given(args, SETTING_OPTIONS)
                or given(args, RECORD_OPTIONS))


def exits_at_once(args: argparse.Namespace) -> bool:
    """Whether the command prints or stores something and exits without serving."""
    return bool(args.links or args.renew_instructor or args.lti_platform is not None
                or args.deadlines is not None)


def serving_refusal(args: argparse.Namespace, serving: serving_lock.Serving) -> str:
    """What to say when a server serves the folder: nothing was changed, and how to change
    what was given (the dates and the records: the page or the API, which change them while
    it serves; the other settings: restart the server with them).

    >>> args = argparse.Namespace(data=Path("course"), late_deadline="2026-12-05T23:59")
    >>> print(serving_refusal(args, serving_lock.Serving(Path("course"), "42")))
    a server is serving course/ (process 42): nothing was changed (--late-deadline given). The course's dates change while it serves: on the page (Course dates, /instructor/course), or PUT /api/course with the instructor's token and a JSON body such as {"late_deadline": "2026-12-05T23:59"} (no zone: the course's time zone).
    """
    dates = given(args, DATE_OPTIONS)
    settings, records = given(args, STARTING_OPTIONS), given(args, RECORD_OPTIONS)
    adding = ("Assignments are added while it serves: on the page (Assignments, "
              "/instructor/assignments), or POST /api/assignments with the instructor's token "
              "and a JSON body such as {\"name\": \"montecarlo\"}."
              if getattr(args, "assignments", None) else "")
    if not dates and not settings and not records:
        return " ".join(filter(None, (
            f"{serving}: one server serves a course folder. `python -m grader serve "
            f"--data {args.data} --links` prints its links (it exits at once).", adding)))
    parts = [f"{serving}: nothing was changed ({', '.join(dates + settings + records)} "
             "given)."]
    if dates:
        values = {name: str(getattr(args, name)) for name, _ in DATE_OPTIONS
                  if getattr(args, name, None) is not None}
        body = json.dumps({name: None if value.lower() == "none" and name != "late_penalty"
                           else value for name, value in values.items()})   # null: remove
        parts.append("The course's dates change while it serves: on the page (Course dates, "
                     f"/instructor/course), or PUT {COURSE_API} with the instructor's token "
                     f"and a JSON body such as {body} (no zone: the course's time zone).")
    if settings:
        stop = f"kill {serving.pid}" if serving.pid else "stop its process"
        options = " ".join(flag if getattr(args, name) is True
                           else f"{flag} {getattr(args, name)}"
                           for name, flag in STARTING_OPTIONS if name in vars(args)
                           and getattr(args, name) not in (None, False))
        parts.append("The course's settings are read when the server starts: stop "
                     f"it (Ctrl-C where it runs, or {stop}), then start it with them: "
                     f"python -m grader serve --data {args.data} {options}")
    if "--deadlines" in records:
        parts.append("Students' own deadlines change while it serves: upload the CSV on the "
                     "page (Roster and links), or PUT /api/students/ID/deadline with the "
                     "instructor's token.")
    if "--roster" in records or "--demo" in records:
        parts.append("The roster changes while it serves: upload it on the page (Roster and "
                     "links).")
    return " ".join(filter(None, (*parts, adding)))


def read_only_refusal(args: argparse.Namespace) -> str:
    """What ``--read-only`` says of the options given with it that would change the course
    (or print and exit): "" when none is.

    >>> args = argparse.Namespace(roster=Path("r.csv"), deadline=None, read_only=True)
    >>> read_only_refusal(args)
    '--read-only changes nothing and grades nothing: without --roster (serve the course itself to change it)'
    """
    flags = [flag for name, flag in (DATE_OPTIONS + SETTING_OPTIONS + RECORD_OPTIONS
                                     + READ_ONLY_REFUSED)
             if getattr(args, name, None) not in (None, False, [])]
    if not flags:
        return ""
    return (f"--read-only changes nothing and grades nothing: without {', '.join(flags)} "
            "(serve the course itself to change it)")
