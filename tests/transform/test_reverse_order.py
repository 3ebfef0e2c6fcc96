"""numba reverse mode: a loop whose body is straight-line records the same values every
iteration, each at a fixed slot of the iteration's record; when the iterations of its reverse
are independent (only sums flow between them) the reverse loop visits them in forward order,
which LLVM vectorizes. Every loop that carries a value from one iteration to the next must keep
the backwards order: each case below computes a wrong gradient if it were visited forward."""

import math

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

pytest.importorskip("numba")

# the seed-003 mixture, inline form
from numba_backend.test_numba_backend import mixture  # noqa: E402

FORWARD_ORDER = "iterations are independent: visited in forward order"


def carried_product(x):
    s = 1.0
    for i in range(len(x)):
        s = s * x[i] + 0.5
    return s


def last_value_read_after(x):
    total = 0.0
    t = 0.0
    for i in range(len(x)):
        t = math.sin(x[i]) * x[i]
        total += t
    return total + 3.0 * t * t


def running_sum_read_in_body(x):
    acc = 0.0
    z = 0.0
    for i in range(len(x)):
        acc += x[i]
        z += acc * math.exp(x[i])
    return z


def recurrence_in_place(y, x):
    for i in range(1, len(x)):
        y[i] = y[i - 1] * x[i] + math.cos(x[i])
    return y[len(x) - 1]


def hopping_index(x):
    """An integer carried through the loop: the reverse reads each iteration's index from an
    int slot, and the iterations only add into x_bar, so they may run forward."""
    j = 0
    s = 0.0
    for _ in range(len(x)):
        j = (j * 7 + 3) % len(x)
        s += x[j] * math.exp(x[j] * 0.5)
    return s


def slice_sums_in_place(x):
    """Each element adds the sum of a slice of the array itself: the reverse of iteration i
    adds into a slice of the adjoint (through a view of it) that earlier iterations read."""
    z = x * 1.0
    for i in range(3):
        z[i] += np.sum(z[1:3])
    return np.sum(z * z)


def _source(f, *args):
    return srcad.source(f, srcad.Reverse, *args, backend="numba")


def _points(n=6, seed=0):
    return np.random.default_rng(seed).uniform(0.3, 1.2, n)


def test_independent_inner_loop_runs_forward_and_matches_finite_differences():
    params = np.array([0.7, 1.3, -0.4, 0.9, 0.8, 1.6])
    data = np.linspace(-1.0, 1.0, 7)
    source = _source(mixture, srcad.Duplicated(params, np.zeros(6)), data)
    assert source.count(FORWARD_ORDER) == 1  # the k loop (the data loop holds a loop)
    check_grads(mixture, srcad.Duplicated(params, np.zeros(6)), data, backend="numba")


@pytest.mark.parametrize("f", [carried_product, last_value_read_after,
                               running_sum_read_in_body, slice_sums_in_place])
def test_loops_carrying_a_value_keep_the_backwards_order(f):
    x = _points()
    assert FORWARD_ORDER not in _source(f, srcad.Duplicated(x, np.zeros_like(x)))
    check_grads(f, srcad.Duplicated(x, np.zeros_like(x)), backend="numba")


def test_in_place_recurrence_keeps_the_backwards_order():
    x, y = _points(seed=1), _points(seed=2)
    args = (srcad.Duplicated(y, np.zeros_like(y)), srcad.Duplicated(x, np.zeros_like(x)))
    assert FORWARD_ORDER not in _source(recurrence_in_place, *args)
    check_grads(recurrence_in_place, *args, backend="numba")


def test_integer_slots_of_a_forward_order_loop():
    x = _points(n=9, seed=3)
    source = _source(hopping_index, srcad.Duplicated(x, np.zeros_like(x)))
    assert FORWARD_ORDER in source and "int_tape[int_tape_size" in source
    check_grads(hopping_index, srcad.Duplicated(x, np.zeros_like(x)), backend="numba")


def density(x, mean, sd):
    return math.exp(-((x - mean) ** 2) / (2.0 * sd * sd)) / sd


def mixture_with_helper(params, data):
    K = len(params) // 3
    total = 0.0
    for n in range(len(data)):
        acc = 0.0
        for k in range(K):
            w = params[k]
            p = density(data[n], params[K + k], params[2 * K + k])
            acc += w * p
        total += math.log(acc)
    return total


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_taped_call_results_are_read_back_not_the_values_built_from_them():
    """The inner loop tapes exp(...) once per iteration; the density built from it (`p`, read
    by the adjoint of `acc += w * p`) is recomputed from that slot, not taped as well."""
    params = np.array([0.7, 1.3, -0.4, 0.9, 0.8, 1.6])
    dup = srcad.Duplicated(params, np.zeros(6))
    source = _source(mixture_with_helper, dup, np.zeros(3))
    taped = next(line for line in source.splitlines() if "Taped:" in line).split()[1:]
    assert "exp," in taped and not {"p", "p,", "density_result", "density_result,"} & set(taped)
    reverse = [line for line in source[source.index("# reverse sweep"):].splitlines()
               if not line.strip().startswith("#")]  # code, not the comments quoting lines
    assert not any("math.exp" in line for line in reverse)
    assert FORWARD_ORDER in source
    check_grads(mixture_with_helper, dup, np.linspace(-1.0, 1.0, 5), backend="numba")


def slice_of_the_array_written(b):
    z = b.copy()
    for t in range(3):
        z[t % 3] += np.dot(b[::2], z[::2])
    return np.sum(z * z)


def whole_array_changed_after(b):
    z = b * 2.0
    s = 0.0
    for t in range(3):
        s += np.dot(b, z) * b[t]
    z[0] = 5.0
    return np.sum(z * z) + s


@pytest.mark.parametrize("f", [slice_of_the_array_written, whole_array_changed_after])
def test_a_loop_reading_an_array_that_changes_records_on_stacks(f):
    # numba's slots hold numbers: such a loop stopped on "a loop taping arrays has no slots"
    b = np.array([0.5, 0.9, -0.6])
    source = _source(f, srcad.Duplicated(b, np.zeros(3)))
    assert "np.copy(" in source or "array_tape" in source
    check_grads(f, srcad.Duplicated(b, np.zeros(3)))  # the python backend's answer
