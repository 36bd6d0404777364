"""How a subclass of a built-in is read as its built-in value: one table, two readers.

``provided.answers`` (the grader and ``python -m student check``) and the grader's worker,
inside the sandbox, read an answer's ``int``, ``float``, ``str``, ``tuple`` or ``list``
subclass by the built-in's own methods (a subclass may override its own). This module
imports nothing, so that the worker, which starts for every grade and after every crash,
does not pay for what the answers' reader needs.

>>> class Sneaky(int):
...     def __int__(self):
...         return 99
>>> [plain(Sneaky(3)) for base, plain in BUILTIN_BASES if isinstance(Sneaky(3), base)]
[3]
"""

BUILTIN_BASES = ((int, int.__int__), (float, float.__float__), (str, str.__str__),
                 (tuple, lambda value: tuple(tuple.__iter__(value))),
                 (list, lambda value: list(list.__iter__(value))))
