"""The course's board module: constants, ``TTTBoard``, ``switch_player``, ``play_game``.

Students program against exactly this interface (see COURSE_API.md); old code
that did ``import poc_ttt_provided as provided`` runs unchanged with
``import provided``.

>>> import provided
>>> board = provided.TTTBoard(3)
>>> board.move(0, 0, provided.PLAYERX)
>>> print(board, end="")
X |   |  
---------
  |   |  
---------
  |   |  
"""

from provided.board import (DRAW, EMPTY, PLAYERO, PLAYERX, SCORES, STRMAP, TTTBoard,
                            switch_player)
from provided.game import IllegalMoveError, play_game

__all__ = ["EMPTY", "PLAYERX", "PLAYERO", "DRAW", "STRMAP", "SCORES", "TTTBoard",
           "switch_player", "play_game", "IllegalMoveError"]
