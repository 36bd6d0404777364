"""``python -m student submit``: hand in mm_player.py (or mc_player.py) to the course's page.

    python -m student submit --link http://HOST:PORT/s/TOKEN    the first time
    python -m student submit                                    every time after
    python -m student submit --file ~/hw/mm_player.py
    python -m student submit --file student/mc_player.py       # the Monte Carlo player
    python -m student submit --assignment montecarlo           # said outright

Like okpy's ``--submit``: the personal link the instructor sent is kept beside the
handout (``student/.ttt-submit.json``, readable by you only), the file is handed in
through the page's JSON API, and the command waits while it is graded (its place
in the queue, then each rubric item as it finishes), then prints the report.
The file is handed in for the assignment ``--assignment`` names, else the one its
functions say (as ``python -m student check`` recognises it), else for none named: the page
then recognises it or refuses it, saying which assignments are open. A file for another
assignment than the one named is refused by the page, never filed under the wrong one.
The link's token is sent to the page's own address only: a redirect elsewhere is not
followed. A file larger than the page takes is not sent (``GET /api/limits``).
Standard library only: the handout installs nothing.

Exit status: 0 graded (whatever the score); 1 the server refused it (the message
says why and when to try again), could not be reached, or could not grade it;
2 usage errors (no link known yet, no such file); 130 interrupted (Ctrl-C: the
submission is still graded).

>>> Link.parse("http://127.0.0.1:8000/s/abc_DEF-1").base
'http://127.0.0.1:8000'
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from student.recognise import MONTECARLO, recognised
from student.transport import (EXIT_REFUSED, EXIT_USAGE, Refused, SubmitError, TooLarge, call,
                               multipart, show_size)

HANDOUT_PLAYER = Path(__file__).resolve().with_name("mm_player.py")
HANDOUT_MC_PLAYER = HANDOUT_PLAYER.with_name("mc_player.py")
CONFIG = HANDOUT_PLAYER.with_name(".ttt-submit.json")   # a dot file: handouts skip it
EXIT_GRADED, EXIT_INTERRUPTED = 0, 130
POLL_SECONDS = 1.0
FINISHED = ("done", "error")
HOW_TO_GET_A_LINK = (
    "Your instructor sends each student a personal link to the course's submission page,\n"
    "like http://HOST:PORT/s/TOKEN (the one that opens the page in a browser). Give it once:\n"
    "    python3 -m student submit --link http://HOST:PORT/s/TOKEN\n"
    "It is kept in {config} (readable by you only) for the next times.")
_LINK = re.compile(r"^(?P<base>https?://[^/?#\s]+(?:/[^?#\s]*?)?)/s/(?P<token>[A-Za-z0-9_.~-]+)/?$")


class LinkError(SubmitError):
    """The sign-in link is missing or not a link to a submission page."""

    exit_status = EXIT_USAGE


@dataclass(frozen=True)
class Link:
    """A personal sign-in link: the page's address (``base``) and the student's token.

    >>> link = Link.parse("https://ttt.example.edu/course/s/Tok3n")
    >>> link.base, link.token, link.url
    ('https://ttt.example.edu/course', 'Tok3n', 'https://ttt.example.edu/course/s/Tok3n')
    """

    base: str
    token: str

    @property
    def url(self) -> str:
        return f"{self.base}/s/{self.token}"

    @classmethod
    def parse(cls, text: str) -> "Link":
        match = _LINK.match(text.strip())
        if not match:
            raise LinkError(f"{text!r} is not a submission link: it looks like "
                            "http://HOST:PORT/s/TOKEN (copy the whole link your instructor sent)")
        return cls(match["base"].rstrip("/"), match["token"])


@dataclass(frozen=True)
class Received:
    """What the server committed before saying "received"; ``assignment``: the one it is
    for ("" from a server that does not say)."""

    id: int
    status: str
    received_at: str
    size: int
    sha256: str
    queue_position: int | None
    assignment: str = ""
    number: int | None = None     # the student's count of hand-ins of it, as the page says

    @property
    def called(self) -> str:
        """What the page calls it: "hand-in 4" (a server that does not say: "submission 7")."""
        return f"hand-in {self.number}" if self.number else f"submission {self.id}"


def load_link(config: Path = CONFIG) -> Link | None:
    """The link kept by an earlier ``--link``, or None when there is none."""
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
        return Link.parse(data["link"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, LinkError) as problem:
        raise LinkError(f"cannot read the kept link in {config} ({problem}); give it again "
                        "with --link") from None


def save_link(link: Link, config: Path = CONFIG) -> None:
    """Keep ``link`` in ``config``, readable and writable by its owner only (it signs in)."""
    config.parent.mkdir(parents=True, exist_ok=True)
    partial = config.with_name(config.name + ".partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump({"link": link.url}, handle)
        handle.write("\n")
    os.chmod(partial, 0o600)      # an older file may have been made with other rights
    os.replace(partial, config)


def local_time(stamp: str, now: datetime | None = None) -> str:
    """A time the server gave (ISO 8601, in UTC) as a person reads it, in this computer's
    time zone: the year only when it is not this year's. A text that is not a time is
    shown as it is.

    >>> local_time("2026-06-15T12:00:30.5Z", datetime(2026, 1, 1))   # in Paris: 14:00
    '... Jun ...:00 (your time)'
    >>> local_time("soon")
    'soon'
    """
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if moment.tzinfo is None:            # the server's times are UTC, whatever it says
        moment = moment.replace(tzinfo=timezone.utc)
    here = moment.astimezone()           # this computer's zone, as the student's clock shows
    year = "" if here.year == (now or datetime.now()).year else f" {here.year}"
    return f"{here:%a} {here.day} {here:%b}{year} {here:%H:%M} (your time)"


def _request(link: Link, path: str, body: bytes | None = None,
             content_type: str | None = None) -> dict[str, Any]:
    """One JSON API call with the student's token (:func:`student.transport.call`)."""
    return call(link.base, link.token, path, body, content_type)


def hand_in(link: Link, path: Path, assignment: str | None = None) -> Received:
    """Send ``path``'s bytes for ``assignment`` (None: the server decides which); return what
    the server says it committed."""
    body, content_type = multipart("file", path.name, path.read_bytes(),
                                    {"assignment": assignment} if assignment else None)
    data = _request(link, "/api/submissions", body, content_type)
    try:
        return Received(int(data["id"]), str(data["status"]), str(data.get("received_at", "")),
                        int(data.get("size", -1)), str(data.get("sha256", "")),
                        data.get("queue_position"), str(data.get("assignment") or ""),
                        data["number"] if isinstance(data.get("number"), int) else None)
    except (KeyError, TypeError, ValueError):
        raise SubmitError(f"The server's answer has no submission id: {data!r}") from None


def hand_in_for(link: Link, path: Path, asked: str | None) -> Received:
    """Hand in ``path`` for the assignment ``asked`` (``--assignment``), else for the one its
    functions say, else for none named (the page recognises it or refuses it). The page's
    refusal stands: a file is never sent again for another assignment."""
    return hand_in(link, path, asked or recognised(path))


def page_limit(link: Link) -> int | None:
    """The largest file the page takes (``GET /api/limits``), or None from a page that does
    not say (an older one)."""
    try:
        limits = _request(link, "/api/limits")
    except Refused as refusal:
        if refusal.status == 404:
            return None
        raise
    size = limits.get("max_size") if isinstance(limits, dict) else None
    return size if isinstance(size, int) and size > 0 else None


def status(link: Link, submission_id: int) -> dict[str, Any]:
    """The submission's state now: ``status``, ``queue_position``, ``items``, the results."""
    return _request(link, f"/api/submissions/{submission_id}")


def wait_until_graded(link: Link, submission_id: int, on_update: Callable[[dict[str, Any]], None],
                      limit: float, poll: float = POLL_SECONDS) -> dict[str, Any]:
    """Poll until the submission is ``done`` or ``error``; call ``on_update`` with every state.

    Raises :class:`SubmitError` after ``limit`` seconds (the submission is still graded).
    """
    give_up = time.monotonic() + limit
    while True:
        state = status(link, submission_id)
        on_update(state)
        if state.get("status") in FINISHED:
            return state
        if time.monotonic() >= give_up:
            raise SubmitError(f"Still {state.get('status', 'waiting')} after {limit:g} s. It was "
                              f"received and will be graded: see {page(link, submission_id)}")
        time.sleep(state.get("poll_after") or poll)   # the server's pace when it gives one


def page(link: Link, submission_id: int) -> str:
    """The submission's page (open the sign-in link first in that browser)."""
    return f"{link.base}/submissions/{submission_id}"


class Progress:
    """Prints what changed between two states: the queue place, then each finished item."""

    def __init__(self, stdout: TextIO) -> None:
        self.stdout = stdout
        self.last_line = ""
        self.items_shown = 0

    def __call__(self, state: dict[str, Any]) -> None:
        line = self._line(state)
        if line and line != self.last_line:
            self._say(line)
            self.last_line = line
        if state.get("status") != "running":
            return          # a finished submission's items are in its report
        items = state.get("items") or []
        for item in items[self.items_shown:]:
            score, best = item.get("score"), item.get("max_score")
            mark = "ok  " if score is not None and score == best else "    "
            self._say(f"  {mark}{item.get('name', '?')}: {_points(score)} / {_points(best)}")
        self.items_shown = max(self.items_shown, len(items))

    def _line(self, state: dict[str, Any]) -> str:
        kind = state.get("status")
        if kind == "queued":
            place = state.get("queue_position")
            wait = state.get("estimated_wait")
            text = "Waiting in the queue" if place is None else (
                "Next in the queue" if place <= 1 else f"In the queue: place {place}")
            if isinstance(wait, (int, float)) and wait > 0:
                text += f", about {_duration(wait)} to wait"
            return text + "..."
        if kind == "running":
            return "Grading..."
        return ""

    def _say(self, text: str) -> None:
        print(text, file=self.stdout, flush=True)


def _points(value: Any) -> str:
    return "?" if value is None else f"{value:g}" if isinstance(value, (int, float)) else str(value)


def _duration(seconds: float) -> str:
    return f"{round(seconds)} s" if seconds < 90 else f"{round(seconds / 60)} min"


def score_text(state: dict[str, Any]) -> str:
    """The score as the page says it: the final score, and the grader's when a late
    penalty or an adjustment changed it (the server's ``score_text``).

    >>> score_text({"score_text": "Final score: 90 / 100 (the grader's 100, late penalty -10)",
    ...             "score": 100, "max_score": 100, "late": True})
    "Final score: 90 / 100 (the grader's 100, late penalty -10)"
    >>> score_text({"score": 100, "max_score": 100})
    'Score: 100 / 100'
    """
    if state.get("score_text"):
        return str(state["score_text"])
    # A server that does not say it: the grader's score, and nothing more is known.
    return f"Score: {_points(state.get('score'))} / {_points(state.get('max_score'))}"


def report_text(state: dict[str, Any]) -> str:
    """The report as ``python -m grader grade`` prints it (the server's ``report``), or else
    built from the results: the summary, then every failed item in full.

    >>> report_text({"results": {"output": "Score: 100 / 100", "tests": [
    ...     {"name": "time", "status": "passed", "visibility": "visible", "output": "[ok] time"}]}})
    'Score: 100 / 100'
    """
    if state.get("report"):
        return str(state["report"]).rstrip()
    results = state.get("results") or {}
    parts = [str(results.get("output", "")).rstrip()]
    for test in results.get("tests") or []:
        if test.get("status") == "failed" and test.get("visibility", "visible") == "visible":
            parts.append(str(test.get("output", "")).rstrip())
    return "\n\n".join(part for part in parts if part)


def submit_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m student submit",
        description=(
            "Hand in your mm_player.py (or mc_player.py) to the course's submission page,\n"
            "for its assignment, wait while it is graded, and print the report and the\n"
            "score. The first time, give the personal link your instructor sent; it is kept\n"
            "for the next times.\n\n"
            "examples:\n"
            "  %(prog)s --link http://HOST:PORT/s/TOKEN     the first time\n"
            "  %(prog)s                                     every time after\n"
            "  %(prog)s --file ~/hw/mm_player.py\n"
            "  %(prog)s --file student/mc_player.py         the Monte Carlo player\n"
            "  %(prog)s --assignment montecarlo             student/mc_player.py, said so"),
        epilog=(
            "exit status: 0 graded (whatever the score); 1 refused by the server (the\n"
            "message says why), not reachable, or not graded; 2 usage errors; 130 Ctrl-C."),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--link", metavar="URL",
                        help="your personal link, http://HOST:PORT/s/TOKEN (kept for next times)")
    parser.add_argument("--file", type=Path, default=None, metavar="PATH",
                        help="the file to hand in (default: student/mm_player.py; with "
                             "--assignment montecarlo, student/mc_player.py)")
    parser.add_argument("--assignment", metavar="NAME",
                        help="the course's assignment it is for: minimax, montecarlo, or "
                             "another the course's page lists (default: recognised from the "
                             "functions the file defines, as `python -m student check` does: "
                             "mm_move is the minimax, mc_move or mc_trial the Monte Carlo "
                             "player; the page refuses a file that is not for the assignment "
                             "named, saying why)")
    parser.add_argument("--wait", type=float, default=900.0, metavar="SECONDS",
                        help="how long to wait for the report (default: 900); it is graded anyway")
    parser.add_argument("--config", type=Path, default=CONFIG, metavar="PATH",
                        help=f"where the link is kept (default: {_shown(CONFIG)})")
    return parser


def submit_main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
                stderr: TextIO | None = None) -> int:
    """Hand in ``--file`` with the kept (or given) link; print progress and the report."""
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    parser = submit_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:   # --help (0) or a bad option (2), already explained
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        link = Link.parse(args.link) if args.link else load_link(args.config)
        if link is None:
            print("No submission link yet.\n"
                  + HOW_TO_GET_A_LINK.format(config=_shown(args.config)), file=stderr)
            return EXIT_USAGE
        if args.file is None:
            args.file = HANDOUT_MC_PLAYER if args.assignment == MONTECARLO else HANDOUT_PLAYER
        path = args.file.expanduser()
        if not path.is_file():
            print(f"There is no file {args.file} to hand in.", file=stderr)
            return EXIT_USAGE
        return _submit(link, path, args, stdout, stderr)
    except KeyboardInterrupt:
        print("\nStopped waiting (Ctrl-C).", file=stderr)
        return EXIT_INTERRUPTED
    except SubmitError as problem:
        print(problem, file=stderr)
        return problem.exit_status


def _submit(link: Link, path: Path, args: argparse.Namespace, stdout: TextIO,
            stderr: TextIO) -> int:
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    print(f"Handing in {_shown(path)} ({len(data)} bytes) to {link.base} ...", file=stdout)
    try:
        limit = page_limit(link)
        if limit is not None and len(data) > limit:
            raise TooLarge(f"Not handed in: {path.name} is too large ({show_size(len(data))}; "
                           f"the page's limit is {show_size(limit)}), so it was not sent. Hand "
                           "in only your player's file (a test or a saved game does not "
                           "belong in it).")
        received = hand_in_for(link, path, args.assignment)
    except Refused as refusal:
        if refusal.status != 401 and args.link:
            save_link(link, args.config)     # the server knew the token: keep it
        raise
    except TooLarge:
        if args.link:
            save_link(link, args.config)     # the server told its limit: it knew the token
        raise
    if args.link:
        save_link(link, args.config)
        print(f"(your link is kept in {_shown(args.config)} for the next times)", file=stdout)
    intact = "" if received.sha256 in ("", digest) else (
        f"  WARNING: the server's hash {received.sha256[:12]} differs from your file's "
        f"{digest[:12]}: hand it in again")
    handed_for = f" for the assignment {received.assignment}" if received.assignment else ""
    print(f"Received: {received.called}{handed_for} at "
          f"{local_time(received.received_at)}, {received.size} bytes, "
          f"sha256 {received.sha256[:12]}{intact}", file=stdout, flush=True)
    try:
        state = wait_until_graded(link, received.id, Progress(stdout), args.wait)
    except KeyboardInterrupt:
        print(f"\nStopped waiting: {received.called} is still graded; see "
              f"{page(link, received.id)}", file=stderr)
        return EXIT_INTERRUPTED
    if state.get("status") == "error":
        print(f"The grader could not grade {received.called} (a grader error, not "
              "your score); your instructor can grade it again. See "
              f"{page(link, received.id)}", file=stdout)
        return EXIT_REFUSED
    print("", file=stdout)
    print(report_text(state), file=stdout)
    print(f"\n{score_text(state)}. The page: {page(link, received.id)}", file=stdout)
    return EXIT_GRADED


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    raise SystemExit(submit_main())
