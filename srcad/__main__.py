"""`python -m srcad`: the command line of srcad/cli/__init__.py."""

from srcad.cli import console_main

if __name__ == "__main__":
    console_main()
