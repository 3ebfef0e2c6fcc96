"""The fuzzer (fuzz/ at the repository's root) is importable by the tests here as `run`,
`generator`, ... as it is when run from its folder."""
import os
import sys

FUZZ = os.path.abspath(os.path.join(__file__, "..", "..", "..", "fuzz"))
if FUZZ not in sys.path:
    sys.path.insert(0, FUZZ)
