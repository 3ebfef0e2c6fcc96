"""Models and problems shared by several test files."""
