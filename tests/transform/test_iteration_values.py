"""A number a for loop's iteration defines once and reads in several statements goes on the
tape once per iteration (srcad/transform/reverse/iteration_values.py), and the gradients stay
those of central differences where the rule does and does not apply."""

import math

import numpy as np

import srcad
from srcad.testing import check_grads


def rotations(theta, out):
    for b in range(len(theta)):
        c = math.cos(theta[b])
        s = math.sin(theta[b])
        out[b, 0] = c * c - s
        out[b, 1] = s * c + c
        for k in range(2):
            out[b, 2 + k] = c * out[b, k] + s
        out[b, 4] = c * s * out[b, 2]


def read_before_definition(x):
    total = 0.0
    c = 1.0
    for i in range(len(x)):
        total = total + c * x[i]  # the previous iteration's c
        c = math.sin(x[i])
        total = total + c * c * x[i]
    return total


def defined_in_a_branch(x):
    total = 0.0
    for i in range(len(x)):
        c = x[i]
        if x[i] > 0.0:
            c = math.exp(x[i])
        total = total + c * math.cos(x[i]) * c
    return total


def skipped_iterations(x):
    total = 0.0
    for i in range(len(x)):
        c = math.cos(x[i])
        if i == 1:
            continue
        total = total + c * c * x[i] + c * total
    return total


def _reverse_numba_source(f, *args):
    return srcad.source(f, srcad.Reverse, *args, backend="numba")


def test_a_value_read_by_several_statements_is_taped_once_per_iteration():
    theta, out = np.array([0.3, -0.7, 1.1]), np.zeros((3, 5))
    code = _reverse_numba_source(rotations, srcad.Duplicated(theta, np.zeros(3)),
                                 srcad.Duplicated(out, np.ones((3, 5))))
    pushes = [line.strip() for line in code.splitlines() if "tape[tape_size] =" in line]
    assert pushes.count("tape[tape_size] = c") == 1, pushes
    assert pushes.count("tape[tape_size] = s") == 1, pushes
    check_grads(rotations, srcad.Duplicated(theta, np.zeros(3)),
                srcad.Duplicated(out, np.zeros((3, 5))), modes=("rev",))


def test_values_it_does_not_apply_to_keep_their_records():
    x = np.array([0.4, -0.3, 0.9, 1.2])
    for f in (read_before_definition, defined_in_a_branch, skipped_iterations):
        check_grads(f, srcad.Duplicated(x.copy(), np.zeros(4)), modes=("rev",))
