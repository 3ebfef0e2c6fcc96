"""np.broadcast_arrays as users write it (a part read by index, the parts unpacked): each
part is np.broadcast_to of its array to the common shape, whose adjoint sums the broadcast
axes back; every mode against central differences and against the sum written by hand."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

COLUMN = np.array([[0.7], [0.1]])
X = np.array([[0.3, -1.4, 0.7]])
Y = np.array([[0.2], [0.5]])


def first_part(x):
    return np.sum(np.sin(np.broadcast_arrays(x, COLUMN)[0]))


def unpacked(x, y):
    a, b = np.broadcast_arrays(x, y)
    return np.sum(a * np.cos(b))


def of_a_call(x):
    return np.sum(np.broadcast_arrays(np.sin(x), COLUMN)[0])


def test_parts_agree_with_finite_differences():
    check_grads(first_part, srcad.Duplicated(X.copy(), np.zeros_like(X)))
    check_grads(unpacked, srcad.Duplicated(X.copy(), np.zeros_like(X)),
                srcad.Duplicated(Y.copy(), np.zeros_like(Y)))


def test_the_adjoint_sums_the_broadcast_rows_back():
    # x (1, 3) broadcast to (2, 3): each element read twice, d/dx = 2 cos(x)
    np.testing.assert_allclose(srcad.gradient(first_part, X), 2 * np.cos(X), rtol=1e-14)


def test_a_computed_operand_is_refused_at_its_line():
    with pytest.raises(SrcadError, match="broadcast_arrays") as error:
        srcad.gradient(of_a_call, X)
    assert error.value.filename == __file__
