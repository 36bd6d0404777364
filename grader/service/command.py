"""``python -m grader serve``: the submission page for a course (the only part that prints).

    python -m grader serve                                   # ./ttt-course, 127.0.0.1:8000
    python -m grader serve --data course --roster roster.csv --deadline 2026-12-01T23:59+01:00
    python -m grader serve --data course --links > links.csv # every sign-in link, for a mail merge
    python -m grader serve --data course --deadlines extensions.csv   # students' own deadlines
    python -m grader serve --data course --assignment minimax --assignment montecarlo
    python -m grader serve --data /var/backups/ttt-grader/2026-12-01 --read-only --port 8001
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import logging
import os
import socket
import sqlite3
import sys
from pathlib import Path
from typing import Any, Callable

from grader.classroom.run import DEFAULT_TIMEOUT, GradingOptions
from grader.service import serve_refusal
from grader.service.serve_files import (import_deadlines, import_roster, links_are_a_file,
                                        print_links)
from grader.service.course import course_config, course_dates, record_queries, serving_lock
from grader.service.course.deadline_csv import DeadlineError
from grader.service.course.intake import show_size
from grader.service.course.records import LatePolicy, PolicyError
from grader.service.course.storage import Store
from grader.service.course.times import course_zone, format_time, parse_time, show_time
from grader.service.queue import QueueOptions, priority_clause
from grader.suite import table

EXIT_OK, EXIT_USAGE = 0, 2
DEFAULT_PORT = 8000
DEMO_STUDENTS = (("demo1", "Ada Demo", "ada@example.org"),
                 ("demo2", "Alan Demo", "alan@example.org"),
                 ("demo3", "Grace Demo", "grace@example.org"))
# Course settings that the database remembers from one start to the next.
REMEMBERED = ("deadline", "late_deadline", "per_hour", "max_size", "late_penalty", "timezone",
              "base_url", "port")
DEFAULTS = {"per_hour": "10", "max_size": str(256 * 1024), "late_penalty": "none"}
COMMAND_LINE = "command line"      # who made a change given on the command line
serving_refusal = serve_refusal.serving_refusal     # what a second server says (kept here too)

HELP_EPILOG = """\
the first start on an empty DIR creates the course (DIR/course.sqlite3 and DIR/secret.key,
which signs the links: keep both, back them up together) and prints the instructor's
sign-in link once; --links prints it again with every student's.

examples:
  python -m grader serve --demo                          # try it: three demo students
  python -m grader serve --data course --roster roster.csv --links > links.csv
  python -m grader serve --data course --host 0.0.0.0 --base-url https://grader.example.org
  python -m grader serve --data course --deadline 2026-12-01T23:59:00+01:00 \\
      --late-deadline 2026-12-03T23:59:00+01:00 --visibility categories
  python -m grader serve --data course --scheduler tcp://10.0.0.5:8786 --jobs 32
  python -m grader serve --data course --deadlines extensions.csv    # then it exits
  python -m grader serve --data course --late-penalty 10%/day,max=50% --timezone Europe/Paris
  python -m grader serve --data course --assignment minimax --assignment montecarlo
  python -m grader serve --data backup-folder --read-only --port 8001   # look, change nothing

a course holds assignments (a new one: the minimax): --assignment NAME adds one (open,
last in the course's order), keeping every other, except on the start that makes the
course, where the --assignment options say what it holds; the Assignments page
(/instructor/assignments) and /api/assignments add, order, open, close and take out (while
it has no hand-ins) them while it serves.

--read-only serves a copy of DIR (a backup, say) and changes nothing of it: nothing is
graded or sent to an LMS, every change is refused, the port is not kept.

--deadline, --late-deadline, --late-penalty, --timezone, --per-hour, --max-size, the port
and --base-url are remembered in DIR (give --deadline none to remove one). While a server
serves DIR they (and --deadlines, --roster, --demo) are refused and nothing is changed: the
deadline, late deadline, late penalty and which hand-in counts change on the page (Course
dates) or with PUT /api/course; the others are read when the server starts (stop it and
start it again with them). The first
--config (or the configuration page) chooses the course's configuration; a later start
with another --config is refused unless --adopt-config. HTTPS: run it behind a reverse
proxy (Caddy, nginx) that terminates TLS and forwards to 127.0.0.1:PORT, with --base-url
https://...; or give uvicorn a certificate with --ssl-keyfile and --ssl-certfile.
"""


def register(commands: argparse._SubParsersAction,
             add_grading_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``serve`` to the subcommands of ``python -m grader``."""
    parser = commands.add_parser(
        "serve", help="the submission page: students hand in and read their report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Serve the course's submission page: students sign in with a personal "
                    "link, hand in\nmm_player.py and read its report within seconds; each "
                    "submission is graded by\n`python -m grader grade` (the same score as "
                    "grade and batch).",
        epilog=HELP_EPILOG, conflict_handler="resolve")   # its own --assignment: see below
    parser.add_argument("--data", type=Path, default=Path("ttt-course"), metavar="DIR",
                        help="the course's folder: database, key (default: %(default)s)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default: %(default)s; 0.0.0.0 for "
                             "every interface)")
    parser.add_argument("--port", type=int, default=None,
                        help="the port (default: 8000; 0: any free one)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="grade N submissions at a time (default: the number of cores, "
                             "%(default)s here; with --scheduler: tasks on the cluster)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="grade on a Dask cluster (e.g. tcp://10.0.0.5:8786), as batch "
                             "--scheduler does")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help="stop a grading run after this many wall seconds; it is tried "
                             "once more, then shown as a grader error (default: %(default)g)")
    parser.add_argument("--demo", action="store_true",
                        help="add three demo students (demo1..demo3) and print their links")
    parser.add_argument("--roster", type=Path, metavar="CSV",
                        help="import or update the roster (id,name,email; the LMS exports "
                             "batch reads), then serve")
    parser.add_argument("--links", action="store_true",
                        help="print CSV student_id,name,email,link (every student, then "
                             "the instructor) and exit")
    parser.add_argument("--deadlines", type=Path, metavar="CSV",
                        help="give students their own deadlines from a CSV "
                             "student_id,deadline,late_deadline (extensions; an optional "
                             "assignment column says which assignment each is for, else the "
                             "course's first), then exit: all of them, or none")
    parser.add_argument("--lti-platform", type=Path, metavar="FILE.json",
                        help="store an LMS (an LTI 1.3 platform: issuer, client_id, "
                             "deployment_ids, auth_login_url, auth_token_url, key_set_url), "
                             "print the tool's URLs to paste into the LMS, and exit")
    parser.add_argument("--lti-allow-private", action="store_true",
                        help="let LTI Dynamic Registration call an LMS on a private, "
                             "loopback or link-local address (refused by default): for tests "
                             "and LMSs on a campus network")
    parser.add_argument("--renew-instructor", action="store_true",
                        help="make a new instructor link (the old one and its sessions stop "
                             "working), print it and exit")
    parser.add_argument("--adopt-config", action="store_true",
                        help="make --config the course's configuration from now on (without "
                             "it, a --config that grades differently from the course's is "
                             "refused)")
    parser.add_argument("--deadline", metavar="ISO",
                        help="the deadline (ISO 8601, e.g. 2026-12-01T23:59:00+01:00; no "
                             "zone: the course's time zone); later ones are marked late or "
                             "refused")
    parser.add_argument("--late-deadline", metavar="ISO",
                        help="accept late submissions until then (marked late)")
    parser.add_argument("--late-penalty", metavar="POLICY",
                        help="none (the default: late is only marked), or a share of the "
                             "maximum score per day late or part of a day, capped: "
                             "10%%/day,max=50%%")
    parser.add_argument("--timezone", metavar="ZONE",
                        help="the course's time zone for the pages and for times without a "
                             "zone, e.g. Europe/Paris (default: the server's)")
    parser.add_argument("--per-hour", type=int, metavar="N",
                        help="at most N submissions per student per hour (default 10; 0: "
                             "no limit)")
    parser.add_argument("--max-size", type=int, metavar="BYTES",
                        help="the largest file accepted (default 262144: 256 KiB)")
    parser.add_argument("--base-url", metavar="URL",
                        help="the address students use (for the links), e.g. "
                             "https://grader.example.org (default: http://HOST:PORT)")
    parser.add_argument("--ssl-keyfile", type=Path, metavar="PATH",
                        help="serve HTTPS with this private key (and --ssl-certfile)")
    parser.add_argument("--ssl-certfile", type=Path, metavar="PATH",
                        help="serve HTTPS with this certificate chain")
    parser.add_argument("--read-only", action="store_true",
                        help="look at the course (a backup, say) without changing anything of "
                             "its folder: a copy of it is served (removed when the server "
                             "stops), nothing is graded or sent to an LMS, every change is "
                             "refused, and the port is not kept (default: any free one)")
    parser.add_argument("--quiet", action="store_true", help="log only warnings and errors")
    add_grading_options(parser)
    # Not grade's "grade as this assignment": each hand-in is graded as its own assignment,
    # so here the option adds assignments to the course (repeated: several, in that order).
    parser.add_argument("--assignment", dest="assignments", action="append", default=[],
                        metavar="NAME",
                        help="add the assignment NAME (minimax, montecarlo, or one installed "
                             "through the grader.assignments entry points) to the course, "
                             "open and last in its order, then serve; repeat it to add "
                             "several (--assignment minimax --assignment montecarlo); one the "
                             "course holds already is left as it is. Adding keeps what the "
                             "course holds (a new course: the minimax), except on the start "
                             "that makes the course: there these say what it holds")
    parser.set_defaults(func=serve_command)


def _error(message: str) -> int:
    print(f"python -m grader serve: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _time_option(value: str | None, name: str, zone: Any) -> str | None:
    """An ISO time from the command line, as the database keeps it ("none": remove)."""
    if value is None or value.lower() == "none":
        return value
    try:
        return format_time(parse_time(value, zone))
    except ValueError:
        raise ValueError(f"{name} {value!r} is not an ISO 8601 time: write it like "
                         "2026-12-01T23:59:00+01:00 (no zone: the course's time zone)") from None


def remembered_settings(store: Store, args: argparse.Namespace) -> dict[str, str]:
    """The course's settings: those given now (saved, each change kept in the course's log),
    else those saved before, else defaults. ValueError for a value that cannot be used."""
    saved = store.settings()
    timezone = args.timezone if args.timezone is not None else saved.get("timezone", "")
    zone = course_zone(timezone)                       # ValueError: unknown
    policy = None
    if args.late_penalty is not None:
        try:
            policy = LatePolicy.parse(args.late_penalty).text
        except PolicyError as problem:
            raise ValueError(str(problem)) from None
    dates = {"deadline": _time_option(args.deadline, "--deadline", zone),
             "late_deadline": _time_option(args.late_deadline, "--late-deadline", zone),
             "late_penalty": policy}
    # The same records the page changes, logged as the command line's; the LMS's grades follow.
    if course_dates.change(store, {key: None if value.lower() == "none" and key != "late_penalty"
                                   else value for key, value in dates.items()
                                   if value is not None},
                           who=COMMAND_LINE):   # DatesError (a ValueError): nothing changed
        from grader.service import lti
        lti.grades_changed(store)
    given = {"per_hour": None if args.per_hour is None else str(args.per_hour),
             "max_size": None if args.max_size is None else str(args.max_size),
             "timezone": args.timezone}
    for key, value in given.items():
        if value is None:
            continue
        value = None if value.lower() == "none" else value
        if saved.get(key) != value:
            store.set_setting(key, value)
            record_queries.log_change(store, COMMAND_LINE, "setting", key,
                                      None if saved.get(key) is None else {key: saved[key]},
                                      None if value is None else {key: value})
    saved = store.settings()
    return {key: saved.get(key, DEFAULTS.get(key, "")) for key in REMEMBERED}


def serve_command(args: argparse.Namespace) -> int:
    """``python -m grader serve``: the front end."""
    from grader.service import app as web
    from grader.service.pages.records_routes import RecordError
    from grader.suite.config import Config, ConfigError
    if args.jobs < 1:
        return _error("--jobs must be 1 or more")
    if bool(args.ssl_keyfile) != bool(args.ssl_certfile):
        return _error("give both --ssl-keyfile and --ssl-certfile (or neither)")
    if args.adopt_config and args.config is None:
        return _error("--adopt-config adopts the --config given with it: give --config FILE")
    if args.read_only:
        return _serve_read_only(args)
    grading = GradingOptions.from_args(args)
    assignments = list(dict.fromkeys(args.assignments))
    try:       # a bad configuration would fail every grading run: refuse it now, as grade does
        config = Config.load(grading.config, grading.checks,
                             assignments[0] if assignments else grading.assignment_name)
    except ConfigError as problem:
        return _error(str(problem))
    for warning in config.warnings:
        print(f"python -m grader serve: warning: {warning}", file=sys.stderr)
    if args.roster is not None:       # a roster that is refused: nothing is made or changed
        from grader.classroom.roster import RosterError, load_roster
        try:
            load_roster(args.roster)
        except RosterError as problem:
            return _error(str(problem))
    if args.deadlines is not None:    # likewise a deadlines file (read again in the course's
        try:                          # time zone once the course is open)
            import_deadlines(None, args.deadlines, datetime.timezone.utc)
        except OSError as problem:
            return _error(f"cannot read {args.deadlines}: {problem}")
        except DeadlineError as problem:
            return _error(str(problem))
    lock = None      # held while this process changes the course or serves it
    if serve_refusal.changes_the_course(args) or not serve_refusal.exits_at_once(args):
        try:
            lock = serving_lock.take(args.data)
        except serving_lock.Serving as serving:
            return _error(serve_refusal.serving_refusal(args, serving))
        except OSError as problem:
            return _error(f"cannot use {args.data} as the course's folder: {problem}")
    try:
        store = web.open_store(args.data, tell=_say)
    except OSError as problem:
        return _error(f"cannot use {args.data} as the course's folder: {problem}")
    first_token = store.ensure_instructor()
    if args.roster is not None:
        try:
            added, updated = import_roster(store, args.roster)
        except ImportError as problem:
            return _error(f"cannot read rosters here: {problem}")
        except (ValueError, OSError) as problem:     # RosterError is a ValueError
            named = str(args.roster) in str(problem)
            return _error(str(problem) if named else f"the roster {args.roster}: {problem}")
        _say(f"roster {args.roster}: {added} students added, {updated} updated")
    if args.demo:
        added, _ = store.upsert_students(DEMO_STUDENTS)
        _say(f"--demo: {added} demo students added (demo1, demo2, demo3)" if added else
             "--demo: the demo students (demo1, demo2, demo3) were there already")
    try:
        settings = remembered_settings(store, args)
    except ValueError as problem:
        return _error(str(problem))
    zone = course_zone(settings["timezone"])
    scheme = "https" if args.ssl_certfile else "http"
    stored_url = settings["base_url"]
    if args.deadlines is not None:
        try:
            counts = import_deadlines(store, args.deadlines, zone)
        except OSError as problem:
            return _error(f"cannot read {args.deadlines}: {problem}")
        except (DeadlineError, RecordError) as problem:
            return _error(str(problem))
        from grader.service.pages.records_routes import deadlines_said
        _say(f"{args.deadlines}: {deadlines_said(counts)}")
        return EXIT_OK
    if args.lti_platform is not None:
        from grader.service import lti
        from grader.service.lti.platforms import plain_http_warning
        base = args.base_url or stored_url or \
            f"{scheme}://{_url_host(args.host)}:{args.port or settings['port'] or DEFAULT_PORT}"
        try:
            print(lti.register_platform_file(store, args.data, args.lti_platform,
                                             base.rstrip("/")), end="", flush=True)
        except lti.RegistrationError as problem:
            return _error(str(problem))
        warning = plain_http_warning(base)
        if warning:
            print(f"python -m grader serve: warning: {warning}", file=sys.stderr)
        return EXIT_OK
    if args.renew_instructor:
        token = store.renew_instructor_token()
        base = args.base_url or stored_url or \
            f"{scheme}://{_url_host(args.host)}:{args.port or DEFAULT_PORT}"
        print(f"A new instructor link (the old one and every session it opened no longer "
              f"sign in):\n  {base.rstrip('/')}/s/{token}", flush=True)
        return EXIT_OK
    if args.links:         # the address it was last served at, unless one is given now
        port = args.port if args.port is not None else settings["port"] or DEFAULT_PORT
        given = args.base_url or (f"{scheme}://{_url_host(args.host)}:{port}"
                                  if args.port is not None else "")
        print_links(store, (given or stored_url
                            or f"{scheme}://{_url_host(args.host)}:{port}").rstrip("/"),
                    bom=links_are_a_file())
        return EXIT_OK
    if args.port is None:            # the port the course was served on last, else 8000
        args.port = int(settings["port"]) if settings["port"].isdigit() else DEFAULT_PORT
    for name in assignments:
        try:
            added = course_config.course_assignment(store, name, who=COMMAND_LINE,
                                                    new_course=first_token is not None)
        except course_config.ConfigChanged as problem:
            return _error(str(problem))
        _say(f"--assignment {name}: {added or 'the course holds it already'}")
    try:
        grading, decided = course_config.course_grading(store, args.data, grading,
                                                        args.adopt_config)
    except course_config.ConfigChanged as problem:
        return _error(str(problem))
    try:
        listener = socket.create_server((args.host, args.port), reuse_port=False)
    except OSError as problem:
        if first_token is not None:
            print(f"A new course in {args.data}/ was made; its instructor link is kept: "
                  f"python -m grader serve --data {args.data} --links prints it "
                  "(with every student's).", file=sys.stderr)
        return _error(f"cannot listen on {args.host}:{args.port}: {problem} (another server "
                      "on that port? give --port N, or --port 0 for any free one)")
    port = listener.getsockname()[1]
    listening = f"{scheme}://{_url_host(args.host)}:{port}"
    base_url = course_base_url(store, args.base_url, listening, str(port))
    if first_token is not None:
        _first_start(args, base_url, first_token)
    if args.demo:
        print("demo students' links:")
        # Lines among the server's messages, on a terminal or in its log: not a CSV file.
        print_links(store, base_url, [student_id for student_id, _, _ in DEMO_STUDENTS],
                    bom=False)
    service = web.ServiceSettings(          # the dates: in the course's records (course_dates)
        data=args.data, base_url=base_url,
        queue=QueueOptions(grading, args.jobs, args.scheduler, args.timeout or None),
        per_hour=int(settings["per_hour"]), max_size=int(settings["max_size"]),
        timezone=settings["timezone"], lti_allow_private=args.lti_allow_private)
    _configure_logging(args.quiet)
    try:
        application = web.create_app(service, store)
    except ImportError as problem:
        return _error(str(problem))
    if args.config is not None:
        _say(f"--config: {decided}")
    _describe(service, course_dates.read(store), args,
              course_config.grading_described(store, grading.config))
    print(f"Serving on {base_url}/" if base_url == listening else
          f"Serving on {listening}/ (links: {base_url}/)", flush=True)
    try:
        return _run(application, listener, args)
    finally:
        if lock is not None:
            lock.close()            # the process ending lets go of it as well


def _serve_read_only(args: argparse.Namespace) -> int:
    """``serve --read-only``: a copy of the folder served, every change refused, nothing of
    the folder written (:mod:`grader.service.read_only`)."""
    from grader.service import app as web, read_only
    from grader.service.course import auth
    from grader.service.course.schema import SchemaError
    refusal = serve_refusal.read_only_refusal(args)
    if refusal:
        return _error(refusal)
    try:
        copy = read_only.snapshot(args.data)
    except (read_only.NotACourse, OSError) as problem:
        return _error(str(problem))
    store = None
    try:
        try:      # a folder of an older schema is migrated here, in the copy only
            store = Store(copy / web.DATABASE, auth.load_secret(copy))
            listener = socket.create_server((args.host, args.port or 0), reuse_port=False)
        except (SchemaError, sqlite3.DatabaseError, OSError, ValueError) as problem:
            return _error(f"cannot serve {args.data} read-only: {problem}")
        url = f"{'https' if args.ssl_certfile else 'http'}://{_url_host(args.host)}:" \
              f"{listener.getsockname()[1]}"
        saved = {**DEFAULTS, **store.settings()}
        chosen = course_config.course_config(store)
        grading = dataclasses.replace(GradingOptions.from_args(args), assignment=None,
                                      config=chosen if chosen and chosen.is_file() else None)
        service = web.ServiceSettings(
            data=copy, base_url=url, queue=QueueOptions(grading, args.jobs),
            per_hour=int(saved["per_hour"]), max_size=int(saved["max_size"]),
            timezone=saved.get("timezone", ""), read_only=True)
        _configure_logging(args.quiet)
        application = web.create_app(service, store)
        _say(read_only.described(copy, args.data))
        _describe(service, course_dates.read(store), args,
                  course_config.grading_described(store, grading.config))
        print(f"The course's links sign in here, e.g. the instructor's: "
              f"{url}/s/{store.instructor_token()}", flush=True)
        print(f"Serving read-only on {url}/", flush=True)
        return _run(application, listener, args)
    finally:
        if store is not None:
            store.close()
        read_only.remove(copy)


BASE_URL_GIVEN = "base_url_given"   # a setting: "yes" when base_url came from --base-url


def course_base_url(store: Store, given: str | None, derived: str, port: str) -> str:
    """The address of the course's links (and of its LMS's launch URLs), kept in the course
    with the port it is served on: ``given`` (--base-url) replaces the one kept and the
    change is said; without it, a base URL given at an earlier start stays (a plain restart
    kept overwriting https://grader.example.org with http://127.0.0.1:8000, breaking every
    mailed link and the LMS's URLs), else the ``derived`` http://HOST:PORT is used.
    """
    saved = store.settings()
    before, before_port = saved.get("base_url") or "", saved.get("port") or ""
    kept = saved.get(BASE_URL_GIVEN) == "yes" or (bool(before) and not _derived(before))
    if given:
        url, chosen = given.rstrip("/"), True
    elif kept and before:
        url, chosen = before, True
    else:
        url, chosen = derived.rstrip("/"), False
    if url != before:
        store.set_setting("base_url", url)          # what --links uses when not serving
        if before and chosen:
            record_queries.log_change(store, COMMAND_LINE, "setting", "base_url",
                                      {"base_url": before}, {"base_url": url})
            _say(f"the course's links now start with {url}/ (they started with {before}/: "
                 "links mailed before and the LMS's tool URLs must use the new address)")
    store.set_setting(BASE_URL_GIVEN, "yes" if chosen else None)
    if port != before_port:
        store.set_setting("port", port)
        if before_port and before_port != "0":
            _say(f"serving on port {port} now (it was {before_port}; later starts keep it)")
    return url


def _derived(url: str) -> bool:
    """Whether ``url`` looks made from --host and the port (http://HOST:PORT), not given.

    >>> _derived("http://127.0.0.1:8000"), _derived("https://grader.example.org")
    (True, False)
    """
    from urllib.parse import urlsplit
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and parts.port is not None and \
        parts.path in ("", "/")


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", "::", ""):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host


def _first_start(args: argparse.Namespace, base_url: str, token: str) -> None:
    print(f"A new course in {args.data}/ (course.sqlite3 and secret.key: keep them together).\n"
          f"The instructor's sign-in link (printed once; --links prints it again):\n"
          f"  {base_url}/s/{token}\n"
          f"Add students from a CSV roster (id,name,email) and get their links for a mail "
          f"merge:\n"
          f"  python -m grader serve --data {args.data} --roster roster.csv --links > "
          f"links.csv\n", flush=True)


def _describe(settings: Any, dates: Any, args: argparse.Namespace, graded: str) -> None:
    deadlines = dates.deadlines
    zone = settings.zone
    parts = [graded, f"{args.jobs} at a time"
             + (f" on {args.scheduler}" if args.scheduler else " on this machine"),
             priority_clause(settings.queue),
             f"limits: {settings.per_hour or 'no limit'} per hour, "
             f"{show_size(settings.max_size)}"]
    if settings.read_only:
        parts[1] = "none at a time (read-only: nothing is graded)"
    if deadlines.deadline:
        parts.append(f"deadline {show_time(deadlines.deadline, zone)}"
                     + (f", late until {show_time(deadlines.late_deadline, zone)}"
                        if deadlines.late_deadline else ""))
    if not dates.policy.is_none:
        parts.append(f"late penalty: {dates.policy.describe()}")
    if dates.choice != course_dates.DEFAULT_CHOICE:
        parts.append(f"each student's {dates.choice} hand-in counts")
    if settings.visibility != "full":
        parts.append(f"visibility: {settings.visibility}")
    print("; ".join(parts), file=sys.stderr)


def _configure_logging(quiet: bool) -> None:
    from grader.service.logtext import one_line_logs
    logging.basicConfig(level=logging.WARNING if quiet else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    one_line_logs()         # a value from outside cannot start a log line of its own


def _run(application: Any, listener: socket.socket, args: argparse.Namespace) -> int:
    from grader.service import server       # uvicorn, with Nagle off and a header deadline
    server.run(application, listener, quiet=args.quiet, ssl_keyfile=args.ssl_keyfile,
               ssl_certfile=args.ssl_certfile)
    return EXIT_OK
