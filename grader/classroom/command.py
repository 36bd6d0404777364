"""``python -m grader batch``: the command line of the batch (the only part that prints).

    python -m grader batch downloads.zip --out grades --jobs 2
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from grader.classroom.batch import EXIT_USAGE, BatchOptions, BatchOutcome, graded_as, run_batch
from grader.classroom.discover import find_submissions
from grader.classroom.meant import in_order
from grader.classroom.unpack import SubmissionsError
from grader.classroom.progress import ConsoleProgress
from grader.classroom.run import DEFAULT_TIMEOUT, GradingOptions, LocalRunner, Runner
from grader.classroom import lms, similarity
from grader.classroom.roster import RosterError, load_roster
from grader.classroom.state import BatchLockedError, ConfigurationChangedError, OutputFolder


HELP_EPILOG = """\
student ids (an id keeps letters, digits and . _ @ + -; other characters become _):
  alice.py                                      alice
  alice/  (a folder)                            alice
  Full Name_12345_assignsubmission_file_/       12345   (Moodle, with its name)
  Full Name_12345_assignsubmission_file_x.py    12345   (Moodle without folders)
  lastfirst_12345_67890_mm_player.py            12345   (Canvas, with its name)
  lastfirst_LATE_12345_67890_mm_player.py       12345   (Canvas, marked late)
  submission_123456/                            123456  (Gradescope export)
A Gradescope export's submission_metadata.yml names each submission's submitters
(name, SID, email; all of a group's) and its time, late if after the due date.
the file graded, in a folder or among one student's Canvas/Moodle files: the one
that defines an assignment's functions (subfolders too; the other files are its
helpers), one per assignment a student handed in; among several for one assignment,
the one named as its template (mm_player.py, mc_player.py); a student's only .py
file whatever it defines. A .zip is unpacked into
DIR/.work (unsafe paths and links skipped, sizes capped); if its top level is a
single folder, that folder holds the class. Duplicate ids, empty folders, binary
and non-.py files are reported as "not graded: why", never fatal.

output: DIR/results/ASSIGNMENT/ID.json (Gradescope results), DIR/reports/ASSIGNMENT/
ID.txt (text report), DIR/gradebook.csv, DIR/summary.html, DIR/logs/ASSIGNMENT/ID.log
(grader failures);
with --similarity, DIR/similarity.csv and DIR/similarity/pair-NNN.html; with
--gradebook-format, DIR/gradebook-canvas.csv, DIR/gradebook-moodle.csv.
Run the same command again after an interruption: what is done is kept.
Each file is graded as the assignment whose functions it defines (said in one
sentence first); a class of several assignments keeps each student's results of
each, DIR/gradebook.csv has a line per student with each assignment's score, and
DIR/gradebook-ASSIGNMENT.csv each assignment's rows. --assignment NAME grades every
file as NAME, except a file that defines another assignment's functions: not
graded ("for another assignment"), so that no grade lands where its student did
not mean it.
Each result records the configuration and grader version it was graded under
(the gradebook's config column). A run whose configuration (rubric, [time],
[grader], --checks, --exhaustive, --visibility, --leaderboard) or grader version
differs from what DIR's results were graded under stops with exit status 2 and
says what differs: --regrade-changed grades those again (the others are kept),
--regrade grades everything again.

the roster (--roster roster.csv: id,name,email, or the roster or grade export of
Canvas, Moodle or Gradescope): a submission is matched to its student by id, SIS
id or email (a unique name failing those); the gradebook's roster column says
"not on the roster" for the others (still graded), and each student who handed in
nothing gets a row "not graded: no submission" (a score of 0 with --missing-zero).

exit status: 0 done, 1 some grading runs failed (run again to retry them),
2 usage error, 130 interrupted (the gradebook covers what was done).

examples:
  python -m grader batch submissions/ --out grades
  python -m grader batch moodle-download.zip --out grades --jobs 4 --config rubric.cfg
  python -m grader batch canvas.zip --out grades --regrade --visibility categories
  python -m grader batch class/ --out grades --scheduler tcp://10.0.0.5:8786
  python -m grader batch class/ --out grades --similarity=known-solutions/
  python -m grader batch canvas.zip --out grades --roster canvas-grades-export.csv \\
      --gradebook-format canvas --assignment-name "Minimax (12345)"
  python -m grader batch gradescope-export.zip --out grades --gradebook-format moodle
"""


def register(commands: argparse._SubParsersAction,
             add_grading_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``batch`` to the subcommands of ``python -m grader``."""
    parser = commands.add_parser(
        "batch", help="grade a whole class (a folder or an LMS zip), resumably",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Grade every submission in SUBMISSIONS, each in its own `python -m grader\n"
                    "grade` process, into DIR: results, reports, gradebook.csv and "
                    "summary.html.\nResumable: run it again and it goes on where it stopped.",
        epilog=HELP_EPILOG)
    parser.add_argument("submissions", type=Path, metavar="SUBMISSIONS",
                        help="a folder of .py files, a folder of folders (one per student), "
                             "or a .zip as Moodle, Canvas or Gradescope download it")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="the output folder (created; reused to resume)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="grade N submissions at a time on this machine "
                             "(default: the number of cores, %(default)s here); one whose "
                             "code sleeps past its limits lends its CPU to the next")
    parser.add_argument("--regrade", action="store_true",
                        help="grade every submission again, even those with a result in DIR")
    parser.add_argument("--regrade-changed", action="store_true",
                        help="grade again the results in DIR graded under another "
                             "configuration or grader version (without it, such a run "
                             "stops and says what differs); the others are kept")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="grade on a Dask cluster instead (e.g. tcp://10.0.0.5:8786); "
                             "needs pip install 'ttt-minimax[dask]' here and on the workers")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help="stop a grading run that takes longer than this many wall "
                             "seconds and report it (default: %(default)g; 0: no limit)")
    parser.add_argument(
        "--similarity", nargs="?", const=True, type=Path, metavar="FOLDER",
        help="also compare the code of every pair of submissions, and of each with the .py "
             "files in FOLDER (known solutions: earlier terms', public ones; subfolders "
             "too; never compared with each other), with copydetect (pip install "
             "'ttt-minimax[similarity]'), on their own code: the handout's and the "
             "course's templates, code found in more than "
             f"{similarity.COMMON_SHARE * 100:g}%% of the submissions (and more than "
             f"{similarity.COMMON_FILES}), names, strings and comments do not "
             "count. The summary page lists the pairs where either file has at least "
             f"{similarity.LISTED_SCORE * 100:g}%% of its own code in the other "
             f"and they share at least {similarity.LISTED_TOKENS} tokens (runs of "
             f"{similarity.NOISE_TOKENS} or more; at most {similarity.MAX_LISTED} "
             "pairs), each linked to a side-by-side page; DIR/similarity.csv has every "
             "pair that shares code. Grades do not change. Write it after SUBMISSIONS, "
             "or as --similarity=FOLDER")
    parser.add_argument(
        "--similarity-template", nargs="+", action="extend", type=Path, default=[],
        metavar="FILE",
        help="with --similarity (implied): the code of these files does not count either "
             "(the course's earlier handouts, a template of your own; a folder: its .py "
             "files); the handout's and the original course's templates never count")
    _add_records_options(parser)
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar or line per submission: only the summary")
    add_grading_options(parser)
    parser.set_defaults(func=batch_command)


def _add_records_options(parser: argparse.ArgumentParser) -> None:
    """The options of the books around the grades: the roster and the LMS gradebooks."""
    parser.add_argument("--roster", type=Path, metavar="CSV",
                        help="the class's roster (id,name,email, or an LMS's roster or grade "
                             "export): list who handed in nothing, flag submissions from "
                             "anyone not on it, and fill in names, emails and ids")
    parser.add_argument("--missing-zero", action="store_true",
                        help="with --roster: give 0 to each student who handed in nothing "
                             "(default: no score, so that an LMS import leaves theirs alone)")
    parser.add_argument("--gradebook-format", action="append", default=[],
                        choices=sorted(lms.FORMATS), metavar="LMS",
                        help="also write DIR/gradebook-LMS.csv as that LMS's grade import "
                             "reads it: canvas (Student, ID, SIS User ID, SIS Login ID, "
                             "Section, the assignment) or moodle (Full name, Email address, "
                             "ID number, the assignment); repeat it for both. A student no "
                             "importer could identify is reported, never written")
    parser.add_argument("--assignment-name", action="append", default=[],
                        metavar="[ASSIGNMENT=]COLUMN",
                        help="the grade column's name in those files (default: "
                             f"{lms.DEFAULT_ASSIGNMENT} for the minimax, the title of another "
                             "assignment); for Canvas, its name with its id as Canvas's "
                             "export writes it, e.g. 'Minimax (12345)', fills that "
                             "assignment. A class of several assignments has a column each: "
                             "repeat it as montecarlo='Monte Carlo (12346)'")
    parser.add_argument("--gradebook-choice", choices=lms.CHOICES, default="latest",
                        help="a student in several submissions (a Gradescope student in two "
                             "groups, ...): the LMS gradebooks take the latest (default) or "
                             "the best")


def _records_options(args: argparse.Namespace) -> dict[str, Any]:
    """BatchOptions' roster and LMS gradebook fields from ``args``; RosterError or
    LmsFormatError (a message to print) when they cannot be used."""
    for value in args.assignment_name:
        lms.check_assignment(value.partition("=")[2] or value)
    roster = None
    if args.roster is not None:
        roster = load_roster(args.roster)
        for note in roster.notes:
            print(f"python -m grader batch: note: {note}", file=sys.stderr)
    elif args.missing_zero:
        raise RosterError("--missing-zero needs --roster: without a roster, no one is known "
                          "to be missing")
    return dict(roster=roster, missing_zero=args.missing_zero,
                lms_formats=tuple(dict.fromkeys(args.gradebook_format)),
                choice=args.gradebook_choice)


def _check_configuration(grading: GradingOptions, assignments: list[str]) -> list[str]:
    """The configuration's warnings, once; ConfigError when it cannot grade one of the
    class's ``assignments`` (every grading run of it would fail: said once, now)."""
    from grader.suite.config import Config, ConfigError
    warnings: list[str] = []
    for name in assignments or [grading.assignment_name]:
        try:
            config = Config.load(grading.config, grading.checks, name)
        except ConfigError as problem:
            several = (f" (this class's files are for {', '.join(assignments)}: grade each "
                       "assignment with its own --config and --assignment, into its own "
                       "--out)") if len(assignments) > 1 else ""
            raise ConfigError(f"the {name} assignment: {problem}{several}") from None
        warnings += [warning for warning in config.warnings if warning not in warnings]
    return warnings


def batch_command(args: argparse.Namespace) -> int:
    """``python -m grader batch``: the front end (prints; the rest of this module does not)."""
    if args.jobs < 1:
        print("python -m grader batch: error: --jobs must be 1 or more", file=sys.stderr)
        return EXIT_USAGE
    try:
        compared = similarity.from_arguments(args.similarity, args.similarity_template)
    except similarity.SimilarityError as problem:
        print(f"python -m grader batch: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        records = _records_options(args)
    except (RosterError, lms.LmsFormatError) as problem:
        print(f"python -m grader batch: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    folder = OutputFolder(args.out)
    grading = GradingOptions.from_args(args)
    try:
        submissions, warnings = find_submissions(args.submissions, folder.work,
                                                 grading.assignment)
    except SubmissionsError as problem:
        print(f"python -m grader batch: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if all(submission.problem for submission in submissions):
        skipped = "; ".join(f"{s.source or s.student_id}: {s.problem}" for s in submissions[:5])
        print(f"python -m grader batch: error: no submissions found in {args.submissions}"
              + (f" (not gradable: {skipped})" if skipped else "")
              + "; SUBMISSIONS is a folder or a zip of .py files or of one folder per student "
              "(see --help)", file=sys.stderr)
        return EXIT_USAGE
    assignments = in_order([submission.assignment for submission in submissions])
    from grader.suite.config import ConfigError
    try:       # a bad configuration would fail every grading run: say so once, now
        for warning in _check_configuration(grading, assignments):
            print(f"python -m grader batch: warning: {warning}", file=sys.stderr)
        columns = lms.grade_columns(args.assignment_name, assignments)
    except (ConfigError, lms.LmsFormatError) as problem:
        print(f"python -m grader batch: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    print(f"python -m grader batch: {graded_as(submissions, grading.assignment)}",
          file=sys.stderr)
    options = BatchOptions(out=args.out, grading=grading,
                           regrade=args.regrade, regrade_changed=args.regrade_changed,
                           timeout=args.timeout or None,
                           similarity=compared, columns=columns, **records)
    try:
        if args.scheduler:
            from grader.classroom import distributed
            runner: Runner = distributed.DaskRunner(args.scheduler)
        else:
            runner = LocalRunner(args.jobs)
    except ImportError as problem:
        print(f"python -m grader batch: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as problem:
        print(f"python -m grader batch: error: cannot reach the scheduler {args.scheduler}: "
              f"{problem}", file=sys.stderr)
        return EXIT_USAGE
    stop = threading.Event()
    previous = _stop_on_signals(stop)
    progress = ConsoleProgress(quiet=args.quiet)
    if compared is not None and not args.quiet:
        print("comparing the submissions' code (--similarity)", file=sys.stderr, flush=True)
    try:
        outcome = run_batch(submissions, options, runner, progress, stop)
    except (BatchLockedError, ConfigurationChangedError) as problem:
        runner.close()
        print(f"python -m grader batch: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        progress.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    print(closing_lines(outcome, folder), file=sys.stderr)
    return outcome.exit_code


def _stop_on_signals(stop: threading.Event) -> dict[int, Any]:
    """Ctrl-C and SIGTERM set ``stop`` (a second one interrupts the wait for the end)."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def on_signal(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    return {signum: signal.signal(signum, on_signal)
            for signum in (signal.SIGINT, signal.SIGTERM)}


def closing_lines(outcome: BatchOutcome, folder: OutputFolder) -> str:
    """The lines the batch ends with: what happened, where the books are."""
    rows = [row for row in outcome.rows if not row.missing]
    graded = [row for row in rows if row.score is not None]
    lines = []
    if outcome.interrupted:
        lines.append("interrupted: run the same command again to go on where it stopped")
    lines.append(f"{len(rows)} submissions: {len(graded)} with a score, "
                 f"{len(outcome.graded)} graded now, {len(outcome.plan.done)} already done, "
                 f"{len(outcome.plan.not_graded)} not graded, {len(outcome.failed)} failed")
    if outcome.moved:
        lines.append(f"{outcome.moved} results of an earlier batch moved into "
                     f"{folder.results}/ASSIGNMENT/ (each by the assignment it was graded as)")
    if outcome.plan.changed:
        lines.append(f"{len(outcome.plan.changed)} of them had been graded under another "
                     "configuration or grader version (--regrade-changed: graded again)")
    for row in rows:
        if row.score is None:
            lines.append(f"  {row.student_id}: {row.status}")
    lines += _records_lines(outcome)
    lines.append(f"gradebook: {folder.gradebook}")
    for path in outcome.assignment_books:
        lines.append(f"gradebook of one assignment: {folder.root / path}")
    for book in outcome.lms_books:
        lines.append(f"gradebook for {book.format.name.capitalize()}: "
                     f"{folder.root / book.format.file_name} ({lms.mapping_help(book.format)})")
    lines.append(f"summary:   {folder.summary}")
    if outcome.similarity is not None:
        listed = len(outcome.similarity.listed)
        lines.append(f"similarity: {listed} pair{'s' * (listed != 1)} listed in the summary; "
                     f"every pair that shares code: {folder.root / similarity.CSV_NAME}")
    return "\n".join(lines)


def _records_lines(outcome: BatchOutcome) -> list[str]:
    """What the roster and the LMS gradebooks found: who is missing, who is not on the
    roster, who could not be written for an LMS."""
    lines = []
    matched = outcome.matched
    if matched is not None:
        absent = [row for row in outcome.rows if row.missing]
        several = len({row.assignment for row in absent}) > 1
        for assignment in dict.fromkeys(row.assignment for row in absent):
            missing = [row for row in absent if row.assignment == assignment]
            shown = ", ".join(row.student_id for row in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            score = "0" if missing[0].score is not None else "no score"
            lines.append(f"{len(missing)} on the roster handed in nothing"
                         + f" for the {assignment} assignment" * several
                         + f" ({score}): {shown}{more}")
        strangers = matched.unmatched
        if strangers:
            lines.append(f"{len(strangers)} submission{'s' * (len(strangers) != 1)} from "
                         "someone not on the roster (graded; the gradebook's roster column): "
                         + ", ".join(s.student_id for s in strangers[:10])
                         + (f" and {len(strangers) - 10} more" if len(strangers) > 10 else ""))
        lines += [f"note: {warning}" for warning in matched.warnings]
    for book in outcome.lms_books:
        if book.unidentified:
            lines.append(f"not in {book.format.file_name}: {len(book.unidentified)} "
                         f"graded without {book.format.needs}: "
                         + ", ".join(book.unidentified[:10])
                         + (" ..." if len(book.unidentified) > 10 else ""))
    return lines
