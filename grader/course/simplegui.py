"""Course compatibility: CodeSkulptor's ``simplegui``, every part of it a harmless no-op.

Frames, timers, images, sounds and key codes exist and do nothing, so a submission that
builds a CodeSkulptor interface at import still imports.

>>> import simplegui
>>> frame = simplegui.create_frame("Tic-Tac-Toe", 300, 300)
>>> _ = frame.set_draw_handler(print), frame.add_button("New game", print), frame.start()
>>> simplegui.KEY_MAP["left"]
<simplegui stub KEY_MAP['left']>
"""


class _Stub:
    """Callable, subscriptable, with any public attribute; every use returns another stub."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        return _Stub(self._name + "()")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _Stub(self._name + "." + name)

    def __getitem__(self, key):
        return _Stub("%s[%r]" % (self._name, key))

    def __repr__(self):
        return "<simplegui stub %s>" % self._name


# CodeSkulptor's names, spelled out: a module-level __getattr__ would also answer the
# probing of tools (pytest's "pytest_plugins", for one) with stubs.
create_frame = _Stub("create_frame")
create_timer = _Stub("create_timer")
create_invisible_canvas = _Stub("create_invisible_canvas")
load_image = _Stub("load_image")
load_sound = _Stub("load_sound")
KEY_MAP = _Stub("KEY_MAP")
