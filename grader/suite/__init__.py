"""One grading run: the hidden suite (``test_rubric.py``, pytest tests, one per rubric
item), the engine that runs it on one submission (``engine``, ``plugin``, ``config``), the
client that asks and judges (``client``), and the reports (``report`` for people,
``results_json`` for Gradescope, ``table`` for CSV, ``writers`` for files); ``public`` runs an
assignment's public checks through the same engine (``python -m student check``).
"""
