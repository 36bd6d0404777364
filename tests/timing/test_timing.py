"""Time limits, the reference they are measured against, tiers and the budget.

The client's pacing is tested against a fake sandbox whose "student" takes a chosen
multiple of the reference's time, with noise, so that the tests can show what matters:
verdicts that do not move when the measurements do.
"""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest

from grader.assignments.minimax.client import (DRIFT, REPEATS, RESTART_COST, VERIFY,
                                               StudentClient)
from grader.judge.results import TIME_CATEGORIES
from grader.timing.pacing import MM_MOVE, MOVE_WRAPPER, Pacing, Tier, TooSlow
from grader.judge.position import Position
from grader.judge.positions import hidden_positions
from grader.sandbox import Reply
from grader.judge.solver import Solver, reachable
from grader.timing.policy import (EMPTY_BOARD_NODES, MEASURED_NODES, REFERENCE_3X3,
                                  REFERENCE_3X3_NODES, REFERENCE_4X4, REFERENCE_4X4_NODES,
                                  Calibration, TimePolicy, TimingError)
from provided import TTTBoard

from grader.sandbox.inside import reference as worker  # the search the limits are measured by

SOLVER = Solver()
CALIBRATION = Calibration(per_node_3x3=1e-6, ratio_4x4=1.5)


# -- the policy and the reference ----------------------------------------------------------

def test_a_limit_is_a_multiple_of_the_reference_and_small_positions_get_a_second():
    policy = TimePolicy(factor=10, small=0.4, budget=40)
    empty = CALIBRATION.empty_board_seconds
    assert empty == pytest.approx(EMPTY_BOARD_NODES * 1e-6)
    assert policy.limit(CALIBRATION, 3, EMPTY_BOARD_NODES) == pytest.approx(10 * empty)
    assert policy.limit(CALIBRATION, 3, 1_585) == pytest.approx(10 * 1_585e-6)  # no minimum
    assert policy.limit(CALIBRATION, 3, 294) == pytest.approx(0.4 * empty)
    assert policy.limit(CALIBRATION, 4, 100_000) == pytest.approx(10 * 100_000 * 1.5e-6)
    assert policy.budget_seconds(CALIBRATION) == pytest.approx(40 * empty)
    assert "10 times" in policy.describe() and "course's original" in policy.describe()


@pytest.mark.parametrize("field", ["factor", "small", "budget"])
@pytest.mark.parametrize("value", [0, -1, float("nan"), True])
def test_a_policy_that_makes_no_sense_is_refused_by_name(field, value):
    with pytest.raises(TimingError, match=f"\\[time\\] {field} must be a number above 0"):
        TimePolicy(**{field: value})


def test_a_calibration_is_the_median_of_its_runs():
    runs = [0.010, 0.011, 0.5, 0.012, 0.009]  # one run hit by the machine: ignored
    calibration = Calibration.from_runs(runs, [0.03, 0.02, 0.025])
    assert calibration.per_node_3x3 == pytest.approx(0.011 / REFERENCE_3X3_NODES)
    per_node_4x4 = 0.025 / REFERENCE_4X4_NODES
    assert calibration.per_node(4) == pytest.approx(per_node_4x4)
    assert calibration.per_node(2) == calibration.per_node_3x3
    again = Calibration.from_runs([0.02] * 5, ratio_4x4=calibration.ratio_4x4)
    assert again.ratio_4x4 == calibration.ratio_4x4


def test_the_reference_positions_are_as_big_as_the_solver_counts():
    for position, nodes in ((REFERENCE_3X3, REFERENCE_3X3_NODES),
                            (REFERENCE_4X4, REFERENCE_4X4_NODES)):
        assert SOLVER.tree_size(position) == nodes
        board = worker.CourseBoard(position.dim, False, position.grid)
        assert worker.plain_minimax(board, position.player)[2] == nodes
    assert worker.plain_minimax(worker.CourseBoard(3), 2)[2] == EMPTY_BOARD_NODES


@pytest.mark.parametrize("reverse", [False, True])
def test_the_course_style_board_plays_by_the_same_rules(reverse):
    for position in reachable(3, reverse):
        ours = TTTBoard(3, reverse, position.grid)
        course = worker.CourseBoard(3, reverse, position.grid)
        assert course.check_win() == ours.check_win()
        assert course.get_empty_squares() == ours.get_empty_squares()


def test_the_reference_minimax_finds_the_value():
    for position in hidden_positions().normal[::40]:
        if position.player == position.implied_player():
            board = worker.CourseBoard(3, False, position.grid)
            assert worker.plain_minimax(board, position.player)[0] == SOLVER.value(position)


# -- tiers ----------------------------------------------------------------------------------

def test_positions_are_asked_tier_by_tier_fewest_empty_squares_first_hardest_first():
    positions = hidden_positions().all()
    pacing = Pacing(TimePolicy(), SOLVER, positions)
    order = pacing.order(positions)
    assert sorted(order, key=lambda p: (p.cells, p.player, p.dim, p.reverse)) == sorted(
        positions, key=lambda p: (p.cells, p.player, p.dim, p.reverse))
    families = list(dict.fromkeys((p.dim, p.reverse) for p in order))
    assert families[:2] == [(3, False), (3, True)]
    normal = [p for p in order if (p.dim, p.reverse) == (3, False)]
    empties = [0 if SOLVER.winner(p) is not None else p.cells.count(1) for p in normal]
    assert empties == sorted(empties) and empties[0] == 0 and empties[-1] == 9
    eights = [p for p, e in zip(normal, empties) if e == 8]
    sizes = [SOLVER.tree_size(p) for p in eights]
    assert sizes == sorted(sizes, reverse=True)


def test_a_tier_too_slow_takes_the_larger_ones_of_its_family_with_it():
    pacing = Pacing(TimePolicy(), SOLVER)
    seven = Tier(MM_MOVE, 3, False, 7)
    why = TooSlow(seven, "mm_move(...)", 0.4, True, False)
    assert pacing.timed_out(seven, why)
    assert not pacing.timed_out(seven, why)       # decided once
    assert pacing.verdict(Tier(MM_MOVE, 3, False, 9)) is why
    assert pacing.verdict(Tier(MOVE_WRAPPER, 3, False, 8)) is why   # it calls mm_move
    assert pacing.verdict(Tier(MM_MOVE, 3, False, 6)) is None
    assert pacing.verdict(Tier(MM_MOVE, 3, False, 0)) is None       # finished boards
    assert pacing.verdict(Tier(MM_MOVE, 3, True, 9)) is None        # another mode
    pacing.timed_out(Tier(MOVE_WRAPPER, 3, True, 5), why)
    assert pacing.verdict(Tier(MM_MOVE, 3, True, 5)) is None        # not the other way


def test_every_position_of_a_tier_gets_the_limit_of_its_hardest():
    positions = hidden_positions().normal
    pacing = Pacing(TimePolicy(factor=10), SOLVER, positions)
    eights = [p for p in positions if p.cells.count(1) == 8]
    limits = {pacing.limit(CALIBRATION, pacing.tier(MM_MOVE, p), p) for p in eights}
    assert len(limits) == 1  # the hardest's, X on an edge:
    assert limits.pop() == pytest.approx(10 * 63_905 * 1e-6)


# -- the client, against a fake sandbox --------------------------------------------------------

class FakeSandbox:
    """A sandbox whose student answers correctly in ``ratio`` times the reference's time
    (``ratio_of(position)`` where it says), give or take ``noise``, or sleeps ``sleeps``
    seconds in every call. The calls whose index (in ``log``) is in ``flukes`` take half
    their time (a faster moment of the CPU), those in ``bursts`` twice it. After
    ``slower_after`` calls, the machine runs at half speed: the reference and the calls
    alike (the calibration stays as it was until the client times it again)."""

    def __init__(self, ratio: float = 1.0, noise: float = 0.0, seed: int = 0,
                 sleeps: float | None = None, interrupt_after: int | None = None,
                 crashes=lambda position: False, flukes: frozenset[int] = frozenset(),
                 slower_after: int | None = None, loops=lambda position: False,
                 restart_seconds: float = 0.0, bursts: frozenset[int] = frozenset(),
                 ratio_of=lambda position: None) -> None:
        self.ratio, self.noise, self.sleeps, self.crashes = ratio, noise, sleeps, crashes
        self.ratio_of = ratio_of   # a position's own ratio (None: ``ratio``)
        self.loops = loops                      # positions where the call never returns
        self.restart_seconds = restart_seconds  # wall time a restart takes
        self.dead = False                       # the last call killed the worker
        self.flukes = flukes
        self.bursts = bursts   # calls (by index) slowed to twice their time by a burst of load
        self.slower_after = slower_after
        self.references: list[Position] = []   # positions the reference was timed on
        self.waits = sleeps is not None
        self.random = random.Random(seed)
        self.calibration = CALIBRATION
        self.calibrations = 1
        self.reference_timings = 0            # as the real one counts them
        self.reference_seconds_total = 0.0
        self.first_calibration_seconds = 0.0
        self.restarts = 0
        self.log: list[tuple[str, Position, float]] = []
        self.interrupt_after = interrupt_after

    def ready(self) -> None:
        """As the real one: a worker killed by a timeout or a crash is restarted here."""
        if self.dead:
            time.sleep(self.restart_seconds)
            self.restarts += 1
            self.dead = False
        return None

    def speed(self) -> float:
        """How many times longer everything takes now than at the start."""
        slower = self.slower_after is not None and len(self.log) >= self.slower_after
        return 2.0 if slower else 1.0

    def calibrate(self) -> Calibration:
        self.calibrations += 1
        self.calibration = Calibration(CALIBRATION.per_node_3x3 * self.speed(),
                                       CALIBRATION.ratio_4x4)
        return self.calibration

    def reference_seconds(self, position: Position, wall: float = 0.0) -> float:
        self.references.append(position)
        nodes = SOLVER.tree_size(position) if SOLVER.winner(position) is None else 1
        seconds = CALIBRATION.seconds(position.dim, nodes) * self.speed() * (
            1 + self.random.uniform(-self.noise, self.noise))
        self.reference_timings += 1
        self.reference_seconds_total += seconds
        return seconds

    def call(self, function: str, position: Position, cpu_limit: float,
             trials: int = 1) -> Reply:
        if self.interrupt_after is not None and len(self.log) >= self.interrupt_after:
            raise KeyboardInterrupt
        self.log.append((function, position, cpu_limit))
        if self.crashes(position):
            self.dead = True
            return Reply("crash", None, 0.0, None, "", "the worker process exited with status 1")
        nodes = SOLVER.tree_size(position) if SOLVER.winner(position) is None else 1
        ratio = self.ratio_of(position) or self.ratio
        seconds = ratio * CALIBRATION.seconds(position.dim, nodes) * (
            1 + self.random.uniform(-self.noise, self.noise))
        seconds *= self.speed()
        if len(self.log) - 1 in self.flukes:
            seconds /= 2
        if len(self.log) - 1 in self.bursts:
            seconds *= 2
        if self.sleeps is not None:
            seconds = self.sleeps
        if self.loops(position):
            seconds = float("inf")
        if seconds > cpu_limit:
            self.dead = True
            return Reply("timeout", None, cpu_limit, None, "",
                         f"{function} used more than its limit of {cpu_limit:.2f} s of CPU "
                         "time and was stopped", cpu_limit, self.waits)
        if SOLVER.winner(position) is not None:
            answer = (SOLVER.value(position), (-1, -1))
        else:
            answer = (SOLVER.value(position), min(SOLVER.best_moves(position)))
        if function == MOVE_WRAPPER:
            answer = answer[1]
        return Reply("ok", answer, seconds, position.cells, "", "", seconds)


def grade_with(sandbox: FakeSandbox, policy: TimePolicy = TimePolicy(),
               positions=None) -> StudentClient:
    client = StudentClient(sandbox, SOLVER, policy,
                           planned=positions if positions is not None
                           else hidden_positions().all())
    client.run_plan()
    return client


def time_failures(client: StudentClient) -> list[tuple[str, Position, str]]:
    return [(c.function, c.position, c.failure.category) for c in client.calls if c.failure]


def test_a_correct_solution_as_slow_as_the_reference_passes_everything():
    client = grade_with(FakeSandbox(ratio=1.0, noise=0.3))
    assert time_failures(client) == [] and not client.pacing.too_slow
    assert all(verdict.answered for verdict in client.verdicts.values())


def test_a_far_slower_solution_gets_the_same_verdicts_whatever_the_noise():
    # 20 times the reference, like the gallery's recheck_every_line.py: too slow wherever
    # the ratio is judged (6 empty squares and more), fine on small positions. Noise of 30%
    # on every measurement moves nothing.
    runs = [grade_with(FakeSandbox(ratio=20, noise=0.3, seed=seed)) for seed in range(6)]
    verdicts = {tuple(time_failures(client)) for client in runs}
    assert len(verdicts) == 1
    client = runs[0]
    slow = {(tier.dim, tier.reverse, tier.empties) for tier in client.pacing.too_slow}
    assert slow == {(3, False, 6), (3, True, 6), (4, False, 6), (4, True, 6)}
    presumed = [c for c in client.calls if c.failure and c.failure.category == "too slow"]
    assert presumed and all(c.position.cells.count(1) >= 6 for c in presumed)
    # Each tier's verdict cost its hardest position twice, not every position once.
    asked_nines = [p for _, p, _ in runs[0].sandbox.log if p == Position.empty(3)]
    assert asked_nines == []


def test_a_cpu_timeout_is_measured_again_and_a_sleep_is_not():
    position = Position.empty(3)
    computing = grade_with(FakeSandbox(ratio=50), positions=[position])
    sleeping = grade_with(FakeSandbox(sleeps=3600), positions=[position])
    # Measured once more (a first round far over the limit, as the first measurement was),
    # between two timings of the reference on the same position.
    assert len(computing.sandbox.log) == 2 and computing.stats.retries == 1
    assert computing.sandbox.references == [position] * 2
    assert len(sleeping.sandbox.log) == 1 and sleeping.stats.retries == 0
    for client in (computing, sleeping):
        assert client.stats.timeouts == 1
        (call,) = client.calls
        assert call.failure.category == "timeout" and call.failure.judged
        verdict = client.verdicts[position]
        assert not verdict.answered and not verdict.failures["score"].judged
    assert "over the limit in most of its" in computing.calls[0].failure.why
    assert "measured again" not in sleeping.calls[0].failure.why


def test_the_call_that_decides_a_tier_is_measured_again_when_it_used_half_its_limit():
    positions = [p for p in hidden_positions().normal if p.cells.count(1) == 8]
    near = grade_with(FakeSandbox(ratio=3.5), positions=positions)     # 70% of 5
    far = grade_with(FakeSandbox(ratio=1.0), positions=positions)      # 20%
    assert near.stats.retries == 1
    assert len(near.sandbox.log) == len(positions) + 1   # only the decisive call, again
    assert far.stats.retries == 0 and len(far.sandbox.log) == len(positions)
    assert time_failures(near) == time_failures(far) == []


@pytest.mark.parametrize("ratio", [4.5, 7.0])   # 90% and 140% of the limit (factor 5)
def test_one_disturbed_measurement_never_changes_a_verdict(ratio):
    # The 4x4 endgames with 6 empty squares: the first call of the tier decides it. Any one
    # of its measurements may be a fluke (half the time, a faster moment of the CPU); the
    # verdict is the one without flukes, because the majority of three rounds decides.
    positions = [p for p in hidden_positions().other_sizes
                 if p.dim == 4 and p.cells.count(1) == 6]
    steady = grade_with(FakeSandbox(ratio=ratio), positions=positions)
    assert bool(steady.pacing.too_slow) == (ratio > 5)
    for fluke in range(3):
        disturbed = grade_with(FakeSandbox(ratio=ratio, flukes=frozenset({fluke})),
                               positions=positions)
        assert time_failures(disturbed) == time_failures(steady), fluke
        assert disturbed.pacing.too_slow.keys() == steady.pacing.too_slow.keys()


def test_the_limits_and_the_budget_follow_the_machine_when_it_slows_down():
    # At 60% of every limit; after 200 calls the machine runs at half speed (another job
    # started). The reference is timed again as the student's CPU time goes by, so the
    # limits and the budget's unit slow down with the calls: nothing is too slow and the
    # budget is spent as on a steady machine. The speed is checked with one timing of the
    # reference each time; it is timed again in full only when that one is off by more
    # than DRIFT (a tenth): once here, after the slowdown, and never on the steady machine.
    steady = grade_with(FakeSandbox(ratio=3, noise=DRIFT / 2))
    slowed = grade_with(FakeSandbox(ratio=3, slower_after=200))
    assert steady.stats.speed_checks > 1 and steady.sandbox.calibrations == 1
    assert steady.sandbox.references.count(REFERENCE_3X3) == steady.stats.speed_checks
    assert slowed.sandbox.speed() == 2.0 and slowed.sandbox.calibrations == 2
    assert slowed.stats.speed_checks > 1
    assert time_failures(slowed) == time_failures(steady) == []
    assert slowed.pacing.spent == pytest.approx(steady.pacing.spent, rel=0.15)


def test_measuring_again_costs_the_student_nothing_and_has_an_allowance():
    # At 60% of every limit (decisive calls are measured again) against 20%: the budget
    # pays for the same calls; the rounds are the grader's own, bounded by what the
    # student's calls cost plus a few seconds' worth (VERIFY).
    near = grade_with(FakeSandbox(ratio=3))
    assert near.stats.retries > 0 and 0 < near.careful_spent <= VERIFY + near.pacing.spent
    first_calls = len({(f, p) for f, p, _ in near.sandbox.log})
    again = len(near.sandbox.log) - first_calls   # calls made again, repeats included
    assert near.stats.retries <= near.stats.rounds <= 2 * near.stats.retries
    assert near.stats.rounds <= again <= REPEATS * near.stats.rounds
    charged = sum(3 * CALIBRATION.seconds(p.dim, SOLVER.tree_size(p))
                  for p in near.planned if SOLVER.winner(p) is None)
    assert near.pacing.spent == pytest.approx(charged / CALIBRATION.empty_board_seconds,
                                              rel=0.01)


def test_a_sleeper_costs_a_few_limits_not_hundreds():
    client = grade_with(FakeSandbox(sleeps=3600))
    # One call per small tier (finished boards, one empty square) of each size and mode.
    assert len(client.sandbox.log) < 20
    assert client.pacing.spent == pytest.approx(0.2 * len(client.sandbox.log)
                                                + RESTART_COST * client.sandbox.restarts)
    assert all(not verdict.answered for verdict in client.verdicts.values())


def test_the_budget_stops_calls_and_says_so_without_judging_them():
    policy = TimePolicy(factor=10, small=0.2, budget=3)
    client = grade_with(FakeSandbox(ratio=9), policy)   # within every limit, but slow
    assert client.stats.not_run > 0 and client.pacing.spent <= 3 + 1e-9
    not_run = [c.failure for c in client.calls if c.failure and c.failure.category == "not run"]
    assert len(not_run) == client.stats.not_run
    assert all(not f.judged and "budget" in f.why for f in not_run)


def test_an_interrupt_stops_calling_and_keeps_what_was_judged():
    client = grade_with(FakeSandbox(ratio=1, interrupt_after=50))
    assert client.interrupted and len(client.sandbox.log) == 50
    answered = [v for v in client.verdicts.values() if v.answered]
    assert len(answered) == 50
    assert all("interrupted" in c.failure.why for c in client.calls if c.failure)


def test_a_tier_whose_first_calls_all_crash_is_not_asked_further():
    client = grade_with(FakeSandbox(crashes=lambda position: position.dim == 4))
    fours = [call for call in client.calls if call.position.dim == 4]
    made = [entry for entry in client.sandbox.log if entry[1].dim == 4]
    per_tier = Counter(client.pacing.tier(MM_MOVE, call.position) for call in fours)
    assert len(made) == sum(min(3, count) for count in per_tier.values()) < len(fours)
    assert all(c.failure.category == "crash" and not c.failure.judged for c in fours)
    assert all(v.answered for p, v in client.verdicts.items() if p.dim != 4)


# -- the same report on every run: what each cause of a different report was ----------------

def marked(position: Position) -> bool:
    """Any board with a mark on it (tests/submissions/grader/bug_infinite_loop.py loops
    there)."""
    return position.cells.count(1) < position.dim ** 2


def test_a_call_stuck_on_a_small_position_is_stuck_not_slow():
    # An endless loop: every call with a mark on the board never returns. Its limit on a
    # small position is hundreds of times the search there: "stuck", never "too slow".
    client = grade_with(FakeSandbox(loops=marked))
    failures = [call.failure for call in client.calls if call.failure is not None]
    assert {failure.category for failure in failures} == {"stuck"}
    made = [f for f in failures if f.received != "not asked"]
    assert made and all("did not return" in f.why and "an endless loop?" in f.why
                        for f in made)
    assert all(f.judged for f in failures)   # the time item judges a call that is stuck
    not_made = [f for f in failures if f.received == "not asked"]
    assert not_made and all(f.why.startswith("not asked: ") and "did not return" in f.why
                            for f in not_made)
    assert "stuck" in TIME_CATEGORIES
    # A call too slow where speed is measured is still "timeout" and "too slow".
    slow = grade_with(FakeSandbox(ratio=20))
    assert {c.failure.category for c in slow.calls if c.failure} == {"timeout", "too slow"}


def test_calls_that_were_not_made_earn_no_time_credit():
    # Stuck everywhere but on finished boards: the time item (one check per call, as
    # grader/suite/test_rubric.py's test_time records them) credits only the calls that
    # answered; every call not made is a failed check.
    client = grade_with(FakeSandbox(loops=lambda p: SOLVER.winner(p) is None))
    answered = [call for call in client.calls if call.failure is None]
    assert answered and all(SOLVER.winner(call.position) is not None for call in answered)
    made = {(function, position) for function, position, _ in client.sandbox.log}
    for call in client.calls:
        if (call.function, call.position) not in made:
            assert call.failure is not None and call.failure.category == "stuck"
    assert len(answered) == len({p for p in client.planned if SOLVER.winner(p) is not None})


def test_a_restart_costs_the_same_budget_however_long_it_takes():
    # A restart's wall time depends on the machine's load; what the budget charges for it
    # must not, or the budget would run out at a different call on a busy day.
    quick = grade_with(FakeSandbox(loops=marked))
    slow = grade_with(FakeSandbox(loops=marked, restart_seconds=0.02))
    assert quick.sandbox.restarts == slow.sandbox.restarts > 5
    assert quick.pacing.spent == slow.pacing.spent
    assert [c.failure for c in quick.calls] == [c.failure for c in slow.calls]


def test_careful_rounds_cost_no_more_than_the_student_plus_a_few_seconds():
    # factor 0.3: a plain minimax (a quarter of the reference) is at 83% of every limit,
    # so every decisive call is measured again; the reference on a tier's hardest position
    # would cost 3.3 limits. The rounds time it on a cheaper one, and their whole cost is
    # bounded by what the student's own calls cost plus VERIFY.
    policy = TimePolicy(factor=0.3)
    client = grade_with(FakeSandbox(ratio=0.25), policy)
    stats = client.stats
    assert stats.retries > 0 and stats.rounds >= stats.retries
    assert client.careful_spent <= VERIFY + client.pacing.spent
    assert stats.careful_reference_seconds <= stats.round_seconds   # the calls cost more
    assert not client.pacing.too_slow   # and the verdicts are the ones without rounds
    for position in client.sandbox.references:
        assert SOLVER.tree_size(position) >= MEASURED_NODES


def test_the_rounds_stop_when_the_allowance_is_spent_and_the_first_measurement_stands(
        monkeypatch):
    import grader.assignments.minimax.client as client_module
    monkeypatch.setattr(client_module, "VERIFY", 0.0)
    position = Position.empty(3)
    # The only call is the empty board at 60% of its limit: the student paid 3 searches,
    # a round would cost about 4 (the call again and the reference beside it).
    client = grade_with(FakeSandbox(ratio=3), positions=[position])
    assert client.stats.rounds == 0 and client.stats.retries == 0
    assert time_failures(client) == [] and len(client.sandbox.log) == 1


def test_a_short_call_measured_again_compares_the_means_of_its_repeats():
    # The 4x4 endgames with 6 empty squares: a limit of about 10 ms, where a burst of load
    # doubles a call's time. At 80% of the limit, the first three calls are hit: the first
    # measurement and the first call of each of the first two rounds (a round stops at a
    # call stopped past its limit). Each round makes the call and times the reference
    # several times and compares their means, and the rounds vote, so the verdict is the
    # undisturbed one.
    positions = [p for p in hidden_positions().other_sizes
                 if p.dim == 4 and p.cells.count(1) == 6]
    steady = grade_with(FakeSandbox(ratio=4), positions=positions)
    hit = grade_with(FakeSandbox(ratio=4, bursts=frozenset({0, 1, 2})), positions=positions)
    assert not steady.pacing.too_slow and not hit.pacing.too_slow
    assert time_failures(hit) == time_failures(steady) == []
    # The first two rounds vote over, the next three within.
    assert hit.stats.retries == 1 and hit.stats.rounds == 5
    assert len(hit.sandbox.log) - len(positions) == 1 + 1 + 4 * 3
    assert len(steady.sandbox.log) - len(positions) == 4 * steady.stats.rounds


def test_a_calibration_timed_under_another_load_does_not_vote(monkeypatch):
    # At 90% of its limit, on a machine that slowed down to half its speed after the
    # reference was timed: the first measurement, against that calibration, is far over
    # its limit. A burst of load then hits the second round. The rounds, each between
    # two fresh timings of the reference, decide: within (the first measurement and the
    # burst together would have been two votes of three).
    import grader.assignments.minimax.client as client_module
    monkeypatch.setattr(client_module, "VERIFY", 100.0)   # the allowance is not the point
    position = Position.empty(3)
    client = grade_with(FakeSandbox(ratio=4.5, slower_after=0, bursts=frozenset({2})),
                        positions=[position])
    assert time_failures(client) == [] and not client.pacing.too_slow
    assert client.sandbox.log[0][2] < client.sandbox.log[1][2]   # the rounds' own limits
    assert client.stats.retries == 1 and client.stats.rounds == 4


def test_the_other_calls_of_a_tier_that_passed_may_take_twice_its_limit():
    # A search whose cost does not follow the reference's: 80% of the limit on the tier's
    # hardest position, 110% on another of its positions. The hardest decided the tier's
    # speed; the other is not judged again at the same edge, on any run.
    positions = [p for p in hidden_positions().normal if p.cells.count(1) == 7]
    pacing = Pacing(TimePolicy(), SOLVER, positions)
    tier = pacing.tier(MM_MOVE, positions[0])
    hardest = pacing.yardstick(tier, positions[0])
    other = next(p for p in positions if p != hardest)
    # The other position's search is smaller: its own ratio that takes a share of the limit.
    share = 5 * SOLVER.tree_size(hardest) / SOLVER.tree_size(other)
    client = grade_with(FakeSandbox(ratio=4, ratio_of=lambda p: 1.1 * share if p == other
                                    else None), positions=positions)
    assert time_failures(client) == [] and not client.pacing.too_slow
    limits = {}
    for _, position, limit in client.sandbox.log:      # each one's first call
        limits.setdefault(position, limit)
    assert limits[other] == pytest.approx(2 * limits[hardest])
    # Twice the limit is still a limit: a call stuck there times out (and is measured
    # again, as any timeout is).
    stuck = grade_with(FakeSandbox(ratio=4, ratio_of=lambda p: 2.2 * share if p == other
                                   else None), positions=positions)
    [(function, position, category)] = time_failures(stuck)
    assert position == other and category == "timeout" and not stuck.pacing.too_slow


def test_move_wrapper_is_not_measured_again_where_mm_move_passed_the_same_tier():
    # At 60% of its limit, the empty board's mm_move call is measured again (a round);
    # move_wrapper on the same board answers with that same search: it is judged on its
    # own time, but a vote over again would only double the grader's cost.
    position = Position.empty(3)
    client = grade_with(FakeSandbox(ratio=3), positions=[position])
    assert client.stats.retries == 1
    calls = len(client.sandbox.log)
    move, failure = client.move_wrapper(position)
    assert failure is None and move is not None
    assert len(client.sandbox.log) == calls + 1 and client.stats.retries == 1
    # Where mm_move was not asked, a near move_wrapper call is measured again as before.
    alone = StudentClient(FakeSandbox(ratio=3), SOLVER, TimePolicy(), planned=[position])
    alone.move_wrapper(position)
    assert alone.stats.retries == 1


def test_a_timeout_measured_again_says_the_same_words_whichever_measurement_decided():
    # 110% of the limit: the rounds answer late (within their headroom); 140%: they are
    # stopped. Either way the vote says "over", and the report must say it in the same
    # words: which of the measurements the vote kept is not the student's business.
    import re
    position = Position.empty(3)
    words = set()
    for ratio in (5.5, 7.0):
        client = grade_with(FakeSandbox(ratio=ratio), positions=[position])
        (call,) = client.calls
        assert call.failure.category == "timeout" and client.stats.retries == 1
        words.add(re.sub(r"\d+\.\d+", "#", call.failure.why))
    assert len(words) == 1, words
