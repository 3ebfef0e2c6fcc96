"""What generated code imports (numba) or is given (python) at run time."""
