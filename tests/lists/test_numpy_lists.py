"""np.sum, np.max, np.min and np.array of list literals, of lists of known length and of
lists grown by append (srcad/transform/normalize/lists.py)."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads
from tests.helpers import numpy_list_models as m


def test_reductions_of_lists():
    # 1 + a^2 + 2 + max(a, 0.5) * min(a, 3): d/da = 2a + 2a at a = 1.5 (both pick a)
    assert srcad.autodiff(srcad.Reverse, m.literal_sum, srcad.Active(1.5)) == \
        (pytest.approx(6.0),)
    # (3a + 1) * 2a + 1 (a = 1.5: max 2a, min 1): d/da = 12a + 2
    assert srcad.autodiff(srcad.Reverse, m.fixed_list, srcad.Active(1.5)) == \
        (pytest.approx(20.0),)
    for f in (m.literal_sum, m.fixed_list):
        check_grads(f, srcad.Active(1.5))


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_appended_list(backend):
    # 6a + a * a + 3a: d/da = 9 + 2a
    assert srcad.autodiff(srcad.Reverse, m.appended, srcad.Active(1.5), 4,
                          backend=backend) == (pytest.approx(12.0), None)
    if backend == "python":
        check_grads(m.appended, srcad.Active(1.5), 4)


def test_array_of_a_fixed_list():
    # sum([a, 2a, 1] * a) = 3a^2 + a: d/da = 6a + 1
    assert srcad.autodiff(srcad.Reverse, m.fixed_list_as_array,
                          srcad.Active(1.5)) == (pytest.approx(10.0),)
    check_grads(m.fixed_list_as_array, srcad.Active(1.5))


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_list_comprehension_over_any_range_or_array(backend):
    x = np.array([0.3, -0.7, 1.1])
    if backend == "python":  # numba: the reverse gradient below (compiling is the cost)
        check_grads(m.comprehension_lists, srcad.Duplicated(x, np.zeros(3)), srcad.Active(0.7))
    # by hand: a sum(x) + a x2 x0^2 + max(x^2) + sum(x^2), max at x2
    grad = srcad.gradient(m.comprehension_lists, x, srcad.Constant(0.7), backend=backend)
    expected = 0.7 + 2 * x
    expected[0] += 0.7 * x[2] * 2 * x[0]
    expected[2] += 0.7 * x[0] ** 2 + 2 * x[2]
    np.testing.assert_allclose(grad, expected)


def test_arrays_appended_to_a_grown_list_are_its_rows():
    # by hand: f = sum((2 a x) * (a x)) = 2 a^2 sum(x^2), df/dx = 4 a^2 x
    x = np.array([0.3, -1.2])
    grad = srcad.gradient(m.arrays_appended, x, srcad.Constant(0.5))
    np.testing.assert_allclose(grad, 4 * 0.25 * x)


def test_appends_in_straight_line_code_extend_a_literal_list():
    x = np.array([0.3, -0.7])
    check_grads(m.literal_then_appends, srcad.Duplicated(x, np.zeros(2)), srcad.Active(0.7))
    # by hand: q = 1 + a^4 + (x0 a)^2; f = q + (1 + a^2 + x0 a + q) + 4 q + 3 + a^2
    a, x0 = 0.7, x[0]
    _, d_a = srcad.autodiff(srcad.Reverse, m.literal_then_appends, x, srcad.Active(a))
    d_q = 4 * a ** 3 + 2 * x0 ** 2 * a
    assert d_a == pytest.approx(d_q + 2 * a + x0 + d_q + 4 * d_q + 2 * a)
    # appended through one name, read through another: the same list (ys[1] = 2 a)
    assert srcad.autodiff(srcad.Reverse, m.appended_through_alias,
                          srcad.Active(1.0)) == (pytest.approx(2.0),)
    # another name bound in one branch only: refused with its line, never rewritten
    with pytest.raises(srcad.UnsupportedSyntaxError, match=r"numpy_list_models.py:\d+:\d+: "):
        srcad.autodiff(srcad.Reverse, m.aliased_in_one_branch, srcad.Active(1.0))
