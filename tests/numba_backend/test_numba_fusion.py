"""Reductions of elementwise chains fused into one loop nest on the numba backend
(srcad/transform/numba_fusion.py writes the calls, srcad/runtime/numba_fusion.py compiles
them): the generated code has no reduction of an elementwise operation left; each fused form's
derivatives in reverse, forward and vector mode against central differences and against the
python backend's (unfused, vectorized NumPy) result; the kernels against NumPy, broadcasting
rows and columns, NaN, infinities, a division by zero, and the types they leave unfused.
"""

import ast

import gast
import numpy as np
import pytest

import srcad
from srcad import Duplicated
from srcad.gradbench.ports import gmm
from srcad.testing import check_grads
from srcad.transform.numba_fusion import _elementwise, _reduction

numba = pytest.importorskip("numba")

RNG = np.random.default_rng(30)


def dup(x):
    return Duplicated(x, np.zeros_like(x))


def log_sum_exp_of_columns(A, m):
    return np.sum(np.exp(A - m[:, None]))


def logistic_mean(w, X, y):
    z = X @ w
    return np.mean(np.log(1.0 + np.exp(-y * z)))


def row_softmax_loss(S, labels):
    shifted = S - np.max(S, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(log_probs * labels, axis=1))


def broadcast_product_sum(L, X):
    lx = np.sum(L[None, :, :, :] * X[:, :, None, :], axis=3)
    return np.sum(np.tanh(lx) * lx) + np.max(X / (2.0 + np.sin(X)))


def mean_of_rows_and_columns(A, r, c, a):
    q = np.mean(np.sqrt(0.5 + (A * r[None, :]) ** 2), axis=0, keepdims=True)
    return np.sum(q * r) + np.min(c[:, None] * A - a, axis=1).sum() + np.sum(-(A / c[:, None]))


def tanh_layer_loss(W, b, X, c):
    hidden = np.tanh(X @ W + b)
    return np.sum(hidden * hidden * c[:, None]) + np.sum(np.exp(-hidden) * (1.0 - hidden))


def short_rows_of_a_tensor(A, w):
    # (n, k, d) arrays with rows of d = 3: arithmetic maps as one plain nest, additions into
    # the adjoints of the views A[:, None, :] and w[None, :, :]
    X = A[:, None, :] - w[None, :, :]
    Y = X * X * w[None, :, :] + X
    return np.sum(np.exp(-Y * Y)) + np.sum(Y[:, :, 0] * X[:, :, 1])


def _gmm_args():
    p = gmm.Problem(gmm.generate(3, 4, 6))
    return tuple(dup(a.copy()) for a in p.independent) + p.vectorized_constants()


PROGRAMS = [
    (log_sum_exp_of_columns, lambda: (dup(RNG.standard_normal((4, 3))),
                                      dup(RNG.standard_normal(4)))),
    (logistic_mean, lambda: (dup(RNG.standard_normal(4)), RNG.standard_normal((20, 4)),
                             np.sign(RNG.standard_normal(20)))),
    (row_softmax_loss, lambda: (dup(RNG.standard_normal((5, 3))), np.eye(3)[[0, 2, 1, 1, 0]])),
    (broadcast_product_sum, lambda: (dup(RNG.standard_normal((2, 3, 3))),
                                     dup(RNG.standard_normal((4, 2, 3))))),
    (mean_of_rows_and_columns, lambda: (dup(RNG.standard_normal((3, 4))),
                                        dup(RNG.standard_normal(4)),
                                        dup(1.5 + RNG.random(3)), srcad.Active(0.3))),
    (gmm.gmm_vectorized, _gmm_args),
    # large enough for each product and its adjoints to run as BLAS matrix products
    # (srcad/runtime/numba_contraction.py)
    (broadcast_product_sum, lambda: (dup(RNG.standard_normal((3, 12, 12))),
                                     dup(RNG.standard_normal((40, 3, 12))))),
    (short_rows_of_a_tensor, lambda: (dup(RNG.standard_normal((6, 3))),
                                      dup(RNG.standard_normal((4, 3))))),
    # large enough for W's adjoint to get X.T @ d added by one BLAS call into the adjoint
    # (srcad/runtime/numba_semantics.py's matmul_added_into)
    (tanh_layer_loss, lambda: (dup(RNG.standard_normal((24, 16))),
                               dup(RNG.standard_normal(16)), RNG.standard_normal((40, 24)),
                               dup(RNG.standard_normal(40)))),
    # last: read as PROGRAMS[-1] below
    (tanh_layer_loss, lambda: (dup(RNG.standard_normal((4, 3))), dup(RNG.standard_normal(3)),
                               RNG.standard_normal((6, 4)), dup(RNG.standard_normal(6)))),
]


def _unfused_reductions(source):
    """The reductions in `source` whose operand is still an elementwise operation."""
    return [gast.dump(n) for n in gast.walk(gast.parse(source)) if isinstance(n, gast.Call)
            and _reduction(n)[0] is not None and _elementwise(_reduction(n)[1])]


# gmm's transformation takes seconds: slow
@pytest.mark.parametrize("f, args", [pytest.param(*p, marks=pytest.mark.slow if k == 5 else ())
                                     for k, p in enumerate(PROGRAMS)],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_generated_numba_code_reduces_no_elementwise_temporary(f, args):
    forward = [Duplicated(a.value, 1.0) if isinstance(a, srcad.Active) else a for a in args()]
    for mode, values in ((srcad.Reverse, args()), (srcad.Forward, forward)):
        source = srcad.source(f, mode, *values, backend="numba")
        assert _unfused_reductions(source) == [], source
    reverse = srcad.source(f, srcad.Reverse, *args(), backend="numba")
    assert reverse.count("# one loop nest: ") >= 1
    python = srcad.source(f, srcad.Reverse, *args())
    assert "fused_" not in python  # the python backend stays vectorized NumPy


def scalar_chains(x, a):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.exp(a * x[i] - 1.0) * (a + x[i] * x[i])
    return s * (a * a + 1.0)


def test_elementwise_chains_of_arrays_are_one_loop_each_and_chains_of_numbers_stay():
    values = PROGRAMS[-1][1]()
    reverse = srcad.source(tanh_layer_loss, srcad.Reverse, *values, backend="numba")
    maps = [line.strip() for line in reverse.splitlines() if line.strip().startswith(
        "# one loop: ")]
    # the layer np.tanh(X @ W + b), and the adjoint of tanh: hidden_bar * (1 - tanh * tanh)
    assert any("array_tanh(array_matmul(X, W) + b)" in line for line in maps), reverse
    assert any("(1.0 - tanh * tanh)" in line for line in maps), reverse
    assert "fused_map" not in srcad.source(tanh_layer_loss, srcad.Reverse, *values)  # python
    scalar = srcad.source(scalar_chains, srcad.Reverse, dup(np.ones(3)), srcad.Active(0.5),
                          backend="numba")
    assert "fused_map" not in scalar  # numbers: no kernel per scalar expression


@pytest.mark.slow
def test_gmm_vectorized_reverse_fuses_the_four_dimensional_products():
    source = srcad.source(gmm.gmm_vectorized, srcad.Reverse, *_gmm_args(), backend="numba")
    calls = [(n.func.id, [ast.unparse(a) for a in n.args]) for n in ast.walk(ast.parse(source))
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    # the forward product summed over its last axis, and the two adjoints of that product
    assert not [c for c in calls if c[0] == "reduce_sum_3"]
    assert len([c for c in calls if c[0].startswith("fused_sum_3")]) == 1
    assert len([c for c in calls if c[0].startswith("fused_unbroadcast")
                and any("[None, :, :, :]" in a for a in c[1])]) == 2


# numba compiles each program in three modes, seconds each: the first is `make test`'s smoke
@pytest.mark.parametrize("f, args", [pytest.param(*p, marks=pytest.mark.slow if k else ())
                                     for k, p in enumerate(PROGRAMS)],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_fused_numba_derivatives_match_finite_differences_and_the_python_backend(f, args):
    check_grads(f, *args(), modes=("fwd", "rev", "vec"), backend="numba")
    values = args()
    grads = {}
    for backend in ("python", "numba"):
        copies = [Duplicated(a.value.copy(), np.zeros_like(a.value))
                  if isinstance(a, Duplicated) else a for a in values]
        _, value = srcad.autodiff(srcad.ReverseWithPrimal, f, *copies, backend=backend)
        grads[backend] = (value, [a.shadow for a in copies if isinstance(a, Duplicated)])
    assert grads["numba"][0] == pytest.approx(grads["python"][0], rel=1e-12)
    for got, want in zip(grads["numba"][1], grads["python"][1]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13)


def min_of_rows_against_a_matrix(A, r, c, a):  # a fuzz program (fuzz/grammar_fused_chains.py)
    t0 = np.tanh(np.sqrt(0.5 + np.sin(0.467 - (c[:, None])) * np.sin(0.467 - (c[:, None]))))
    s1 = np.sum(A + np.exp(np.sin(np.cos(0.467))), axis=1, keepdims=True)  # noqa: F841
    s2 = np.min(np.sqrt(0.5 + (r[None, :]) ** 2 * (r[None, :]) ** 2) + (t0) / 2.0,  # noqa: F841
                axis=0, keepdims=True)
    return np.sum(t0 + 0.467) + np.sum(t0 * (np.sqrt(0.5 + a * a)))


@pytest.mark.slow
def test_batched_lanes_of_reverse_code_with_fused_calls_compile():
    # the lanes' code is made again from the compiled module's source, whose namespace binds
    # the fused names to their kernels (it refused "fused_min_0_keep ... numba cannot compile")
    A, r, c = RNG.standard_normal((3, 4)), RNG.standard_normal(4), RNG.standard_normal(3)
    single = [dup(A.copy()), dup(r.copy())]
    srcad.autodiff(srcad.Reverse, min_of_rows_against_a_matrix, *single, c, 0.3,
                   backend="numba")
    batch = [srcad.BatchDuplicated(x.copy(), [np.zeros_like(x), np.zeros_like(x)])
             for x in (A, r)]
    srcad.autodiff(srcad.Reverse, min_of_rows_against_a_matrix, *batch, c, 0.3,
                   seed=[1.0, -2.5], backend="numba")
    for one, many in zip(single, batch):
        for seed, got in zip((1.0, -2.5), many.shadows):
            np.testing.assert_allclose(got, seed * one.shadow, rtol=1e-12, atol=1e-14)


def squared_error_of_a_tanh_layer(w, x, y, scale):
    hidden = np.tanh(w @ x)
    return (np.sum(hidden) * scale - y) ** 2 + np.mean(hidden * x[:hidden.shape[0]])


def test_reverse_numba_code_fills_the_adjoint_of_a_sum_with_the_number_it_spreads():
    # the adjoint of np.sum and np.mean: the seed spread over the summed array, one np.full
    w, x = RNG.standard_normal((4, 6)), RNG.standard_normal(6)
    reverse = srcad.source(squared_error_of_a_tanh_layer, srcad.Reverse, dup(w), x, 0.3,
                           srcad.Active(1.5), backend="numba")
    assert "np.zeros_like(hidden)" not in reverse
    assert "hidden_bar = copied_adjoint(hidden, " in reverse
    check_grads(squared_error_of_a_tanh_layer, dup(w), x, 0.3, srcad.Active(1.5),
                modes=("fwd", "rev"), backend="numba")
    numba_grad = srcad.grad(squared_error_of_a_tanh_layer, argnums=(0, 3), backend="numba")
    python_grad = srcad.grad(squared_error_of_a_tanh_layer, argnums=(0, 3))
    for got, want in zip(numba_grad(w, x, 0.3, 1.5), python_grad(w, x, 0.3, 1.5)):
        np.testing.assert_allclose(got, want, rtol=1e-13)


def test_reverse_numba_code_assigns_first_adjoint_contributions_instead_of_adding_to_zeros():
    values = PROGRAMS[1][1]()  # logistic_mean: z_bar's one contribution is a fused loop
    reverse = srcad.source(logistic_mean, srcad.Reverse, *values, backend="numba")
    assert "np.zeros_like(z)" not in reverse and "z_bar = assigned_adjoint(z, fused_" in reverse
    python = srcad.source(logistic_mean, srcad.Reverse, *values)
    # (the python backend binds its first contribution with a rewrite of its own:
    # srcad/transform/reverse/first_accumulations.py)
    assert "assigned_adjoint" not in python and "z_bar = unbroadcast(" in python
