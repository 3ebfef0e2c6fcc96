"""A prepared in-place jacobian in reverse mode on the python backend swept one row at a
time (`chunk=1`; by default W rows a sweep, whose adjoints are W times wider) allocates
no tape per call: its tapes are arrays the preparation keeps (transform/tapes.py,
PythonArrayTapes), so a call's peak of traced memory stays below one row of the jacobian (a
tape list of the 100x100 scratch-cache jacobian held ~7 KB of floats per row pass)."""

import tracemalloc

import numpy as np
import pytest
from helpers.seed_problems import seed002 as scratch_cache_f
from helpers.seed_problems import seed002_value_and_jacobian

import srcad
from srcad import Cache, Output


def reference(x):
    """dy/dx of the scratch-cache function, derived by hand (tests/helpers/seed_problems.py)."""
    return seed002_value_and_jacobian(x)[1]


def peak_of(call) -> int:
    """The least, over three calls, of what one call's peak adds to the memory traced before it.
    tracemalloc traces every thread: a background thread of another library (JAX's collector,
    a progress monitor) may allocate during one call, hardly during all three."""
    call()
    tracemalloc.start()
    try:
        call()
        peaks = []
        for _ in range(3):
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            call()
            peaks.append(tracemalloc.get_traced_memory()[1] - before)
        return min(peaks)
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_reverse_jacobian_peak_is_below_one_row():
    # a row of 300 floats (2400 bytes): a copy of one per row shows, a few small objects
    # per call (the progress counter) do not
    n = 300
    x = np.random.default_rng(2).random(n)
    y, c, J = np.zeros(n), np.zeros(n), np.zeros((n, n))
    args = (Output(y), x, Cache(c))
    prep = srcad.prepare_jacobian(scratch_cache_f, *args, mode="reverse", chunk=1)
    assert prep.engine.compiled.tapes  # the tape is an array the preparation keeps
    # one call first: what a process builds once (a rule family loaded the first time its
    # library is seen imported) is not what each prepared call allocates
    srcad.jacobian(scratch_cache_f, *args, prep=prep, out=J)
    peak = peak_of(lambda: srcad.jacobian(scratch_cache_f, *args, prep=prep, out=J))
    np.testing.assert_allclose(J, reference(x), rtol=1e-12, atol=1e-12)
    assert peak < J[0].nbytes, peak


def test_array_tapes_grow_and_are_kept():
    """A longer input than the preparation's first tape: the tape grows once, then is kept."""
    n = 300
    x = np.random.default_rng(3).random(n)
    y, c, J = np.zeros(n), np.zeros(n), np.zeros((n, n))
    prep = srcad.prepare_jacobian(scratch_cache_f, Output(y), x, Cache(c), mode="reverse",
                                  chunk=1)
    srcad.jacobian(scratch_cache_f, Output(y), x, Cache(c), prep=prep, out=J)
    np.testing.assert_allclose(J, reference(x), rtol=1e-12, atol=1e-12)
    tape = prep.engine.flat[-1]
    # two floats a step of the middle loop: exp(c[i]) and c[i - 1] (c[i] itself, exp's operand,
    # is not taped: the reverse reads the taped exp)
    assert tape.shape[0] >= 2 * (n - 2)
    srcad.jacobian(scratch_cache_f, Output(y), x, Cache(c), prep=prep, out=J)
    assert prep.engine.flat[-1] is tape
