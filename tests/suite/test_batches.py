"""Calls on small positions go in batches: fewer round trips, the same verdicts.

Each submission is asked the hidden positions and walked against every reply twice, by a
client that batches and by one that makes every call on its own (``call_batch`` hidden from
it), each with a sandbox of its own: every verdict, every game and every failure's kind and
words must be the same (times masked), and the batching client must have made far fewer
round trips. The submissions: the gallery's correct pruned search, its raising bug and the
crasher, and four written here: three that go wrong on small positions only (an endless
loop, a crash on one position, a move played on the board given), one that prints.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import asdict
from pathlib import Path

import pytest

from grader.judge import play
from grader.judge.positions import hidden_positions
from grader.judge.results import Failure
from grader.judge.solver import shared_solver
from grader.sandbox import Sandbox
from grader.assignments.minimax.client import StudentClient
from grader.timing.policy import TimePolicy
from provided import PLAYERO, PLAYERX

SUBMISSIONS = Path(__file__).resolve().parents[1] / "submissions"
TIMES = re.compile(r"\d+(\.\d+)? s\b")


def first_empty_square(first: str, imports: str = "") -> str:
    """A submission whose ``mm_move`` runs the line ``first`` (``empty`` holds the empty
    squares), then answers with the first empty square."""
    return f"""
        {imports}
        def mm_move(board, player):
            empty = board.get_empty_squares()
            {first}
            return (0, empty[0]) if empty else (0, (-1, -1))
        def move_wrapper(board, player, trials):
            return mm_move(board, player)[1]
        """


WRITTEN = {
    "loops near the end": first_empty_square(
        "while 0 < len(empty) <= 2 and board.check_win() is None: pass"),
    "crashes on one position": first_empty_square(
        "if board.get_dim() == 3 and len(empty) == 3 and (0, 0) in empty: os._exit(4)",
        imports="import os"),
    "prints": first_empty_square("print(board)"),
    "mutates the board": first_empty_square(
        "if empty: board.move(empty[0][0], empty[0][1], player)"),
}
GALLERY = {"correct pruned": SUBMISSIONS / "grader" / "correct_pruned.py",
           "raises": SUBMISSIONS / "grader" / "bug_crash.py",
           "crasher": SUBMISSIONS / "class" / "crasher.py"}


class Counted(Sandbox):
    """A sandbox that counts its round trips (calls and batches)."""

    round_trips = 0

    def call(self, *args, **kwargs):
        self.round_trips += 1
        return super().call(*args, **kwargs)

    def call_batch(self, *args, **kwargs):
        self.round_trips += 1
        return super().call_batch(*args, **kwargs)


class OneByOne(Counted):
    """A sandbox the client cannot batch with."""

    def __getattribute__(self, name: str):
        if name == "call_batch":
            raise AttributeError(name)
        return super().__getattribute__(name)


def _masked(failure: Failure | None) -> dict | None:
    """Every field of the failure, its times masked (a limit is a time)."""
    if failure is None:
        return None
    return {name: TIMES.sub("<t> s", value) if isinstance(value, str) else value
            for name, value in asdict(failure).items()}


def _walk(path: Path, sandbox_class: type[Counted]) -> tuple[dict, int, int]:
    """What the client concluded (verdicts, games, call records), its round trips and its
    calls."""
    hidden = hidden_positions()
    with sandbox_class(path) as sandbox:
        sandbox.start()
        client = StudentClient(sandbox, shared_solver(), TimePolicy(), planned=hidden.all())
        client.run_plan()
        games = {}
        for reverse in (False, True):
            for side in (PLAYERX, PLAYERO):
                failures, walked = play.every_reply(client, side, reverse)
                games[side, reverse] = ([_masked(failure) for failure in failures], walked)
        concluded = {
            "verdicts": {position: (verdict.answered, verdict.notes,
                                    {aspect: _masked(failure)
                                     for aspect, failure in verdict.failures.items()})
                         for position, verdict in client.verdicts.items()},
            "games": games,
            "calls": [(record.function, record.position, _masked(record.failure))
                      for record in client.calls],
            "not run": client.stats.not_run, "timeouts": client.stats.timeouts,
            "too slow": sorted(tier.describe() for tier in client.pacing.too_slow),
        }
        return concluded, sandbox.round_trips, client.stats.calls


@pytest.mark.long
@pytest.mark.parametrize("name", [*GALLERY, *WRITTEN])
def test_batches_change_the_round_trips_and_no_verdict(tmp_path: Path, name: str) -> None:
    if name in GALLERY:
        path = GALLERY[name]
    else:
        path = tmp_path / "mm_player.py"
        path.write_text(textwrap.dedent(WRITTEN[name]))
    batched, trips, calls = _walk(path, Counted)
    alone, alone_trips, alone_calls = _walk(path, OneByOne)
    assert batched == alone
    assert alone_trips == alone_calls   # one by one: a round trip per call
    if name in ("correct pruned", "mutates the board", "raises", "prints"):
        assert trips < calls / 5, (trips, calls)   # most calls are on small positions
