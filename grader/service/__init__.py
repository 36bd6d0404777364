"""The submission page (``python -m grader serve``): students hand in ``mm_player.py`` in a
browser or with ``python -m student submit`` and read their report within seconds; the
instructor runs the class from the same place.

    storage     the course's SQLite database (the only state; the only module with SQL)
    queue       grading threads: claim the oldest queued submission, run ``python -m grader
                grade`` through the batch's runner (local or Dask), store the result
    auth        sign-in tokens, sessions, CSRF
    app         the Starlette application: student pages, JSON API, instructor routes
    command     ``python -m grader serve`` (the only part that prints)

It sits above ``grader.classroom`` and grades through the same runner as ``batch``;
nothing below it imports it.
"""
