"""Operators over containers (pytrees) of arrays and floats."""
