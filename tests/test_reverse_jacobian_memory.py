"""A prepared in-place jacobian in reverse mode on the python backend allocates no tape per
call: its tapes are arrays the preparation keeps (transform/tapes.py, PythonArrayTapes), so a
call's peak of traced memory stays below one row of the jacobian (a tape list of the 100x100
scratch-cache jacobian held ~7 KB of floats per row pass)."""

import math
import tracemalloc

import numpy as np

import srcad
from srcad import Cache, Output


def scratch_cache_f(y, x, c):
    for i in range(len(x)):
        c[i] = x[i]
    c[0] = 0.0
    c[len(c) - 1] = 0.0
    for i in range(1, len(c) - 1):
        c[i] = math.exp(c[i]) - math.cos(c[i - 1])
    for i in range(len(y)):
        y[i] = 2.0 * c[i] + 1.0


def reference(x):
    """dy/dx by hand: c_i = exp(c_i0) - cos(c_(i-1)) in order, y = 2 c + 1."""
    n = len(x)
    c, dc = x.copy(), np.eye(n)
    c[0] = c[-1] = 0.0
    dc[0] = dc[-1] = 0.0
    for i in range(1, n - 1):
        new = math.exp(c[i]) - math.cos(c[i - 1])
        dc[i] = math.exp(c[i]) * dc[i] + math.sin(c[i - 1]) * dc[i - 1]
        c[i] = new
    return 2.0 * dc


def peak_of(call) -> int:
    call()
    call()
    tracemalloc.start()
    try:
        call()
        tracemalloc.reset_peak()
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_reverse_jacobian_peak_is_below_one_row():
    n = 100
    x = np.random.default_rng(2).random(n)
    y, c, J = np.zeros(n), np.zeros(n), np.zeros((n, n))
    args = (Output(y), x, Cache(c))
    prep = srcad.prepare_jacobian(scratch_cache_f, *args, mode="reverse")
    assert prep.engine.compiled.tapes  # the tape is an array the preparation keeps
    peak = peak_of(lambda: srcad.jacobian(scratch_cache_f, *args, prep=prep, out=J))
    np.testing.assert_allclose(J, reference(x), rtol=1e-12, atol=1e-12)
    assert peak < J[0].nbytes, peak


def test_array_tapes_grow_and_are_kept():
    """A longer input than the preparation's first tape: the tape grows once, then is kept."""
    n = 300
    x = np.random.default_rng(3).random(n)
    y, c, J = np.zeros(n), np.zeros(n), np.zeros((n, n))
    prep = srcad.prepare_jacobian(scratch_cache_f, Output(y), x, Cache(c), mode="reverse")
    srcad.jacobian(scratch_cache_f, Output(y), x, Cache(c), prep=prep, out=J)
    np.testing.assert_allclose(J, reference(x), rtol=1e-12, atol=1e-12)
    tape = prep.engine.flat[-1]
    assert tape.shape[0] >= 3 * (n - 2)
    srcad.jacobian(scratch_cache_f, Output(y), x, Cache(c), prep=prep, out=J)
    assert prep.engine.flat[-1] is tape
