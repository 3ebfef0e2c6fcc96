"""Reverse mode on numba of reads through index arrays: the adjoint adds once per occurrence of
a repeated index (`scatter_add`, numba's `np.add.at`): the cross-entropy's
`log_probs[np.arange(n), labels]`, a vector's `x[idx]` with a repeated index, a matrix's rows
`W[idx]`, an index array made in f. Checked against central differences (forward against
reverse through the dot-product test); forms numba does not compile stay refused by line."""

import inspect

import numpy as np
import pytest

import srcad
from srcad import Const, Duplicated
from srcad.testing import check_grads

pytest.importorskip("numba")
RNG = np.random.default_rng(5)


def cross_entropy(logits, labels):
    n = logits.shape[0]
    z = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(n), labels])


def repeated_elements(x, idx):
    g = x[idx]
    return np.sum(g * g * np.sin(g))


def gathered_rows(W, idx, v):
    R = W[idx]
    return np.sum(np.tanh(R @ v))


def local_index(x):
    idx = np.array([0, 2, 2])
    return np.sum(np.exp(x[idx]))


def dup(a):
    return Duplicated(a, np.zeros_like(a))


def test_cross_entropy_gradient_on_numba():
    check_grads(cross_entropy, dup(RNG.standard_normal((4, 3))),
                Const(np.array([0, 2, 1, 2])), modes=("rev",), backend="numba")


@pytest.mark.slow
@pytest.mark.parametrize("f, args", [
    (repeated_elements, lambda: (dup(RNG.standard_normal(4)), Const(np.array([3, 0, 3, -1])))),
    (gathered_rows, lambda: (dup(RNG.standard_normal((4, 3))), Const(np.array([1, 1, 3])),
                             Const(RNG.standard_normal(3)))),
    (local_index, lambda: (dup(RNG.standard_normal(4)),)),
], ids=["repeated_elements", "gathered_rows", "local_index"])
def test_gathers_reverse_on_numba(f, args):
    check_grads(f, *args(), modes=("rev",), backend="numba")


def column_gather(W, idx):
    return np.sum(W[:, idx] ** 2)


def test_a_gather_mixed_with_a_slice_stays_refused_on_numba_reverse():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.gradient(column_gather, RNG.standard_normal((3, 3)),
                       srcad.Constant(np.array([0, 2])), backend="numba")
    line = inspect.getsourcelines(column_gather)[1] + 1
    assert f"test_numba_gather_adjoints.py:{line}:" in str(info.value)
    assert "backend='python'" in str(info.value)
