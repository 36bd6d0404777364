"""``python -m provided``: play Tic-Tac-Toe in the terminal (see provided.console)."""

from provided.console import ConsoleConfig, main

if __name__ == "__main__":
    raise SystemExit(main(config=ConsoleConfig(prog="python -m provided")))
