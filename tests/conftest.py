"""Shared pytest configuration for the srcad test suite.

Tests leave the user's machine alone: srcad's compiled modules (`SRCAD_CACHE_DIR`) and numba's
own cache (`NUMBA_CACHE_DIR`, where `srcad/runtime/numba_runtime.py` keeps its compiled helpers) go
to
a temporary folder made for this test run and deleted after it. Both variables are read when
srcad and numba are first imported, so they are set here, before any test module imports them:
a stale numba cache in the source tree (`srcad/__pycache__/*.nbc`, written by an older numba or
an older `numba_runtime.py`) can then never be loaded by the tests.
"""

import os
import shutil
import sys
import tempfile

RUN_CACHE = tempfile.mkdtemp(prefix="srcad-test-run-")
os.environ["SRCAD_CACHE_DIR"] = os.path.join(RUN_CACHE, "srcad")
os.environ["NUMBA_CACHE_DIR"] = os.path.join(RUN_CACHE, "numba")

# numba reads NUMBA_CACHE_DIR once, at import (srcad reads SRCAD_CACHE_DIR at each compile)
assert "numba" not in sys.modules, (
    "numba was imported before tests/conftest.py could point its cache at a temporary folder")


def pytest_unconfigure(config):
    shutil.rmtree(RUN_CACHE, ignore_errors=True)
