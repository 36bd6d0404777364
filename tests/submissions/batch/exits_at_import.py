"""Hostile: ends the process that imports it."""
import os

os._exit(1)
