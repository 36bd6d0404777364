"""The autograder: what instructors run (``python -m grader``).

One concern a room, data flowing one way (positions -> worker -> checks <- solver ->
report; discover -> run -> state -> gradebook):

- ``judge/``: the truth and the verdicts (positions, solver, checks, games); no I/O;
- ``timing/``: the reference the limits are multiples of, and the pacing of a run;
- ``sandbox/``: the student's code in a process of its own (``inside/`` runs there);
- ``course/``: the course's modules as a submission imports them;
- ``suite/``: the hidden pytest suite, the engine that runs it, and the reports;
- ``classroom/``: a whole class (batch, gradebook, summary, Dask), Gradescope, the handout;
- ``cli``: ``python -m grader``.
"""
