"""The code that runs INSIDE the sandbox: standard library only, its own folder on sys.path.

Inside, these are top-level modules (``import worker``); the grader imports only
``reference`` from here (for tests and benchmarks), never the worker.
"""
