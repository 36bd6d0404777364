"""Correct: every row, column and both diagonals."""


def winner(grid):
    size = len(grid)
    lines = [list(row) for row in grid]
    lines += [[grid[row][col] for row in range(size)] for col in range(size)]
    lines.append([grid[i][i] for i in range(size)])
    lines.append([grid[i][size - 1 - i] for i in range(size)])
    for line in lines:
        if line[0] != " " and line.count(line[0]) == size:
            return line[0]
    return None
