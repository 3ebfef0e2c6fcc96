"""An int counter that only steps by amounts the reverse sweep can read (`c = 0`, then `c += 1`
in the for loops after it) is not taped: the reverse of each step undoes it (`c -= 1`), and a
region that runs in a loop pushes the value it leaves once per run
(srcad/analysis/induction.py, srcad/transform/reverse/counters.py). A counter stepped under an
`if` is taped as before."""

import math

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def packed_rows(x, lower, n):
    """A packed lower triangle indexed by a counter, restarted for every row block (as gmm's
    `lparamsidx`): its region runs in the `r` loop."""
    s = 0.0
    for r in range(n):
        idx = 0
        for i in range(3):
            for j in range(i + 1, 3):
                s = s + lower[r, idx] * x[r, i] * x[r, j]
                idx += 1
    return s


def read_after_loops(a, stride):
    """Steps of a constant, a parameter, a loop index and `c = c + 1`, in nested loops; the
    counter is also read after the loops that step it, and before its start in the next
    iteration of the loop around (the previous run's value: taped as before)."""
    s = 0.0
    c = 1
    for k in range(2):
        s = s + a[c] * s + math.sin(a[c + k])
        c = 0
        for i in range(3):
            c += stride
            for j in range(i):
                s = s + a[c] * a[j] * s
                c = c + 1
            c -= i
        s = s * a[c] + a[c - 1]
    return s + a[c] * a[c]


def stepped_under_if(a):
    """A step under an `if`: not an induction counter, taped."""
    s = 0.0
    c = 0
    for i in range(len(a) - 1):
        if a[i] > 0.5:
            c += 1
        s = s + a[c] * a[i] * s + a[i]
    return s


def top_level(a):
    """A counter at the top of the function: no push at all."""
    s = 1.0
    c = len(a) - 1
    for i in range(len(a)):
        s = s * a[c] + math.cos(a[i])
        c -= 1
    return s


A = np.linspace(0.1, 0.9, 9)
X = np.linspace(0.2, 1.4, 6).reshape(2, 3)
L = np.linspace(-0.5, 0.7, 6).reshape(2, 3)
CASES = {
    "packed_rows": (packed_rows, lambda: (srcad.Duplicated(X.copy(), np.zeros_like(X)),
                                          srcad.Duplicated(L.copy(), np.zeros_like(L)), 2)),
    "read_after_loops": (read_after_loops, lambda: (srcad.Duplicated(A.copy(),
                                                                      np.zeros_like(A)), 2)),
    # away from the branch's edge a[i] = 0.5, where finite differences jump
    "stepped_under_if": (stepped_under_if, lambda: (srcad.Duplicated(A + 0.03,
                                                                      np.zeros_like(A)),)),
    "top_level": (top_level, lambda: (srcad.Duplicated(A.copy(), np.zeros_like(A)),)),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_counters_differentiate_right(case, backend):
    f, args = CASES[case]
    modes = ("fwd", "rev", "vec") if backend == "python" or case == "packed_rows" else ("rev",)
    check_grads(f, *args(), modes=modes, backend=backend)


def test_counter_in_a_checkpointed_loop_differentiates_right():
    """memory= checkpoints the top-level loop stepping the counter: a step is rerun from its
    snapshot, then undone by its reverse. Against central differences."""
    h = 1e-6
    expected = np.array([(top_level(A + h * e) - top_level(A - h * e)) / (2 * h)
                         for e in np.eye(len(A))])
    for memory in (None, 200):
        shadow = np.zeros_like(A)
        srcad.autodiff(srcad.Reverse, top_level, srcad.Duplicated(A.copy(), shadow),
                       memory=memory)
        assert np.allclose(shadow, expected, rtol=1e-6, atol=1e-8)


def _source(f, backend="python"):
    _, args = CASES[f.__name__]
    return srcad.source(f, srcad.Reverse, *args(), backend=backend)


def _taped(source) -> list:
    """The names the docstring's `Taped:` line lists."""
    line = next(line for line in source.split("\n") if "Taped:" in line)
    return line.split(":", 1)[1].split("(")[0].replace(",", " ").split()


def _indents(source, text, part=0):
    lines = source.split("# reverse sweep")[part].split("\n")
    return [len(line) - len(line.lstrip()) for line in lines if text in line]


def test_a_top_level_counter_is_not_taped():
    source = _source(top_level)
    assert "append(c)" not in source and "c" not in _taped(source)
    assert "c += 1" in source.split("# reverse sweep")[1]  # its step `c -= 1`, undone


def test_a_counter_restarted_in_a_loop_is_pushed_once_per_run_of_its_region():
    for backend in ("python", "numba"):
        source = _source(packed_rows, backend)
        (loop_i,) = _indents(source, "for i in range(3)")
        push = ".append(idx)" if backend == "python" else "= idx"
        assert _indents(source, push) == [loop_i]  # after the i loop, not in the j loop
        assert "idx -= 1" in source.split("# reverse sweep")[1]


def test_a_counter_stepped_under_an_if_is_taped_where_it_is_read():
    source = _source(stepped_under_if)
    (loop_i,) = _indents(source, "for i in range(")
    assert _indents(source, ".append(c)") == [loop_i + 4]
    assert "c -= 1" not in source
