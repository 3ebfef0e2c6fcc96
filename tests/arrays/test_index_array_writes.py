"""Writes through an index array, `y[idx] = v` and `y[idx] op= v`, follow NumPy: the right
side whole first, then the writes in order, so a repeated index takes the last value and
`y[idx] += v` does not accumulate (np.add.at does). Checked against central differences
of the plain NumPy function (which runs NumPy's own semantics) in every mode, hvp against
differences of gradients, and on numba (one smoke test unmarked); a 2-D mask or two index
arrays stay refused by line (rows, `Y[idx, j]` and masks: test_index_mask_writes.py)."""

import numpy as np
import pytest

import srcad
from srcad import Const, Duplicated
from srcad.errors import SrcadError
from srcad.testing import check_grads

RNG = np.random.default_rng(231)
MODES = ("rev", "fwd", "vec")
REPEATED = np.array([0, 2, 2, 4])


def added_through_argument(x, idx):
    y = np.sin(x)
    y[idx] += x[:4] * 2.0
    return np.sum(y * y)


def set_through_local(x):
    y = np.cos(x)
    j = np.array([1, 3, 3, -1])
    y[j] = x[2:] ** 2
    return np.sum(y * x)


def scalar_through_global(x):
    y = x * 1.0
    y[REPEATED] = x[0] * 3.0
    return np.sum(y ** 3)


def updates_in_a_loop(x, idx):
    y = np.zeros(6)
    for i in range(6):
        y[i] = x[i] + 1.0
    for t in range(2):
        y[idx] *= x[t]
        y[idx] -= 0.5
    return np.sum(y * y)


def from_its_own_view(x, idx):
    y = x.copy()
    y[idx] = y[1:5]
    return np.sum(y ** 2 * x)


def dup(a):
    return Duplicated(a, np.zeros_like(a))


CASES = {
    "added_through_argument": (added_through_argument,
                               lambda: (dup(RNG.standard_normal(6)), Const(REPEATED))),
    "set_through_local": (set_through_local, lambda: (dup(RNG.standard_normal(6)),)),
    "scalar_through_global": (scalar_through_global, lambda: (dup(RNG.standard_normal(6)),)),
    "updates_in_a_loop": (updates_in_a_loop,
                          lambda: (dup(RNG.standard_normal(6)), Const(REPEATED))),
    "from_its_own_view": (from_its_own_view,
                          lambda: (dup(RNG.standard_normal(6)), Const(REPEATED))),
}


def test_repeated_indices_take_the_last_value_as_numpy_does():
    x = np.arange(1.0, 7.0)
    value = srcad.value_and_grad(added_through_argument)(x, REPEATED)[0]
    y = np.sin(x)
    y[0] += 2.0 * x[0]
    y[2] = np.sin(x[2]) + 2.0 * x[2]  # the last write of index 2: x[2], not x[1] + x[2]
    y[4] += 2.0 * x[3]
    assert value == pytest.approx(np.sum(y * y))
    g = srcad.grad(added_through_argument)(x, REPEATED)
    assert g[1] == pytest.approx(2 * np.sin(x[1]) * np.cos(x[1]))  # x[1]'s write is lost


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_index_array_writes_match_central_differences(case, mode):
    f, args = CASES[case]
    check_grads(f, *args(), modes=(mode,))


@pytest.mark.parametrize("case", ["added_through_argument", "updates_in_a_loop"])
def test_index_array_writes_hvp_is_the_difference_of_gradients(case):
    f, _ = CASES[case]
    x, v, eps = 0.5 * RNG.standard_normal(6), RNG.standard_normal(6), 1e-5

    def grad(point):
        return srcad.gradient(f, point, srcad.Constant(REPEATED))
    differences = (grad(x + eps * v) - grad(x - eps * v)) / (2 * eps)
    hv = srcad.hvp(f, x, srcad.Constant(REPEATED), tangent=v)
    np.testing.assert_allclose(hv, differences, rtol=1e-5, atol=1e-7)


def test_index_array_writes_compile_on_numba():
    f, args = CASES["added_through_argument"]
    check_grads(f, *args(), modes=("rev",), backend="numba")


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_index_array_writes_on_numba(case, mode):
    f, args = CASES[case]
    check_grads(f, *args(), modes=(mode,), backend="numba")


def too_few_values(x, idx):
    y = x * 1.0
    y[idx] = x[:3]
    return np.sum(y)


def test_a_right_side_of_another_length_raises_as_numpy_does():
    x = np.arange(1.0, 7.0)
    with pytest.raises(ValueError):
        too_few_values(x, REPEATED)
    with pytest.raises(ValueError):
        srcad.grad(too_few_values)(x, REPEATED)


def through_a_matrix_mask(x):
    y = np.outer(x, x)
    y[y > 1.0] = 0.0
    return np.sum(y)


def through_two_index_arrays(x, idx):
    y = np.outer(x, x)
    y[idx, idx] = 0.0
    return np.sum(y)


@pytest.mark.parametrize("f, args", [(through_a_matrix_mask, ()),
                                     (through_two_index_arrays, (REPEATED,))])
def test_other_index_array_writes_stay_refused_by_line(f, args):
    with pytest.raises(SrcadError, match="index array") as info:
        srcad.grad(f)(np.arange(1.0, 7.0), *args)
    assert "] = 0.0" in open(__file__).read().splitlines()[info.value.line - 1]
