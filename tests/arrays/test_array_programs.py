"""Whole NumPy array programs, end to end: each differentiated in forward, vector and
reverse mode (python backend) and checked against central finite differences by
`check_grads`; what the reverse sweep tapes; what is refused, and where."""

import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad import Duplicated
from srcad.errors import SrcadError
from srcad.testing import check_grads

RNG = np.random.default_rng(5)


def dup(x):
    return Duplicated(x, np.zeros_like(x))


# -- the programs a new user writes --------------------------------------------------------------
def logistic_loss(w, X, y):
    z = np.dot(X, w)
    return np.mean(np.log(1.0 + np.exp(-y * z)))


def squared_error(x, t):
    return np.sum((x - t) ** 2)


def smoothness(x):
    d = x[1:] - x[:-1]
    return np.sum(d * d)


def rnn_loss(W, U, xs, h0, target):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum((h - target) ** 2)


def mlp_loss(W1, b1, W2, b2, X, labels):
    hidden = np.tanh(X @ W1 + b1)
    scores = hidden @ W2 + b2
    shifted = scores - np.max(scores, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(log_probs * labels, axis=1))


def test_two_layer_mlp_with_softmax_cross_entropy():
    N, D, H, K = 12, 5, 4, 3
    labels = np.eye(K)[RNG.integers(0, K, N)]
    check_grads(mlp_loss, dup(0.5 * RNG.standard_normal((D, H))), dup(RNG.standard_normal(H)),
                dup(0.5 * RNG.standard_normal((H, K))), dup(RNG.standard_normal(K)),
                RNG.standard_normal((N, D)), labels)


def test_logistic_regression_loss():
    X = RNG.standard_normal((30, 4))
    y = np.sign(RNG.standard_normal(30))
    check_grads(logistic_loss, dup(RNG.standard_normal(4)), X, y)
    check_grads(logistic_loss, dup(RNG.standard_normal(4)), dup(X), y)


def test_logistic_gradient_matches_hand_derivation():
    X = RNG.standard_normal((50, 3))
    y = np.sign(RNG.standard_normal(50))
    w = RNG.standard_normal(3)
    w_bar = np.zeros(3)
    srcad.autodiff(srcad.Reverse, logistic_loss, Duplicated(w, w_bar), X, y)
    margin = y * (X @ w)
    hand = -(X.T @ (y / (1.0 + np.exp(margin)))) / len(y)
    np.testing.assert_allclose(w_bar, hand, rtol=1e-12)


def test_squared_error():
    check_grads(squared_error, dup(RNG.standard_normal(6)), RNG.standard_normal(6))
    check_grads(squared_error, dup(RNG.standard_normal((2, 3))), dup(RNG.standard_normal(3)))


def test_differences_of_slices():
    check_grads(smoothness, dup(RNG.standard_normal(7)))


def test_rnn_over_steps():
    H, D, T = 4, 3, 6
    args = (dup(0.5 * RNG.standard_normal((H, H))), dup(RNG.standard_normal((H, D))),
            dup(RNG.standard_normal((T, D))), dup(RNG.standard_normal(H)),
            RNG.standard_normal(H))
    check_grads(rnn_loss, *args)


# -- arrays as values and loop state -------------------------------------------------------------
def accumulate(x, A):
    acc = np.zeros(x.shape[0])
    for i in range(A.shape[0]):
        acc = acc + A[i] * x
    return np.sum(np.sin(acc))


def columns_and_rows(A, v):
    total = 0.0
    for k in range(A.shape[1]):
        total = total + np.dot(A[:, k], v) * A[0, k]
    return total + np.sum(A[1] * A[-1])


def euler_steps(y0, a):
    y = y0.copy()
    for _ in range(5):
        y = y + 0.1 * (a * y - y ** 3)
    return np.sum(y)


def mixes_loops_and_arrays(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + w * x[i] * x[i]
    v = np.exp(x * w) / s
    return np.sum(v) + s * x[0]


def softmax_cross_entropy(Z, labels):
    shifted = Z - np.mean(Z, axis=1, keepdims=True)
    logsum = np.log(np.sum(np.exp(shifted), axis=1))
    return np.mean(logsum - np.sum(shifted * labels, axis=1))


def test_accumulator_rebound_in_a_loop():
    check_grads(accumulate, dup(RNG.standard_normal(3)), dup(RNG.standard_normal((4, 3))))


def test_columns_and_rows_as_values():
    check_grads(columns_and_rows, dup(RNG.standard_normal((3, 4))), dup(RNG.standard_normal(3)))


def test_state_rebound_by_a_step_rule():
    check_grads(euler_steps, dup(RNG.standard_normal(4)), srcad.Active(0.3))


def test_scalar_loops_mixed_with_array_expressions():
    check_grads(mixes_loops_and_arrays, dup(RNG.standard_normal(4)), srcad.Active(0.7))


def test_softmax_cross_entropy_with_keepdims():
    labels = np.eye(3)[RNG.integers(0, 3, 5)]
    check_grads(softmax_cross_entropy, dup(RNG.standard_normal((5, 3))), labels)


# -- views: rows passed to helpers, rows iterated over, work arrays made in a loop ----------------
def squared_distance(a, b):
    d = a - b
    return np.dot(d, d)


def nearest_center_cost(x, mu):
    total = 0.0
    for i in range(x.shape[0]):
        best = squared_distance(x[i], mu[0])
        for k in range(1, mu.shape[0]):
            best = min(best, squared_distance(x[i], mu[k]))
        total = total + best
    return total


def energy_over_rows(charges, w):
    e = 0.0
    for p in charges:
        e = e + np.sum(p * p) * w
    return e


def work_array_per_iteration(x):
    s = 0.0
    for i in range(x.shape[0]):
        w = np.zeros(3)
        w[0] = x[i]
        w[1] = x[i] * x[i]
        w[2] = 1.0
        s = s + np.sum(w * w)
    return s


def test_rows_passed_to_a_helper():
    check_grads(nearest_center_cost, dup(RNG.standard_normal((5, 2))),
                dup(RNG.standard_normal((3, 2))))


def test_iterating_over_the_rows_of_a_matrix():
    check_grads(energy_over_rows, dup(RNG.standard_normal((4, 3))), srcad.Active(0.5))


def test_work_array_allocated_in_a_loop():
    # each iteration's array is a new value: taped by copy (its elements are written), its
    # adjoint reset where it is allocated
    check_grads(work_array_per_iteration, dup(RNG.standard_normal(4)))
    source = srcad.source(work_array_per_iteration, srcad.Reverse, dup(np.ones(4)))
    assert "array_tape.append(np.copy(w))" in source


# -- the tape of an RNN: T hidden states, by reference -------------------------------------------
def test_rnn_tape_keeps_hidden_states_by_reference():
    H, D, T = 4, 3, 6
    source = srcad.source(rnn_loss, srcad.Reverse, dup(np.eye(H)), dup(np.ones((H, D))),
                          np.ones((T, D)), dup(np.ones(H)), np.ones(H))
    forward_sweep = source.split("# reverse sweep")[0]
    pushes = [line.strip() for line in forward_sweep.splitlines() if ".append(" in line]
    # per step: the old hidden state and the new one (the tanh its adjoint reads), both
    # references to arrays the primal makes anyway; never the weights, never a copy
    assert pushes == ["array_tape.append(h)", "array_tape.append(tanh)"], pushes
    assert "copy" not in forward_sweep
    assert "append(W)" not in source and "append(U)" not in source




# -- refusals ------------------------------------------------------------------------------------
def in_place_add(x):
    acc = x
    acc += x
    return np.sum(acc)


def test_in_place_add_through_an_alias_writes_the_argument():
    # acc is x: `acc += x` doubles x in place (NumPy), so f = sum 2x, gradient 2, and the
    # Duplicated x holds 2x after the call (its tangent 2 v)
    x = np.array([0.5, -1.0, 2.0])
    check_grads(in_place_add, Duplicated(x.copy(), np.zeros(3)))
    np.testing.assert_allclose(srcad.gradient(in_place_add, x.copy()), 2.0 * np.ones(3))


def in_place_accumulation(x, A):
    acc = np.zeros(x.shape[0])
    for i in range(A.shape[0]):
        acc += A[i] * x
        acc *= 0.9
    total = np.sum(acc * acc)
    return total


def test_in_place_updates_of_an_unshared_local_array():
    # acc += e on an array no other name shares is acc = acc + e
    check_grads(in_place_accumulation, dup(RNG.standard_normal(3)),
                dup(RNG.standard_normal((4, 3))))


def rebinds_argument(x):
    x = x * 2.0
    return np.sum(x)


def rnn_rebinding_its_argument(W, xs, h):
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def test_array_arguments_rebound_in_the_body():
    # the caller's shadow of `x` and `h` receives the adjoint of the argument's value
    check_grads(rebinds_argument, dup(RNG.standard_normal(3)))
    check_grads(rnn_rebinding_its_argument, dup(0.5 * RNG.standard_normal((3, 3))),
                dup(RNG.standard_normal((4, 3))), dup(RNG.standard_normal(3)))


def writes_into_expression_array(x):
    y = x * 2.0
    y[0] = 1.0
    return np.sum(y)


def test_elements_written_into_an_expression_array_write_a_copy_of_its_value():
    # NumPy's `x * 2.0` is a new array: the writes change only it
    check_grads(writes_into_expression_array, dup(np.array([0.5, -1.0, 2.0])))


def test_wide_vector_mode_refuses_array_operations_in_stacked_lanes_clearly():
    # by default the 20 lanes run as 16 + 4 unrolled ones (tests/arrays/test_array_lanes.py)
    seeds = [np.eye(3)[k % 3] for k in range(20)]
    with pytest.raises(SrcadError) as info:
        srcad.autodiff(srcad.Forward, squared_error, srcad.BatchDuplicated(np.ones(3), seeds),
                       np.zeros(3), batch="stacked")
    assert "stacked" in str(info.value)


def test_axis_must_be_a_literal():
    def by_variable_axis(x, k):
        return np.sum(np.sum(x, axis=k))
    with pytest.raises(SrcadError) as info:
        srcad.autodiff(srcad.Reverse, by_variable_axis, dup(np.ones((2, 2))), 0)
    assert "literal" in str(info.value)


def rebinds_array_to_float(x):
    x2 = x * x
    s = np.sum(x2)
    x2 = s * s
    return x2


def test_a_name_rebound_from_array_to_float_is_one_name_per_binding():
    # f = (sum x^2)^2: gradient 4 (sum x^2) x
    x = RNG.standard_normal(3)
    check_grads(rebinds_array_to_float, dup(x.copy()))
    np.testing.assert_allclose(srcad.grad(rebinds_array_to_float)(x),
                               4.0 * np.sum(x * x) * x, rtol=1e-12)


def view_of_written_array(x):
    c = np.zeros(3)
    for i in range(3):
        c[i] = x[i] * x[i]
    d = c[1:]
    c[1] = 0.0
    return np.sum(d * x[1:])


def test_a_view_of_an_array_written_later_sees_the_write():
    # d shares c's memory: writing c[1] zeroes d[0], so f = x_2^3 (a value-by-value
    # reverse would have missed it): gradient (0, 0, 3 x_2^2)
    x = RNG.standard_normal(3)
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(srcad.gradient(view_of_written_array, x, mode=mode),
                                   [0.0, 0.0, 3 * x[2] ** 2], rtol=1e-13)
    check_grads(view_of_written_array, dup(x.copy()))


# -- slice and row writes into allocated arrays ---------------------------------------------------
def shifted_squares(x):
    y = np.zeros(x.shape[0] + 1)
    y[1:] = x * x
    y[0] = x[0]
    return np.sum(y * y)


def column_updates(A, v):
    B = np.zeros((A.shape[0], A.shape[1]))
    for k in range(A.shape[1]):
        B[:, k] += A[:, k] * v
    B[1:3, :] = B[1:3, :] * B[0]
    return np.sum(B * B)


def rows_broadcast(xs, c):
    h = np.zeros((xs.shape[0], xs.shape[1]))
    for t in range(xs.shape[0]):
        h[t] = xs[t] * c
    h[0] = c
    h[1:, 0] = xs[0, 1]
    return np.sum(h ** 3)


def test_slice_write():
    check_grads(shifted_squares, dup(RNG.standard_normal(4)))


def test_column_updates_and_a_block_rewrite():
    check_grads(column_updates, dup(RNG.standard_normal((4, 3))), dup(RNG.standard_normal(4)))


def test_row_writes_that_broadcast():
    check_grads(rows_broadcast, dup(RNG.standard_normal((4, 3))), srcad.Active(0.6))


# -- the operators on array programs -------------------------------------------------------------
def tanh_map(x):
    y = np.tanh(x) * 2.0 + np.sum(x * x)
    return y


def test_gradient_and_jacobian_operators():
    X = RNG.standard_normal((20, 3))
    y = np.sign(RNG.standard_normal(20))
    w = RNG.standard_normal(3)
    g = srcad.gradient(logistic_loss, w, srcad.Constant(X), srcad.Constant(y))
    np.testing.assert_allclose(g, -(X.T @ (y / (1.0 + np.exp(y * (X @ w))))) / 20, rtol=1e-12)
    for n in (3, 40):  # forward chunks and reverse rows
        x = np.linspace(-1.0, 1.0, n)
        expected = np.diag(2.0 * (1.0 - np.tanh(x) ** 2)) + 2.0 * x[None, :]
        np.testing.assert_allclose(srcad.jacobian(tanh_map, x), expected, rtol=1e-12)


def cholesky_sum(x):
    A = np.eye(2) * 3.0 + x[:, None] * x[None, :]
    return np.sum(np.linalg.cholesky(A))


def test_second_order_through_a_cholesky_agrees_with_differences_of_the_gradient():
    # the Cholesky adjoint srcad generates has forward rules of its own: its Hessian runs
    x = np.array([0.3, -0.2])
    expected = central(srcad.grad(cholesky_sum), x, h=1e-5)
    np.testing.assert_allclose(srcad.hessian(cholesky_sum, x), expected, rtol=1e-6, atol=1e-8)


# -- aliases, conditional values, new axes, gathers ------------------------------------------------
def alias_then_product(x):
    y = x
    z = y * x
    return np.sum(z)


def conditional_array(x, s):
    y = x if s > 0 else -x
    return np.sum(y * y * s)


def relu_two_ways(x):
    return np.sum(np.where(x > 0, x, 0.0) + np.maximum(x, 0.0) * x)


def new_axes(x, y):
    return np.sum(np.sin(x[:, None] * y[None, :])) + np.sum(np.cos(x[:, np.newaxis] - y))


def gathers(x, idx):
    return np.sum(x[idx])


def test_alias_conditional_relu_and_new_axes():
    check_grads(alias_then_product, dup(RNG.standard_normal(3)))
    check_grads(conditional_array, dup(RNG.standard_normal(3)), srcad.Active(0.5))
    check_grads(conditional_array, dup(RNG.standard_normal(3)), srcad.Active(-0.5))
    check_grads(relu_two_ways, dup(RNG.standard_normal(5)))
    check_grads(new_axes, dup(RNG.standard_normal(3)), dup(RNG.standard_normal(4)))


def test_gathers_accumulate_repeated_indices():
    # x[idx] with idx an int array is an array (was typed a float: x_bar[idx] += g drops the
    # repeated indices); its adjoint adds once per occurrence
    check_grads(gathers, dup(RNG.standard_normal(3)), np.array([0, 0, 2]))
    source = srcad.source(gathers, srcad.Reverse, dup(np.ones(3)), np.array([0, 0, 2]))
    assert "np.add.at(x_bar, idx," in source


def reshaped_view_of_written_array(x):
    c = np.zeros(4)
    for i in range(4):
        c[i] = x[i] * x[i]
    d = c.reshape(2, 2)
    c[0] = 0.0
    return np.sum(d)


def test_a_reshaped_view_of_an_array_written_later_is_refused():
    with pytest.raises(SrcadError) as info:
        srcad.autodiff(srcad.Reverse, reshaped_view_of_written_array, dup(np.ones(4)))
    assert "view of `c`" in str(info.value)


def copies_and_views(x):
    y = np.array(x)
    y[0] = 2.0 * y[1]
    z = np.asarray(x) * y
    return np.sum(z * z)


def test_np_array_copies_np_asarray_does_not():
    check_grads(copies_and_views, dup(RNG.standard_normal(3)))


def copy_of_an_expression(x, y):
    z = np.copy(x * y)
    return np.sum(z * x)


def test_a_copy_of_an_expression_carries_its_derivative():
    # np.copy(x * y) was taken for an allocation like np.zeros: no derivative through z
    check_grads(copy_of_an_expression, dup(RNG.standard_normal(3)), dup(RNG.standard_normal(3)))


def returns_an_array(x, w):
    y = np.tanh(x) * w
    return y


def writes_its_output_argument(x, out):
    out[:] = np.tanh(x) * 2.0
    out[0] = out[1] * x[0]
    return np.sum(out)


def test_array_results_returned_and_written():
    check_grads(returns_an_array, dup(RNG.standard_normal(3)), srcad.Active(0.4))
    check_grads(writes_its_output_argument, dup(RNG.standard_normal(3)), dup(np.zeros(3)))


def _array_on_one_branch(x, c):
    if c > 0.0:
        y = 2.0 * x
        r = np.sin(y)
    else:
        r = x * x
    return np.sum(r * r)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", ["python", "numba"])
def test_an_array_bound_on_one_branch_only(backend):
    """`y` exists only when the first arm runs: reverse mode made its adjoint at the top of the
    reverse sweep and raised UnboundLocalError on the other arm; it is made with `y` now.
    By hand: c > 0, f = sum sin(2x)^2, df/dx = 2 sin(4x); else f = sum x^4, df/dx = 4 x^3."""
    x = np.array([0.3, -0.7])
    for c, expected in ((1.0, 2.0 * np.sin(4.0 * x)), (-1.0, 4.0 * x ** 3)):
        check_grads(_array_on_one_branch, srcad.Duplicated(x.copy(), np.zeros(2)), c,
                    backend=backend)
        got = srcad.gradient(_array_on_one_branch, x, srcad.Constant(c), backend=backend)
        np.testing.assert_allclose(got, expected, rtol=1e-13)
