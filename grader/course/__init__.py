"""The course's own modules as a submission imports them (``poc_ttt_provided``,
``poc_ttt_gui``, ``codeskulptor``, ``simplegui``): small stand-ins, put on the worker's
sys.path so that old course files run unchanged. Each is a top-level module there.
"""
