"""Arrays written out and linspace ends that carry a derivative: np.array of nested lists,
nested list literals passed to NumPy, `A @ [a, b]`, np.r_, np.linspace with varied ends;
and what the shape family refuses by name (np.squeeze without an axis, the numba backend),
each against central finite differences or its refusal."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

X = np.array([0.7, 1.3, -0.4])
M = np.array([[1.0, 2.0], [3.0, 4.0]])


def _x():
    return srcad.Duplicated(X.copy(), np.zeros(3))


def matrix_of_rows(x):
    return np.sum(np.array([[x[0], x[1]], [x[1] * x[2], 2.0]]) ** 3 * M)


def rows_of_tuples(x):
    return np.sum(np.array([(x[0], 1.0), (x[2], x[0] * x[1])]) @ M[0])


def nested_list_to_numpy(x):
    return np.mean(np.sin([[x[0], x[1]], [x[2], 0.5]]) * M)


def product_with_a_list(x):
    return np.sum(M @ [x[0], x[1] ** 2]) + np.sum([[x[2], 1.0], [2.0, x[0]]] @ M)


def rows_joined(x):
    return np.sum(np.r_[x, x[0] * 2.0, x * x] ** 2 * np.arange(7.0))


def linspace_between_values(x):
    return np.sum(np.linspace(x[0], x[1] * x[1], 5) ** 2 * np.arange(5.0))


def linspace_keywords(x):
    n = 4
    return np.sum(np.sin(np.linspace(x[0], num=n, stop=x[2], endpoint=False)) * np.arange(4.0))


def linspace_default_count(x):
    return np.sum(np.linspace(0.0, x[1]) ** 3)


FUNCTIONS = [matrix_of_rows, rows_of_tuples, nested_list_to_numpy, product_with_a_list,
             rows_joined, linspace_between_values, linspace_keywords, linspace_default_count]


FAST = (matrix_of_rows, linspace_between_values)


def _params(functions, fast):
    return [pytest.param(*f, marks=[] if f[0] in fast else [pytest.mark.slow], id=f[0].__name__)
            for f in functions]


@pytest.mark.parametrize("f", _params([(f,) for f in FUNCTIONS], FAST))
def test_written_out_arrays_in_every_mode(f):
    check_grads(f, _x())


def test_linspace_gradient_is_the_fractions():
    def f(a, b):
        return np.sum(np.linspace(a, b, 5) * np.arange(5.0))
    t = np.linspace(0.0, 1.0, 5)
    got = srcad.gradient(f, 0.3, srcad.Constant(1.7))
    assert got == pytest.approx(np.sum((1.0 - t) * np.arange(5.0)), rel=1e-14)


def linspace_written(a):
    t = np.linspace(0.0, 1.0, 4)
    t[1] = a
    return np.sum(t * t)


def test_a_linspace_between_numbers_stays_an_array_to_write_into():
    assert srcad.gradient(linspace_written, 0.7) == pytest.approx(1.4, rel=1e-14)


def squeezed(x):
    return np.sum(np.squeeze(x) ** 2)


def test_squeeze_without_an_axis_is_refused_by_line():
    with pytest.raises(srcad.SrcadError, match=r"test_shape_literals.py:\d+.*squeeze") as info:
        srcad.gradient(squeezed, np.ones((1, 3)))
    assert "axis=0" in str(info.value)


def tiled(x):
    return np.sum(np.tile(x, 2) * np.roll(x, 1).sum())


@pytest.mark.slow  # numba compilations: make test-all
def test_the_family_runs_on_numba():
    x = np.array([1.0, 2.0])
    check_grads(tiled, srcad.Duplicated(x, np.zeros(2)), backend="numba")


def test_a_call_with_an_unknown_pad_mode_is_refused_naming_it():
    def f(x):
        return np.sum(np.pad(x, 1, mode="linear_ramp"))
    with pytest.raises(srcad.SrcadError, match="mode='linear_ramp'"):
        srcad.gradient(f, X)


def split_halves(x):
    a, b = np.split(x, 2)
    return np.sum(a * b ** 2)


def split_at_indices(x):
    a, b, c = np.split(x, [1, 3], axis=1)
    return np.sum(a) * np.sum(np.sin(b)) + np.sum(c ** 3)


def array_split_uneven(x):
    a, b, c = np.array_split(x * 2.0, 3, axis=1)
    return np.sum(a * a) + np.sum(b) * np.sum(c ** 2)


def split_rebinding_its_input(x):
    x, y = np.split(x, 2, axis=0)
    return np.sum(x * np.cos(y))


SPLITS = [(split_halves, np.arange(1.0, 9.0) / 4),
          (split_at_indices, np.arange(1.0, 9.0).reshape(2, 4) / 4),
          (array_split_uneven, np.arange(1.0, 15.0).reshape(2, 7) / 4),
          (split_rebinding_its_input, np.arange(1.0, 9.0).reshape(4, 2) / 4)]


@pytest.mark.parametrize("f, value", _params(SPLITS, (split_halves,)))
def test_split_parts_unpacked_in_every_mode(f, value):
    check_grads(f, srcad.Duplicated(value.copy(), np.zeros_like(value)))


def test_an_uneven_split_raises_numpys_error():
    with pytest.raises(ValueError, match="array split does not result in an equal division"):
        srcad.gradient(split_halves, np.ones(3))


IDX = np.array([2, 0, 2])
WEIGHTS = np.arange(1.0, 6.0)


def tile_cubed(x):
    return np.sum(np.tile(x, 2)[:5] ** 3 * WEIGHTS)


def pad_cubed(x):
    return np.sum(np.pad(x, 1, mode="reflect") ** 3 * WEIGHTS)


def take_cubed(x):
    return np.sum(np.take(x, IDX) ** 3 * WEIGHTS[:3])


@pytest.mark.slow
@pytest.mark.parametrize("f, copies", [
    (tile_cubed, lambda x: np.array([0, 1, 2, 0, 1])),
    (pad_cubed, lambda x: np.array([1, 0, 1, 2, 1])),
    (take_cubed, lambda x: IDX)], ids=["tile", "pad-reflect", "take"])
def test_hessian_through_the_family(f, copies):
    # f = sum_j w_j x[c_j]^3: H = diag(sum over j with c_j = i of 6 w_j x_i)
    x = np.array([0.3, 1.2, -0.7])
    c = copies(x)
    w = WEIGHTS[:len(c)]
    expected = np.diag(np.bincount(c, weights=6.0 * w * x[c], minlength=3))
    np.testing.assert_allclose(srcad.hessian(f)(x), expected, rtol=1e-12)
