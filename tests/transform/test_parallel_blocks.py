"""Lifted loops run a block of iterations at a time (srcad/transform/parallel_blocks.py):
each lifted function is checked against the loop it came from, run by CPython on the same
inputs (the expected values are the loop's own, never the lifted code's)."""

import math

import gast
import numpy as np
import pytest

from srcad.build.codegen import to_source
from srcad.transform import parallel_blocks
from srcad.transform.names import Namer
from srcad.transform.parallel_loops import lift_parallel_loops


@pytest.fixture(autouse=True)
def blocks_of_4(monkeypatch):
    monkeypatch.setattr(parallel_blocks, "BLOCK", 4)  # read when the code is generated


def lifted_and_loop(source):
    """(the lifted function, the loop's function, the lifted source without spaces)."""
    fn = gast.parse(source).body[0]
    assert lift_parallel_loops(fn, Namer(set())) == 1
    code = to_source(fn)
    lifted, plain = {"np": np, "math": math}, {"np": np, "math": math}
    exec(code, lifted)
    exec(source, plain)
    return lifted["f"], plain["f"], "".join(code.split())


def outcome(f, *args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        result = f(*args)
    except Exception as err:  # noqa: BLE001 - the loop's own exception is the expected one
        result = type(err).__name__
    return result, args


def same_outcome(lifted, loop, *args):
    (got, got_args), (want, want_args) = outcome(lifted, *args), outcome(loop, *args)
    assert repr(got) == repr(want)
    for a, b in zip(got_args, want_args):
        np.testing.assert_array_equal(a, b)


def test_a_block_that_raises_runs_as_the_loop_the_blocks_before_it_written():
    source = ("def f(y, x, n):\n    for i in range(n):\n"
              "        y[i] = math.sqrt(x[i] - 1.0)\n")
    lifted, loop, _ = lifted_and_loop(source)
    x = np.linspace(2.0, 3.0, 11)
    x[6] = 0.0  # the second block: ValueError at i = 6, y[:6] written, y[6:] untouched
    same_outcome(lifted, loop, np.full(11, -1.0), x, 11)
    x[6] = 1.5  # the whole range
    same_outcome(lifted, loop, np.full(11, -1.0), x, 11)


def test_a_block_meeting_a_branch_not_taken_that_divides_by_zero_goes_on_after():
    source = ("def f(y, x, n):\n    for i in range(n):\n"
              "        y[i] = 1.0 / x[i] if x[i] != 0.0 else 2.0\n")
    lifted, loop, _ = lifted_and_loop(source)
    x = np.linspace(1.0, 2.0, 10)
    x[5] = 0.0
    same_outcome(lifted, loop, np.zeros(10), x, 10)


def test_names_read_after_keep_the_last_iterations_value_over_blocks():
    source = ("def f(y, x, a, n):\n    for i in range(a, n):\n        t = x[i] * 2.0\n"
              "        y[i] = t + 1.0\n    return t, i\n")
    lifted, loop, code = lifted_and_loop(source)
    assert "x[block_start:block_stop]" in code
    for a, n in ((0, 9), (3, 8), (2, 3)):
        same_outcome(lifted, loop, np.zeros(9), np.arange(9.0), a, n)


def test_neighbours_read_through_slices_in_bounds_and_the_loop_out_of_them():
    source = ("def f(y, x, n):\n    for i in range(1, n):\n"
              "        y[i - 1] = x[i - 1] * x[i + 1]\n")
    lifted, loop, code = lifted_and_loop(source)
    assert "x[block_start-1:block_stop-1]" in code and "x[block_start+1:" in code
    same_outcome(lifted, loop, np.zeros(10), np.arange(11.0), 10)  # in bounds: slices
    same_outcome(lifted, loop, np.zeros(10), np.arange(10.0), 10)  # x[10]: IndexError


def test_an_index_before_the_first_element_is_a_gather_as_in_the_loop():
    # x[i - 1] at i = 0 reads x[-1], which no slice of x gives
    source = ("def f(y, x, n):\n    for i in range(n):\n        y[i] = x[i - 1] + x[i]\n")
    lifted, loop, code = lifted_and_loop(source)
    assert "x[block_start-1:" not in code
    same_outcome(lifted, loop, np.zeros(9), np.arange(9.0) ** 2, 9)


def test_stacked_lanes_read_without_the_loop_variable_are_columns():
    source = ("def f(y, y_dot, x, x_dot, k, n):\n    for i in range(n):\n"
              "        y_dot[:, i] = x_dot[:, k] * x[i] + x_dot[:, i]\n"
              "        y[i] = x[i] * x[k]\n")
    lifted, loop, code = lifted_and_loop(source)
    assert "x_dot[:,k,None]" in code and "lane_column" not in code
    rng = np.random.default_rng(0)
    x, x_dot = rng.random(9), rng.random((3, 9))
    same_outcome(lifted, loop, np.zeros(9), np.zeros((3, 9)), x, x_dot, 2, 9)
