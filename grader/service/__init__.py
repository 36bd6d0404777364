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

One vocabulary from the database to the templates: a ``storage.Student`` (the roster's
person) and a ``storage.Submission`` (a submission's row); the class page holds them, never
copies them: a ``class_queries.ClassSubmission`` is a Submission with what its result
recorded and its final score, a ``classbook.ClassStudent`` a Student with theirs. Every
route has a name (``Route(..., name="submission")``), and every link and redirect is built
from it: ``pages.path_for(request, "submission", number=7)`` in a handler,
``{{ path_for('submission', number=row.id) }}`` in a template.
"""
