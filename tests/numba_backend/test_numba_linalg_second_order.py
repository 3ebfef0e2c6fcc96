"""Second order on the numba backend through the products it now compiles (np.tensordot,
np.kron, np.linalg.multi_dot: srcad/runtime/numba_products.py,
srcad/transform/numba_linalg_calls.py): the Hessian is the python backend's, which
tests/operators/test_second_order_contractions.py checks against JAX."""

import numpy as np
import pytest

import srcad

pytest.importorskip("numba")


def tensordot_loss(x):
    A = np.outer(x, x) + 2.0 * np.eye(3)
    z = np.tensordot(A, np.sin(x), axes=1)
    return np.sum(z * z)


def kron_loss(x):
    return np.sum(np.sin(np.kron(x, x * x)))


def multi_dot_loss(x):
    A = np.outer(x, x) + 2.0 * np.eye(3)
    return np.sum(np.sin(np.linalg.multi_dot([A, A, x])))


@pytest.mark.slow  # numba compiles reverse over forward code
@pytest.mark.parametrize("f", [tensordot_loss, kron_loss, multi_dot_loss],
                         ids=lambda f: f.__name__)
def test_numba_hessian_through_products_is_the_python_backends(f):
    x = np.array([0.7, -0.4, 1.1])
    np.testing.assert_allclose(srcad.hessian(f, x, backend="numba"), srcad.hessian(f, x),
                               rtol=1e-10, atol=1e-12)
