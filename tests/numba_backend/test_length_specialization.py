"""numba code specialized for the lengths of short array arguments
(srcad/build/length_specialization.py): the code generated for a length holds the arrays made
from the argument as numbers; another length gets code of its own (a longer one the general
code), through every way a call reaches compiled code (autodiff's plans, the operators'
preparations), checked against central differences."""

import re

import numpy as np
import pytest

import srcad
from srcad.build import cache
from srcad.build.running import tape_buffers


def descent(q, start):
    """A descent from a copy of `start` (its length known only at run time) with a nested
    gradient as its step: GradBench saddle's shape."""
    x = start.copy()
    g = srcad.grad(energy)(x, q)
    k = 0
    while k < 4:
        x_new = x - 0.1 * g
        if k % 2 == 0:
            x = x_new
            g = srcad.grad(energy)(x_new, q)
        else:
            x = x + 0.5 * x_new
        k = k + 1
    return x[0] * q[1] + g[1] * q[0]


def energy(p, q):
    return (p[0] - q[0]) ** 2 + 2.0 * (p[1] - q[1]) ** 2 + 0.1 * p[0] * p[1] * q[0]


def central(f, q, h=1e-6):
    return np.array([(f(q + h * e) - f(q - h * e)) / (2 * h) for e in np.eye(q.size)])


def by_hand(q, start):
    """descent with energy's gradient in p written out (the reference primal)."""
    def gradient(p):
        g = np.zeros_like(p)
        g[0] = 2.0 * (p[0] - q[0]) + 0.1 * p[1] * q[0]
        g[1] = 4.0 * (p[1] - q[1]) + 0.1 * p[0] * q[0]
        return g
    x = start.copy()
    g = gradient(x)
    for k in range(4):
        x_new = x - 0.1 * g
        if k % 2 == 0:
            x, g = x_new, gradient(x_new)
        else:
            x = x + 0.5 * x_new
    return x[0] * q[1] + g[1] * q[0]


def _source(length, mode=srcad.Reverse):
    q, start = np.linspace(0.3, 0.9, length), np.linspace(1.0, 0.4, length)
    return srcad.source(descent, mode, srcad.Duplicated(q, np.zeros(length)),
                        srcad.Const(start), backend="numba")


@pytest.mark.parametrize("mode", [srcad.Reverse, srcad.Forward])
def test_code_for_two_elements_holds_the_descent_as_numbers(mode):
    source = _source(2, mode)
    assert "specialized for 2 elements of start" in source
    assert "x_0, x_1 = start[0], start[1]" in source
    assert "start.copy()" not in source and "zeros_into" not in source
    if mode is srcad.Reverse:  # recorded as tuples of numbers, the shapes not at all
        assert "array_tape_1d.append((x_0, x_1))" in source
        assert "shape_tape_1d" not in source
    general = _source(5, mode)  # longer than MAX_LENGTH: the general code
    assert "specialized" not in general and "start.copy()" in general


def test_a_length_the_code_gains_nothing_from_shares_the_general_code():
    def f(q, start):
        return q[0] * start[1] + q[1]
    sources = [srcad.source(f, srcad.Reverse, srcad.Duplicated(np.ones(n), np.zeros(n)),
                            srcad.Const(np.ones(n)), backend="numba") for n in (2, 5)]
    assert sources[0] == sources[1]  # one module text: numba's compiled module is shared


@pytest.mark.slow  # numba compiles the descent for three lengths and two modes (~20 s)
def test_every_length_gets_its_own_code_and_answers_right():
    """Lengths 2, 3 and 5 in turn, then 2 again: each call answers as central differences,
    by autodiff (its plans) and by srcad.gradient (its kept preparations); the code made for
    two elements refuses another length itself."""
    answers = {}
    for length in (2, 3, 5, 2, 3):
        q, start = np.linspace(0.3, 0.9, length), np.linspace(1.0, 0.4, length)
        want = central(lambda q, start=start: by_hand(q, start), q)
        for mode in ("reverse", "forward"):
            got = srcad.gradient(descent, q, srcad.Constant(start), mode=mode, backend="numba")
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
            answers.setdefault((length, mode), []).append(got)
        shadow = np.zeros(length)
        srcad.autodiff(srcad.Reverse, descent, srcad.Duplicated(q, shadow), srcad.Const(start),
                       backend="numba")
        np.testing.assert_allclose(shadow, want, rtol=1e-6, atol=1e-9)
        direction = np.linspace(-1.0, 0.5, length)  # forward code: its kernels' directions
        tangent = srcad.autodiff(srcad.Forward, descent, srcad.Duplicated(q, direction),
                                 srcad.Const(start), backend="numba")
        assert tangent == pytest.approx(want @ direction, rel=1e-6, abs=1e-9)
    for again in answers.values():  # the second call of a length: its own code again
        np.testing.assert_array_equal(again[0], again[-1])
    specialized = [e for e in cache.entries() if e.request.backend == "numba"
                   and e.request.mode == "reverse" and "descent" in e.name
                   and e.request.specs[1].length == 2]
    assert specialized and "specialized for 2 elements" in specialized[0].source
    shadow = np.zeros(3)
    with pytest.raises(ValueError, match="specialized for 2 elements"):
        specialized[0].function(np.ones(3), shadow, np.ones(3), 1.0,
                                *tape_buffers(specialized[0]))


def scaled_walk(w, start, q):
    x = start.copy()
    for _k in range(3):
        x = x * w + start
    return x[0] * x[1] + q[0] * w


@pytest.mark.parametrize("q", [np.array([0.5, 1.5]), np.linspace(0.1, 0.9, 6)],
                         ids=["short", "long"])
def test_mixed_annotations_specialize_the_short_arrays_alone(q):
    """An Active float, a short Const array and a Const array short or long: the code is made
    for start's two elements (and q's where q is short); the derivative is central
    differences'."""
    start = np.array([0.7, -0.4])
    source = srcad.source(scaled_walk, srcad.Reverse, srcad.Active(0.3), srcad.Const(start),
                          srcad.Const(q), backend="numba")
    assert "specialized for 2 elements of start" in source
    assert "x_0, x_1 = start[0], start[1]" in source
    assert ("elements of q" in source) is False  # q is only read: no code made for it
    h = 1e-6
    want = (scaled_walk(0.3 + h, start, q) - scaled_walk(0.3 - h, start, q)) / (2 * h)
    for mode in (srcad.Reverse, srcad.Forward):
        args = (srcad.Active(0.3),) if mode is srcad.Reverse else (srcad.Duplicated(0.3, 1.0),)
        got = srcad.autodiff(mode, scaled_walk, *args, srcad.Const(start), srcad.Const(q),
                             backend="numba")
        got = got[0] if mode is srcad.Reverse else got
        assert got == pytest.approx(want, rel=1e-6)


def test_the_nested_kernels_called_are_made_for_the_operand_lengths():
    """Where the descent's code is made for two elements, every nested kernel it calls is
    the one made for its operands' lengths (g's derivative code compiled into it as
    numbers: srcad/operators/nested_number_kernels.py); the general code calls the general
    kernels."""
    for mode in (srcad.Reverse, srcad.Forward):
        kernels = set(re.findall(r"(srcad_nested_\w+)\s*\(\s*srcad_space", _source(2, mode)))
        # (`_numbers`: the variant returning tuples, its arrays' elements read alone)
        assert kernels and all(re.search(r"_len(_2)+(_numbers)?$", k) for k in kernels), \
            kernels
        general = set(re.findall(r"(srcad_nested_\w+)\s*\(\s*srcad_space", _source(5, mode)))
        assert general and not any("_len_" in k for k in general), general


def weighted_energy(p, w):
    return w * (p[0] - 0.3) ** 2 + (p[1] + w) ** 2 * p[0]


def weighted_descent(w, start):
    """A nested gradient of a short array and a float (its kernel: lengths 2 and a number)."""
    x = start.copy()
    for _k in range(3):
        x = x - 0.05 * srcad.grad(weighted_energy)(x, w)
    return x[0] * w + x[1] * x[1]


def weighted_by_hand(w, start):
    x = start.copy()
    for _k in range(3):
        g = np.zeros_like(x)
        g[0] = w * 2.0 * (x[0] - 0.3) + (x[1] + w) ** 2
        g[1] = 2.0 * (x[1] + w) * x[0]
        x = x - 0.05 * g
    return x[0] * w + x[1] * x[1]


@pytest.mark.slow  # numba compiles weighted_descent in two modes (~10 s)
def test_a_nested_kernel_of_a_short_array_and_a_float_answers_as_central_differences():
    start = np.array([0.8, -0.2])
    source = srcad.source(weighted_descent, srcad.Reverse, srcad.Active(0.6),
                          srcad.Const(start), backend="numba")
    assert re.search(r"_len_2_s(_2)?(_numbers)?\s*\(", source)
    h = 1e-6
    want = (weighted_by_hand(0.6 + h, start) - weighted_by_hand(0.6 - h, start)) / (2 * h)
    reverse = srcad.autodiff(srcad.Reverse, weighted_descent, srcad.Active(0.6),
                             srcad.Const(start), backend="numba")[0]
    forward = srcad.autodiff(srcad.Forward, weighted_descent, srcad.Duplicated(0.6, 1.0),
                             srcad.Const(start), backend="numba")
    assert reverse == pytest.approx(want, rel=1e-7)
    assert forward == pytest.approx(want, rel=1e-7)
    longer = np.array([0.8, -0.2, 0.1, 0.4, 0.5])  # the general code and kernels
    want = (weighted_by_hand(0.6 + h, longer) - weighted_by_hand(0.6 - h, longer)) / (2 * h)
    assert srcad.autodiff(srcad.Reverse, weighted_descent, srcad.Active(0.6),
                          srcad.Const(longer), backend="numba")[0] == pytest.approx(want,
                                                                                   rel=1e-7)
