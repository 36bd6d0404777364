"""Inside the sandbox: a returned value as exact, type-tagged, bounded JSON.

Only exact built-in types keep their tag (``type(x) is int``); anything else, subclasses
included, travels as "other" with its type's name and a short repr, so an object whose
``__eq__`` claims equality is never taken for the value it imitates. Standard library only.

>>> Encoder().encode((1, [True, None]), 0)["t"]
'tuple'
"""

MAX_NODES = 400         # values encoded per answer; the rest is cut
MAX_ITEMS = 64          # items of one tuple or list
MAX_DEPTH = 8           # nesting of tuples and lists
MAX_TEXT = 300          # characters of a str answer or of a repr

# The built-in bases a subclass is also read as: provided.bases.BUILTIN_BASES, the table
# the grader and ``check`` share, set by the worker once provided is importable (before any
# student code runs; this reference is ours).
BUILTIN_BASES = ()

# Our own references, taken before any student code can replace them.
_type_name = type.__dict__["__name__"].__get__
_type_module = type.__dict__["__module__"].__get__


class Encoder:
    """A return value as exact type-tagged JSON, bounded in size, depth and length.

    Only exact built-in types keep their tag (``type(x) is int``); anything else, subclasses
    included, is "other" with its type's name and a short repr, so an object whose __eq__
    claims equality is never taken for the value it imitates.
    """

    def __init__(self):
        self.nodes = 0

    def encode(self, value, depth):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            return {"t": "cut"}
        kind = type(value)
        if value is None:
            return {"t": "none"}
        if kind is bool:
            return {"t": "bool", "v": value}
        if kind is int:
            if value.bit_length() <= 256:
                return {"t": "int", "v": value}
            return {"t": "int", "bits": value.bit_length()}
        if kind is float:
            return {"t": "float", "v": repr(value)}
        if kind is str:
            node = {"t": "str", "v": value[:MAX_TEXT]}
            if len(value) > MAX_TEXT:
                node["more"] = len(value) - MAX_TEXT
            return node
        if kind is tuple or kind is list:
            if depth >= MAX_DEPTH:
                return {"t": "cut"}
            node = {"t": _type_name(kind),
                    "v": [self.encode(item, depth + 1) for item in value[:MAX_ITEMS]]}
            if len(value) > MAX_ITEMS:
                node["more"] = len(value) - MAX_ITEMS
            return node
        return self.other(value, kind, depth)

    def other(self, value, kind, depth):
        try:
            module = _type_module(kind)
            name = _type_name(kind)
            if type(module) is str and module != "builtins":
                name = module + "." + name
        except BaseException:
            name = "?"
        try:
            text = repr(value)
            text = text if type(text) is str else "?"
        except BaseException as exc:
            text = "<repr() raised %s>" % _type_name(type(exc))
        node = {"t": "other", "type": name[:MAX_TEXT], "repr": text[:MAX_TEXT]}
        # A subclass of a built-in also travels as its built-in value, read by the built-in's
        # own methods, so that a check may choose to be lenient.
        for base, plain in BUILTIN_BASES:
            if isinstance(value, base) and depth < MAX_DEPTH:
                try:
                    node["base"] = self.encode(plain(value), depth + 1)
                except BaseException:
                    pass
                break
        return node


