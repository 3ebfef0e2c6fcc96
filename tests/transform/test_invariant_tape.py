"""A number the reverse of an inner loop needs, which that loop leaves alone but the loop around
it changes, goes on the tape once per run of the inner loop (pushed after it, popped before its
reverse loop), not once per inner iteration (srcad.transform.reverse.invariant_pushes.py)."""

import math

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def rows(a, n):
    """`row` changes per i (taped) but not in the j loop; `w` is bound in the j loop."""
    s = 0.0
    count = 0
    for i in range(n):
        count = count + (i % 2) + 1
        row = n - count % n - 1
        scale = math.sin(s)
        for j in range(n):
            w = a[row * n + j] * scale
            s = s + w * s + a[i * n + j]
    return s


def maybe_bound(a, n, flag):
    """`v` is bound only under a branch: still pushed per iteration (a push after the j loop
    would read an unbound name when the loop runs no iteration: n = 0, flag False)."""
    s = 0.5
    for i in range(2):
        if flag:
            v = math.cos(a[i])
        for j in range(n):
            s = s * v + a[j]
    return s


def _forward(source: str) -> list:
    return source.split("# reverse sweep")[0].split("\n")


def _indents(lines, text):
    return [len(line) - len(line.lstrip()) for line in lines if text in line]


def test_a_number_the_inner_loop_leaves_alone_is_taped_once_per_inner_loop():
    a = np.linspace(0.1, 0.9, 9)
    forward = _forward(srcad.source(rows, srcad.Reverse, srcad.Duplicated(a, np.zeros_like(a)),
                                    3))
    (loop_j,) = _indents(forward, "for j in")
    assert _indents(forward, ".append(row)") == [loop_j]  # beside `for j`, not in it
    assert _indents(forward, ".append(scale)") == [loop_j]
    assert _indents(forward, ".append(w)") == [loop_j + 4]  # bound in the j loop: per iteration


def test_a_number_bound_only_under_a_branch_is_taped_where_it_is_read():
    a = np.linspace(0.1, 0.9, 9)
    forward = _forward(srcad.source(maybe_bound, srcad.Reverse,
                                    srcad.Duplicated(a, np.zeros_like(a)), 3, True))
    (loop_j,) = _indents(forward, "for j in")
    assert _indents(forward, ".append(v)") == [loop_j + 4]


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_loop_invariant_tape_entries_differentiate_right():
    a = np.linspace(0.1, 0.9, 9)
    for backend in ("python", "numba"):
        check_grads(rows, srcad.Duplicated(a, np.zeros_like(a)), 3, modes=("rev",),
                    backend=backend)
        for n, flag in ((3, True), (0, True), (0, False)):  # n = 0, flag False: v unbound
            check_grads(maybe_bound, srcad.Duplicated(a, np.zeros_like(a)), n, flag,
                        modes=("rev",), backend=backend)


def centered_pairs(x, m):
    """`c` is refilled per k, so its elements are taped; `c[i]` is left alone by the j loop
    (neither `c` nor `i` is written there): once per i, while `c[j]` goes once per j."""
    n = len(x)
    c = np.zeros(n)
    s = 0.0
    for k in range(m.shape[0]):
        for i in range(n):
            c[i] = x[i] - m[k, i]
        for i in range(n):
            for j in range(i + 1, n):
                s = s + c[i] * c[j] * c[j]
    return s


def test_an_element_the_inner_loop_leaves_alone_is_taped_once_per_inner_loop():
    x, m = np.linspace(0.2, 1.1, 4), np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    forward = _forward(srcad.source(centered_pairs, srcad.Reverse,
                                    srcad.Duplicated(x, np.zeros_like(x)),
                                    srcad.Duplicated(m, np.zeros_like(m))))
    loops_j = set(_indents(forward, "for j in"))  # the k loop is checkpointed: two copies
    assert set(_indents(forward, ".append(c[i])")) == loops_j  # after the j loop
    # the python backend reads c[j] once for the push and the statement (`c_read = c[j]`)
    pushed_j = _indents(forward, ".append(c[j])") + _indents(forward, "_read = c[j]")
    assert set(pushed_j) == {indent + 4 for indent in loops_j}
    for backend in ("python", "numba"):
        check_grads(centered_pairs, srcad.Duplicated(x, np.zeros_like(x)),
                    srcad.Duplicated(m, np.zeros_like(m)), modes=("rev",), backend=backend)
