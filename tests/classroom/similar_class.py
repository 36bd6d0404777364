"""A generated class for the similarity tests and benchmark: many correct minimax players
written the ways students write them, a few of them planted copies of others.

    folder = Path("class")
    planted = generate_class(folder, size=300, copies=5, seed=17)
    # planted: [("student042", "student217"), ...]  (original, copy)

Each file starts from one of the correct styles of the fixtures and varies it as students
do: the header (the original course's template from tests/submissions/course/, the
handout's from student/mm_player.py, or a bare import), how the finished board is checked,
how the empty squares are walked (a list of pairs, a square at a time, nested ranges), the
clone-and-move (inline or in a helper), the opponent (switch_player, a helper, an
expression), how the recursive answer is read, the early exit, the initial best value,
move_wrapper (the course's with its assert, the handout's, a one-liner), a few extra lines
of the student's own (a call counter, a debugging print, an input check, a small test) and
every name, comment, docstring, blank line and the order of the functions. The styles:

- plain: one loop, the best kept as score times SCORES[player] (grader/correct_plain.py,
  course/course_template_filled.py);
- pruned: a sign, a (score, move) pair, a break on a win (grader/correct_pruned.py);
- memoised: the answer of each board remembered (grader/correct_memoised.py,
  similarity/class/frank.py);
- listed: every child's score in a list, then max or min, or a random one of the best
  (grader/correct_random_best.py, similarity/class/alice.py);
- branches: separate branches for X and O (class/alphabeta.py without the pruning);
- alphabeta: alpha and beta (class/alphabeta.py);
- negamax: the value for the player to move (similarity/class/carol.py).

A copy keeps another file's structure and changes what a student hiding a copy changes:
every name, comment and docstring, blank lines and the order of the functions (and, for
some, one extra line). Deterministic: the same seed writes the same files. The files are
text for copydetect; nothing here imports or runs them.
"""

from __future__ import annotations

import random
from pathlib import Path

STYLES = ("plain", "pruned", "memoised", "listed", "branches", "alphabeta", "negamax")

COURSE_HEADER = '''"""
Mini-max Tic-Tac-Toe Player
"""

import poc_ttt_gui
import poc_ttt_provided as provided

# Set timeout, as mini-max can take a long time
import codeskulptor
codeskulptor.set_timeout(60)

# SCORING VALUES - DO NOT MODIFY
SCORES = {provided.PLAYERX: 1,
          provided.DRAW: 0,
          provided.PLAYERO: -1}
'''

HANDOUT_HEADER = '''"""
Mini-max Tic-Tac-Toe player: the part you write.
"""

import provided
from provided import DRAW, EMPTY, PLAYERO, PLAYERX, TTTBoard, switch_player  # noqa: F401

# SCORING VALUES - DO NOT MODIFY
SCORES = {provided.PLAYERX: 1,
          provided.DRAW: 0,
          provided.PLAYERO: -1}
'''

BARE_HEADER = '''import provided
from provided import DRAW, EMPTY, PLAYERO, PLAYERX, switch_player

SCORES = {PLAYERX: 1, DRAW: 0, PLAYERO: -1}
'''

NAMES = {
    "board": ["board", "b", "brd", "grid", "state", "game_board", "bd", "current"],
    "player": ["player", "p", "who", "turn", "me", "side", "mover"],
    "square": ["move", "square", "cell", "spot", "pos", "mv", "choice"],
    "row": ["row", "r", "i", "x", "rr"], "col": ["col", "c", "j", "y", "cc"],
    "child": ["child", "clone", "new_board", "copy_board", "nxt", "trial", "tmp", "b2"],
    "score": ["score", "value", "val", "sc", "outcome", "res"],
    "best": ["best", "best_score", "top", "best_val", "bs", "chosen"],
    "best_move": ["best_move", "bm", "best_square", "answer", "pick", "best_spot"],
    "winner": ["winner", "w", "result", "status", "done", "state_now"],
    "results": ["results", "options", "scored", "found", "outcomes", "candidates"],
    "memo": ["MEMO", "seen", "cache", "known", "table", "_memo"],
    "key": ["key", "k", "index", "ident", "h"],
    "sign": ["sign", "mult", "factor", "s", "direction"],
    "alpha": ["alpha", "a", "lo", "low"], "beta": ["beta", "bb", "hi", "high"],
    "other": ["other", "opponent", "switch", "next_player", "flip", "rival"],
    "play": ["play", "apply_move", "after", "make_move", "with_move", "child_of"],
    "search": ["search", "minimax", "solve", "explore", "_search", "best_of", "value_of"],
    "calls": ["CALLS", "counter", "n_calls", "STATS", "visits"],
    "empties": ["empties", "moves", "free", "open_squares", "squares", "avail"],
    "idx": ["idx", "n", "t", "m", "num"],
    "trials": ["trials", "ntrials", "t", "n", "_trials"],
}

DOCSTRINGS = ["Make a move on the board.", "Return the score and the best move.",
              "Minimax search.", "Recursive helper.", "Returns (score, move).",
              "The best move for player.", "Switch turns.", "Play a move on a copy.",
              "Helper.", "Score the board from X's side."]
COMMENTS = ["# base case", "# try every move", "# recurse", "# keep the best",
            "# stop early", "# TODO: clean up", "# copy the board first", "# X maximises",
            "# O minimises", "# done", "# check for a winner", "# the other player"]


class _Writer:
    """The names and comments of one file (cosmetic) apart from its structure."""

    def __init__(self, structure: random.Random, cosmetic: random.Random) -> None:
        self.rs, self.rc = structure, cosmetic
        self.names: dict[str, str] = {}

    def choose(self, *options: str) -> str:
        return self.rs.choice(options)

    def name(self, role: str) -> str:
        if role not in self.names:
            taken = set(self.names.values())
            self.names[role] = self.rc.choice([n for n in NAMES[role] if n not in taken]
                                              or [f"{NAMES[role][0]}_{len(taken)}"])
        return self.names[role]

    def doc(self, indent: str) -> list[str]:
        if self.rc.random() < 0.5:
            return []
        return [f'{indent}"""{self.rc.choice(DOCSTRINGS)}"""']

    def comment(self, indent: str) -> list[str]:
        return [f"{indent}{self.rc.choice(COMMENTS)}"] if self.rc.random() < 0.25 else []


def _file(structure_seed: int, cosmetic_seed: int, extra_line: bool = False) -> str:
    """One file: its structure from ``structure_seed``, its names, comments and function
    order from ``cosmetic_seed``."""
    w = _Writer(random.Random(structure_seed), random.Random(cosmetic_seed))
    rs = w.rs
    style = rs.choice(STYLES)
    header = rs.choice([COURSE_HEADER, HANDOUT_HEADER, BARE_HEADER, BARE_HEADER])
    course = header is COURSE_HEADER
    x, o = ("provided.PLAYERX", "provided.PLAYERO") if header is not BARE_HEADER or \
        rs.random() < 0.3 else ("PLAYERX", "PLAYERO")
    b, p = w.name("board"), w.name("player")
    functions: list[list[str]] = []
    globals_: list[str] = []

    # the opponent
    opp_kind = w.choose("provided", "provided", "helper", "inline", "bare")
    if opp_kind == "bare" and header is COURSE_HEADER:
        opp_kind = "provided"
    if opp_kind == "helper":
        other = w.name("other")
        body = rs.choice([[f"    if {p} == {x}:", f"        return {o}", f"    return {x}"],
                          [f"    return {o} if {p} == {x} else {x}"],
                          [f"    return {{{x}: {o}, {o}: {x}}}[{p}]"],
                          [f"    if {p} == {o}:", f"        return {x}", "    else:",
                           f"        return {o}"]])
        functions.append([f"def {other}({p}):", *w.doc("    "), *body])

        def opponent(who: str) -> str:
            return f"{other}({who})"
    elif opp_kind == "inline":
        def opponent(who: str) -> str:
            return f"({o} if {who} == {x} else {x})"
    elif opp_kind == "bare":
        def opponent(who: str) -> str:
            return f"switch_player({who})"
    else:
        def opponent(who: str) -> str:
            return f"provided.switch_player({who})"

    # the finished board
    win = w.name("winner")
    finished = rs.choice([
        [f"{win} = {b}.check_win()", f"if {win} is not None:",
         f"    return SCORES[{win}], (-1, -1)"],
        [f"if {b}.check_win() is not None:", f"    return SCORES[{b}.check_win()], (-1, -1)"],
        [f"{win} = {b}.check_win()", f"if {win} != None:", f"    return SCORES[{win}], (-1, -1)"],
        [f"{win} = {b}.check_win()", f"if {win} in SCORES:",
         f"    return SCORES[{win}], (-1, -1)"],
        [f"{win} = {b}.check_win()", f"if {win} == {x}:", "    return 1, (-1, -1)",
         f"elif {win} == {o}:", "    return -1, (-1, -1)", f"elif {win} == provided.DRAW:",
         "    return 0, (-1, -1)"],
        [f"{win} = {b}.check_win()", f"if not {win} is None:",
         f"    return (SCORES[{win}], (-1, -1))"],
    ])

    # walking the empty squares: the loop's head, and the names of the square
    r, c = w.name("row"), w.name("col")
    walk = rs.choice(["pairs", "pairs", "square", "parens", "nested", "indexed", "sorted"])
    if walk == "square":
        sq = w.name("square")
        loop = [f"for {sq} in {b}.get_empty_squares():"]
        row, col, move = f"{sq}[0]", f"{sq}[1]", sq
    elif walk == "nested":
        empty = "provided.EMPTY" if rs.random() < 0.6 or header is COURSE_HEADER else "EMPTY"
        loop = [f"for {r} in range({b}.get_dim()):", f"    for {c} in range({b}.get_dim()):",
                f"        if {b}.square({r}, {c}) != {empty}:", "            continue"]
        row, col, move = r, c, f"({r}, {c})"
    elif walk == "indexed":
        em, ix = w.name("empties"), w.name("idx")
        loop = [f"{em} = {b}.get_empty_squares()", f"for {ix} in range(len({em})):",
                f"    {r}, {c} = {em}[{ix}]"]
        row, col, move = r, c, f"({r}, {c})"
    else:
        head = {"pairs": f"for {r}, {c} in {b}.get_empty_squares():",
                "parens": f"for ({r}, {c}) in {b}.get_empty_squares():",
                "sorted": f"for {r}, {c} in sorted({b}.get_empty_squares()):"}[walk]
        loop = [head]
        row, col, move = r, c, f"({r}, {c})"
    depth = "        " if walk == "nested" else "    "     # the loop body's indent

    # the child: inline or in a helper
    ch = w.name("child")
    if rs.random() < 0.3:
        play = w.name("play")
        functions.append([f"def {play}({b}, {r}, {c}, {p}):", *w.doc("    "),
                          f"    {ch} = {b}.clone()", f"    {ch}.move({r}, {c}, {p})",
                          f"    return {ch}"])
        child = [f"{ch} = {play}({b}, {row}, {col}, {p})"]
    else:
        child = [f"{ch} = {b}.clone()", f"{ch}.move({row}, {col}, {p})"]

    sc = w.name("score")

    def recurse(function: str, extra: str = "") -> list[str]:
        call = f"{function}({ch}, {opponent(p)}{extra})"
        return rs.choice([[f"{sc} = {call}[0]"], [f"{sc}, _ = {call}"],
                          [f"{sc} = {call}", f"{sc} = {sc}[0]"]])

    low = rs.choice(["-2", "-10", "-100", "-999", 'float("-inf")', "-1000"])
    high = low[1:] if low.startswith("-") else 'float("inf")'
    exit_kind = rs.choice(["none", "break", "return"])
    best, bm = w.name("best"), w.name("best_move")
    # small habits of the whole file: parentheses around a returned pair, the None test
    pair = rs.choice(["{}, {}", "({}, {})"])
    is_none = rs.choice(["{} is None", "{} is None", "{} == None"])
    # a depth argument the helper carries along (alice's _search)
    dv = w.name("idx")
    deep = rs.random() < 0.35
    mm = "mm_move"
    search_name = mm
    body: list[str] = []

    def early(score: str, target: str) -> list[str]:
        if exit_kind == "break":
            return [f"if {score} == {target}:", "    break"]
        if exit_kind == "return":
            return [f"if {score} == {target}:", f"    return {pair.format(score, move)}"]
        return []

    if style in ("plain", "memoised"):
        search_name = w.name("search") if style == "memoised" else mm
        inner = [*child, *recurse(search_name if style == "plain" else mm),
                 f"if {is_none.format(best)} or {sc} * SCORES[{p}] > {best} * SCORES[{p}]:",
                 f"    {best}, {bm} = {sc}, {move}",
                 *["    " + line for line in early(sc, f"SCORES[{p}]")]]
        body = [*finished, f"{best}, {bm} = None, (-1, -1)", *loop,
                *[depth + line for line in inner], f"return {pair.format(best, bm)}"]
    elif style == "pruned":
        sg = w.name("sign")
        inner = [*child, *recurse(mm), f"if {sc} * {sg} > {best}[0] * {sg}:",
                 f"    {best} = ({sc}, {move})",
                 *(["    " + line for line in early(sc, sg)] if exit_kind != "none" else
                   [f"    if {sc} == {sg}:", "        break"])]
        body = [*finished, f"{sg} = SCORES[{p}]", f"{best} = ({low} * {sg}, (-1, -1))"
                if not low.startswith("float") else f"{best} = (-2 * {sg}, (-1, -1))",
                *loop, *[depth + line for line in inner], f"return {best}"]
    elif style == "listed":
        rl = w.name("results")
        inner = [*child, *recurse(mm), f"{rl}.append(({sc}, {move}))",
                 *early(sc, f"SCORES[{p}]")]
        pick = rs.choice([
            [f"if {p} == {x}:", f"    {best} = max({rl})", "else:", f"    {best} = min({rl})",
             f"return {best}"],
            [f"{best} = max({sc} * SCORES[{p}] for {sc}, _ in {rl}) * SCORES[{p}]",
             f"return {best}, random.choice([{move} for {sc}, {move} in {rl} "
             f"if {sc} == {best}])"],
            [f"{rl}.sort(reverse={p} == {x})", f"return {rl}[0]"],
            [f"key = lambda item: item[0] * SCORES[{p}]", f"return max({rl}, key=key)"],
        ])
        if pick[0].startswith(f"{best} = max({sc} *"):
            globals_.insert(0, "import random")
        body = [*finished, f"{rl} = []", *loop, *[depth + line for line in inner], *pick]
    elif style == "branches":
        inner_x = [*child, *recurse(mm), f"if {sc} > {best}:", f"    {best}, {bm} = {sc}, {move}",
                   *early(sc, "1")]
        inner_o = [*child, *recurse(mm), f"if {sc} < {best}:", f"    {best}, {bm} = {sc}, {move}",
                   *early(sc, "-1")]
        body = [*finished, f"{bm} = (-1, -1)", f"if {p} == {x}:", f"    {best} = {low}",
                *["    " + line for line in loop],
                *["    " + depth + line for line in inner_x],
                "else:", f"    {best} = {high}", *["    " + line for line in loop],
                *["    " + depth + line for line in inner_o], f"return {pair.format(best, bm)}"]
    elif style == "alphabeta":
        search_name = w.name("search")
        al, be = w.name("alpha"), w.name("beta")
        inner = [*child, *recurse(search_name, f", {al}, {be}" + (f", {dv} + 1" if deep else "")),
                 f"if {p} == {x} and {sc} > {best} or {p} == {o} and {sc} < {best}:",
                 f"    {best}, {bm} = {sc}, {move}",
                 f"if {p} == {x}:", f"    {al} = max({al}, {best})", "else:",
                 f"    {be} = min({be}, {best})", f"if {al} >= {be}:", "    break"]
        body = [*finished, f"{bm} = (-1, -1)", f"{best} = {low} if {p} == {x} else {high}",
                *loop, *[depth + line for line in inner], f"return {pair.format(best, bm)}"]
    else:   # negamax
        search_name = w.name("search")
        sign = rs.choice([f"(1 if {p} == {x} else -1)", f"SCORES[{p}]", f"SIGN[{p}]"])
        if sign.startswith("SIGN"):
            globals_.append(f"SIGN = {{{x}: 1, {o}: -1}}")
        better = rs.choice([[f"if -{sc} > {best}:", f"    {best}, {bm} = -{sc}, {move}"],
                            [f"{sc} = -{sc}", f"if {sc} > {best}:",
                             f"    {best}, {bm} = {sc}, {move}"],
                            [f"if {best} < -{sc}:", f"    {best} = -{sc}", f"    {bm} = {move}"]])
        inner = [*child, *recurse(search_name, f", {dv} + 1" if deep else ""), *better,
                 *(["    if " + best + " == 1:", "        break"] if exit_kind == "break" else
                   [f"    if {best} == 1:", f"        return {pair.format(best, bm)}"]
                   if exit_kind == "return" else [])]
        test = rs.choice(["is not None", "!= None", "in SCORES"])
        body = [f"{win} = {b}.check_win()", f"if {win} {test}:",
                f"    return {pair.format(f'SCORES[{win}] * {sign}', '(-1, -1)')}",
                f"{best}, {bm} = {low}, (-1, -1)", *loop, *[depth + line for line in inner],
                f"return {pair.format(best, bm)}"]

    # the student's own lines
    extras: list[str] = []
    if rs.random() < 0.5:
        calls = w.name("calls")
        if rs.random() < 0.5:
            globals_.append(f"{calls} = [0]")
            extras.append(f"{calls}[0] += {rs.choice(['1', '1', '2 - 1'])}")
        else:
            globals_.append(f"{calls} = 0")
            extras += [f"global {calls}", f"{calls} += 1"]
    if rs.random() < 0.3:
        extras.append(rs.choice([f"assert {p} in ({x}, {o}), {p}",
                                 f"assert {b}.get_dim() > 0",
                                 f"if {b}.get_dim() < 1:", ]))
        if extras[-1].startswith("if "):
            extras.append("    raise ValueError('empty board')")
    if rs.random() < 0.2:
        extras.append(f"# print({b}, {p})")

    carried = search_name != mm and style != "memoised" and deep
    main = [f"def {search_name}({b}, {p}" + (f", {w.name('alpha')}, {w.name('beta')}"
                                            if style == "alphabeta" else "")
            + (f", {dv}" if carried else "") + "):",
            *w.doc("    "), *["    " + line for line in extras],
            *[f"    {line}" for line in body]]
    # comments anywhere in the body (cosmetic)
    main = [main[0], *[part for line in main[1:]
                       for part in (*w.comment(line[:len(line) - len(line.lstrip())]), line)]]
    functions.append(main)

    if style == "memoised":
        memo, key = w.name("memo"), w.name("key")
        globals_.append(f"{memo} = {{}}")
        key_expr = rs.choice([f"(repr({b}), {p})", f"(str({b}), {p})",
                              f"(tuple(tuple({b}.square({r}, {c}) for {c} in range({b}.get_dim()))"
                              f" for {r} in range({b}.get_dim())), {p})"])
        functions.append([f"def {mm}({b}, {p}):", *w.doc("    "), f"    {key} = {key_expr}",
                          f"    if {key} not in {memo}:",
                          f"        {memo}[{key}] = {search_name}({b}, {p})",
                          f"    return {memo}[{key}]"])
    elif style == "alphabeta":
        functions.append([f"def {mm}({b}, {p}):", *w.doc("    "),
                          f"    return {search_name}({b}, {p}, {low}, {high}"
                          + (", 0)" if deep else ")")])
    elif style == "negamax":
        value, square = w.name("score"), w.name("square")
        functions.append([f"def {mm}({b}, {p}):", *w.doc("    "),
                          f"    {value}, {square} = {search_name}({b}, {p}"
                          + (", 0)" if deep else ")"),
                          f"    return {value} * (1 if {p} == {x} else -1), {square}"])

    tr = w.name("trials")
    wrapper = rs.choice(["course", "handout", "short", "short", "named"])
    if wrapper == "course" or (course and rs.random() < 0.6):
        wrap = ["    move = mm_move(board, player)",
                '    assert move[1] != (-1, -1), "returned illegal move (-1, -1)"',
                "    return move[1]"]
        functions.append(["def move_wrapper(board, player, trials):",
                          '    """', "    Wrapper to allow the use of the same infrastructure "
                          "that was used", "    for Monte Carlo Tic-Tac-Toe.", '    """', *wrap])
    elif wrapper == "handout":
        functions.append(["def move_wrapper(board, player, trials):",
                          "    move = mm_move(board, player)",
                          "    assert move[1] != (-1, -1), (",
                          "        \"mm_move returned the move (-1, -1), which means 'the game "
                          "is over', on a board \"",
                          '        f"where the game is still going:\\n{board}\\nreturn (-1, -1) '
                          'only when "', '        "board.check_win() is not None")',
                          "    return move[1]"])
    elif wrapper == "named":
        functions.append([f"def move_wrapper({b}, {p}, {tr}):", *w.doc("    "),
                          f"    {sc}, {bm} = mm_move({b}, {p})", f"    return {bm}"])
    else:
        functions.append([f"def move_wrapper({b}, {p}, {tr}):", *w.doc("    "),
                          f"    return mm_move({b}, {p})[1]"])

    tail = w.choose("none", "none", "commented", "main", "play")
    tail_lines = {"none": [], "commented": ["# provided.play_game(move_wrapper, 1, False)"],
                  "main": ['if __name__ == "__main__":',
                           "    provided.play_game(move_wrapper, 1, False)"],
                  "play": ["provided.play_game(move_wrapper, 1, False)"]}[tail]
    if course and tail != "main":
        tail_lines = ["# Test game with the console or the GUI.",
                      "# provided.play_game(move_wrapper, 1, False)",
                      "# poc_ttt_gui.run_gui(3, provided.PLAYERO, move_wrapper, 1, False)"]

    if extra_line:      # a copy with one line of its own, as some hide one
        at = 2 if main[1].lstrip().startswith('"""') else 1
        main.insert(at, f"    print({b}, {p})  # debugging")
    w.rc.shuffle(functions)
    blank = "\n" * w.rc.choice([2, 3])
    parts = [header.rstrip("\n"), *[line for line in globals_ if line.startswith("import")],
             *[line for line in globals_ if not line.startswith("import")]]
    text = "\n".join(parts) + blank + blank.join("\n".join(f) for f in functions)
    if tail_lines:
        text += blank + "\n".join(tail_lines)
    return text + "\n"


def generate_class(folder: Path, size: int, copies: int, seed: int = 17,
                   extra_line_copies: int = 1) -> list[tuple[str, str]]:
    """Write ``size`` files ``student001.py``... into ``folder``: ``size - copies``
    independent ones and ``copies`` planted copies of some of them (the last
    ``extra_line_copies`` of which add a line of their own), spread among the others.
    Returns the planted pairs in the order they were planted (those with a line of their
    own last), each as its two student ids in name order.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> generate_class(folder, 6, 1, seed=3) == generate_class(folder, 6, 1, seed=3)
    True
    >>> len(list(folder.glob("*.py")))
    6
    """
    rng = random.Random(seed)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ids = [f"student{number:03d}" for number in range(1, size + 1)]
    order = ids[:]
    rng.shuffle(order)
    copy_ids, own_ids = order[:copies], order[copies:]
    structure = {student: rng.randrange(10**9) for student in own_ids}
    originals = rng.sample(sorted(own_ids), copies)
    planted = []
    for number, (copy, original) in enumerate(zip(copy_ids, originals)):
        structure[copy] = structure[original]
        planted.append((min(original, copy), max(original, copy)))
    for student in ids:
        extra = student in copy_ids[len(copy_ids) - extra_line_copies:] if extra_line_copies \
            else False
        text = _file(structure[student], rng.randrange(10**9), extra_line=extra)
        (folder / f"{student}.py").write_text(text, encoding="utf-8")
    return planted
