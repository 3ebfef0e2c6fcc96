"""Batched reverse code on numba loops over the lanes once per run of adjoint statements; a
primal or tape statement between two runs that binds names only and shares none with the run
before it runs before that run's loop, so the runs share one loop
(srcad/operators/lane_runs.py). A statement the run before reads, a store into an array and an
in-place update of an array keep the loops apart."""

import ast
import math

import numpy as np
import pytest

import srcad
from srcad.operators.batched_lanes import LANE, LaneCode

SOURCE = """
def f_reverse(x, x_bar, result_bar=1.0):
    tape = np.zeros(3)
    tape_size = 2
    a = x[0]
    c = a
    a_bar = 0.0
    b_bar = 0.0
    a_bar += result_bar * c
    {between}
    b_bar += a_bar * math.cos(a)
    x_bar[0] += b_bar
    return 0.0, ()
"""


def _lane_loops(between: str) -> int:
    code = LaneCode(SOURCE.format(between=between), {"x": 1}, None)
    return sum(isinstance(node, ast.For) and isinstance(node.target, ast.Name)
               and node.target.id == LANE for node in ast.walk(ast.parse(code.source)))


@pytest.mark.parametrize("between", [
    "tape_size -= 1",  # an integer counter
    "tape_size -= x.shape[0] * 2",  # counted by an array's shape
    "d = math.sin(a) * tape[tape_size]",  # binds a name the run does not use
    "a = x[1]",  # rebinds a name the run before does not use
])
def test_a_statement_that_binds_names_only_joins_the_runs(between):
    assert _lane_loops(between) == 1


@pytest.mark.parametrize("between", [
    "c = 2.0",  # the run before reads c
    "tape[tape_size] = a",  # a store into an array
    "tape -= 1.0",  # an in-place update of an array
    "d = np.sum(tape)",  # a call that may do anything
])
def test_a_statement_that_may_change_what_the_run_reads_keeps_the_runs_apart(between):
    assert _lane_loops(between) == 2


def rotations(x):
    """Primal temporaries and tape reads between adjoint statements (a rotation per angle)."""
    out = np.zeros(2 * len(x))
    for i in range(len(x)):
        c = math.cos(x[i])
        s = math.sin(x[i])
        u = c * x[i - 1] - s * x[i]
        v = s * x[i - 1] + c * x[i]
        out[2 * i] = u * v
        out[2 * i + 1] = u - v * c
    return out



def test_joined_runs_give_the_jacobian_of_one_sweep_per_row():
    x = np.array([0.3, -1.2, 0.7, 2.1])
    prep = srcad.prepare_jacobian(rotations, x, mode="reverse", backend="numba")
    assert prep.state.get("batched")
    by_rows = srcad.jacobian(rotations, x, mode="reverse", backend="python")
    np.testing.assert_allclose(srcad.jacobian(rotations, x, prep=prep), by_rows, rtol=1e-14,
                               atol=1e-14)
    h = 1e-6
    central = np.array([(rotations(x + h * e) - rotations(x - h * e)) / (2 * h)
                        for e in np.eye(len(x))]).T
    np.testing.assert_allclose(by_rows, central, rtol=1e-6, atol=1e-8)
