"""The truth and the verdicts: positions, the exact solver, judging one answer, whole games.

No I/O, and nothing of the student's process: ``position`` (the grader's own value of a
position), ``positions`` (the hidden ones), ``solver`` (exact values and every optimal move:
the only truth), ``checks`` (one answer -> a verdict with its evidence), ``play`` (whole
games through the student's player), ``results`` (what a run found).
"""
