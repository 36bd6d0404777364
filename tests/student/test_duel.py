"""`python -m student duel`: two players, many games from both sides, a table. The players
run in the child process (`python -m student duel`), never in the test's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MINIMAX = f"{ROOT / 'tests' / 'submissions' / 'student' / 'correct.py'}:move_wrapper"
MONTE_CARLO = f"{ROOT / 'grader/assignments/montecarlo/submissions/correct_clone.py'}:mc_move"
ROW = re.compile(r"^([AB]) +(\d+) +(\d+) +(\d+) +(\d+-\d+-\d+) +(\d+-\d+-\d+) +([\d.]+ ms)$",
                 re.MULTILINE)


def duel(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "student", "duel", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def results(out: str) -> dict[str, tuple[str, ...]]:
    """Each player's wins, draws, losses, as X and as O (not the times: they vary)."""
    return {found[0]: found[1:6] for found in ROW.findall(out)}


def test_minimax_against_monte_carlo_prints_the_table_and_the_question() -> None:
    done = duel("-a", MINIMAX, "-b", MONTE_CARLO, "--games", "4", "--trials", "20")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Duel on 3x3: A = ")
    assert "4 games, A plays X in the odd ones; 20 trials; seed 1." in out
    assert "player  wins  draws  losses   as X (w-d-l)   as O (w-d-l)   time per move" in out
    table = results(out)
    assert set(table) == {"A", "B"}
    wins_a, draws_a, losses_a = map(int, table["A"][:3])
    wins_b, draws_b, losses_b = map(int, table["B"][:3])
    assert wins_a + draws_a + losses_a == 4
    assert (wins_a, draws_a, losses_a) == (losses_b, draws_b, wins_b)
    assert losses_a == 0          # a correct minimax never loses
    assert "in which situations does Minimax or Monte Carlo make the better player?" in out


def test_the_same_seed_plays_the_same_games() -> None:
    args = ("-a", "random", "-b", MONTE_CARLO, "--games", "6", "--trials", "10", "--seed", "7")
    first, second = duel(*args), duel(*args)
    assert first.returncode == second.returncode == 0
    assert results(first.stdout) == results(second.stdout)
    assert len(results(first.stdout)) == 2


def test_a_4x4_reverse_duel_says_each_game_as_it_starts() -> None:
    done = duel("-a", "random", "-b", MONTE_CARLO, "--games", "2", "--size", "4",
                "--reverse", "--trials", "5")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Duel on 4x4, reverse game:")
    assert len(results(done.stdout)) == 2
    # Not a terminal: a line per game on stderr, as it starts; none on stdout.
    assert done.stderr.splitlines() == ["duel: game 1 of 2 (A plays X)",
                                        "duel: game 2 of 2 (B plays X)"]
    assert "duel:" not in done.stdout


def test_a_minimax_on_4x4_is_said_to_be_slow_before_its_first_move(tmp_path: Path) -> None:
    """`duel --size 4` once printed nothing for minutes: a plain minimax's first moves
    there search millions of positions."""
    fast = tmp_path / "mine.py"     # a move_wrapper of no search, so the test is quick
    fast.write_text("def move_wrapper(board, player, trials):\n"
                    "    return board.get_empty_squares()[0]\n")
    done = duel("-a", f"{fast}:move_wrapper", "-b", "random", "--games", "1", "--size", "4")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("note: on a 4x4 board a plain minimax searches millions of "
                                  "positions for each of its first moves: minutes a move")
    assert "duel: game 1 of 1 (A plays X)" in done.stderr
    assert "note:" not in duel("-a", "random", "-b", "random", "--games", "1",
                               "--size", "4").stderr


def test_the_unwritten_templates_say_what_to_do() -> None:
    done = duel()
    assert done.returncode == 1
    assert "Your player is not ready: mm_move is not written yet" in done.stderr
    done = duel("-a", "random")
    assert "Your player is not ready: mc_move is not written yet" in done.stderr
    assert "Traceback" not in done.stderr


def test_bad_options_are_refused() -> None:
    assert duel("--games", "0").returncode == 2
    done = duel("-a", "human")
    assert done.returncode == 2 and "two machine players" in done.stderr
    done = duel("-a", "nosuchmodule:move")
    assert done.returncode == 2 and "argument -a: there is no module" in done.stderr
