"""srcad/transform/reverse/dead_tape_entries.py: a value popped into a name nothing reads is
neither pushed nor popped (a Kalman filter's reverse code popped the shape of its mean into
`mean_shape` every iteration, read by nothing), and pushes and pops are left alone wherever
their pairing is not certain."""

import ast
import math
import re
import textwrap

import gast
import numpy as np
import pytest

import srcad
import srcad.testing
from srcad.frontend import syntax as S
from srcad.transform.reverse.dead_tape_entries import drop_dead_tape_entries


def kalman(log_scales, observations):
    """benchmarks/kalman_first_call.py's log-likelihood (dt = 0.1)."""
    q, r = math.exp(log_scales[0]), math.exp(log_scales[1])
    transition = np.eye(4)
    transition[0, 2] = 0.1
    transition[1, 3] = 0.1
    observe = np.zeros((2, 4))
    observe[0, 0] = 1.0
    observe[1, 1] = 1.0
    process, noise = q * np.eye(4), r * np.eye(2)
    mean, covariance, total = np.zeros(4), np.eye(4), 0.0
    for t in range(observations.shape[0]):
        mean = transition @ mean
        covariance = transition @ covariance @ transition.T + process
        innovation = observations[t] - observe @ mean
        innovation_cov = observe @ covariance @ observe.T + noise
        solved = np.linalg.solve(innovation_cov, innovation)
        sign, logdet = np.linalg.slogdet(innovation_cov)
        total = total - 0.5 * (logdet + innovation @ solved)
        gain = np.linalg.solve(innovation_cov, observe @ covariance).T
        mean = mean + gain @ innovation
        covariance = covariance - gain @ observe @ covariance
    return total


_OBSERVATIONS = np.array([[0.1, 0.0], [0.2, 0.1], [0.25, 0.1], [0.4, 0.2]])


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_no_popped_value_goes_unread(backend):
    code = srcad.source(kalman, srcad.Reverse, srcad.Duplicated(np.array([-3.0, -2.0]),
                                                                np.zeros(2)),
                        _OBSERVATIONS, backend=backend)
    pops = re.findall(r"(\w+) = (?:float\()?\w*tape\w*\.pop\(\)", code)
    assert pops
    unread = [n for n in pops if len(re.findall(rf"\b{n}\b", code)) == 1]
    assert unread == [], unread
    assert code.count(".append(") == len(pops)  # each push still has its pop


def test_the_gradient_is_unchanged():
    scales = np.array([-3.0, -2.0])
    srcad.testing.check_grads(kalman, srcad.Duplicated(scales, np.zeros(2)), _OBSERVATIONS)


def _text(fn):
    return ast.unparse(S.to_ast(gast.Module(body=[fn], type_ignores=[])))


def _dropped(source):
    return _text(drop_dead_tape_entries(S.parse_stmts(textwrap.dedent(source))[0]))


def test_a_dead_pop_goes_with_its_push_and_an_emptied_tape_with_its_list():
    out = _dropped("""
        def f(x, n):
            tape = []
            shapes = []
            for i in range(n):
                tape.append(x)
                shapes.append(x.shape)
                tape.append(x.shape)
                x = x * 2
            for i in range(n - 1, -1, -1):
                first = tape.pop()
                kept = shapes.pop()
                second = tape.pop()
                print(second, kept)
        """)
    # the last push is popped first: `first` read `x.shape`
    assert "tape.append(x.shape)" not in out and "tape.append(x)" in out
    assert "first" not in out and "second = tape.pop()" in out
    assert "shapes.append(x.shape)" in out and "kept = shapes.pop()" in out


def test_a_tape_emptied_loses_its_list():
    out = _dropped("""
        def f(x, n):
            shapes = []
            for i in range(n):
                shapes.append(x.shape)
                x = x * 2
            for i in range(n - 1, -1, -1):
                unread = shapes.pop()
            return x
        """)
    assert "shapes" not in out


@pytest.mark.parametrize("source", [
    # a jump out of the loop: an iteration may push part of its record
    """
    def f(x, n):
        tape = []
        for i in range(n):
            tape.append(x.shape)
            if x[0] > 1:
                break
            tape.append(x.shape)
        for i in range(n - 1, -1, -1):
            a = tape.pop()
            b = tape.pop()
        return a
    """,
    # pushes in two blocks
    """
    def f(x, n):
        tape = []
        tape.append(x.shape)
        for i in range(n):
            tape.append(x.shape)
        for i in range(n - 1, -1, -1):
            a = tape.pop()
        b = tape.pop()
        return b
    """,
    # the tape handed on (a split sweep's result)
    """
    def f(x, n):
        tape = []
        for i in range(n):
            tape.append(x.shape)
        for i in range(n - 1, -1, -1):
            a = tape.pop()
        return tape
    """,
    # a push that calls something
    """
    def f(x, n):
        tape = []
        for i in range(n):
            tape.append(g(x))
        for i in range(n - 1, -1, -1):
            a = tape.pop()
        return x
    """,
])
def test_pushes_and_pops_not_certainly_paired_stay(source):
    before = _text(S.parse_stmts(textwrap.dedent(source))[0])
    assert _dropped(source) == before
