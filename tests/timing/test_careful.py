"""How a call near its limit is decided (grader/timing/careful.py), on recorded measurements.

``recorded_rounds.json`` holds careful rounds of two files near their limits (one at about
0.8 of it, one at about 1.16), recorded on a busy machine beside 0, 1 and 2 more busy
processes. Any run of rounds taken from them, whatever the first measurement said, must give
each file its own verdict, though single rounds of each land on both sides of the limit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.timing.careful import MAJORITY, ROUNDS, WIDE, Pair, decide, settle

RECORDED = json.loads((Path(__file__).with_name("recorded_rounds.json")).read_text())
FACTOR = 5.0


def rounds(recorded: list[list[float]]) -> list[Pair]:
    """The rounds as the client makes them: each call between the reference's timings before
    and after it (the next round's before)."""
    return [Pair(call, (reference + recorded[number + 1][1]) / 2)
            for number, (call, reference) in enumerate(recorded[:-1])]


def verdict(pairs: list[Pair], first_within: bool) -> tuple[bool, int]:
    """What the rounds decide, made one at a time from the first, and how many were made
    (the recordings are of a short call: each round repeats it)."""
    made: list[Pair] = []
    for pair in pairs:
        made.append(pair)
        decided = decide(made, FACTOR, first_within, short=True)
        if decided is not None:
            return decided, len(made)
    return settle(made, FACTOR, first_within, short=True), len(made)


@pytest.mark.parametrize("name, within", [("within", True), ("over", False)])
@pytest.mark.parametrize("busy", ["0", "1", "2"])
def test_every_run_of_recorded_rounds_gives_the_files_own_verdict(name, within, busy):
    pairs = rounds(RECORDED["files"][name]["busy"][busy])
    made = []
    for start in range(len(pairs) - ROUNDS + 1):
        for first_within in (True, False):     # the first measurement does not decide
            decided, count = verdict(pairs[start:], first_within)
            assert decided == within, (start, first_within)
            made.append(count)
    assert max(made) <= ROUNDS and sum(made) / len(made) < 4


@pytest.mark.parametrize("name", ["within", "over"])
def test_one_recorded_round_alone_would_not_do(name):
    # The load puts some rounds of each file on the other side of its limit.
    votes = {pair.within(FACTOR) for recorded in RECORDED["files"][name]["busy"].values()
             for pair in rounds(recorded)}
    assert votes == {True, False}


def test_the_majority_decides_and_stops_as_soon_as_it_can():
    near = [Pair(0.49, 0.1), Pair(0.52, 0.1), Pair(0.48, 0.1)]
    assert decide(near[:2], FACTOR, True) is None                   # one each: go on
    assert decide(near, FACTOR, True) is None                       # 2 within, 1 over
    assert decide(near + [Pair(0.45, 0.1)], FACTOR, False) is True  # 3 of 4
    assert decide([Pair(0.51, 0.1)] * MAJORITY, FACTOR, True) is False


def test_a_first_round_far_from_the_limit_decides_alone_if_the_first_measurement_agrees():
    half, twice = Pair(0.25, 0.1), Pair(1.0, 0.1)
    assert decide([half], FACTOR, first_within=True) is True
    assert decide([twice], FACTOR, first_within=False) is False
    assert decide([Pair(0.5, 0.1, stopped=True)], FACTOR, first_within=False) is False
    # A first measurement that says otherwise (a calibration timed under another load, or
    # a burst) asks for the vote, and so does the edge of the band.
    assert decide([half], FACTOR, first_within=False) is None
    assert decide([twice], FACTOR, first_within=True) is None
    edge = (1 - WIDE) * FACTOR * 0.1
    assert decide([Pair(edge * 1.01, 0.1)], FACTOR, True) is None


def test_a_short_call_is_over_only_by_the_majority():
    # Its first measurement and first rounds follow each other within milliseconds: one
    # burst of load (which only adds time) may cover them all.
    half, twice = Pair(0.25, 0.1), Pair(1.0, 0.1)
    assert decide([twice], FACTOR, first_within=False, short=True) is None
    assert decide([twice, half, twice], FACTOR, first_within=False, short=True) is None
    assert decide([twice, half, twice, twice], FACTOR, first_within=True, short=True) is False
    assert decide([half], FACTOR, first_within=True, short=True) is True


def test_a_stopped_round_votes_over_and_a_tie_goes_to_the_student():
    stopped = Pair(0.3, 0.1, stopped=True)      # stopped early (a lower bound): still over
    assert not stopped.within(FACTOR)
    assert decide([stopped] * MAJORITY, FACTOR, True) is False
    assert settle([Pair(0.4, 0.1), stopped], FACTOR, first_within=False) is True
    assert settle([], FACTOR, first_within=False) is False          # the first stands
    assert settle([stopped], FACTOR, first_within=True) is False
