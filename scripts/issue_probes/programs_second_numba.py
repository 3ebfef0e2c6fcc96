"""Sections 3 and 4 of "never silently wrong, round 3": second order of functions writing
their input, an early return in a loop, read-only crashes; numba's NumPy and Python
semantics (overlapping updates, int powers, power at 0, loops updating rows in place, axis
tuples)."""
import numpy as np
from harness import Probe


# 3. Second order
def doubled_in_place(x):
    x *= 2.0
    return np.sum(x ** 3)


def doubled_by_slice(x):
    x[:] = x * 2.0
    return np.sum(x ** 3)


def halved_in_place(x):
    x /= 2.0
    return np.sum(x ** 3)


def scaled_by_own_element(x):
    x *= x[0]
    return np.sum(x ** 3)


def early_return(x):
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] * x[i]
        if acc > 2.0:
            return acc * x[i]
    return acc


def scaled_then_read_whole(x):
    c = x * 2.0
    return np.sum(c ** 2) + c[-1] * x[0]


def cumulative_sum(x):
    c = np.cumsum(x)
    return np.sum(c ** 2) + c[-1] * x[0]


def tail_updated_by_itself(x):
    y = x.copy()
    y[1:] += y[1:] ** 2
    return np.sum(y ** 2)


def quartic(x):
    return x ** 4 + 3.0 * x


XS = np.array([0.5, -1.2, 0.8])
SECOND = [Probe(f.__name__, f, XS, "3 second order")
          for f in (doubled_in_place, doubled_by_slice, halved_in_place, scaled_by_own_element,
                    scaled_then_read_whole, cumulative_sum, tail_updated_by_itself)]
SECOND += [Probe("early_return[1.45,0.3]", early_return, np.array([1.45, 0.3]), "3 second order"),
           Probe("early_return[-754.67,1,2]", early_return, np.array([-754.67, 1.0, 2.0]),
                 "3 second order"),
           Probe("early_return[0.5,1.5,0.2]", early_return, np.array([0.5, 1.5, 0.2]),
                 "3 second order"),
           Probe("quartic_of_a_float", quartic, 2.0, "3 second order")]


# 4. numba must do what NumPy and Python do
def overlapping_add(x):
    y = x.copy()
    y[1:] += y[:-1]
    return np.sum(y ** 2)


def overlapping_subtract_two(x):
    a = x * 1.0
    a[2:] -= a[:-2]
    return np.sum(a ** 2)


def overlapping_rows(x):
    A = np.outer(x, x)
    A[1:, :] += A[:-1, :]
    return np.sum(A ** 2)


def overlapping_on_argument(x):
    x[1:] += x[:-1]
    return np.sum(x ** 2)


def reversed_self(x):
    p = np.sin(x)
    p += p[::-1]
    return np.sum(p ** 2)


def overlapping_product(x):
    a = x + 1.0
    a[1:] *= a[:-1]
    return np.sum(a ** 2)


def negative_int_power(x):
    s = 0.0
    for k in range(len(x)):
        s += x[k] * 2 ** -k
    return s * s


def large_int_power(x):
    s = 0.0
    for k in range(38, 42):
        s += x[0] * ((3 ** k) % 7)
    return s * x[1]


def power_zero_exponent(x):
    return np.sum(np.power(x, 0.0) * x)


def power_zero_base(x):
    return np.sum(np.power(0.0, x) + x ** 2)


def rows_scaled_by_own_entry(A):
    B = A.copy()
    for i in range(B.shape[0]):
        B[i] *= B[i, 1]
    return np.sum(B ** 2)


def row_views_scaled(A):
    B = A.copy()
    for row in B:
        row *= row[1]
    return np.sum(B ** 2)


def row_views_squared(A):
    Q = A.copy()
    for row in Q:
        row += row ** 2
    return np.sum(Q)


def overlapping_in_loop(x):
    y = x.copy()
    for _ in range(2):
        y[1:] += y[:-1]
    return np.sum(y ** 2)


def axis_pair_reduction(x):
    return np.sum(np.sum(np.sin(x) ** 2, axis=(0, 2)) * np.arange(1.0, 4.0))


A = np.array([[0.5, 1.2, -0.3], [0.8, -0.6, 0.9], [1.1, 0.4, 0.2]])
NUMBA = [Probe(f.__name__, f, np.array([1.0, 2.0, 3.0, 0.5]), "4 numba semantics",
               refusal_allowed=True)
         for f in (overlapping_add, overlapping_subtract_two, overlapping_rows,
                   overlapping_on_argument, reversed_self, overlapping_product,
                   overlapping_in_loop)]
NUMBA += [Probe("negative_int_power", negative_int_power, np.array([0.5, 1.5, -2.0]),
                "4 numba semantics", refusal_allowed=True),
          Probe("large_int_power", large_int_power, np.array([0.5, 1.5]), "4 numba semantics",
                refusal_allowed=True),
          Probe("power_zero_exponent", power_zero_exponent, np.array([0.0, 1.0, 2.0]),
                "4 numba semantics", jax_nan=True),  # jax.grad(jnp.power(x, 0.0))(0.0): nan
          Probe("power_zero_base", power_zero_base, np.array([0.5, 1.0, 2.0]),
                "4 numba semantics")]
NUMBA += [Probe(f.__name__, f, A, "4 numba semantics")
          for f in (rows_scaled_by_own_entry, row_views_scaled, row_views_squared)]
NUMBA.append(Probe("axis_pair_reduction", axis_pair_reduction,
                   np.linspace(0.1, 2.4, 24).reshape(2, 3, 4), "4 numba semantics",
                   second_order=False))


# 8. The carried array that broadcasting widens in its loop's first iteration
def widened_in_first_iteration(x):
    y = x[:1] * 1.0
    for _ in range(3):
        y = y + np.sin(x) * y
    return np.sum(y ** 2)


WIDENED = [Probe("widened_in_first_iteration", widened_in_first_iteration,
                 np.array([0.3, -0.7, 1.1]), "8 widened carried array")]
