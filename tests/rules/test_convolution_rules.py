"""np.convolve, np.correlate, scipy.signal.convolve and scipy.signal.correlate, generated from
the family's entries: each function x mode ('full', 'valid', 'same') x operand shapes (the
first longer, shorter, as long; odd and even lengths, where the 'same' window's centre
differs) x {reverse, forward, vector}, both operands carrying derivatives, against central
finite differences. The whole matrix runs in `make test-all`; one case per function stays in
`make test`."""

import itertools
import linecache

import numpy as np
import pytest
import scipy.signal

import srcad
from srcad.rules import convolution
from srcad.testing import check_grads
from tests.helpers.library_rule_cases import NUMBA_RULE_MODES

_count = itertools.count()
VECTORS = [((4,), (2,)), ((5,), (3,)), ((2,), (5,)), ((3,), (4,)), ((4,), (4,))]
ARRAYS = VECTORS[:3] + [((4, 3), (2, 2)), ((5, 4), (3, 2)), ((6, 7), (4, 1)), ((2, 3), (4, 5)),
                        ((3, 2, 2), (2, 2, 3))]
FUNCTIONS = {np.convolve: "np.convolve", np.correlate: "np.correlate",
             scipy.signal.convolve: "scipy.signal.convolve",
             scipy.signal.correlate: "scipy.signal.correlate"}


def _cases():
    entries = convolution.ENTRIES + convolution.scipy_entries(scipy.signal)
    out = []
    for fn, _, _ in entries:
        shapes = VECTORS if FUNCTIONS[fn].startswith("np.") else ARRAYS
        for (a, b), mode in itertools.product(shapes, ("full", "valid", "same")):
            try:
                fn(np.ones(a), np.ones(b), mode=mode)
            except ValueError:  # scipy's 'valid' needs one operand as large in every axis
                continue
            out.append((f"{FUNCTIONS[fn]}-{mode}-{a}-{b}", FUNCTIONS[fn], mode, a, b))
    return out


CASES = _cases()
SMOKE = {f"{name}-same-(5,)-(3,)" for name in FUNCTIONS.values()}
SMOKE |= {"scipy.signal.convolve-valid-(5, 4)-(3, 2)", "np.correlate-same-(2,)-(5,)"}


def _probe(call, out_shape, rng):
    """`def probe(x, y): return np.sum(<call> * W)` with source srcad reads."""
    filename = f"<convolution case {next(_count)}>"
    text = f"def probe(x, y):\n    return np.sum({call} * W)\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np, "scipy": scipy, "W": rng.normal(size=out_shape)}
    exec(compile(text, filename, "exec"), namespace)
    return namespace["probe"]


@pytest.mark.parametrize("case", [pytest.param(c, marks=() if c[0] in SMOKE
                                               else pytest.mark.slow) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_convolution_agrees_with_finite_differences_in_every_mode(case):
    _, name, mode, a, b = case
    rng = np.random.default_rng(len(a) + 7 * a[0] + 3 * b[0])
    x, y = rng.normal(size=a), rng.normal(size=b)
    out_shape = eval(name)(x, y, mode=mode).shape  # noqa: S307 - the dotted name above
    f = _probe(f"{name}(x, y, mode={mode!r})", out_shape, rng)
    check_grads(f, srcad.Duplicated(x, np.zeros_like(x)), srcad.Duplicated(y, np.zeros_like(y)))


def test_every_entry_has_cases_in_every_mode():
    assert {(c[1], c[2]) for c in CASES} == set(itertools.product(FUNCTIONS.values(),
                                                                  ("full", "valid", "same")))


def correlate_default_mode(x, y):
    return np.correlate(x, y) @ np.array([1.0, 2.0, 3.0])  # mode='valid': 3 values


def convolve_mode_by_position(x, y):
    return np.sum(scipy.signal.convolve(x, y, "same", method="direct") ** 2)


X, Y = np.array([1.0, 2.0, -1.0, 0.5]), np.array([0.3, -2.0])


def test_correlate_default_mode_is_valid():
    # d/dx_m sum_k w_k sum_n x_(n+k) y_n = sum_k w_k y_(m-k)
    expected = np.array([0.3, -2.0 + 2 * 0.3, 2 * -2.0 + 3 * 0.3, 3 * -2.0])
    np.testing.assert_allclose(srcad.gradient(correlate_default_mode, X, srcad.Constant(Y)),
                               expected, rtol=1e-14)


def test_mode_by_position_and_method_keyword():
    check_grads(convolve_mode_by_position, srcad.Duplicated(X.copy(), np.zeros(4)),
                srcad.Duplicated(Y.copy(), np.zeros(2)))


def mode_not_literal(x, y, mode):
    return np.sum(np.convolve(x, y, mode))


def test_refusals_name_the_call():
    with pytest.raises(srcad.SrcadError, match="mode"):
        srcad.gradient(mode_not_literal, X, srcad.Constant(Y), srcad.Constant("same"))


# -- the numba backend (srcad/runtime/numba_convolution.py) ----------------------------------
# one case per function and mode, and 'same' of an even length (its window's centre); each
# compiles numba code: make test-all
NUMBA_CASES = [c for c in CASES if c[3:] in (((5,), (3,)), ((5, 4), (3, 2)))
               or c[0] == "np.correlate-same-(2,)-(5,)"]


@pytest.mark.slow
@pytest.mark.parametrize("case", NUMBA_CASES, ids=[c[0] for c in NUMBA_CASES])
def test_convolution_on_numba_agrees_with_finite_differences_and_the_library(case):
    _, name, mode, a, b = case
    rng = np.random.default_rng(len(a) + 7 * a[0] + 3 * b[0])
    x, y = rng.normal(size=a), rng.normal(size=b)
    out_shape = eval(name)(x, y, mode=mode).shape  # noqa: S307 - the dotted name above
    f = _probe(f"{name}(1.0 * x, y, mode={mode!r})", out_shape, rng)  # computed: compiled
    check_grads(f, srcad.Duplicated(x.copy(), np.zeros_like(x)),
                srcad.Duplicated(y.copy(), np.zeros_like(y)), backend="numba",
                modes=NUMBA_RULE_MODES)
    value, _ = srcad.value_and_gradient(f, x.copy(), srcad.Constant(y), backend="numba")
    assert value == pytest.approx(f(x, y), rel=1e-13)


def test_every_function_and_mode_has_a_numba_case():
    assert {(c[1], c[2]) for c in NUMBA_CASES} == {(c[1], c[2]) for c in CASES}


@pytest.mark.slow
def test_correlate_default_mode_on_numba():
    expected = np.array([0.3, -2.0 + 2 * 0.3, 2 * -2.0 + 3 * 0.3, 3 * -2.0])
    np.testing.assert_allclose(srcad.gradient(correlate_default_mode, X, srcad.Constant(Y),
                                              backend="numba"), expected, rtol=1e-14)
