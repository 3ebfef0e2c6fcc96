"""New programs in the spirit of "never silently wrong, round 3", written from outside (not the
issue's quoted programs): variants an outside tester would try next for each section. The
harness checks each in every mode on both backends against central differences and NumPy;
`checks_outside.py` holds the checks that need arguments or references of their own (JAX)."""
import math
import statistics

import numpy as np
from harness import Probe


# 1. Lists hold references: views, rebinding, writes through the list
def view_entry_then_base_written(x):
    a = x * 1.0
    hs = [a[1:]]
    a[2] = x[0] ** 2
    return np.sum(hs[0] * x[1:])


def reshaped_entry_then_written(x):
    a = x * 2.0
    hs = []
    hs.append(a.reshape(-1))
    a[0] = 7.0
    return np.sum(hs[0] ** 2)


def rebinding_is_not_writing(x):  # the list keeps the old array: no alias, no refusal
    a = x * 1.0
    hs = [a]
    a = a * 3.0
    return np.sum(hs[0] ** 2 + a)


def write_through_the_list(x):
    a = x * 1.0
    hs = [a]
    hs[0][0] = x[1] ** 2
    return np.sum(a * x)


def entry_read_then_updated(x):
    a = x + 1.0
    hs = [a]
    b = hs[0]
    b += x
    return np.sum(a ** 2)


def element_entries_are_copies(x):  # a float element is a value, later writes do not reach it
    a = x * 1.0
    hs = [a[0], a[1]]
    a[0] = 10.0
    return hs[0] * hs[1] + np.sum(a * x)


def strided_entry_then_scaled(x):
    a = x * 1.0
    hs = [a[::2]]
    a *= x
    return np.sum(hs[0])


def same_entry_twice_then_written(x):
    a = np.sin(x)
    hs = [a, a]
    a[1] += x[0]
    return np.sum(np.stack(hs) * x)


def extended_then_written(x):
    a = x * 1.0
    hs = []
    hs.extend([a])
    a[:] = x ** 2
    return np.sum(hs[0])


def column_entry_row_written(x):
    A = np.outer(x, x)
    cols = [A[:, 0]]
    A[1, :] = x
    return np.sum(cols[0] ** 2)


X3 = np.array([1.0, 2.0, 3.0])
LISTS = [Probe(f.__name__, f, X3, "1 lists alias", refusal_allowed=True)
         for f in (view_entry_then_base_written, reshaped_entry_then_written,
                   write_through_the_list, entry_read_then_updated, strided_entry_then_scaled,
                   same_entry_twice_then_written, extended_then_written,
                   column_entry_row_written)]
LISTS += [Probe(f.__name__, f, X3, "1 lists alias")
          for f in (rebinding_is_not_writing, element_entries_are_copies)]


# 2. Augmented slice writes with a constant right side, every forward-built mode
def strided_plus_one(x):
    p = np.sin(x)
    p[::2] += 1.0
    return np.sum(p ** 2)


def last_minus_constant(x):
    p = np.exp(x)
    p[-1] -= 3.0
    return np.sum(p ** 2)


def tail_power_constant(x):
    p = np.cos(x) + 2.0
    p[1:] **= 3.0
    return np.sum(p)


def named_constant(x):
    c = 0.25
    p = x ** 2
    p[:2] *= c
    return np.sum(np.sin(p))


def constant_array_right_side(x):
    p = np.tanh(x)
    p[1:] += np.ones(len(x) - 1)
    return np.sum(p ** 3)


def fancy_index_plus(x):
    p = np.sin(x)
    p[[0, 2]] += 1.0
    return np.sum(p ** 2)


def column_times_constant(x):
    A = np.outer(x, np.sin(x))
    A[1:, 0] *= 2.0
    return np.sum(A ** 2)


def constant_updates_in_loop(x):
    p = x * x
    for i in range(len(x)):
        p[i:] += 0.5
    return np.sum(np.log(p))


def element_divided_in_loop(x):
    p = np.sin(x) + 2.0
    for i in range(len(x)):
        p[i] /= 2.0 + i
    return np.sum(p ** 2)


X3F = np.array([0.7, 0.1, -0.4])
FORWARD = [Probe(f.__name__, f, X3F, "2 forward slice const",
                 refusal_allowed=f is fancy_index_plus)  # a list index: refused by line
           for f in (strided_plus_one, last_minus_constant, tail_power_constant, named_constant,
                     constant_array_right_side, fancy_index_plus, column_times_constant,
                     constant_updates_in_loop, element_divided_in_loop)]


# 3. Second order of functions writing their input; early exits in loops
def shifted_in_place(x):
    x += 1.0
    return np.sum(x ** 3)


def element_from_another(x):
    x[0] = x[1] ** 2
    return np.sum(x ** 3)


def squared_in_place(x):
    x **= 2
    return np.sum(np.sin(x))


def sine_of_itself(x):
    x[:] = np.sin(x)
    return np.sum(x ** 2 * x[0])


def tail_tripled(x):
    x[1:] *= 3.0
    return np.sum(x ** 2) * x[0]


def break_in_loop(x):
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] ** 3
        if acc > 1.0:
            break
    return acc * x[0]


def return_in_while(x):
    acc = 1.0
    i = 0
    while i < len(x):
        acc *= x[i]
        if acc < -0.5:
            return acc ** 2
        i += 1
    return acc


def return_in_nested_loop(x):
    s = 0.0
    for i in range(len(x)):
        for j in range(i + 1):
            s += x[i] * x[j]
            if s > 1.5:
                return s * x[j]
    return s


XS = np.array([0.5, -1.2, 0.8])
# f writing its input: reverse over forward (numba's, mode='reverse-over-forward') refuses it
# by line, as documented; `x **= 2` on an array is refused by line
SECOND = [Probe(f.__name__, f, XS, "3 second order", refusal_allowed=True)
          for f in (shifted_in_place, element_from_another, squared_in_place, sine_of_itself,
                    tail_tripled)]
SECOND += [Probe(f.__name__, f, XS, "3 second order") for f in (break_in_loop, return_in_while)]
SECOND += [Probe("return_in_nested_loop", return_in_nested_loop, np.array([0.9, 0.8, 0.3]),
                 "3 second order"),
           Probe("break_in_loop[0.2,1.1,0.5]", break_in_loop, np.array([0.2, 1.1, 0.5]),
                 "3 second order")]


# 4. numba must do what NumPy and Python do
def overlap_backwards(x):
    y = x * 1.0
    y[:-1] += y[1:]
    return np.sum(y ** 2)


def overlap_scaled_subtract(x):
    y = np.sin(x)
    y[1:] -= 0.5 * y[:-1]
    return np.sum(y ** 2)


def overlap_columns(x):
    A = np.outer(x, x + 1.0)
    A[:, 1:] += A[:, :-1]
    return np.sum(A ** 2)


def overlap_plain_assignment(x):
    y = x * 2.0
    y[1:] = y[:-1]
    return np.sum(y ** 2 * x)


def overlap_divide(x):
    y = x + 2.0
    y[1:] /= y[:-1]
    return np.sum(y ** 2)


def overlap_strided(x):
    y = x * 1.0
    y[::2] += y[1::2]
    return np.sum(y ** 3)


def float_base_negative_power(x):
    s = 0.0
    for k in range(len(x)):
        s += x[k] * 10.0 ** -k + x[k] * 2 ** (k - 2)
    return s * s


def negative_base_negative_power(x):
    s = 0.0
    for k in range(1, len(x) + 1):
        s += x[k - 1] * (-2) ** -k
    return s * x[0]


def int_reciprocal_power(x):
    s = 0.0
    for k in range(1, len(x) + 1):
        s += x[k - 1] * k ** -1
    return s * s


def overflowing_product(x):
    n = 1
    for k in range(1, 23):
        n *= k
    return x[0] * (n % 1000003) + x[1] ** 2


def overflowing_power(x):
    return x[0] * ((5 ** (len(x) + 28)) % 11) * x[1]


def power_int_zero_at_zero(x):
    return np.sum(np.power(x, 0) * x ** 2)


def zero_base_power(x):
    return np.sum(0.0 ** x + np.sin(x))


NUMBA = [Probe(f.__name__, f, np.array([1.0, 2.0, 3.0, 0.5]), "4 numba semantics",
               refusal_allowed=True)
         for f in (overlap_backwards, overlap_scaled_subtract, overlap_columns,
                   overlap_plain_assignment, overlap_divide, overlap_strided)]
NUMBA += [Probe(f.__name__, f, np.array([0.5, 1.5, -2.0]), "4 numba semantics",
                refusal_allowed=True)
          for f in (float_base_negative_power, negative_base_negative_power,
                    int_reciprocal_power, overflowing_product, overflowing_power)]
NUMBA += [Probe("power_int_zero_at_zero", power_int_zero_at_zero, np.array([0.0, 1.0, 2.0]),
                "4 numba semantics"),
          Probe("zero_base_power", zero_base_power, np.array([0.5, 1.0, 2.0]),
                "4 numba semantics", refusal_allowed=True)]


# 6. Tuple literals passed to library calls (with and without a rule)
TUPLES = {
    "max": lambda x: np.max((x, 2 * x + 1)),
    "min": lambda x: np.min((x, 2 * x + 1)),
    "sum": lambda x: np.sum((x, x ** 2)),
    "builtin_sum": lambda x: sum((x, x ** 2)),
    "builtin_max": lambda x: max((x * 3, x + 1)),
    "cumsum": lambda x: np.cumsum((x, x ** 2))[1],
    "exp": lambda x: np.sum(np.exp((x, 2 * x))),
    "sort": lambda x: np.sort((x, 2.0 - x))[0],
    "diff": lambda x: np.diff((x, x ** 2))[0],
    "outer": lambda x: np.sum(np.outer((x, 1.0), (1.0, x))),
    "quantile": lambda x: np.quantile((x, 2 * x, 3 * x + 1), 0.5),
    "clip": lambda x: np.sum(np.clip((x, x + 1), -5.0, 5.0)),
    "ptp": lambda x: np.ptp((x, 3 * x + 1)),
    "nanmean": lambda x: np.nanmean((x, x + 2)),
    "einsum": lambda x: np.einsum("i,i", (x, 1.0), (1.0, x)),
    "statistics_mean": lambda x: statistics.mean((x, x + 2)),
    "pstdev": lambda x: statistics.pstdev((x, 3 * x + 2)),
    "dist": lambda x: math.dist((x, 0.0), (1.0, x)),
    "hypot_star": lambda x: math.hypot(*(x, 2 * x + 1)),
    "nested_tuple": lambda x: np.sum(np.array(((x, 1.0), (2.0, x)))) * x,
    "sum_of_rows": lambda x: np.sum(((x, 1.0), (2.0, x * x))),
    "det_of_rows": lambda x: np.linalg.det(((x, 1.0), (2.0, x * x))),
    "std_of_rows": lambda x: np.std(((x, 1.0), (2.0, x * x))),
    "mean_of_rows_axis": lambda x: np.sum(np.mean(((x, 1.0), (2.0, x * x)), axis=0) ** 2),
}
MODES = ("value_and_grad", "grad", "jacfwd", "jacrev", "pushforward", "gradient_forward",
         "gradient_reverse", "prepared_gradient", "second_derivative", "hessian")
LITERALS = [Probe(f"{name}_tuple@{x}", f, x, "6 literals", refusal_allowed=True, modes=MODES)
            for name, f in TUPLES.items() for x in (0.3, 1.7)]

PROBES = LISTS + FORWARD + SECOND + NUMBA + LITERALS
