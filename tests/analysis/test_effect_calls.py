"""Calls made for their effect (a call alone on its line: `np.add.at(a, idx, v)`,
`np.copyto(z, x)`, `z.fill(c)`, `print(x)`). srcad cannot see what an unknown call writes
into what it receives, so one that receives a value carrying a derivative is refused, never
run as if it changed nothing (which gave zero gradients); on constants it runs as it is.
`np.add.at` has a rule: forward and vector mode differentiate it, and so forward over reverse
differentiates the `np.add.at` srcad's reverse code uses for gathers (the Hessian of a gather
came out zero)."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

IDX = np.array([0, 2, 2, 1, 2])
X = np.array([0.7, -1.2, 0.4])


def scatter_add(x):
    z = np.zeros(3)
    np.add.at(z, IDX[:3], x * x)
    return np.sum(z * np.sin(z))


def scatter_add_into_active(x):
    z = 2.0 * x
    np.add.at(z, IDX, np.cos(x[IDX]))
    return np.sum(z ** 3)


def cube_of_gather(x):
    y = x[IDX]
    return np.sum(y * y * y)


def copy_into(x):
    z = np.zeros(3)
    np.copyto(z, x)
    return np.sum(z * z)


def fill_active(x):
    z = x * 2.0
    z.fill(1.0)
    return np.sum(z * x)


def sort_in_place(x):
    y = x * 1.0
    y.sort()
    return y[0]


def copy_constants(x, data):
    z = np.zeros(3)
    np.copyto(z, data)
    return np.sum(z * x)


def prints(x):
    s = np.sum(x * x)
    print("value", s)
    return s


def counts(idx, n):
    return np.bincount(idx, minlength=n).astype(float)


@pytest.mark.parametrize("f", [scatter_add, scatter_add_into_active])
def test_add_at_in_forward_and_vector_mode_agrees_with_central_differences(f):
    check_grads(f, srcad.Duplicated(X.copy(), np.zeros(3)), modes=("fwd", "vec"))


def test_add_at_forward_gradient_by_hand():
    # z = sum over idx[:3] = [0, 2, 2] of x_k^2 at z[idx]: z = [x0^2, 0, x1^2 + x2^2]
    # f = sum z sin z; df/dz = sin z + z cos z; dz0/dx0 = 2 x0, dz2/dx1 = 2 x1, dz2/dx2 = 2 x2
    x = X
    z = np.array([x[0] ** 2, 0.0, x[1] ** 2 + x[2] ** 2])
    g = np.sin(z) + z * np.cos(z)
    expected = np.array([g[0] * 2 * x[0], g[2] * 2 * x[1], g[2] * 2 * x[2]])
    got = srcad.gradient(scatter_add, X.copy(), mode="forward")
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def test_add_at_in_reverse_mode_is_refused_with_the_line():
    with pytest.raises(SrcadError) as err:
        srcad.gradient(scatter_add, X.copy())
    text = str(err.value)
    assert "test_effect_calls.py:22" in text and "forward mode only" in text


def test_hessian_of_a_gather_forward_over_reverse_by_hand():
    # f = sum_k x[idx_k]^3 = sum_i c_i x_i^3 with c the index counts: H = diag(6 c x)
    expected = np.diag(6.0 * counts(IDX, 3) * X)
    np.testing.assert_allclose(srcad.hessian(cube_of_gather, X.copy()), expected, rtol=1e-13)
    v = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(srcad.hvp(cube_of_gather, X.copy(), tangent=v), expected @ v,
                               rtol=1e-13)
    np.testing.assert_allclose(
        srcad.hessian(cube_of_gather, X.copy(), mode="reverse-over-forward"), expected,
        rtol=1e-13)


@pytest.mark.parametrize("f, line, name, receives", [
    (copy_into, 39, "np.copyto(z, x)", "x"),
    (fill_active, 45, "z.fill(1.0)", "z"),
    (sort_in_place, 51, "y.sort()", "y"),
])
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_a_call_for_its_effect_on_a_value_with_a_derivative_is_refused(f, line, name,
                                                                        receives, mode):
    with pytest.raises(SrcadError) as err:
        srcad.gradient(f, X.copy(), mode=mode)
    text = str(err.value)
    assert f"test_effect_calls.py:{line}" in text
    assert f"`{name}` is called for its effect and receives `{receives}`" in text
    assert "srcad cannot see what the call writes" in text


def test_a_call_for_its_effect_on_constants_runs_as_it_is():
    data = np.array([3.0, -1.0, 2.0])
    check_grads(copy_constants, srcad.Duplicated(X.copy(), np.zeros(3)), data)
    np.testing.assert_allclose(srcad.gradient(copy_constants, X.copy(), srcad.Constant(data)),
                               data, rtol=0, atol=0)


def test_print_of_a_value_with_a_derivative_is_kept(capsys):
    g = srcad.gradient(prints, X.copy())
    np.testing.assert_allclose(g, 2.0 * X, rtol=1e-15)
    assert "value" in capsys.readouterr().out
