"""Shared pytest configuration for the srcad test suite.

Tests leave the user's machine alone: srcad's compiled modules (`SRCAD_CACHE_DIR`) and numba's
own cache (`NUMBA_CACHE_DIR`, where `srcad/runtime/numba_runtime.py` keeps its compiled helpers) go
to
a temporary folder made for this test run and deleted after it. Both variables are read when
srcad and numba are first imported, so they are set here, before any test module imports them:
a stale numba cache in the source tree (`srcad/__pycache__/*.nbc`, written by an older numba or
an older `numba_runtime.py`) can then never be loaded by the tests.

Slow tests. `make test` (`-m "not slow"`) is the development loop, at most five minutes on two
cores; `make test-all` (and CI) runs every test. The mark sits in the test file, so it travels
with the file: `@pytest.mark.slow` on a test, `pytest.param("numba", marks=pytest.mark.slow)` on
one parameter, or `pytestmark = pytest.mark.slow` for a whole module. Mark a test slow when it
takes more than about 2 s on its own (`pytest -n 0 --durations=0 tests/test_x.py`) and what it
checks is also checked by a fast test: numba compilations past the file's smoke test, bounded
fuzz runs, whole benchmark programs. Keep fast every rule, mode and stage on the python backend
and at least one numba test per file that has numba tests (its cheapest). A new test file is
timed the same way before it lands: a file whose fast tests together take more than about 5 s
marks its expensive ones slow.
"""

import os
import shutil
import sys
import tempfile

# pytest-xdist's workers inherit the environment of the pytest process that starts them (after
# it has read this file): they share its folder, so a module one worker compiled (srcad's
# runtime helpers, a derivative two tests generate alike) is loaded from disk by the other
# rather than compiled again. Only the process that made the folder deletes it.
_INHERITED = os.environ.get("SRCAD_TEST_RUN_CACHE", "")
OWNS_RUN_CACHE = not (os.environ.get("PYTEST_XDIST_WORKER") and os.path.isdir(_INHERITED))
RUN_CACHE = tempfile.mkdtemp(prefix="srcad-test-run-") if OWNS_RUN_CACHE else _INHERITED
os.environ["SRCAD_TEST_RUN_CACHE"] = RUN_CACHE
os.environ["SRCAD_CACHE_DIR"] = os.path.join(RUN_CACHE, "srcad")
os.environ["NUMBA_CACHE_DIR"] = os.path.join(RUN_CACHE, "numba")
# srcad compiles its generated code at LLVM's -O2 (srcad/build/numba_level.py; SRCAD_NUMBA_OPT),
# and numba compiles the tests' other programs (their own numba functions, the primals the
# GradBench ports compile) at -O2 too (`NUMBA_OPT=2`, numba's default is 3): the tests check
# what the code computes, not how fast it runs, and compiling is most of the suite's time.
# IEEE arithmetic is the same at every level; -O0 would be cheaper still but keeps addresses in
# the code that numba refuses to cache (srcad's disk cache, shared by the test workers). Tests
# about what LLVM makes of the code (SIMD lane loops) compile at -O3 with the `optimized_numba`
# fixture. `SRCAD_NUMBA_OPT=3 NUMBA_OPT=3 make test-all` runs the suite at numba's default level.
os.environ.setdefault("NUMBA_OPT", "2")

# numba reads NUMBA_CACHE_DIR once, at import (srcad reads SRCAD_CACHE_DIR at each compile)
assert "numba" not in sys.modules, (
    "numba was imported before tests/conftest.py could point its cache at a temporary folder")


def pytest_unconfigure(config):
    if OWNS_RUN_CACHE:
        shutil.rmtree(RUN_CACHE, ignore_errors=True)



import pytest  # noqa: E402  (after the cache folders are set: pytest plugins may import numba)

_LIBRARIES = {"numpy", "scipy", "math", "builtins", "cmath"}


def _a_library_function(obj) -> bool:
    import numpy as np

    module = getattr(obj, "__module__", None) or ""
    return isinstance(obj, np.ufunc) or module.partition(".")[0] in _LIBRARIES


@pytest.fixture(autouse=True)
def _library_rules_as_shipped():
    """A test that gives a library function a rule of its own (`srcad.custom_jvp(scipy.special.
    i0)`, as docs/custom_rules.md does) gives it for the whole process: every later test on the
    same worker would differentiate i0 through that rule. Rules of library functions are put
    back as they were after each test; rules of the tests' own functions stay (they name
    nothing another test calls, and helper modules register theirs once, at import)."""
    from srcad.build import cache
    from srcad.rules.table import USER_RULES

    before = dict(USER_RULES)
    yield
    changed = [key for key, (obj, _) in USER_RULES.items()
               if before.get(key) is not USER_RULES[key] and _a_library_function(obj)]
    for key in changed:
        if key in before:
            USER_RULES[key] = before[key]
        else:
            del USER_RULES[key]
    if changed:
        cache.clear()


@pytest.fixture
def optimized_numba(monkeypatch):
    """LLVM's -O3 while the test runs, for numba's own compilations and srcad's generated code
    (`SRCAD_NUMBA_OPT`): for tests that look at what LLVM makes of the code (the suite
    compiles at -O2, see above)."""
    from numba.core import config

    monkeypatch.setenv("SRCAD_NUMBA_OPT", "3")
    before = config.OPT
    config.OPT = config._OptLevel(3)
    yield
    config.OPT = before
