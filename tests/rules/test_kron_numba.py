"""np.kron on the numba backend (srcad/runtime/numba_products.py's moved_kron): of views that
are not contiguous (numba's own kron takes C or F order only: the fuzzer's seed 1 of
`--arrays --shapes linalg,decompositions --backend numba` stopped there), and of operands of
rank 3, against central differences and NumPy's values."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

pytest.importorskip("numba")


def kron_of_views(w, a):
    s = (w * a) @ (w * a).T + 2.0 * np.eye(2)
    return np.sum(np.kron(s[0], s[:, 0])) + np.sum(np.kron(w[:, ::-1], w.T) ** 2)


def kron_of_rank_three(x):
    return np.sum(np.kron(x * 1.0, x[:, ::-1, :1]) ** 2)


@pytest.mark.slow  # numba compiles
def test_kron_of_views_on_numba():
    w = np.array([[0.3, -1.2], [0.8, 0.4]])
    check_grads(kron_of_views, srcad.Duplicated(w.copy(), np.zeros((2, 2))), srcad.Active(0.7),
                backend="numba", rtol=1e-6)


@pytest.mark.slow  # numba compiles
def test_kron_of_rank_three_on_numba_has_numpys_values():
    x = np.random.default_rng(4).normal(size=(2, 3, 2))
    check_grads(kron_of_rank_three, srcad.Duplicated(x.copy(), np.zeros_like(x)),
                backend="numba", rtol=1e-6)
    value, _ = srcad.value_and_gradient(kron_of_rank_three, x.copy(), backend="numba")
    assert value == pytest.approx(kron_of_rank_three(x), rel=1e-14)
