"""Silent wrong answers found by a second outside-user hunt, each fixed or refused."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError

X = np.array([0.3, 1.0, -1.7])


# --- a Cache whose content on entry f reads, under operators that run f several times ------

def cached_sum(x, c):
    s = 0.0
    for i in range(len(x)):
        c[i] = c[i] * x[i] + x[i] ** 2
        s += c[i]
    return s


@pytest.mark.parametrize("chunk", [1, 2])
def test_cache_read_on_entry_starts_every_pass_from_its_entry_content(chunk):
    options = dict(mode="forward", chunk=chunk)
    # once: forward chunks of one lane each started from what the previous chunk left in the
    # Cache: [1.6, 4.0, -2.533] instead of [1.6, 3.0, -2.4]
    c = np.ones(3)
    g = srcad.gradient(cached_sum, X.copy(), srcad.Cache(c), **options)
    np.testing.assert_allclose(g, 1.0 + 2.0 * X, rtol=1e-12)
    prep = srcad.prepare_gradient(cached_sum, X.copy(), srcad.Cache(np.ones(3)), **options)
    g = srcad.gradient(cached_sum, X.copy(), srcad.Cache(np.full(3, 2.0)), prep=prep)
    np.testing.assert_allclose(g, 2.0 + 2.0 * X, rtol=1e-12)


# --- x written by f while a Constant argument is the same array ----------------------------

def write_first(a, b):
    a[0] = 5.0
    return np.sum(a * b)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_written_input_shared_with_a_constant_is_refused(mode):
    # once: f ran on a copy of x, so the Constant kept x's content on entry; value and
    # gradient were those of a program Python does not run
    x = X.copy()
    with pytest.raises(SrcadError, match="aliased arguments"):
        srcad.gradient(write_first, x, srcad.Constant(x), mode=mode)
    prep = srcad.prepare_gradient(write_first, x, srcad.Constant(x.copy()), mode=mode)
    with pytest.raises(SrcadError, match="aliased arguments"):
        srcad.gradient(write_first, x, srcad.Constant(x), prep=prep)
    g = srcad.gradient(write_first, x, srcad.Constant(x.copy()), prep=prep)
    np.testing.assert_allclose(g, [0.0, X[1], X[2]], rtol=1e-12)


# --- np.where guarding a branch whose derivative is nan, in forward chunks -----------------

def guarded_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def guarded_array(x):
    return np.where(x > 0, np.sqrt(x), 0.0) + np.maximum(x, np.log(np.abs(x)))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("chunk", [2, 3])
def test_where_drops_the_other_branch_tangent_in_forward_chunks(chunk):
    # once: lanes shared the coefficient np.where(x > 0, 1.0, 0.0) and multiplied it by the
    # sqrt branch's nan tangent at x = -1.7: every entry nan ([nan, nan, nan]); the selection
    # drops it, as one lane does and as JAX's jacfwd does ([0.913, 0.5, 0.0])
    g = srcad.gradient(guarded_sqrt, X.copy(), mode="forward", chunk=chunk)
    np.testing.assert_allclose(g, [0.5 / np.sqrt(X[0]), 0.5 / np.sqrt(X[1]), 0.0], rtol=1e-12)
    J = srcad.jacobian(guarded_array, X.copy(), mode="forward", chunk=chunk)
    expected = np.diag([0.5 / np.sqrt(X[0]) + 1.0, 0.5 / np.sqrt(X[1]) + 1.0, 1.0 / X[2]])
    np.testing.assert_allclose(J, expected, rtol=1e-12)


def guarded_max(x):
    return max(x[0], np.sqrt(x[1])) + x[2]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_scalar_max_drops_the_other_operand_tangent_in_forward_chunks():
    # once: [nan, nan, nan] by three lanes (np.sqrt's inf derivative at 0 times the shared
    # coefficient 0.0), [1.0, 0.0, 1.0] by one lane
    x = np.array([0.5, 0.0, 1.0])
    for chunk in (1, 3):
        g = srcad.gradient(guarded_max, x.copy(), mode="forward", chunk=chunk)
        np.testing.assert_array_equal(g, [1.0, 0.0, 1.0])


# --- second order of an f that writes its input, by reverse over forward ------------------

def doubles_first(a):
    a[0] = a[0] * 2.0
    return np.sum(a * a * a)


def test_second_order_of_an_f_writing_its_input_by_reverse_over_forward():
    # once: "f writes into argument 1, passed as Constant" (f has one argument), or a
    # refusal of `a_bar += ...` in `<srcad doubles_first_reverse>`, then a refusal naming f;
    # now f of a copy of its input is differentiated. By hand: 8 a0^3 + a1^3 + a2^3
    a = X.copy()
    H = srcad.hessian(doubles_first, a, mode="reverse-over-forward")
    np.testing.assert_allclose(H, np.diag([48.0 * X[0], 6.0 * X[1], 6.0 * X[2]]), rtol=1e-12)
    np.testing.assert_array_equal(a, X)  # the caller's array as it was


def test_second_order_of_an_f_writing_its_input_by_the_default_mode():
    # f(a) = 8 a0^3 + a1^3 + a2^3 (a[0] doubled before the cube): the Hessian by hand
    x = X.copy()
    H = srcad.hessian(doubles_first, x)
    np.testing.assert_allclose(H, np.diag([48.0 * X[0], 6.0 * X[1], 6.0 * X[2]]), rtol=1e-12)
    np.testing.assert_array_equal(x, X)  # the caller's x is left as it was


# --- a prepared sparse jacobian whose traced pattern no longer holds -----------------------

def branchy_rows(x):
    y = np.zeros(4)
    for i in range(4):
        if x[i] > 0.5:
            y[i] = x[i] * x[(i + 1) % 4]
        else:
            y[i] = x[i] ** 2
    return y


def test_sparse_jacobian_refuses_a_point_outside_the_traced_pattern():
    pytest.importorskip("scipy")
    low, high = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.9, 0.2, 0.3, 0.4])
    prep = srcad.prepare_jacobian(branchy_rows, low.copy(), sparse=True)
    assert prep.state["pattern_source"] == "traced"
    # once: J[0, 0] = 1.1 (0.2 + 0.9: columns 0 and 1 share a color) and J[0, 1] missing
    with pytest.raises(SrcadError, match="other branches"):
        srcad.jacobian(branchy_rows, high.copy(), prep=prep)
    J = srcad.jacobian(branchy_rows, low[::-1].copy(), prep=prep)  # the same branches
    np.testing.assert_allclose(J.toarray(), np.diag(2.0 * low[::-1]), rtol=1e-12)
    prep = srcad.prepare_jacobian(branchy_rows, high.copy(), sparse=True)
    J = srcad.jacobian(branchy_rows, high.copy(), prep=prep)
    np.testing.assert_allclose(J.toarray(), srcad.jacobian(branchy_rows, high.copy()),
                               rtol=1e-12)


def computed_index(x):
    y = np.zeros(3)
    k = int(x[0] * 3)
    y[0] = x[k] * 2.0
    y[1] = x[1] ** 2
    y[2] = x[2] ** 2
    return y


def test_sparse_jacobian_refuses_an_index_computed_from_x_that_moved():
    pytest.importorskip("scipy")
    prep = srcad.prepare_jacobian(computed_index, np.array([0.1, 0.5, 0.6]), sparse=True)
    # once: [[2, 0, 0], ...] at x[0] = 0.5, where y[0] = 2 x[1]
    with pytest.raises(SrcadError, match="other branches"):
        srcad.jacobian(computed_index, np.array([0.5, 0.5, 0.6]), prep=prep)


# --- numba's reverse jacobian: the warm-up run at preparation left the Cache changed -------

def cache_then_output(y, x, c):
    for i in range(3):
        c[i] = c[i] * x[i] + x[(i + 1) % 3]
        y[i] = c[i] * x[i]


def test_numba_reverse_jacobian_starts_from_the_cache_as_given():
    # once: the preparation ran f once (to compile the lanes' code) on the caller's Cache,
    # and the call started from what that run left: diagonal [1.96, -1.1, 10.84], not
    # [2.2, 2.3, -6.5]
    c, y = np.full(3, 2.0), np.zeros(3)
    J = srcad.jacobian(cache_then_output, srcad.Output(y), X.copy(), srcad.Cache(c),
                       backend="numba", mode="reverse")
    following = np.roll(X, -1)
    expected = np.diag(4.0 * X + following) + np.diag(X[:2], 1)
    expected[2, 0] = X[2]
    np.testing.assert_allclose(J, expected, rtol=1e-12)
    np.testing.assert_allclose(c, 2.0 * X + following, rtol=1e-12)
    np.testing.assert_allclose(y, c * X, rtol=1e-12)
