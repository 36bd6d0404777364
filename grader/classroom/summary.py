"""The class summary page: one HTML file that works offline, its charts as inline SVG
(``grader.classroom.charts``).

What happened, in sentences an instructor reads at a glance (how many of the submissions
were graded, how many of those could not be run, how many are not graded and what to do,
who on the roster handed in nothing), what the class was graded under (a warning when it is
more than one configuration or grader version), the score histogram, how often each rubric item failed (and how often it
got no answer), the slowest submissions, what was not run or not graded and why, the most
similar pairs of submissions (when the batch compared them) and every submission's scores.
It reads gradebook rows; nothing here grades or prints.

>>> from grader.classroom.gradebook import Row, not_graded_row
>>> "<svg" in summary_html([not_graded_row("bob", "empty folder"), Row("alice", "graded", 80.0, 100.0)])
True
"""

from __future__ import annotations

import html
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from grader.classroom import similarity as similar
from grader.classroom.charts import failure_rate_svg, histogram_svg
from grader.classroom.gradebook import NO_ANSWER, NOT_GRADED, Row, cell, item_names
from grader.classroom.meant import NO_ASSIGNMENT, OTHER_ASSIGNMENT, in_order
from grader.classroom.records import NOT_ON_ROSTER
from grader.classroom.state import INTERRUPTED, WAITING
from grader.suite import writers

SLOWEST = 10
# What the summary advises when a class was graded under several configurations (a front
# end that regrades differently may put its own advice in its place).
MIXED_ADVICE = ("Run the batch again with <code>--regrade-changed</code> to grade every "
                "submission under one.")
# Why a file is not graded for the assignment it would be graded as (grader.classroom.meant).
REFUSED_WORDS = {
    OTHER_ASSIGNMENT: "for another assignment (it defines another assignment's functions: its "
                      "student meant that one; grade it with that --assignment)",
    NO_ASSIGNMENT: "for no assignment that can be told (it defines none of the functions of "
                   "this class's assignments; grade it with --assignment NAME)"}
# What a "not run: KIND" status means (grader.sandbox.submission.LOAD_ERROR_KINDS), in words.
NOT_RUN_WORDS = {"syntax": "a syntax error", "python2": "Python 2 code",
                 "import_error": "an error on import", "exit": "an exit on import",
                 "timeout": "an import that never ended", "no_function": "no mm_move",
                 "empty": "an empty file", "binary": "a binary file",
                 "encoding": "not UTF-8 text", "too_large": "a file too large",
                 "missing": "no file", "not_a_file": "not a file", "error": "an error"}


@dataclass(frozen=True)
class ClassStats:
    """The numbers the summary page shows."""

    total: int
    graded: int
    ran: int
    not_run: dict[str, int]          # "not run: syntax" -> count
    not_graded: dict[str, int]       # reason -> count
    grader_errors: int
    scores: tuple[float, ...]
    max_score: float
    item_failures: dict[str, tuple[int, int]]   # item -> (failed, out of)
    item_no_answer: dict[str, int]              # item -> submissions with no answer on it
    item_means: dict[str, tuple[float, float]]  # item -> (mean score, max score)
    # fingerprint -> (graded submissions, the configuration in words), most rows first
    configurations: dict[str, tuple[int, str]] = field(default_factory=dict)
    missing: int = 0              # students on the roster who handed in nothing
    missing_zero: bool = False    # ...and were given 0
    not_on_roster: int = 0        # submissions whose student is not on the roster

    @property
    def mixed(self) -> bool:
        """The graded rows were graded under more than one configuration or grader."""
        return len(self.configurations) > 1

    @classmethod
    def of(cls, rows: Sequence[Row]) -> "ClassStats":
        """The numbers of ``rows``: the submissions' (the roster's students who handed in
        nothing, ``Row.missing``, are counted apart, never as submissions)."""
        absent = [row for row in rows if row.missing]
        rows = [row for row in rows if not row.missing]
        graded = [row for row in rows if row.score is not None]
        ran = [row for row in graded if row.ran]
        failures: dict[str, tuple[int, int]] = {}
        no_answer: dict[str, int] = {}
        means: dict[str, tuple[float, float]] = {}
        for name in item_names(ran):
            items = [item for row in ran for item in row.items if item.name == name]
            failures[name] = (sum(not item.passed and not item.unanswered for item in items),
                              len(items))
            no_answer[name] = sum(item.unanswered for item in items)
            means[name] = (statistics.fmean(item.score for item in items),
                           max(item.max_score for item in items))
        max_score = max((row.max_score or 0.0 for row in graded), default=0.0)
        return cls(
            total=len(rows), graded=len(graded), ran=len(ran),
            not_run=dict(Counter(row.status for row in graded
                                 if row.status.startswith("not run")).most_common()),
            not_graded=dict(Counter(_reason_kind(row.status) for row in rows
                                    if row.score is None).most_common()),
            grader_errors=sum(row.status == "grader error" for row in rows),
            scores=tuple(row.score or 0.0 for row in graded),
            max_score=max_score, item_failures=failures, item_no_answer=no_answer,
            item_means=means,
            configurations={config: (count, next(row.config_text for row in graded
                                                 if row.config == config))
                            for config, count in Counter(row.config for row in graded
                                                         if row.config).most_common()},
            missing=len(absent), missing_zero=any(row.score is not None for row in absent),
            not_on_roster=sum(row.roster.startswith(NOT_ON_ROSTER) for row in rows))


def _reason_kind(status: str) -> str:
    """ "not graded: duplicate student id 'x': a.py, b.py" -> "duplicate student id"."""
    reason = status.removeprefix(f"{NOT_GRADED}: ")
    for separator in (": ", " ("):
        reason = reason.split(separator)[0]
    return reason


_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1100px; padding: 0 1em; color: #1d2433; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 1.8em; font-size: 1.2em; }
.muted { color: #667; } .cards { display: flex; flex-wrap: wrap; gap: .8em; }
.card { border: 1px solid #d8dce6; border-radius: 8px; padding: .6em 1em; min-width: 8em;
        max-width: 19em; }
.card b { display: block; font-size: 1.5em; }
table { border-collapse: collapse; margin-top: .5em; font-size: 14px; }
th, td { border-bottom: 1px solid #e4e7ee; padding: .3em .6em; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.ok { background: #e7f6ec; } td.bad { background: #fdeaea; } td.none { color: #999; }
td.quiet { background: #f1f1f1; color: #666; }
.warning { background: #fff3cd; border: 1px solid #e0b400; border-radius: 8px;
           padding: .6em 1em; }
svg .bar { fill: #4c78a8; } svg .fail { fill: #e45756; } svg .track { fill: #eef0f4; }
svg .axis { stroke: #889; } svg text { font: 12px system-ui, sans-serif; fill: #334; }
svg .count, svg .tick, svg .label { text-anchor: middle; } svg .name { text-anchor: end; }
"""


def summary_html(rows: Sequence[Row], title: str = "Class summary",
                 similarity: similar.Similarity | None = None, graded_as: str = "") -> str:
    """The class summary page: one self-contained HTML file, charts as inline SVG.

    Shows the score histogram, the failure rate of each rubric item, the
    slowest submissions by the student's CPU time, what was not run or not
    graded and why, the most similar pairs (with ``similarity``; their
    side-by-side pages are beside the summary) and every submission's scores; ``graded_as``
    says what was graded as what. Rows of several assignments have each its own scores,
    rubric items and table of submissions.
    """
    stats = ClassStats.of(rows)
    groups = _by_assignment(rows)
    several = len(groups) > 1
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{_e(title)}</title>", '<meta name="viewport" '
           'content="width=device-width, initial-scale=1">', f"<style>{_STYLE}</style>",
           "</head><body>", f"<h1>{_e(title)}</h1>",
           f'<p class="muted">{_count(stats.total, "submission")}'
           + (f" and {_count(stats.missing, 'hand-in')} missing from students on the roster"
              if stats.missing and several else
              f" and {_count(stats.missing, 'student')} on the roster who handed in nothing"
              if stats.missing else "")
           + f'; written {_e(time.strftime("%Y-%m-%d %H:%M"))}.</p>']
    if graded_as:
        out.append(f"<p>What was graded as what: {_e(graded_as)}.</p>")
    out += _cards(tiles(stats, scores=not several))
    for assignment, mine in groups:
        out += _assignment_sections(assignment, mine, stats if not several else None)
    out += _not_graded_section(rows, stats)
    out += _roster_section(rows, stats)
    out += _slowest_section(rows)
    if similarity is not None:
        out += similarity_section(similarity)
    for assignment, mine in groups:
        out += _all_rows_section(mine, f" ({assignment})" if several else "")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _by_assignment(rows: Sequence[Row]) -> list[tuple[str, list[Row]]]:
    """The rows of each assignment, in the course's order, when they are of several; else
    every row as one group."""
    names = in_order([row.assignment for row in rows])
    if len(names) < 2:
        return [("", list(rows))]
    return [(name, [row for row in rows if row.assignment == name]) for name in names]


def _assignment_sections(assignment: str, rows: Sequence[Row],
                         stats: ClassStats | None) -> list[str]:
    """The scores, what they were graded under and how often each rubric item failed, of one
    assignment (``stats``: the whole class's, when it is of one assignment)."""
    out = []
    head = "h2"
    if stats is None:          # one of several: its own heading, its own numbers
        stats = ClassStats.of(rows)
        head = "h3"
        out.append(f'<h2 id="{_e(assignment)}">The {_e(assignment)} assignment</h2>')
        out += _cards(_score_tiles(stats) or [(f"0 of {stats.total}", "graded so far.")])
    out += _configurations_section(stats)
    out.append(f"<{head}>Scores</{head}>")
    if stats.scores:
        out.append(histogram_svg(stats.scores, stats.max_score))
    else:
        out.append('<p class="muted">No submission has a score yet.</p>')
    out.append(f"<{head}>Rubric items: how often each failed</{head}>")
    if stats.item_failures:
        out.append(f'<p class="muted">Among the {stats.ran} submissions that could be run.</p>')
        out.append(failure_rate_svg(stats.item_failures))
        out += _items_table(stats)
    else:
        out.append('<p class="muted">No submission could be run yet.</p>')
    return out


def _count(number: int, noun: str) -> str:
    """ "1 submission", "2 submissions"."""
    return f"{number} {noun}{'s' * (number != 1)}"


def tiles(stats: ClassStats, scores: bool = True) -> list[tuple[str, str]]:
    """The tiles at the top of the page: (the number, the sentence it begins), each read on
    its own without the others (the submissions that could not be run are among the graded,
    and say so).

    >>> from grader.classroom.gradebook import Row, not_graded_row
    >>> rows = [Row("a", "graded", 90.0, 100.0), Row("b", "not run: syntax", 0.0, 100.0),
    ...         not_graded_row("c", INTERRUPTED)]
    >>> for number, sentence in tiles(ClassStats.of(rows))[:3]:
    ...     print(number, sentence)
    2 of 3 submissions graded.
    1 of the 2 graded could not be run (a syntax error): it scores 0, and its report says why.
    1 submission not graded: the batch was stopped before grading it; run the same command again to grade it.
    """
    graded, total = stats.graded, stats.total
    cards = [(f"{graded} of {total}", f"submission{'s' * (total != 1)} graded.")]
    not_run = sum(stats.not_run.values())
    if not_run:
        kinds = ", ".join(_not_run_words(status, count, len(stats.not_run))
                          for status, count in stats.not_run.items())
        they = "it scores 0, and its report says" if not_run == 1 else \
            "they score 0, and their reports say"
        cards.append((str(not_run), f"of the {graded} graded could not be run ({kinds}): "
                                    f"{they} why."))
    if stats.grader_errors:
        cards.append((str(stats.grader_errors),
                      f"of the {graded} graded met a grader error (the grader's fault, not "
                      "the student's): see their reports, and grade them again."))
    not_graded = sum(stats.not_graded.values())
    if not_graded:
        reasons = "; ".join(_not_graded_words(reason, count, not_graded)
                            for reason, count in stats.not_graded.items())
        cards.append((str(not_graded), f"submission{'s' * (not_graded != 1)} not graded: "
                                       f"{reasons}."))
    if stats.missing:
        given = "0 in the gradebook" if stats.missing_zero else "no score in the gradebook"
        cards.append((str(stats.missing), f"student{'s' * (stats.missing != 1)} on the roster "
                                          f"handed in nothing ({given})."))
    if stats.not_on_roster:
        cards.append((str(stats.not_on_roster),
                      f"submission{'s' * (stats.not_on_roster != 1)} from someone not on the "
                      "roster: check whose (graded all the same)."))
    return cards + (_score_tiles(stats) if scores else [])


def _score_tiles(stats: ClassStats) -> list[tuple[str, str]]:
    """The tiles of the scores: mean, median, full marks (none before any score)."""
    scores, graded = stats.scores, stats.graded
    if not scores:
        return []
    full = sum(score >= stats.max_score for score in scores)
    return [(f"{statistics.fmean(scores):.1f}",
             f"mean score out of {stats.max_score:g}, over the {graded} graded."),
            (f"{statistics.median(scores):g}", "median score."),
            (str(full), f"of the {graded} graded ha{'ve' if full != 1 else 's'} full "
                        f"marks ({stats.max_score:g}).")]


def _not_run_words(status: str, count: int, kinds: int) -> str:
    """ "a syntax error" when it is the only kind, else "2 with a syntax error"."""
    kind = status.removeprefix("not run: ")
    words = NOT_RUN_WORDS.get(kind, kind)
    return words if kinds == 1 else f"{count} with {words}"


def _not_graded_words(reason: str, count: int, total: int) -> str:
    """One reason of the not graded tile, in words (the count when there are several)."""
    if reason == _reason_kind(WAITING):
        words = "waiting their turn (the batch is still grading)" if count > 1 else \
            "waiting its turn (the batch is still grading)"
    elif reason == _reason_kind(INTERRUPTED):
        words = INTERRUPTED.replace(" it", " them") if count > 1 else INTERRUPTED
    elif reason in REFUSED_WORDS:
        words = REFUSED_WORDS[reason]
    else:
        words = reason
    return words if count == total else f"{words} ({count})"


def _cards(cards: list[tuple[str, str]]) -> list[str]:
    return ['<div class="cards">'] + [f'<div class="card"><b>{_e(number)}</b>{_e(sentence)}'
                                      "</div>" for number, sentence in cards] + ["</div>"]


def _configurations_section(stats: ClassStats) -> list[str]:
    """A line per configuration the graded rows were graded under, and a warning when
    there is more than one: their scores are not comparable."""
    if not stats.configurations:
        return []
    lines = []
    if stats.mixed:
        lines.append(f'<p class="warning"><b>Warning: this class was graded under '
                     f'{len(stats.configurations)} configurations or grader versions</b> '
                     f"(below): their scores are not comparable. {MIXED_ADVICE}</p>")
    lines.append('<p class="muted">Graded under (the gradebook\'s <code>config</code> '
                 "column):</p><ul>")
    lines += [f"<li><code>{_e(config)}</code>: {_e(text)}: {count} "
              f"submission{'s' * (count != 1)}</li>"
              for config, (count, text) in stats.configurations.items()]
    lines.append("</ul>")
    return lines


def _items_table(stats: ClassStats) -> list[str]:
    lines = ['<table><tr><th>item</th><th class="num">failed</th>'
             f'<th class="num">{NO_ANSWER}</th><th class="num">mean score</th></tr>']
    for name, (failed, total) in stats.item_failures.items():
        mean, top = stats.item_means[name]
        lines.append(f'<tr><td>{_e(name)}</td><td class="num">{failed} / {total}</td>'
                     f'<td class="num">{stats.item_no_answer.get(name, 0)} / {total}</td>'
                     f'<td class="num">{mean:.1f} / {top:g}</td></tr>')
    lines.append('<tr><td colspan="4" class="muted">failed: something was judged wrong; '
                 f'{NO_ANSWER}: nothing failed, but calls raised, crashed or ran out of time, '
                 'so nothing could be judged (no points either way)</td></tr>')
    lines.append("</table>")
    return lines


def _not_graded_section(rows: Sequence[Row], stats: ClassStats) -> list[str]:
    trouble = [row for row in rows if not row.missing and (
        row.score is None or not row.ran or row.status == "grader error")]
    lines = ["<h2>Not run, not graded</h2>"]
    if not trouble:
        return lines + ['<p class="muted">Every submission was graded and could be run.</p>']
    counts = {**stats.not_run, **{f"{NOT_GRADED}: {reason}": count
                                  for reason, count in stats.not_graded.items()}}
    if stats.grader_errors:
        counts["grader error"] = stats.grader_errors
    lines.append('<table><tr><th>reason</th><th class="num">count</th></tr>')
    lines += [f'<tr><td>{_e(reason)}</td><td class="num">{count}</td></tr>'
              for reason, count in counts.items()]
    lines.append("</table>")
    lines.append('<table><tr><th>student</th><th>status</th><th>source</th></tr>')
    lines += [f"<tr><td>{_e(row.student_id)}</td><td>{_e(row.status)}</td>"
              f"<td>{_e(row.source)}</td></tr>" for row in trouble]
    lines.append("</table>")
    return lines


def _roster_section(rows: Sequence[Row], stats: ClassStats) -> list[str]:
    """Who on the roster handed in nothing, and whose submissions are not on it (only with
    a roster: ``batch --roster``)."""
    absent = [row for row in rows if row.missing]
    strangers = [row for row in rows if not row.missing and row.roster.startswith(NOT_ON_ROSTER)]
    if not absent and not strangers:
        return []
    lines = ['<h2 id="roster">The roster</h2>']
    if absent:
        given = "0 in the gradebook" if stats.missing_zero else "no score in the gradebook"
        lines.append(f"<p>{_count(len(absent), 'student')} on the roster handed in nothing "
                     f"({given}):</p>")
        several = len({row.assignment for row in absent}) > 1
        lines.append("<table><tr><th>student</th><th>name</th><th>email</th>"
                     + "<th>assignment</th>" * several + "</tr>")
        lines += [f"<tr><td>{_e(row.student_id)}</td><td>{_e(row.name)}</td>"
                  f"<td>{_e('; '.join(p.email for p in row.people if p.email))}</td>"
                  + f"<td>{_e(row.assignment)}</td>" * several + "</tr>"
                  for row in absent]
        lines.append("</table>")
    if strangers:
        lines.append(f"<p>{_count(len(strangers), 'submission')} from someone not on the "
                     "roster (graded all the same: check whose):</p>")
        lines.append("<table><tr><th>student</th><th>name</th><th>source</th>"
                     "<th>roster</th></tr>")
        lines += [f"<tr><td>{_e(row.student_id)}</td><td>{_e(row.name)}</td>"
                  f"<td>{_e(row.source)}</td><td>{_e(row.roster)}</td></tr>"
                  for row in strangers]
        lines.append("</table>")
    return lines


def _slowest_section(rows: Sequence[Row]) -> list[str]:
    timed = sorted((row for row in rows if row.cpu_seconds is not None),
                   key=lambda row: row.cpu_seconds or 0.0, reverse=True)[:SLOWEST]
    lines = ["<h2>Slowest submissions (the student's CPU time)</h2>"]
    if not timed:
        return lines + ['<p class="muted">No timings yet.</p>']
    lines.append('<table><tr><th>student</th><th class="num">CPU s</th>'
                 '<th class="num">wall s</th><th class="num">score</th></tr>')
    lines += [f'<tr><td>{_e(row.student_id)}</td><td class="num">{row.cpu_seconds:.2f}</td>'
              f'<td class="num">{row.wall_seconds or 0.0:.2f}</td>'
              f'<td class="num">{cell(row.score)}</td></tr>' for row in timed]
    lines.append("</table>")
    return lines


def _all_rows_section(rows: Sequence[Row], of: str = "") -> list[str]:
    names = item_names(rows)
    head = "".join(f'<th class="num">{_e(name)}</th>' for name in names)
    lines = [f"<h2>Every submission{_e(of)}</h2>",
             f'<table><tr><th>student</th><th>name</th><th class="num">score</th>{head}'
             '<th>status</th></tr>']
    for row in rows:
        if row.missing:          # not a submission: the roster's section lists them
            continue
        cells = {item.name: item for item in row.items}
        tds = []
        for name in names:
            item = cells.get(name)
            if item is None or not row.ran:
                tds.append('<td class="num none">–</td>')
            else:
                css = "ok" if item.passed else "quiet" if item.unanswered else "bad"
                title = f' title="{NO_ANSWER}"' if item.unanswered else ""
                tds.append(f'<td class="num {css}"{title}>{item.score:g}</td>')
        late = (" (late)" if row.late else "") + (
            " (not on the roster)" if row.roster.startswith(NOT_ON_ROSTER) else "")
        lines.append(f"<tr><td>{_e(row.student_id)}</td><td>{_e(row.name)}{late}</td>"
                     f'<td class="num">{cell(row.score)}</td>{"".join(tds)}'
                     f"<td>{_e(row.status)}</td></tr>")
    lines.append("</table>")
    return lines


def similarity_section(found: similar.Similarity) -> list[str]:
    """The "Most similar pairs" section: what did not count, how many pairs were above the
    threshold (and how many of them the cap left out), and the listed pairs, each with the share
    of each file's own code found in the other and a link to its side-by-side page; each
    student named by name and id when the batch knew the name.

    >>> pair = similar.Pair("alice", "bob", 0.97, 0.95, 300, page="similarity/pair-001.html")
    >>> '<a href="similarity/pair-001.html">' in "".join(similarity_section(
    ...     similar.Similarity((pair,), submissions=2, known=0)))
    True
    """
    known = (f" and with {found.known} known solutions from {_e(found.known_folder)}"
             if found.known_folder else "")
    templates = (f"the templates ({_e(', '.join(found.templates))})" if found.templates
                 else "no template")
    common = (f", nor code found in more than {found.common_limit} of the "
              f"{found.submissions} submissions (what most solutions share, such as the "
              f"loop that clones, moves and recurses: {found.common} fingerprints)"
              if found.common_limit else "")
    lines = ['<h2 id="similarity">Most similar pairs</h2>',
             f'<p class="muted">{found.submissions} submissions compared with each '
             f"other{known} by copydetect, on their own code: {templates} do not count"
             f"{common}, nor names, strings and comments. A share is how much of one "
             "file's own code is also in the other. Listed: either share at least "
             f"{similar.LISTED_SCORE:.0%} and at least {similar.LISTED_TOKENS} tokens of "
             f"own code in common (at most {similar.MAX_LISTED}); every pair that shares "
             f'own code is in <a href="{similar.CSV_NAME}">{similar.CSV_NAME}</a>. '
             "Similarity changes no grade: it says where to look.</p>"]
    if found.unread:
        lines.append(f'<p class="muted">Not compared: {_e("; ".join(found.unread))}</p>')
    for name, share in found.widely_copied:
        lines.append(f'<p class="warning">{share:.0%} of the known solution {_e(name)} is '
                     f"code found in more than {found.common_limit} submissions: many may "
                     "have copied it, and their copies are not listed here (that code is left "
                     "out as common). Look for it in their files.</p>")
    listed = found.listed
    if not listed:
        closest = (f" (the closest: {_e(found.pairs[0].first_label)} and "
                   f"{_e(_second(found.pairs[0]))}, {found.pairs[0].score:.0%})"
                   if found.pairs else "")
        return lines + [f'<p class="muted">No pair is that similar{closest}.</p>']
    if found.left_out:
        lines.append(f"<p><b>{len(listed)} of {found.above} pairs above the threshold "
                     "shown</b>: "
                     f"the other {found.left_out} are in "
                     f'<a href="{similar.CSV_NAME}">{similar.CSV_NAME}</a> (listed: '
                     "over the cap).</p>")
    else:
        lines.append(f"<p>{found.above} pair{'s' * (found.above != 1)} above the threshold, "
                     f"{'all ' * (found.above != 1)}shown.</p>")
    lines.append('<table><tr><th class="num">#</th><th>student</th><th class="num">share</th>'
                 '<th>similar to</th><th class="num">share</th><th class="num">tokens</th>'
                 "<th>side by side</th></tr>")
    for rank, pair in enumerate(listed, start=1):
        lines.append(f'<tr><td class="num">{rank}</td><td>{_e(pair.first_label)}</td>'
                     f'<td class="num"{_own(pair.first_label, pair.first_own)}>'
                     f"{pair.first_score:.0%}</td><td>{_e(_second(pair))}</td>"
                     f'<td class="num"{_own(_second(pair), pair.second_own)}>'
                     f'{pair.second_score:.0%}</td><td class="num">{pair.tokens}</td>'
                     f'<td><a href="{_e(pair.page)}">view</a></td></tr>')
    lines.append("</table>")
    return lines


def _own(name: str, tokens: int) -> str:
    """The title of a share's cell: how much own code the share is of."""
    return f' title="of {_e(name)}\'s {tokens} tokens of own code"' if tokens else ""


def _second(pair: similar.Pair) -> str:
    """The second of a pair as the table names it: "known: PATH", or the student's name
    and id ("Ada Lovelace (ada42)") when the batch knew the name."""
    return f"known: {pair.second}" if pair.known else pair.second_label


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def write_summary(path: Path, rows: Sequence[Row], title: str = "Class summary",
                  similarity: similar.Similarity | None = None, graded_as: str = "") -> None:
    """Write :func:`summary_html` to ``path`` atomically."""
    writers.write_text_atomic(path, summary_html(rows, title, similarity, graded_as))
