"""``python -m provided.gui``: play in a window (see provided.gui.command)."""

from provided.console import ConsoleConfig
from provided.gui.command import gui_main

raise SystemExit(gui_main(config=ConsoleConfig(prog="python -m provided.gui")))
