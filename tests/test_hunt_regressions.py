"""Programs an outside user writes that srcad once differentiated silently wrong; each is now
differentiated right (checked against central differences and forward against reverse) or
refused with the file, line and construct."""

import numpy as np
import pytest

import srcad
from srcad import Duplicated
from srcad.testing import check_grads

X = np.array([0.3, 0.7, -1.2])


def dup(x):
    return Duplicated(x.copy(), np.zeros_like(x))


# --- writes into a view made in the target itself -------------------------------------------

def row_slice_writes(x):
    # y[1][:] and y[2][1:] write rows of y (NumPy: a view of row 1, row 2); once the
    # derivative went to y_bar[:] and y_bar[1:], whole rows of y
    y = np.zeros((3, 3))
    y[0][1] = x[0]
    y[1][:] = x
    y[2][1:] = x[:2] * 2.0
    y[2][:2] += x[1:]
    return y[0, 1] * 3.0 + np.sum(y[1] * np.arange(3.0)) + np.sum(y[2] * np.array([1.0, 5.0,
                                                                                   9.0]))


def _row_slice_writes_by_hand(x):
    # 3 x0 + (0 x0 + 1 x1 + 2 x2) + (1 x1 + 5 (2 x0 + x2) + 9 (2 x1))
    return np.array([3.0 + 10.0, 1.0 + 1.0 + 18.0, 2.0 + 5.0])


def row_slice_writes_in_loop(x):
    y = np.zeros((3, 3))
    for i in range(3):
        y[i][:] = x * i
        y[i][i:] += x[i:]
    return np.sum(y * y)


def test_row_slice_writes_compose_into_one_index():
    g = srcad.grad(row_slice_writes)(X.copy())
    np.testing.assert_allclose(g, _row_slice_writes_by_hand(X), rtol=1e-12)
    check_grads(row_slice_writes, dup(X))
    check_grads(row_slice_writes_in_loop, dup(X))


def transposed_write(x):
    y = np.zeros((3, 3))
    y.T[0] = x  # writes column 0 of y
    return np.sum(y[:, 0] * 7.0) + y[0, 1]


def reshaped_write(x):
    y = np.zeros(9)
    y.reshape(3, 3)[0] = x  # writes y[:3]
    return np.sum(y[:3] * np.arange(3.0))


def transposed_argument_write(a):
    a.T[0] = 1.0
    return np.sum(a ** 2)


@pytest.mark.parametrize("f, construct", [(transposed_write, "y.T[0]"),
                                          (reshaped_write, "y.reshape(3, 3)[0]")])
@pytest.mark.parametrize("mode", [srcad.Reverse, srcad.Forward])
def test_write_through_a_view_in_the_target_is_refused(f, construct, mode):
    # once: the reverse derivative went to y[0] (transposed) or nowhere (reshaped); forward
    # mode crashed with an AttributeError
    with pytest.raises(srcad.UnsupportedSyntaxError, match="write through a view") as err:
        srcad.autodiff(mode, f, dup(X))
    assert err.value.filename == __file__ and construct in str(err.value)


def test_write_through_a_transposed_argument_is_refused():
    a = np.arange(9.0).reshape(3, 3)
    with pytest.raises(srcad.UnsupportedSyntaxError, match="a.T"):
        srcad.grad(transposed_argument_write)(a)
