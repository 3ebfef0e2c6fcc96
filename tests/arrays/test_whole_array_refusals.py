"""Whole-array operations on values that carry a derivative are either differentiated by the
array rules (checked against hand-derived gradients and finite differences) or refused, in
every mode and backend, with the user's line: never a derivative silently lost. A NumPy
function's result follows its arguments' types (array in, array out), so np.exp(x) of an
active array is never taken for a float. Whole-array operations on constants need no
derivative and run. Library functions (NumPy's own Python code, the standard library) are
never inlined."""

import math

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated
from srcad.errors import SrcadError, UnsupportedCallError
from srcad.testing import check_grads

BACKENDS = ["python", "numba"]  # numba is in the dev extra


def tanh_then_dot(x):
    y = np.tanh(x)
    return y @ y


def exp_returned(x):
    return np.exp(x)


def maximum_then_loop(x):
    y = np.maximum(x, 0.0)
    s = 0.0
    for i in range(len(y)):
        s += y[i] * y[i]
    return s


def element_of_abs(x):
    return np.abs(x)[0] * 2.0


def element_of_builtin_abs(x):
    return abs(x)[0] * 2.0  # builtin abs of an array: no array rule


def element_of_product(x):
    return (2.0 * x)[1] * x[0]


def dot_of_vectors(x):
    return x @ x


def row_copied(a, y):
    for i in range(a.shape[0]):
        y[i] = a[i]  # a whole row


def fancy_index(x, idx):
    return x[idx] @ x[idx]


def mask_times(x):
    z = (x > 0.0) * x
    return z[0]


def power_of_array(x):
    y = x ** 2.0
    return y[0] + y[1]


def builtin_abs_of_array(x):
    y = abs(x)
    return y[0]


def vector_times_matrix(x, a):
    v = x @ a
    return v[0]


def elementwise_into_element(x, out):
    out[0] = np.sin(x) @ np.cos(x)


X = np.array([0.3, -0.7, 1.1])
A = np.array([[0.3, -0.7, 1.1], [0.2, 0.5, -0.4]])


def _x():
    return Duplicated(X.copy(), np.zeros(3))


# The array rules differentiate these (python backend, every mode). Each gradient is derived
# by hand; `check_grads` adds finite differences and the forward/reverse dot-product test.
HANDLED = {
    "tanh_then_dot": (tanh_then_dot, lambda: (_x(),),
                      # d/dx sum tanh(x)^2 = 2 tanh(x) (1 - tanh(x)^2)
                      lambda: [2.0 * np.tanh(X) * (1.0 - np.tanh(X) ** 2)]),
    "maximum_then_loop": (maximum_then_loop, lambda: (_x(),),
                          lambda: [2.0 * np.maximum(X, 0.0)]),
    "dot_of_vectors": (dot_of_vectors, lambda: (_x(),), lambda: [2.0 * X]),
    # an array expression returned: seed 1.0 on every entry, d exp(x_i)/dx_i = exp(x_i)
    "exp_returned": (exp_returned, lambda: (_x(),), lambda: [np.exp(X)]),
    # y = a row by row; the seed (ones) of y flows back into a
    "row_copied": (row_copied, lambda: (Duplicated(A.copy(), np.zeros((2, 3))),
                                        Duplicated(np.zeros((2, 3)), np.ones((2, 3)))),
                   lambda: [np.ones((2, 3)), np.zeros((2, 3))]),
    # (x[0] > 0) * x[0] with x[0] = 0.3 > 0
    "mask_times": (mask_times, lambda: (_x(),), lambda: [np.array([1.0, 0.0, 0.0])]),
    "power_of_array": (power_of_array, lambda: (_x(),),
                       lambda: [np.array([2.0 * X[0], 2.0 * X[1], 0.0])]),
    # (x @ a)[0] = sum_k x_k a[k, 0]
    "vector_times_matrix": (vector_times_matrix,
                            lambda: (Duplicated(X[:2].copy(), np.zeros(2)), A.copy()),
                            lambda: [A[:, 0]]),
    # out[0] = sum sin(x) cos(x) = sum sin(2x) / 2, seeded with 1
    "elementwise_into_element": (elementwise_into_element,
                                 lambda: (_x(), Duplicated(np.zeros(1), np.ones(1))),
                                 lambda: [np.cos(2.0 * X), np.zeros(1)]),
    # x[idx] @ x[idx] with idx = [2, 0] is x[2]^2 + x[0]^2: gradient 2 x at 0 and 2
    "fancy_index": (fancy_index, lambda: (_x(), np.array([2, 0])),
                    lambda: [np.array([2.0 * X[0], 0.0, 2.0 * X[2]])]),
    # an element of a computed array is read from the array named first: 2 |x_0| with
    # x_0 = 0.3 > 0, and (2 x_1) x_0
    "element_of_abs": (element_of_abs, lambda: (_x(),), lambda: [np.array([2.0, 0.0, 0.0])]),
    "element_of_product": (element_of_product, lambda: (_x(),),
                           lambda: [np.array([2.0 * X[1], 2.0 * X[0], 0.0])]),
}

# What the array rules do not differentiate stays refused, in every mode and backend, with
# the message that says why (before, the first two gave wrong derivatives without a word and
# abs(x) crashed as a "non-finite derivative").
REFUSED = {
    "element_of_builtin_abs": (element_of_builtin_abs, lambda: (_x(),), "whole-array"),
    "builtin_abs_of_array": (builtin_abs_of_array, lambda: (_x(),), "whole-array"),
}


def _forward_args(args):
    return [Duplicated(a.value, np.ones_like(a.value)) if isinstance(a, Duplicated) else a
            for a in args]


def _batch_args(args):
    return [srcad.BatchDuplicated(a.value, [np.ones_like(a.value), np.ones_like(a.value)])
            if isinstance(a, Duplicated) else a for a in args]


def _run(f, args, mode, backend, seed=None):
    if mode == "reverse":
        return srcad.autodiff(srcad.Reverse, f, *args, seed=seed, backend=backend)
    if mode == "forward":
        return srcad.autodiff(srcad.Forward, f, *_forward_args(args), backend=backend)
    return srcad.autodiff(srcad.Forward, f, *_batch_args(args), backend=backend)


def _reverse_shadows(f, args, backend="python"):
    args = args()
    srcad.autodiff(srcad.Reverse, f, *args, backend=backend)
    return [a.shadow for a in args if isinstance(a, Duplicated)]


@pytest.mark.parametrize("name", sorted(HANDLED))
def test_whole_array_operation_on_active_array_is_differentiated(name):
    f, args, expected = HANDLED[name]
    check_grads(f, *args())
    for shadow, want in zip(_reverse_shadows(f, args), expected(), strict=True):
        np.testing.assert_allclose(shadow, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("mode", ["rev", "fwd", "vec"])
@pytest.mark.parametrize("name", [  # numba compiles each: the first is `make test`'s smoke test
    pytest.param(name, marks=pytest.mark.slow if k else ())
    for k, name in enumerate(sorted(HANDLED))])
def test_numba_differentiates_or_refuses_never_wrong(name, mode):
    # numba compiles part of the array code; the rest is refused at the user's line
    f, args, _ = HANDLED[name]
    try:
        check_grads(f, *args(), modes=(mode,), backend="numba")
    except SrcadError as refused:
        assert refused.filename == __file__


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["reverse", "forward", "vector"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_array_read_without_a_rule_is_refused(name, mode, backend):
    f, args, message = REFUSED[name]
    with pytest.raises(SrcadError, match=message) as refused:
        _run(f, args(), mode, backend)
    assert refused.value.filename == __file__  # the user's own file and line


@pytest.mark.parametrize("backend", BACKENDS)
def test_math_function_of_an_array_is_refused(backend):
    def exp_of_array(x):
        return math.exp(x) * 2.0

    with pytest.raises(SrcadError, match="takes numbers"):
        srcad.autodiff(srcad.Reverse, exp_of_array, Duplicated(X.copy(), np.zeros(3)),
                       backend=backend)


# -- whole-array operations on constants need no derivative: they run ------------------------
def weighted_by_exp(x, c):
    w = np.exp(c) * 0.5
    s = 0.0
    for i in range(len(x)):
        s += w[i] * x[i] * x[i]
    return s


def through_identity(x, n):
    eye = np.eye(n)
    s = 0.0
    for i in range(n):
        for j in range(n):
            s += eye[i, j] * x[i] * x[j] + 0.5 * x[j]
    return s


def dot_of_constants(x, c):
    return (c @ c) * x[0] * x[1]


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", BACKENDS)
def test_whole_array_operations_on_constants_run(backend):
    c = np.array([0.1, -0.2, 0.4])
    check_grads(weighted_by_exp, Duplicated(X.copy(), np.zeros(3)), c, backend=backend)
    dx = np.zeros(3)
    srcad.autodiff(srcad.Reverse, weighted_by_exp, Duplicated(X.copy(), dx), c,
                   backend=backend)
    np.testing.assert_allclose(dx, np.exp(c) * X, rtol=1e-14)  # d/dx_i of 0.5 e^c_i x_i^2
    check_grads(through_identity, Duplicated(X.copy(), np.zeros(3)), 3, backend=backend)
    dx = np.zeros(3)
    srcad.autodiff(srcad.Reverse, through_identity, Duplicated(X.copy(), dx), 3,
                   backend=backend)
    np.testing.assert_allclose(dx, 2.0 * X + 1.5, rtol=1e-14)  # sum x_i^2 + 1.5 sum x_j
    if backend == "python":  # numba compiles `@` only with scipy installed
        check_grads(dot_of_constants, Duplicated(X.copy(), np.zeros(3)), c)


# -- library functions are never inlined ---------------------------------------------------------
def uses_tri(x, n):
    lower = np.tri(n)  # a Python function inside NumPy with no rule
    return lower[1, 0] * x[0]


def test_library_function_is_refused_at_the_users_line_not_inlined():
    with pytest.raises(UnsupportedCallError) as refused:
        srcad.autodiff(srcad.Reverse, uses_tri, Duplicated(X.copy(), np.zeros(3)), 3)
    assert refused.value.filename == __file__
    assert refused.value.line == uses_tri.__code__.co_firstlineno + 1
    assert "tri" in str(refused.value)


def test_stdlib_function_is_not_inlined():
    import statistics

    def mean_of_two(a, b):
        return statistics.fmean(a, b)  # stdlib Python code: a library call, no rule

    with pytest.raises(SrcadError) as refused:  # fmean iterates over its first argument
        srcad.autodiff(srcad.Reverse, mean_of_two, Active(1.0), Active(2.0))
    assert refused.value.filename == __file__ and "statistics.fmean" in str(refused.value)


# -- rows and `and`/`or` ----------------------------------------------------------------------
def scalar_into_row(x, a):
    for i in range(a.shape[0]):
        a[i] = x[i] * 2.0  # broadcast into a whole row


def _refused_in_every_mode(f, args, backend, match):
    for mode in ("reverse", "forward", "vector"):
        with pytest.raises(SrcadError, match=match) as refused:
            _run(f, args, mode, backend)
        assert refused.value.filename == __file__


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalar_broadcast_into_a_row(backend):
    # the array layer writes the row's tangent and sums the row's adjoint: a = 2 x[i] per row,
    # so with a's seed all ones, d/dx_i = 2 * 3 (reverse mode once crashed on it)
    args = lambda: (Duplicated(X[:2].copy(), np.zeros(2)),  # noqa: E731
                    Duplicated(np.zeros((2, 3)), np.ones((2, 3))))
    check_grads(scalar_into_row, *args(), backend=backend)
    dx = _reverse_shadows(scalar_into_row, args, backend)[0]
    np.testing.assert_allclose(dx, [6.0, 6.0], rtol=1e-14)


def first_truthy(x):
    y = x[0] or 1.0  # one of its operands: x[0] unless it is 0.0
    return y * x[1]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["reverse", "forward", "vector"])
def test_or_on_floats_that_carry_derivatives_is_refused(mode, backend):
    args = (Duplicated(X.copy(), np.zeros(3)),)
    with pytest.raises(SrcadError, match="and/or"):
        if mode == "reverse":
            srcad.autodiff(srcad.Reverse, first_truthy, *args, backend=backend)
        elif mode == "forward":
            srcad.autodiff(srcad.Forward, first_truthy, *_forward_args(args), backend=backend)
        else:
            srcad.autodiff(srcad.Forward, first_truthy, *_batch_args(args), backend=backend)


def minimum_with_constant_array(x, c, w):
    s = 0.0
    for i in range(len(x)):
        s += np.minimum(x[i], c) @ w  # an array built from an element and a constant array
    return s


def test_array_computed_from_an_element_is_differentiated():
    # s = sum_i sum_j min(x_i, c_j): d/dx_i counts the c_j above x_i (no ties here)
    args = lambda: (Duplicated(X.copy(), np.zeros(3)), np.array([0.0, 0.5, 2.0]),  # noqa: E731
                    np.ones(3))
    check_grads(minimum_with_constant_array, *args())
    dx = _reverse_shadows(minimum_with_constant_array, args)[0]
    np.testing.assert_allclose(dx, [2.0, 3.0, 1.0], rtol=1e-14)


@pytest.mark.parametrize("mode", ["rev", "fwd", "vec"])
def test_array_computed_from_an_element_under_numba_is_refused_or_right(mode):
    args = (Duplicated(X.copy(), np.zeros(3)), np.array([0.0, 0.5, 2.0]), np.ones(3))
    try:
        check_grads(minimum_with_constant_array, *args, modes=(mode,), backend="numba")
    except SrcadError as refused:
        assert refused.filename == __file__


# -- other array-valued expressions: attributes and methods stay refused ---------------------
def transposed(a):
    return a.T[0, 1] * a[0, 0]


def method_sum(x):
    return x.sum() * x[0]


def method_dot(x, w):
    return x.dot(w)


def numpy_sum(x):
    return np.sum(x * x)


@pytest.mark.parametrize("f, args, expected", [
    # x.sum() * x[0]: sum(x) e_0 + x[0]
    (method_sum, lambda: (Duplicated(X.copy(), np.zeros(3)),),
     lambda: X[0] + X.sum() * np.eye(3)[0]),
    (method_dot, lambda: (Duplicated(X.copy(), np.zeros(3)), np.ones(3)), lambda: np.ones(3)),
    (numpy_sum, lambda: (Duplicated(X.copy(), np.zeros(3)),), lambda: 2.0 * X),
], ids=["x.sum()", "x.dot(w)", "np.sum"])
def test_array_methods_are_differentiated(f, args, expected):
    check_grads(f, *args())
    np.testing.assert_allclose(_reverse_shadows(f, args)[0], expected(), rtol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_element_of_a_transpose_is_differentiated(backend):
    # a.T[0, 1] is a[1, 0] (once refused: the element of the computed transpose lost its
    # derivative); the transpose is named first, so a[1, 0] a[0, 0] has the gradient
    # a[0, 0] at (1, 0) and a[1, 0] at (0, 0)
    a = A[:, :2].copy()
    args = lambda: (Duplicated(a.copy(), np.zeros((2, 2))),)  # noqa: E731
    check_grads(transposed, *args(), backend=backend)
    want = np.zeros((2, 2))
    want[1, 0], want[0, 0] = a[0, 0], a[1, 0]
    np.testing.assert_allclose(_reverse_shadows(transposed, args, backend)[0], want,
                               rtol=1e-14)


def rows_of_shaped_zeros(x):
    shape = x.shape
    c = np.zeros(shape)  # a matrix: its rank comes from x.shape, through a variable
    for i in range(shape[0]):
        c[i] = x[i, 0]  # a whole row
    return c[0, 1] * x[1, 1]


def test_constructor_rank_through_a_shape_variable():
    # c was typed a vector: reverse mode crashed, numba's vector mode gave a wrong tangent.
    # c[0, 1] = x[0, 0], so f = x[0, 0] * x[1, 1]
    args = lambda: (Duplicated(A[:, :2].copy(), np.zeros((2, 2))),)  # noqa: E731
    check_grads(rows_of_shaped_zeros, *args())
    check_grads(rows_of_shaped_zeros, *args(), modes=("fwd", "rev"), backend="numba")
    for backend in BACKENDS:
        np.testing.assert_allclose(_reverse_shadows(rows_of_shaped_zeros, args, backend)[0],
                                   [[A[1, 1], 0.0], [0.0, A[0, 0]]], rtol=1e-14)
    # numba's vector mode keeps a local array's lanes last, where a row write is refused: by
    # default its lanes run unrolled instead, with the right tangent
    check_grads(rows_of_shaped_zeros, *args(), modes=("vec",), backend="numba")
    with pytest.raises(SrcadError, match="row write") as refused:
        srcad.autodiff(srcad.Forward, rows_of_shaped_zeros, *_batch_args(args()),
                       batch="stacked", backend="numba")
    assert refused.value.filename == __file__


user_csv = None  # a user's module named like the standard library's csv (set by the test)


def calls_user_csv(v):
    return user_csv.helper(v) + v


def test_user_module_named_like_the_standard_library_is_still_inlined(tmp_path, monkeypatch):
    import importlib.util
    import sys

    path = tmp_path / "user_csv.py"
    path.write_text("def helper(v):\n    return v * v\n")
    spec = importlib.util.spec_from_file_location("csv", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(sys.modules[__name__], "user_csv", module)
    assert srcad.autodiff(srcad.Reverse, calls_user_csv, Active(1.5)) == (4.0,)  # 2v + 1


# -- refusals quote what the user wrote, not the names srcad gives inline expressions --------

M = np.arange(6.0).reshape(2, 3) * 0.1


def logaddexp_of_a_product_element(x):
    return np.sum(np.cross((M @ x)[0] * x, x, axis=0))  # numba: np.cross takes no axis=


def rows_scaled_by_a_generator_sum(x):
    return np.sum(np.cross(x * sum(v for v in x), x, axis=0))  # numba: no axis=


def power_scaled_by_a_generator_sum(x):
    return np.sum(pow(x, x) * sum(v * v for v in x))  # no array rule for the builtin pow


SPELLED = [
    (logaddexp_of_a_product_element, "numba", "`np.cross`", "product"),
    (rows_scaled_by_a_generator_sum, "numba", "`np.cross`",
     "sum_of"),
    (power_scaled_by_a_generator_sum, "python",
     "in `np.sum(pow(x, x) * sum(v * v for v in x))`", "sum_of"),
    (power_scaled_by_a_generator_sum, "numba",
     "in `np.sum(pow(x, x) * sum(v * v for v in x))`", "sum_of"),
]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f, backend, quoted, made", SPELLED,
                         ids=[f"{s[0].__name__}-{s[1]}" for s in SPELLED])
def test_refusal_quotes_the_users_expression(f, backend, quoted, made, mode):
    x = np.array([0.3, 0.5, 0.7])
    with pytest.raises(SrcadError) as refused:
        _run(f, (Duplicated(x, np.zeros(3)),), mode, backend)
    message = str(refused.value)
    assert quoted in message and made not in message, message
    assert refused.value.filename == __file__
    assert refused.value.line == f.__code__.co_firstlineno + 1  # the return line
