"""What the docs promise is differentiated in every mode on both backends: a helper's tuple
or list default, a view of a view written through, `zs = [np.dot(y, w) for y in ys]`, `sum`
of a module-level float list, an int constant matrix in `W @ x`; a helper taking `*args` is
refused by line with the reason (not a wrong count of its arguments)."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads
from tests.helpers import documented_models as M

PROMISED = [M.with_defaults, M.view_of_a_view, M.dot_comprehension, M.sum_of_a_global_list,
            M.int_matrix_product]


def _x():
    return srcad.Duplicated(np.array([0.3, -0.7, 1.1]), np.zeros(3))


@pytest.mark.parametrize("f", PROMISED, ids=[f.__name__ for f in PROMISED])
def test_promised_constructs_agree_in_every_mode_on_python(f):
    check_grads(f, _x(), modes=("fwd", "rev", "vec"))


@pytest.mark.slow  # numba compilations
@pytest.mark.parametrize("f", PROMISED, ids=[f.__name__ for f in PROMISED])
def test_promised_constructs_agree_in_every_mode_on_numba(f):
    pytest.importorskip("numba")
    check_grads(f, _x(), modes=("fwd", "rev", "vec"), backend="numba")


def test_dot_products_of_a_list_of_arrays_are_a_list_of_numbers():
    x = np.array([0.3, -0.7, 1.1])
    w = np.array([0.5, -1.0, 2.0])
    expected = 2.0 * np.dot(x, w) * w + np.dot(2.0 * x, w) * w + w  # d(z0 z1 + z2)/dx
    np.testing.assert_allclose(srcad.grad(M.dot_comprehension)(x), expected, rtol=1e-12)


def test_a_star_args_helper_is_refused_as_variadic_at_its_line():
    with pytest.raises(srcad.SrcadError) as refusal:
        srcad.grad(M.calls_a_star_args_helper)(np.ones(3))
    text = str(refusal.value)
    assert "variadic" in text and "documented_models.py:" in text
    assert "positional arguments" not in text
