"""The numba backend computes what NumPy and Python compute: augmented assignments whose right
side overlaps the array written (NumPy reads the whole right side first), integer powers with
negative exponents, powers at zero (JAX's derivative), functions that write their input,
loops that update rows of an array in place. Values are checked against NumPy run by the
interpreter, derivatives against central differences (check_grads: forward, reverse and
vector mode) and, at the non-differentiable points, against jax.grad."""

import numpy as np
import pytest

import srcad
from srcad import Duplicated
from srcad.testing import check_grads

RNG = np.random.default_rng(25)


def dup(x):
    return Duplicated(x, np.zeros_like(x))


# ---- augmented assignments whose right side overlaps the target -------------------------

def shift_add(x):
    y = x.copy()
    y[1:] += y[:-1]
    return np.sum(y ** 2)


def shift_subtract(x):
    a = x * 1.5
    a[2:] -= a[:-2]
    return np.sum(a * np.sin(a))


def row_shift(x):
    A = np.outer(x, x[::-1]) + 1.0
    A[1:, :] += A[:-1, :]
    return np.sum(A ** 2)


def argument_shift(x):
    x[1:] += x[:-1]
    return np.sum(x ** 3)


def reversed_add(x):
    p = np.cos(x)
    p += p[::-1]
    return np.sum(p * x)


def shift_multiply(x):
    a = x * 0.5 + 1.0
    a[1:] *= a[:-1]
    return np.sum(a)


def view_shift(x):
    # the target is a view of the array the right side slices
    y = x * 2.0
    tail = y[1:]
    tail += y[:-1]
    return np.sum(y * y)


OVERLAPS = [shift_add, shift_subtract, row_shift, argument_shift, reversed_add,
            shift_multiply, view_shift]


def every_overlap(x):
    # the scenarios above in one function, for the numba backend (one compile per mode)
    return (shift_add(x) + shift_subtract(x) + row_shift(x) + reversed_add(x)
            + shift_multiply(x) + view_shift(x) + argument_shift(x))


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", ["python", "numba"])
def test_overlapping_update_value_is_numpys(backend):
    x = np.array([1.0, 2.0, 3.0])
    assert srcad.value_and_grad(shift_add, backend=backend)(x)[0] == 35.0  # NumPy: 35
    x = RNG.standard_normal(5)
    value, _ = srcad.value_and_grad(every_overlap, backend=backend)(x.copy())
    assert value == pytest.approx(every_overlap(x.copy()), rel=1e-12)


@pytest.mark.parametrize("f", OVERLAPS, ids=lambda f: f.__name__)
def test_overlapping_update_python(f):
    check_grads(f, dup(RNG.standard_normal(5)))


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_overlapping_updates_numba():
    check_grads(every_overlap, dup(RNG.standard_normal(5)), backend="numba", modes=("fwd", "rev"))


# ---- int powers: Python's value, or a refusal naming the line --------------------------

def negative_int_power(x, k):
    return x * 2 ** -k


def int_powers(x, k):
    return x ** 2 * 2.0 ** -k + (3 ** k) * x + x ** k + (k ** 3) * x


def huge_int_power(x, k):
    return x * 3 ** (k * 20)


def test_int_powers_are_pythons_on_numba():
    value, grad = srcad.value_and_grad(int_powers, backend="numba")(1.5, 2)
    assert value == int_powers(1.5, 2)
    h = 1e-6
    fd = (int_powers(1.5 + h, 2) - int_powers(1.5 - h, 2)) / (2 * h)
    assert grad == pytest.approx(fd, rel=1e-7)


@pytest.mark.parametrize("f, text", [(negative_int_power, r"2 \*\* \(-k\)`: an int to a "
                                      "negative int power"),
                                     (huge_int_power, r"3 \*\* \(k \* 20\)`: this int power is "
                                      "beyond int64")])
def test_int_power_python_does_not_give_in_int64_is_refused_on_numba(f, text):
    assert srcad.grad(f)(1.5, 2) == f(1.0, 2)  # f is linear in x: python gives f(1, k)
    with pytest.raises(ValueError, match=rf"test_numba_numpy_semantics.py:\d+: `{text}"):
        srcad.value_and_grad(f, backend="numba")(1.5, 2)



def factorial_times(x, k):
    n = 1
    for j in range(1, k + 1):
        n *= j
    return x * (n % 1000003)


def factorial_rebound(x, k):
    n = 1
    for j in range(1, k + 1):
        n = n * j
    return x * (n % 1000003)


@pytest.mark.slow  # compiles numba code for two functions: make test-all
@pytest.mark.parametrize("f, text", [(factorial_times, "n \\*= j"),
                                     (factorial_rebound, "n \\* j")])
def test_an_int_product_beyond_int64_is_refused_on_numba(f, text):
    # 22! is beyond int64: numba's product wrapped (a plausible wrong number, 9.3e5 for 3.2e5)
    assert srcad.grad(f)(1.5, 22) == f(1.0, 22)  # f is linear in x: python gives f(1, k)
    assert srcad.grad(f, backend="numba")(1.5, 20) == f(1.0, 20)  # 20! is within int64
    with pytest.raises(ValueError, match=rf"test_numba_numpy_semantics.py:\d+: `{text}`: this "
                       "int product is beyond int64"):
        srcad.grad(f, backend="numba")(1.5, 22)

# ---- powers at zero: JAX's derivative (d/dy x ** y = 0 at x = 0, where x ** y is finite) --

def power_of_zero(y):
    return np.power(0.0, y)


def power_of_both(x, y):
    return x ** y + np.power(x, y * 2.0)


def _jax_grad(f, args, argnums):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    out = jax.grad(lambda *a: f(*a, np=jnp), argnums=argnums)(*args)
    return tuple(float(v) for v in out)


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("y", [2.0, 0.0])
def test_power_of_zero_derivative_is_jaxs(backend, y):
    got = srcad.grad(power_of_zero, backend=backend)(y)
    assert got == _jax_grad(lambda y, np: np.power(0.0, y), (y,), (0,))[0] == 0.0


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("x, y", [(0.0, 2.0), (0.0, 1.0), (1.5, 0.5)])
def test_power_at_zero_base_derivative_is_jaxs(backend, x, y):
    got = srcad.grad(power_of_both, argnums=(0, 1), backend=backend)(x, y)
    want = _jax_grad(lambda x, y, np: x ** y + np.power(x, y * 2.0), (x, y), (0, 1))
    assert np.allclose(got, want, rtol=1e-12)


# ---- loops that update rows or slices of an array in place (reverse mode on numba) -------

def row_updates(A, x):
    B = A.copy()
    for i in range(B.shape[0]):
        B[i] *= B[i, 1]
    C = A.copy()
    for row in C:
        row *= row[1]
    Q = A * 0.5
    for row in Q:
        row += row ** 2
    y = x.copy()
    for _ in range(2):
        y[1:] += y[:-1]
    return np.sum(B ** 2) + np.sum(C * Q) + np.sum(y ** 2)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", ["python", "numba"])
def test_loops_updating_rows_in_place(backend):
    A, x = RNG.standard_normal((3, 2)), RNG.standard_normal(4)
    check_grads(row_updates, dup(A), dup(x), backend=backend, modes=("fwd", "rev"))


# ---- a prepared gradient of a function that writes its input ------------------------------

def writes_input(x):
    x[1:] *= 2.0
    x /= 2.0
    return np.sum(x ** 3)


@pytest.mark.parametrize("mode", [None, "forward"])
def test_prepared_gradient_of_written_input_is_at_the_given_values_numba(mode):
    x0 = np.array([1.0, -1.5, 0.5])
    want = 3.0 * (x0 * np.array([0.5, 1.0, 1.0])) ** 2 * np.array([0.5, 1.0, 1.0])
    prep = srcad.prepare_gradient(writes_input, x0.copy(), backend="numba", mode=mode,
                                  **({"chunk": 1} if mode else {}))
    for _ in range(3):  # every call starts from the values given, not the last call's writes
        x = x0.copy()
        got = srcad.gradient(writes_input, x, prep=prep, mode=mode,
                             **({"chunk": 1} if mode else {}))
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_array_equal(x, x0)


# ---- numba's disk cache failing to save a compilation does not fail the call --------------

def axis_pair_sums(x):
    return np.sum(np.sum(x * x, axis=(0, 2)) * np.sin(x[0, :, 0]))


def test_a_compilation_numba_cannot_save_still_runs(monkeypatch, tmp_path):
    # under load numba raised "no compiled object yet" from its cache save, after compiling
    from numba.core import caching

    def unsaved(self, sig, data):
        raise RuntimeError("no compiled object yet for <Library 'simulated'>")
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(caching.Cache, "save_overload", unsaved)
    x = RNG.standard_normal((2, 3, 2))
    check_grads(axis_pair_sums, dup(x), backend="numba", modes=("fwd",), directions=1)


def test_power_hessian_is_jaxs():
    # the exponent's rule reads `x == 0.0` (a constant to the second derivative)
    v = np.array([1.5, 2.0])
    got = srcad.hessian(lambda v: v[0] ** v[1] + np.sum(np.power(v, v[::-1])), v)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    want = jax.hessian(lambda v: v[0] ** v[1] + jnp.sum(jnp.power(v, v[::-1])))(v)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-10)
