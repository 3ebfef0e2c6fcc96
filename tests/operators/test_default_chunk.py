"""The default lanes of a forward-mode jacobian (preparation.default_width): on the python
backend one call of all n lanes stacked, at every n (measured: one stacked call costs about
the raw BatchDuplicated call, chunks of 16 unrolled lanes 6-60x it, and with the jacobian's
one-call entry unrolled lanes ran 1.4-3.2x the stacked call at n = 2 to 16), a fallback to
16 unrolled lanes for whole-array code stacked lanes cannot run; numba in equal chunks of at
most 256. Expected jacobians derived by hand."""

import numpy as np
import pytest

import srcad


def squares(x):
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = x[i] * x[i]
    return y


def whole_array_squares(x):
    y = x * x
    return y


@pytest.mark.parametrize("n, width, stacked", [(1, 1, True), (8, 8, True), (16, 16, True),
                                               (100, 100, True), (1500, 750, True)])
def test_python_default_width(n, width, stacked):
    x = np.linspace(0.5, 2.0, n)
    prep = srcad.prepare_jacobian(squares, x)
    assert (prep.chunk, prep.engine.stacked) == (width, stacked)
    if n <= 100:
        np.testing.assert_allclose(srcad.jacobian(squares, x, prep=prep), np.diag(2.0 * x))


def test_whole_array_code_falls_back_to_unrolled_lanes():
    x = np.linspace(0.5, 2.0, 40)
    prep = srcad.prepare_jacobian(whole_array_squares, x)
    assert (prep.chunk, prep.engine.stacked) == (16, False)
    np.testing.assert_allclose(srcad.jacobian(whole_array_squares, x, prep=prep),
                               np.diag(2.0 * x))


def test_a_forced_chunk_is_kept():
    x = np.linspace(0.5, 2.0, 40)
    prep = srcad.prepare_jacobian(squares, x, chunk=16)
    assert (prep.chunk, prep.engine.stacked) == (16, False)
    np.testing.assert_allclose(srcad.jacobian(squares, x, prep=prep), np.diag(2.0 * x))


def test_forward_gradient_default_width():
    def f(x):
        s = 0.0
        for i in range(len(x)):
            s += x[i] * x[i]
        return s
    x = np.linspace(0.5, 2.0, 50)
    prep = srcad.prepare_gradient(f, x, mode="forward")
    assert prep.chunk == 50
    np.testing.assert_allclose(srcad.gradient(f, x, prep=prep), 2.0 * x)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_numba_equal_chunks():
    pytest.importorskip("numba")
    x = np.linspace(0.5, 2.0, 300)
    prep = srcad.prepare_jacobian(squares, x, backend="numba")
    assert prep.chunk == 150  # two equal calls rather than 256 + 44
    np.testing.assert_allclose(srcad.jacobian(squares, x, prep=prep), np.diag(2.0 * x))


def doubles_then_squares(x):
    y = np.zeros(len(x))
    for i in range(len(x)):
        x[i] = 2.0 * x[i]
    for i in range(len(x)):
        y[i] = x[i] * x[i]
    return y


def test_stacked_seeds_stay_right_across_calls():
    """One chunk of all lanes keeps its unit-vector seed between calls, except when f writes x
    (its tangent lanes are written too): then every call seeds again."""
    for f, slope in ((squares, 2.0), (doubles_then_squares, 8.0)):
        x = np.linspace(0.5, 2.0, 20)
        prep = srcad.prepare_jacobian(f, x)
        assert prep.engine.stacked
        for scale in (1.0, 3.0):
            np.testing.assert_allclose(srcad.jacobian(f, scale * x, prep=prep),
                                       np.diag(slope * scale * x))
