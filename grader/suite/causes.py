"""The likely causes of many failures, which a report names first.

A ``mm_move`` that changes the board it is given (:class:`BoardCause`) makes the scores,
moves and games read off that board go wrong too; a call that decides a tier and runs out
of time (:class:`TimeCause`) leaves that tier and the larger ones unasked, so every other
item gets no answer there. Each cause says which of the report's failures it explains and
writes the paragraph that opens the report (``lines``). Nothing here prints.

>>> from grader.judge.results import GradeResult
>>> causes(GradeResult("s.py", "s"))
[]
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from grader.judge.checks import BOARD_CHANGED
from grader.judge.results import STUCK, TIME_CATEGORIES, Failure, GradeResult, ItemResult
from grader.suite.scoring import item_passed

WIDTH = 92                  # prose is wrapped to this width; calls and boards never are


def wrap(text: str, indent: str = "") -> list[str]:
    """``text`` as the report's lines of prose (words never broken).

    >>> wrap("a b", indent="  ")
    ['  a b']
    """
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False, break_long_words=False)


NOT_STUDENT = {"seed", "TTTBoard", "print"}   # what else a call's line may call


@dataclass(frozen=True)
class BoardCause:
    """mm_move changed the board it was given: what the search reads next is not the
    position asked, so its other answers go wrong too. The report says it first.

    ``calls``: the calls that changed the board; ``elsewhere``: the calls that failed a
    check of another item (a call in both shows the cause and its effect at once).

    >>> changed = Failure(BOARD_CHANGED, "mm_move(b, PLAYERX)", "the board as it was",
    ...                   "a changed board", board="b", board_after="c")
    >>> wrong = Failure("wrong score", "mm_move(b, PLAYERX)", "score 0", "(1, (0, 0))")
    >>> items = (ItemResult("scores", 15.0, 3, 4, (wrong,)),
    ...          ItemResult("board untouched", 5.0, 3, 4, (changed,)))
    >>> cause = board_cause(GradeResult("s.py", "s", items=items))
    >>> cause.item.name, cause.covers(items[0])
    ('board untouched', 1)
    """

    item: ItemResult
    changed: int
    calls: frozenset[str]
    elsewhere: frozenset[str]

    @property
    def function(self) -> str:
        """The student's function whose calls changed the board (named by the calls).

        >>> BoardCause(ItemResult("x", 1.0), 1, frozenset({"random.seed(3); mc_move(b)"}),
        ...            frozenset()).function
        'mc_move'
        """
        for call in sorted(self.calls):
            for name in re.findall(r"\b([A-Za-z_]\w*)\(", call):
                if name not in NOT_STUDENT:
                    return name
        return "mm_move"

    def covers(self, item: ItemResult) -> int:
        """How many of ``item``'s judged failures were on calls that changed the board."""
        return sum(1 for failure in item.failures
                   if failure.judged and failure.call in self.calls)

    def examples_first(self, failures: list[Failure]) -> list[Failure]:
        """The cause's failures, those whose calls also failed elsewhere first, otherwise
        in the order asked (a stable sort)."""
        return sorted(failures, key=lambda failure: failure.call not in self.elsewhere)

    def lines(self, result: GradeResult) -> list[str]:
        """The paragraph that opens the report: the cause, what to do, and the counts."""
        others = [item for item in result.items
                  if item is not self.item and not item_passed(result, item) and item.failed]
        what = (f"{self.function} changes the board it is given (on {self.changed} of "
                f"{self.item.total} calls)")
        counts = [f"{item.name} {self.covers(item)} of {item.failed}" for item in others
                  if self.covers(item)]
        if not counts:   # nothing else failed, or not on the calls that changed the board
            also = " It may be why other checks failed too." if others else ""
            return wrap(f"First: {what}. Clone the board and move on the copy "
                         f"(board.clone()).{also}")
        lines = wrap(
            f"The likely cause of the other failures: {what}. Moves played on the board "
            "itself stay there, so what the search reads next (the empty squares, the "
            "winner) is not the position asked, and its scores and moves go wrong too. "
            "Clone the board and move on the copy (board.clone()); most of the other "
            "failures should go with it.")
        return lines + wrap("Failures on calls that also changed the board: "
                             + ", ".join(counts) + ".", indent="  ")


def board_cause(result: GradeResult) -> BoardCause | None:
    """The item whose checks found the board changed, as the likely cause, or None."""
    if result.load_error is not None:
        return None
    for item in result.items:
        changed = [f for f in item.failures if f.judged and f.category == BOARD_CHANGED]
        if changed:
            elsewhere = frozenset(failure.call for other in result.items if other is not item
                                  for failure in other.failures if failure.judged)
            return BoardCause(item, len(changed), frozenset(f.call for f in changed),
                              elsewhere)
    return None


@dataclass(frozen=True)
class TimeCause:
    """mm_move ran out of time on the call that decides a tier, so that tier and the larger
    ones were not asked: every other item gets no answer there. The report says it first,
    and each item that only lacks those answers says so in one line.

    >>> slow = Failure("too slow", "mm_move(b, PLAYERX)", "an answer in time", "not run")
    >>> items = (ItemResult("scores", 15.0, 3, 4, (slow.unjudged(),), no_answer=1),
    ...          ItemResult("time", 10.0, 3, 4, (slow,)))
    >>> result = GradeResult("s.py", "s", items=items, too_slow=("3x3 positions with 6 "
    ...                      "empty squares (normal game)",))
    >>> cause = time_cause(result)
    >>> cause.item.name, cause.explains(items[0])
    ('time', True)
    """

    item: ItemResult
    tiers: tuple[str, ...]
    waited: tuple[str, ...] = ()    # the tiers whose deciding call waited, not computing

    def explains(self, item: ItemResult) -> bool:
        """Whether ``item`` only lacks answers, some of them for want of time."""
        return (item is not self.item and item.failed == 0 and item.error is None
                and any(f.category in TIME_CATEGORIES for f in item.failures))

    def lines(self, result: GradeResult) -> list[str]:
        others = [item.name for item in result.items if self.explains(item)]
        tiers = "; ".join(self.tiers[:3])
        if len(self.tiers) > 3:
            tiers += f"; and {len(self.tiers) - 3} more (listed at the end)"
        kinds = {f.category for f in self.item.failures if f.judged}
        waited = [tier for tier in self.tiers if tier in self.waited]
        # A call that sleeps is no endless loop: say what it did, and why it still counts.
        if waited and len(waited) == len(self.tiers):
            what = ("mm_move's calls waited without computing (asleep, or waiting for input "
                    "or a lock) and did not return in time on")
        elif kinds == {STUCK}:
            what = "mm_move did not return (an endless loop?) on"
        elif STUCK in kinds:
            what = "mm_move did not return (an endless loop?), or was too slow, on"
        else:
            what = "Too slow for the grader's time limits on"
        text = f"{what}: {tiers}."
        if waited and len(waited) < len(self.tiers):
            text += (f" On {len(waited)} of them its calls waited without computing (asleep, "
                     "or waiting for input or a lock).")
        if waited:
            text += (" They are judged by the time policy like any call: one that waits past "
                     "its limit is stopped, as one that computes is.")
        text += (" The first call of each was stopped, so the calls on those positions and "
                 "on larger ones were not made")
        text += (f": {', '.join(others)} get no answer there. See {self.item.name!r} for the "
                 "call that decided it." if others else
                 f". See {self.item.name!r} for the call that decided it.")
        return wrap(text)


def time_cause(result: GradeResult) -> TimeCause | None:
    """The item whose checks found calls too slow, as a cause when tiers were too slow.

    ``result.timing["waited_tiers"]`` (the engine's) names the tiers whose deciding call
    was waiting (asleep, blocked), not computing, when it was stopped.
    """
    if result.load_error is not None or not result.too_slow:
        return None
    waited = result.timing.get("waited_tiers") if isinstance(result.timing, dict) else None
    waited = tuple(tier for tier in waited if isinstance(tier, str)) \
        if isinstance(waited, (list, tuple)) else ()
    for item in result.items:
        if any(f.judged and f.category in TIME_CATEGORIES for f in item.failures):
            return TimeCause(item, result.too_slow, waited)
    return None


def causes(result: GradeResult) -> list[BoardCause | TimeCause]:
    """The likely causes of many failures, the one most likely behind the others first."""
    return [cause for cause in (board_cause(result), time_cause(result)) if cause is not None]
